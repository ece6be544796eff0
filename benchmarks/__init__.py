"""Speed benchmarks of dp_lib: against straightforward reference code, the numpy floor, and the clock.

Run ``python -m benchmarks`` from the repository root (about 2-3 minutes);
``python -m benchmarks --book`` also times ``pytest --nbval`` and a clean
``jupyter-book build --all .`` (several minutes more). The report goes to
``benchmarks/results/latest.md`` and ``latest.csv`` and is printed.

Modules: ``references`` (per-element reference implementations),
``families`` (the three contenders per mechanism family), ``timing``
(interleaved medians), ``sliders`` (slider-callback latency), ``scale``
(n = 10^7 in fresh processes), ``book`` (whole-book cost), ``report``.

A benchmark is not a test: nothing here asserts a time. The smoke test
``tests/test_benchmarks_smoke.py`` only checks that the references still
compute what dp_lib computes.
"""
