"""Same results on every CPU: no committed output, doctest or replay may depend on the last bit of ``log``.

numpy's ``np.log`` runs SIMD code chosen for the reader's CPU (AVX-512, NEON, SVE), which can differ
from the C library's ``log`` in the last bit; ``tests/simulated_log.py`` builds a CPU whose ``np.log``
rounds differently on about 3 % of inputs. Here, on whatever machine runs the tests:

* the simulated logarithm really differs, by exactly one ulp where it does;
* the replays of Chapter 14's attack stay bit-exact under it: the book's sampler and its replay call
  the same ``np.log``, numpy's ``Generator.laplace`` and its replay the same C ``log`` (``math.log``);
* Chapter 14 (the attack, the audit, the exercises) and every doctest of ``dp_lib`` reproduce their
  committed outputs on the simulated CPU, run as the README's test command runs them (``pytest
  --nbval``, the kernel started by nbval included); a canary notebook whose committed output *is*
  bit-sensitive fails in the same run, which shows that the kernel ran on the simulated CPU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import numpy as np
import pytest

import simulated_log
from dp_lib import distinguishing_share, laplace_mech, laplace_output_at, laplace_reachable, make_rng

ROOT = Path(__file__).resolve().parents[1]
BIT_SENSITIVE = ["chapters/14_exact_noise.ipynb", "dp_lib", "tests/test_exact.py"]


@pytest.fixture
def other_cpu(monkeypatch):
    """This process's ``np.log`` replaced by the simulated CPU's for one test."""
    real = np.log
    monkeypatch.setattr(np, "log", lambda x, *a, **k: simulated_log.perturbed(x, real(x, *a, **k)))
    return real


def test_simulated_log_rounds_differently_by_one_ulp():
    x = make_rng(1).random(200_000)
    real = np.log(x)
    simulated = simulated_log.perturbed(x, np.log(x))
    differ = simulated != real
    assert 0.02 < differ.mean() < 0.045  # about 1/2**SHIFT
    np.testing.assert_array_equal(np.abs(simulated[differ] - real[differ]), np.spacing(np.abs(real[differ])))
    assert simulated_log.perturbed(1.0, np.log(1.0)) == 0.0
    assert np.any(simulated[differ] > real[differ]) and np.any(simulated[differ] < real[differ])


def test_replays_are_exact_on_a_cpu_whose_log_rounds_differently(other_cpu):
    assert np.log is not other_cpu
    # the book's sampler and its replay: the same np.log, whatever it is
    k = make_rng(7).integers(0, 2**52, size=20_000)
    y = laplace_mech(np.ones(20_000), 1.0, 1.0, rng=make_rng(7))
    np.testing.assert_array_equal(laplace_output_at(k, 1.0, 1.0), y)
    assert laplace_reachable(y, 1.0, 1.0).all()
    # numpy's sampler calls the C library's log, not np.log: so must its replay
    raw = make_rng(9).bit_generator.random_raw(20_000)
    z = make_rng(9).laplace(1.0, 2.0, size=20_000)
    k = (raw >> np.uint64(11)).astype(np.int64)
    np.testing.assert_array_equal(laplace_output_at(k, 1.0, 2.0, sampler="numpy"), z)
    assert laplace_reachable(z, 1.0, 2.0, sampler="numpy").all()
    assert distinguishing_share(z, 1.0, 2.0, sampler="numpy") == 0.0


def _canary_notebook(path: Path) -> str:
    """A notebook that prints logarithms to the last bit: its committed output must fail on the simulated CPU.

    Returns the committed output (the real logarithms' reprs), which the failure report quotes."""
    x = np.linspace(1.5, 2.5, 4001)
    chosen = x[simulated_log.perturbed(x, np.log(x)) != np.log(x)][:3]
    source = f"import numpy as np\n[repr(float(v)) for v in np.log(np.array({chosen.tolist()!r}))]"
    cell = nbformat.v4.new_code_cell(source, execution_count=1)
    cell.outputs = [nbformat.v4.new_output("execute_result", execution_count=1,
                                           data={"text/plain": repr([repr(float(v)) for v in np.log(chosen)])})]
    nb = nbformat.v4.new_notebook(cells=[cell], metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                                         "language": "python"}})
    nbformat.write(nb, path)
    return repr(float(np.log(chosen[0])))


def test_bit_sensitive_outputs_hold_on_a_cpu_whose_log_rounds_differently(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(simulated_log.sitecustomize_source(), encoding="utf-8")
    canary = tmp_path / "canary.ipynb"
    canary_output = _canary_notebook(canary)
    report = tmp_path / "report.xml"
    env = dict(os.environ)
    env[simulated_log.ENV_VAR] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path / "site"), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "pytest", "--nbval", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
           f"--junitxml={report}", "--rootdir", str(ROOT), *BIT_SENSITIVE, str(canary)]
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    cases = list(ET.parse(report).getroot().iter("testcase"))
    failed = [c for c in cases if c.find("failure") is not None or c.find("error") is not None]
    names = [f"{c.get('classname')}::{c.get('name')}" for c in failed]
    assert len(failed) == 1 and canary_output in ET.tostring(failed[0], encoding="unicode"), (
        f"on the simulated CPU, expected only the canary to fail, got {names}:\n{run.stdout[-6000:]}")
    assert len(cases) > 50 and run.returncode == 1, json.dumps(run.stdout.splitlines()[-1:])
