"""Chapter 11's exercise specifications (exercises/ch11.py): every valid bound of ex5 is accepted, and ex6's σ
doubles with the sensitivity.

The checks common to every chapter are in tests/test_exercises.py."""

import numpy as np
import pytest

from dp_lib.selfcheck import evaluate
from exercises.ch11 import EXERCISES


@pytest.mark.parametrize("steps", [400, 500, 600])
def test_ex5_every_valid_bound_is_accepted(steps):
    from dp_lib import (PldAccountant, RdpAccountant, gdp_epsilon, gaussian_rdp, gaussian_zcdp, rdp_to_epsilon,
                        zcdp_to_epsilon)
    from dp_lib.events import GaussianEvent, Repeated

    ex = next(e for e in EXERCISES if e.key == "ex5")
    p = dict(ex.default, steps=steps)
    z = ex.solve(p)[0]
    rho = steps * gaussian_zcdp(z)
    orders = np.round(np.concatenate([np.arange(1.01, 2, 0.01), np.arange(2, 257)]), 2)
    bounds = [steps * zcdp_to_epsilon(gaussian_zcdp(z), 1e-5 / steps),
              RdpAccountant().compose(Repeated(GaussianEvent(z), steps)).epsilon(1e-5), zcdp_to_epsilon(rho, 1e-5),
              rdp_to_epsilon(orders, steps * gaussian_rdp(orders, z), 1e-5)[0],
              PldAccountant(step=1e-3).compose(Repeated(GaussianEvent(z), steps)).epsilon(1e-5),
              gdp_epsilon(1e-5, np.sqrt(steps) / z)]
    doc = ex.check_doc(p)
    for bound in bounds:
        assert all(r.ok for r in evaluate([z, float(bound)], doc)), bound


def test_ex6_sigma_doubles_with_the_sensitivity():
    """The analytic Gaussian σ is proportional to Δ: the replace-one σ is twice the add/remove one."""
    from dp_lib import analytic_gaussian_sigma

    ex = next(e for e in EXERCISES if e.key == "ex6")
    for p in [ex.default] + [ex.params(np.random.default_rng(s)) for s in range(5)]:
        sensitivity, sigma = ex.solve(p)
        add_remove = analytic_gaussian_sigma(p["clip"], 0.95 * p["epsilon"] / p["k"], p["delta"] / p["k"])
        assert sensitivity == 2 * p["clip"] and sigma == pytest.approx(2 * add_remove, rel=1e-9)
