"""The child side of grading: run one submission's code cells in a sandbox and report plain data.

This file is not imported by the grader: its source is run as ``python -I -c <source>`` in a fresh process
(so it needs nothing from the repository but ``dp_lib``, and the repository is not on ``sys.path``). The job
(the cells, the answer names, the probes, the limits, the readable paths) arrives on stdin; the report is
one JSON document written to the file descriptor ``job["result_fd"]``, which the parent reads after the
process has ended and validates. Everything the report says is a claim of the student's code: the parent
treats it as the answers the student typed, nothing more.

Order: read the job; address-space (the parent's measured baseline of importing numpy, pandas, matplotlib and
dp_lib, plus the job's memory), CPU, file-size, open-file and core limits; no new privileges; drop every capability; Landlock (read only the
listed paths, write only the temporary folder, no execve, no TCP, no signals or abstract sockets outside the
sandbox); seccomp (no fork/vfork/clone of a process: threads only); then the cells, each exception caught.
"""

import ctypes
import json
import os
import resource
import signal
import struct
import sys
import traceback

job = json.loads(sys.stdin.buffer.read())
sys.stdin = open(os.devnull)  # noqa: SIM115 - the student's input() reads nothing
RESULT_FD = job["result_fd"]


def _load_selfcheck(path):
    """dp_lib.selfcheck (standard library only) without importing the whole package."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_grading_selfcheck", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


to_plain = _load_selfcheck(job["selfcheck"]).to_plain
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def _fail(what):
    raise OSError(ctypes.get_errno(), f"sandbox: {what} failed: {os.strerror(ctypes.get_errno())}")


def limits(address_space, cpu_seconds, file_bytes):
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 2))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, PR_CAPBSET_DROP = 38, 22, 24


def drop_privileges():
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        _fail("no_new_privs")
    for cap in range(64):  # the bounding set, then every capability of this (possibly root) process
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()
    if libc.capset(header, data) != 0:
        _fail("capset")


# Landlock (Linux >= 5.13); the syscall numbers are the same on x86-64 and arm64.
SYS_CREATE, SYS_ADD_RULE, SYS_RESTRICT = 444, 445, 446
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
FS_ALL_ABI1 = (1 << 13) - 1
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
FS_MAKE_CHAR, FS_MAKE_BLOCK = 1 << 6, 1 << 11
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV


def landlock_abi():
    abi = libc.syscall(SYS_CREATE, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    return abi if abi > 0 else 0


def landlock(read_paths, write_paths):
    abi = landlock_abi()
    if abi < 1:
        _fail("Landlock (not available in this kernel)")
    handled = FS_ALL_ABI1 | (FS_REFER if abi >= 2 else 0) | (FS_TRUNCATE if abi >= 3 else 0) \
        | (FS_IOCTL_DEV if abi >= 5 else 0)
    net = 3 if abi >= 4 else 0  # bind and connect TCP: none allowed
    scoped = 3 if abi >= 6 else 0  # abstract unix sockets and signals: only inside the sandbox
    attr = struct.pack("QQQ", handled, net, scoped)
    size = 8 if abi < 4 else (16 if abi < 6 else 24)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = libc.syscall(SYS_CREATE, buf, ctypes.c_size_t(size), 0)
    if ruleset < 0:
        _fail("landlock_create_ruleset")
    read = FS_READ_FILE | FS_READ_DIR
    write = handled & ~(FS_EXECUTE | FS_MAKE_CHAR | FS_MAKE_BLOCK | FS_IOCTL_DEV)
    for paths, rights in ((read_paths, read), (write_paths, write)):
        for path in paths:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # a path that does not exist here
            allowed = rights if os.path.isdir(path) else rights & FILE_RIGHTS
            rule = ctypes.create_string_buffer(struct.pack("=Qi", allowed, fd), 12)
            if libc.syscall(SYS_ADD_RULE, ruleset, 1, rule, 0) != 0:
                _fail(f"landlock_add_rule({path})")
            os.close(fd)
    if libc.syscall(SYS_RESTRICT, ruleset, 0) != 0:
        _fail("landlock_restrict_self")
    os.close(ruleset)
    return abi


def seccomp_no_processes():
    """A seccomp filter: fork, vfork and clone without CLONE_THREAD fail with EPERM; clone3 with ENOSYS (the C
    library then uses clone for threads); everything else is allowed."""
    import platform

    machine = platform.machine()
    if machine == "x86_64":
        arch, clone, clone3, forks = 0xC000003E, 56, 435, (57, 58)
    elif machine in ("aarch64", "arm64"):
        arch, clone, clone3, forks = 0xC00000B7, 220, 435, ()
    else:
        _fail(f"seccomp (unknown machine {machine})")
    LD, JEQ, JSET, RET = 0x20, 0x15, 0x45, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_JMP|JSET|K, BPF_RET|K
    ALLOW, EPERM, ENOSYS, KILL = 0x7FFF0000, 0x00050001, 0x00050026, 0x80000000
    prog = [(LD, 0, 0, 4), (JEQ, 1, 0, arch), (RET, 0, 0, KILL), (LD, 0, 0, 0)]
    body = [(JEQ, 0, 1, clone3), (RET, 0, 0, ENOSYS)]
    for nr in forks:
        body += [(JEQ, 0, 1, nr), (RET, 0, 0, EPERM)]
    if machine == "x86_64":
        body += [(JSET, 0, 1, 0x40000000), (RET, 0, 0, EPERM)]  # x32 system calls
    body += [(JEQ, 1, 0, clone), (RET, 0, 0, ALLOW), (LD, 0, 0, 16), (JSET, 0, 1, 0x00010000),
             (RET, 0, 0, ALLOW), (RET, 0, 0, EPERM)]
    prog += body
    raw = b"".join(struct.pack("HBBI", *ins) for ins in prog)
    filt = ctypes.create_string_buffer(raw, len(raw))

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = Prog(len(prog), ctypes.cast(filt, ctypes.c_void_p))
    if libc.prctl(PR_SET_SECCOMP, 2, ctypes.byref(fprog), 0, 0) != 0:
        _fail("seccomp")


class CellTimeout(BaseException):
    """A cell ran longer than its share of the time."""


def _on_alarm(signum, frame):
    raise CellTimeout(f"the cell ran longer than {job['cell_timeout']:g} s")


class CappedText:
    """stdout/stderr that keep at most ``cap`` characters (a flood of output costs nothing)."""

    def __init__(self, fd, cap):
        self.fd, self.left = fd, cap

    def write(self, text):
        text = str(text)
        if self.left > 0:
            piece = text[: self.left]
            self.left -= len(piece)
            try:
                os.write(self.fd, piece.encode("utf-8", "replace"))
            except OSError:
                self.left = 0
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False


def setup():
    """Limits and sandbox, before any of the student's code; exit status 3 when they cannot be set up."""
    sandbox = job.get("sandbox", True)
    limits(job["address_space"], job["cpu_seconds"], job["file_bytes"])
    abi = 0
    if sandbox:
        drop_privileges()
        abi = landlock(job["read_paths"], job["write_paths"])
        seccomp_no_processes()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the file-size limit fails (EFBIG), no kill
    return abi


def main(abi):
    os.chdir(job["workdir"])
    sys.stdout = CappedText(1, job["output_chars"])
    sys.stderr = CappedText(2, job["output_chars"])
    namespace = {"__name__": "__main__", "__builtins__": __builtins__,
                 "display": lambda *objects, **options: None}  # Jupyter's display(): nothing to show here
    cells = []
    signal.signal(signal.SIGALRM, _on_alarm)
    for index, source in enumerate(job["cells"]):
        status = {"index": index, "ok": True}
        try:
            code = compile(source, f"<cell {index}>", "exec")
            signal.setitimer(signal.ITIMER_REAL, job["cell_timeout"])
            try:
                exec(code, namespace)  # noqa: S102 - the student's cell, in the sandbox
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except BaseException as error:  # noqa: BLE001 - like Run All with raises-exception: go on
            status.update(ok=False, error=type(error).__name__, message=str(error)[:300])
            if isinstance(error, MemoryError):
                import gc

                gc.collect()
        cells.append(status)
    answers, probes = {}, {}
    for name in job["answers"]:
        try:
            answers[name] = to_plain(namespace.get(name))
        except BaseException as error:  # noqa: BLE001
            answers[name] = {"__error__": type(error).__name__}
    for probe in job["probes"]:
        try:
            signal.setitimer(signal.ITIMER_REAL, job["cell_timeout"])
            try:
                first, *rest = probe["function"].split(".")
                function = namespace.get(first)
                for attribute in rest:  # a dotted path: the event inside the student's AuditResult
                    function = getattr(function, attribute, None)
                if not callable(function):
                    probes[probe["name"]] = {"__error__": f"{probe['function']} is not defined"}
                    continue
                args = probe["args"]
                if probe.get("arrays"):
                    import numpy

                    args = [numpy.asarray(a, dtype=float) if isinstance(a, list) else a for a in args]
                probes[probe["name"]] = {"value": to_plain(function(*args))}
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except BaseException as error:  # noqa: BLE001
            probes[probe["name"]] = {"__error__": f"{type(error).__name__}: {str(error)[:200]}"}
    report = {"cells": cells, "answers": answers, "probes": probes, "landlock_abi": abi}
    data = json.dumps(report, allow_nan=True, default=repr).encode("utf-8")
    os.write(RESULT_FD, data)
    os.close(RESULT_FD)


try:
    landlock_version = setup()
except BaseException:  # noqa: BLE001 - the sandbox could not be set up: say so on stderr
    os.write(2, traceback.format_exc().encode()[-2000:])
    os._exit(3)
try:
    main(landlock_version)
except BaseException:  # noqa: BLE001 - the report could not be made (the student's code broke the process)
    os._exit(4)
os._exit(0)
