"""Interleaved wall-clock timing with repeats: the median is reported.

Each contender is first called once (warm-up and loop calibration); then in
every round each contender runs once, in turn, so a burst of load from other
processes hits all of them alike. A fast contender is looped inside one
measurement until it lasts at least ``min_time`` seconds, so timer resolution
and call overhead of the harness do not matter.
"""

from __future__ import annotations

import gc
import statistics
import time

__all__ = ["calibrate", "interleaved", "time_once"]


def time_once(fn, number=1, with_cpu=False):
    """Seconds per call of ``fn`` over ``number`` calls, with the garbage collector paused.

    With ``with_cpu=True``: a pair (wall-clock seconds, process CPU seconds) per call.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        start, start_cpu = time.perf_counter(), time.process_time()
        for _ in range(number):
            fn()
        wall, cpu = (time.perf_counter() - start) / number, (time.process_time() - start_cpu) / number
        return (wall, cpu) if with_cpu else wall
    finally:
        if enabled:
            gc.enable()


def calibrate(fn, min_time=0.05, max_number=10_000) -> int:
    """Number of calls per measurement so that one measurement lasts about ``min_time`` s (first call warms up)."""
    first = time_once(fn)
    if first >= min_time:
        return 1
    return int(min(max_number, max(1, min_time / max(first, 1e-7))))


def interleaved(contenders: dict, rounds=5, min_time=0.05, fixed=None) -> dict:
    """Median seconds per call of each contender, measured round-robin over ``rounds`` rounds.

    Parameters
    ----------
    contenders : dict name -> zero-argument callable.
    rounds : number of measurements per contender.
    min_time : a fast contender is looped to last at least this long per measurement.
    fixed : optional dict name -> calls per measurement; those contenders skip the warm-up call
        (meant for the slow pure-Python references, which have nothing to warm up).

    Returns
    -------
    dict name -> {"median": s, "min": s, "max": s, "cpu_median": s, "number": calls per measurement,
    "rounds": rounds}; all wall-clock except ``cpu_median``, the median process CPU time (which
    leaves out the time other processes held the core).
    """
    fixed = fixed or {}
    numbers = {name: fixed[name] if name in fixed else calibrate(fn, min_time) for name, fn in contenders.items()}
    samples = {name: [] for name in contenders}
    cpu = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            wall, used = time_once(fn, numbers[name], with_cpu=True)
            samples[name].append(wall)
            cpu[name].append(used)
        gc.collect()
    return {
        name: {"median": statistics.median(s), "min": min(s), "max": max(s), "cpu_median": statistics.median(cpu[name]),
               "number": numbers[name], "rounds": rounds}
        for name, s in samples.items()
    }
