"""Simulate a CPU whose ``np.log`` rounds differently, so that tests on any machine catch bit-level results.

numpy dispatches ``np.log`` to SIMD kernels chosen at run time (AVX-512 on many x86-64 servers, NEON
or SVE on ARM). Those kernels are accurate to about an ulp but are not the C library's ``log``: on an
AVX-512 CPU they differ from it in the last bit for about 1 input in 300. A committed output, a
doctest or a test expectation that depends on that bit passes on the machine where it was written
and fails on a reader's.

``install()`` replaces ``numpy.log`` by a function that returns numpy's value moved by one ulp
(up or down) on a fixed, input-determined subset of inputs (``1/2**SHIFT``, about 3 %, ten times the
AVX-512 rate, so that a bit-sensitive output is very likely to be caught). It is what a CPU with a
different, equally accurate logarithm would compute. ``math.log`` is left alone on purpose: it *is* the
C library's ``log``, the one numpy's own samplers (``Generator.laplace``) call, and a simulation that
changed one but not the other would model no real machine.

``sitecustomize_source()`` is a ``sitecustomize.py`` that installs it at interpreter start when the
variable ``DP_BOOK_SIMULATED_LOG`` is ``1`` (or names several functions, ``log,exp,log1p,expm1``, for an
exploratory run: ARM's kernels differ from the C library in ``exp`` too): put the file's folder on ``PYTHONPATH`` and every Python
process started with that environment (pytest, and the Jupyter kernels that nbval starts) runs on
the simulated CPU. Importing this module changes nothing.
"""

from __future__ import annotations

from pathlib import Path

ENV_VAR = "DP_BOOK_SIMULATED_LOG"  # "1": log only; or a comma-separated list of FUNCTIONS
FUNCTIONS = ("log", "exp", "log1p", "expm1", "log2", "log10")
SHIFT = 5  # perturb inputs whose hash falls in the lowest 1/2**SHIFT of its range
_GOLDEN = 0x9E3779B97F4A7C15  # Fibonacci hashing: the top bits of bits * golden spread the inputs


def perturbed(x, result):
    """``result`` (numpy's log of ``x``) with the selected entries moved one ulp; others untouched."""
    import numpy as np

    out = np.asarray(result)
    if out.dtype != np.float64:
        return result
    try:
        bits = np.broadcast_to(np.asarray(x, dtype=np.float64), out.shape).view(np.uint64)
    except (TypeError, ValueError):
        return result
    with np.errstate(over="ignore"):
        h = bits * np.uint64(_GOLDEN)  # wraps modulo 2**64 (intended)
    chosen = (h >> np.uint64(64 - SHIFT)) == 0
    up = ((h >> np.uint64(64 - SHIFT - 1)) & np.uint64(1)) == 1
    chosen &= np.isfinite(out) & (out != 0) & (bits != 0)  # log(1) = 0, exp(0) = 1: exact on every machine
    if not chosen.any():
        return result
    moved = np.where(up, np.nextafter(out, np.inf), np.nextafter(out, -np.inf))
    new = np.where(chosen, moved, out)
    if isinstance(result, np.ndarray) and result.ndim:
        result[...] = new  # keep the identity of an ``out=`` array
        return result
    return np.float64(new) if np.ndim(new) == 0 else new


def install(functions=("log",)) -> None:
    """Replace ``numpy.log`` (and any other of ``FUNCTIONS`` named) by the simulated CPU's version (idempotent)."""
    import numpy as np

    for name in functions:
        if name not in FUNCTIONS:
            raise ValueError(f"functions must be among {FUNCTIONS}, got {name!r}")
        real = getattr(np, name)
        if getattr(real, "_simulated", False):
            continue
        setattr(np, name, _simulated(real, name))


def _simulated(real, name):
    import numpy as np

    def simulated(x, *args, **kwargs):
        if args or "out" in kwargs:  # an ``out=`` array may be ``x`` itself: keep the inputs
            x = np.array(x, dtype=np.float64, copy=True)
        return perturbed(x, real(x, *args, **kwargs))

    simulated._simulated = True
    simulated._real = real
    simulated.__name__ = name
    simulated.__doc__ = f"numpy's {name}, one ulp off on about 1 input in 2**SHIFT (tests/simulated_log.py)"
    return simulated


def sitecustomize_source() -> str:
    """A sitecustomize.py that installs the simulated logarithm when ``DP_BOOK_SIMULATED_LOG=1``."""
    here = Path(__file__).resolve()
    return (
        "import os\n"
        f"_names = os.environ.get({ENV_VAR!r}, '')\n"
        "if _names:\n"
        "    import importlib.util\n"
        f"    _spec = importlib.util.spec_from_file_location('_dp_book_simulated_log', {str(here)!r})\n"
        "    _mod = importlib.util.module_from_spec(_spec)\n"
        "    _spec.loader.exec_module(_mod)\n"
        "    _mod.install(('log',) if _names == '1' else tuple(_names.split(',')))\n"
    )
