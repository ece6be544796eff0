"""zCDP, Rényi DP, the subsampled Gaussian and the RDP accountant's events, cross-checked against dp-accounting 0.6.0."""

import math
import warnings

import mpmath
import numpy as np
import pytest
from dp_accounting import (ComposedDpEvent, GaussianDpEvent, LaplaceDpEvent, PoissonSampledDpEvent,
                           RandomizedResponseDpEvent, SelfComposedDpEvent, ZCDpEvent)
from dp_accounting import NeighboringRelation
from dp_accounting.rdp import RdpAccountant as GoogleRdp
from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon

from dp_lib import (DEFAULT_ORDERS, RdpAccountant, dp_sgd_sigma, gaussian_rdp, gaussian_zcdp, laplace_rdp,
                    rdp_to_epsilon, subsampled_gaussian_rdp, zcdp_to_epsilon)
from dp_lib.events import (Composed, EpsilonDeltaEvent, GaussianEvent, LaplaceEvent, PoissonSampled,
                           RandomizedResponseEvent, Repeated, ZcdpEvent)

ORDERS = list(DEFAULT_ORDERS)
REL = 1e-6  # the agreement the issue asks for
DELTA = 1e-5
# (q, sigma, steps): the rows of DP_REFERENCE §11 and a few more corners
CASES = [(0.01, 1.1, 10_000), (0.01, 4.0, 10_000), (256 / 26101, 1.0, 1000), (1.0, 10.0, 100),
         (0.001, 0.8, 100_000), (0.1, 2.0, 500), (0.5, 5.0, 50), (0.9, 20.0, 10)]


def google(event, count):
    acct = GoogleRdp(ORDERS)
    acct.compose(event, count)
    return acct


@pytest.mark.parametrize("q, sigma, steps", CASES)
def test_subsampled_gaussian_matches_dp_accounting(q, sigma, steps):
    ref = google(PoissonSampledDpEvent(q, GaussianDpEvent(sigma)), steps)
    mine = RdpAccountant().compose(Repeated(PoissonSampled(q, GaussianEvent(sigma)), steps))
    np.testing.assert_allclose(mine.rdp, ref._rdp, rtol=REL)
    eps_ref, order_ref = ref.get_epsilon_and_optimal_order(DELTA)
    assert mine.epsilon(DELTA) == pytest.approx(eps_ref, rel=REL)
    assert mine.best_order(DELTA) == order_ref


def test_reference_table_values():
    # DP_REFERENCE §11, integer orders 2–256 (sanity check of the cross-check itself)
    for (q, sigma, steps), expected in zip(CASES[:4], (5.6543, 1.0355, 2.0654, 4.7527)):
        acct = RdpAccountant().compose(Repeated(PoissonSampled(q, GaussianEvent(sigma)), steps))
        assert acct.epsilon(DELTA) == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0, 30.0])
def test_gaussian_and_zcdp_match_dp_accounting(sigma):
    ref = google(GaussianDpEvent(sigma), 7)
    np.testing.assert_allclose(7 * gaussian_rdp(ORDERS, sigma), ref._rdp, rtol=REL)
    zc = google(ZCDpEvent(gaussian_zcdp(sigma)), 7)
    mine = RdpAccountant().compose(Repeated(ZcdpEvent(gaussian_zcdp(sigma)), 7))
    np.testing.assert_allclose(mine.rdp, zc._rdp, rtol=REL)
    assert mine.epsilon(DELTA) == pytest.approx(zc.get_epsilon(DELTA), rel=REL)


@pytest.mark.parametrize("scale", [0.3, 1.0, 5.0])
def test_laplace_rdp_matches_dp_accounting(scale):
    ref = google(LaplaceDpEvent(scale), 3)
    mine = RdpAccountant().compose(Repeated(LaplaceEvent(2 * scale, sensitivity=2.0), 3))
    np.testing.assert_allclose(mine.rdp, ref._rdp, rtol=REL)
    assert mine.epsilon(DELTA) == pytest.approx(ref.get_epsilon(DELTA), rel=REL)


def test_laplace_rdp_limits():
    # tends to the pure ε as α grows, and never exceeds it; about α ε²/2 for small ε
    assert laplace_rdp(1e7, 1.0) == pytest.approx(1.0, abs=1e-6)
    assert np.all(laplace_rdp(ORDERS, 0.5) <= 2.0)
    assert laplace_rdp(2, 1000.0) == pytest.approx(2 * 1e-6 / 2, rel=1e-3)


@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-9])
def test_rdp_to_epsilon_matches_dp_accounting_on_arbitrary_curves(delta, rng):
    rdp = np.cumsum(rng.exponential(0.05, size=len(ORDERS)))  # any nondecreasing curve
    eps, order = rdp_to_epsilon(ORDERS, rdp, delta)
    eps_ref, order_ref = compute_epsilon(ORDERS, rdp, delta)
    assert eps == pytest.approx(eps_ref, rel=REL) and order == order_ref


def test_improved_conversion_beats_mironov_and_zcdp_formula():
    rdp = 100 * gaussian_rdp(np.array(ORDERS, float), 10.0)
    eps, _ = rdp_to_epsilon(ORDERS, rdp, DELTA)
    mironov = min(r + math.log(1 / DELTA) / (a - 1) for a, r in zip(ORDERS, rdp))
    assert eps < mironov
    assert zcdp_to_epsilon(100 * gaussian_zcdp(10.0), DELTA) == pytest.approx(5.2985, abs=1e-4)
    assert eps < zcdp_to_epsilon(100 * gaussian_zcdp(10.0), DELTA)


def exact_rdp(alpha, q, sigma):
    """The binomial expansion in 60-digit arithmetic."""
    mpmath.mp.dps = 60
    q, s = mpmath.mpf(q), mpmath.mpf(sigma)
    total = mpmath.fsum(mpmath.binomial(alpha, k) * (1 - q) ** (alpha - k) * q ** k
                        * mpmath.exp(mpmath.mpf(k * k - k) / (2 * s * s)) for k in range(alpha + 1))
    return float(mpmath.log(total) / (alpha - 1))


@pytest.mark.parametrize("alpha", [2, 17, 256])
@pytest.mark.parametrize("q", [1e-6, 0.003, 0.3, 0.999])
@pytest.mark.parametrize("sigma", [0.3, 1.1, 40.0])
def test_subsampled_gaussian_against_high_precision(alpha, q, sigma):
    # stable in log space for α up to 256 and q up to 1, even where plain floats would overflow
    # (e^{(k²-k)/(2σ²)} at σ = 0.3, α = 256 is e^{362,000}) or cancel (RDP ~ 1e-16 at q = 1e-6, σ = 40)
    assert subsampled_gaussian_rdp(alpha, q, sigma) == pytest.approx(exact_rdp(alpha, q, sigma), rel=1e-10)


def test_subsampled_gaussian_edges_and_monotonicity():
    a = np.array(ORDERS, float)
    assert np.all(subsampled_gaussian_rdp(ORDERS, 0.0, 1.0) == 0)
    np.testing.assert_allclose(subsampled_gaussian_rdp(ORDERS, 1.0, 2.0), gaussian_rdp(a, 2.0))
    values = [subsampled_gaussian_rdp(ORDERS, q, 1.5) for q in (0.001, 0.01, 0.1, 0.5, 1 - 1e-12, 1.0)]
    assert all(np.all(np.isfinite(v)) for v in values)
    assert all(np.all(lo <= hi * (1 + 1e-12)) for lo, hi in zip(values, values[1:]))  # more sampling, more loss
    assert np.all(np.diff(values[2]) > 0)  # RDP grows with the order
    # amplification: at small q the cost is about q² α / σ² at low orders (MTZ 2019), far below α / (2σ²)
    assert subsampled_gaussian_rdp(2, 0.01, 4.0) == pytest.approx(math.log1p(1e-4 * math.expm1(1 / 16)), rel=1e-12)


@pytest.mark.parametrize("epsilon, q, steps", [(1.0, 0.01, 1000), (0.1, 0.01, 200), (8.0, 0.05, 400),
                                               (2.0, 1.0, 20)])
def test_dp_sgd_sigma_is_the_smallest_certified_sigma(epsilon, q, steps):
    sigma = dp_sgd_sigma(epsilon, DELTA, q, steps)

    def eps_at(s):
        return RdpAccountant().compose(Repeated(PoissonSampled(q, GaussianEvent(s)), steps)).epsilon(DELTA)

    assert eps_at(sigma) <= epsilon < eps_at(sigma * (1 - 1e-5))
    # and dp-accounting agrees that σ is enough and 0.999 σ is not (its own calibrate_dp_mechanism
    # finds the same σ but takes ~15 s here)
    def google_eps(s):
        return google(SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(s)), steps), 1).get_epsilon(DELTA)

    assert google_eps(sigma) <= epsilon * (1 + REL) and google_eps(0.999 * sigma) > epsilon


def test_dp_sgd_sigma_refuses_unreachable_epsilon():
    # with orders up to 256 the conversion alone costs ln(255/256) + (ln(1/δ) - ln 256)/255 ≈ 0.0195 at δ = 1e-5
    # (its value at RDP = 0, smallest at α = 256): ε = 0.01 cannot be certified
    with pytest.raises(ValueError, match="epsilon must exceed"):
        dp_sgd_sigma(0.01, DELTA, 0.01, 100)


def test_dp_sgd_sigma_floor_is_the_conversion_at_zero_rdp():
    floor = math.log(255 / 256) + (math.log(1 / DELTA) - math.log(256)) / 255
    assert round(floor, 4) == 0.0195  # the docstring's figure
    assert floor == pytest.approx(rdp_to_epsilon(ORDERS, np.zeros(len(ORDERS)), DELTA)[0], rel=1e-12)
    assert floor < math.log(1 / DELTA) / 255 / 2  # the old docstring's ln(1/δ)/255 ≈ 0.045 was more than twice it
    with pytest.raises(ValueError, match=r"epsilon must exceed 0\.01949,"):
        dp_sgd_sigma(floor, DELTA, 0.01, 100)
    sigma = dp_sgd_sigma(1.05 * floor, DELTA, 0.01, 100)  # just above the floor: a (large) finite σ
    assert math.isfinite(sigma) and sigma > 10


def test_accountant_records_nothing_on_a_bad_call():
    acct = RdpAccountant().compose(GaussianEvent(2.0), label="first")
    before = acct.rdp.copy()
    for bad, error in [("gaussian", TypeError), (None, TypeError), (GaussianDpEvent(1.0), TypeError),
                       (PoissonSampled(0.1, LaplaceEvent(1.0)), ValueError),  # no RDP curve here
                       (EpsilonDeltaEvent(1.0, 1e-6), ValueError),  # δ > 0 has no RDP curve
                       (ZcdpEvent(1e308), ValueError),  # ρα beyond float64
                       (Repeated(ZcdpEvent(1e290), 2**53), ValueError),  # count × RDP beyond float64
                       (GaussianEvent(1.0, neighbours="replace_one"), ValueError)]:  # another relation
        with pytest.raises(error):
            acct.compose(bad)
    with pytest.raises(TypeError, match="label"):
        acct.compose(GaussianEvent(1.0), label=3)
    np.testing.assert_array_equal(acct.rdp, before)
    assert acct.history["label"].tolist() == ["first"] and acct.neighbours == "add_remove"


def test_the_02_string_interface_is_gone_with_a_clear_message():
    acct = RdpAccountant()
    with pytest.raises(TypeError, match=r"DpEvent.*removed in dp_lib 0\.3"):
        acct.compose("zcdp")  # no KeyError: 'rho'
    with pytest.raises(TypeError, match=r"^RdpAccountant\.compose\(\) got an unexpected keyword argument 'rho'"):
        acct.compose("zcdp", rho=0.5)  # Python's own message names the public method, nothing internal
    with pytest.raises(TypeError, match=r"^RdpAccountant\.compose\(\) got an unexpected keyword argument 'sigm'"):
        acct.compose(GaussianEvent(1.0), sigm=1.0)
    assert acct.history.empty and np.all(acct.rdp == 0)


def test_history_has_one_row_per_compose_call():
    acct = RdpAccountant()
    acct.compose(GaussianEvent(4.0), label="mean").compose(Repeated(LaplaceEvent(2.0), 5))
    history = acct.history
    assert list(history.columns) == ["label", "event"] and history["label"].tolist() == ["mean", "charge 2"]
    assert history["event"].iloc[1] == Repeated(LaplaceEvent(2.0), 5)
    assert repr(acct) == "RdpAccountant(orders 2..256, events=2)"


@pytest.mark.parametrize("p_epsilon", [0.1, 1.0, 3.0])
def test_randomized_response_matches_dp_accounting(p_epsilon):
    # dp-accounting's noise parameter p: with probability p the answer is a uniform bucket, so the truth is
    # reported with probability 1 - p/2 = e^ε/(1 + e^ε) for p = 2/(1 + e^ε)
    # (dp-accounting accounts it for replace-one neighbours only: one respondent's bit changes)
    ref = GoogleRdp(ORDERS, NeighboringRelation.REPLACE_ONE)
    ref.compose(RandomizedResponseDpEvent(2 / (1 + math.exp(p_epsilon)), 2), 4)
    mine = RdpAccountant().compose(Repeated(RandomizedResponseEvent(p_epsilon, neighbours="replace_one"), 4,
                                            neighbours="replace_one"))
    np.testing.assert_allclose(mine.rdp, ref._rdp, rtol=REL)
    # any ε-DP step known only by its guarantee gets randomized response's curve, the worst case of ε-DP
    np.testing.assert_array_equal(RdpAccountant().compose(Repeated(EpsilonDeltaEvent(p_epsilon), 4)).rdp, mine.rdp)


def test_composed_events_add_up_and_match_dp_accounting():
    mine = RdpAccountant().compose(Composed([GaussianEvent(3.0), LaplaceEvent(2.0),
                                             Repeated(PoissonSampled(0.02, GaussianEvent(1.5, sensitivity=1.5)), 50)]))
    ref = google(ComposedDpEvent([GaussianDpEvent(3.0), LaplaceDpEvent(2.0),
                                  SelfComposedDpEvent(PoissonSampledDpEvent(0.02, GaussianDpEvent(1.0)), 50)]), 1)
    np.testing.assert_allclose(mine.rdp, ref._rdp, rtol=REL)
    assert mine.epsilon(DELTA) == pytest.approx(ref.get_epsilon(DELTA), rel=REL)
    one_by_one = RdpAccountant().compose(GaussianEvent(3.0)).compose(LaplaceEvent(2.0))
    np.testing.assert_allclose(one_by_one.compose(Repeated(PoissonSampled(0.02, GaussianEvent(1.0)), 50)).rdp,
                               mine.rdp, rtol=1e-12)


def test_replace_one_events_compose_among_themselves():
    acct = RdpAccountant().compose(GaussianEvent(2.0, sensitivity=2.0, neighbours="replace_one"))
    acct.compose(ZcdpEvent(0.1, neighbours="replace_one"))
    assert acct.neighbours == "replace_one"
    assert acct.epsilon(DELTA) == pytest.approx(RdpAccountant().compose(ZcdpEvent(0.6)).epsilon(DELTA), rel=1e-12)


def test_edge_laplace_rdp_is_never_negative():
    # at ε = 1e-300 the two terms of the log1p form cancel to a last-bit negative value; the exact RDP is >= 0
    values = laplace_rdp([2, 4.5, 32], 1.0, 1e-300)
    assert np.all(values >= 0) and np.all(values <= 1e-300)
    acct = RdpAccountant().compose(LaplaceEvent(1.0, sensitivity=1e-300))  # accepted, not refused as negative
    assert acct.epsilon(DELTA) >= 0 and np.all(acct.rdp >= 0)
    assert np.all(laplace_rdp(ORDERS, 1e-3) <= 1e3)  # and never above ε


def test_edge_huge_zcdp_is_refused_without_a_warning():
    acct = RdpAccountant()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="beyond float64"):
            acct.compose(ZcdpEvent(1e308))
        acct.compose(ZcdpEvent(1e300))  # large but finite at every order: recorded
    assert np.all(np.isfinite(acct.rdp)) and len(acct.history) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="beyond float64"):
            acct.compose(ZcdpEvent(1e306))  # the total would overflow: refused, the first stays
    assert len(acct.history) == 1


@pytest.mark.parametrize("bad", ["0.5", ["0.5", "0.5"], [True, False], None, {"a": 1}])
def test_edge_rdp_to_epsilon_refuses_strings_and_other_non_numbers(bad):
    orders = [2, 3] if isinstance(bad, list) else [2]
    with pytest.raises(TypeError, match="rdp"):
        rdp_to_epsilon(orders, bad, DELTA)


@pytest.mark.parametrize("call, name", [
    (lambda: gaussian_rdp(1.0, 1.0), "alpha"), (lambda: gaussian_rdp(2, 0.0), "sigma"),
    (lambda: subsampled_gaussian_rdp(2.5, 0.1, 1.0), "alpha"), (lambda: subsampled_gaussian_rdp(2, -0.1, 1.0), "q"),
    (lambda: zcdp_to_epsilon(0.1, 1.0), "delta"), (lambda: zcdp_to_epsilon(-1.0, 1e-5), "rho"),
    (lambda: rdp_to_epsilon([2, 3], [0.1], 1e-5), "rdp"), (lambda: rdp_to_epsilon([2], [np.nan], 1e-5), "rdp"),
    (lambda: dp_sgd_sigma(1.0, 1e-5, 0.0, 10), "q"), (lambda: dp_sgd_sigma(1.0, 1e-5, 0.1, 0), "steps"),
    (lambda: RdpAccountant(orders=[1.5, 2]), "orders"), (lambda: RdpAccountant().epsilon(0.0), "delta"),
])
def test_bad_parameters_name_themselves(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_edge_zcdp_to_epsilon_refuses_booleans_and_strings():
    for bad in (np.False_, True, "0.5", None):
        with pytest.raises(TypeError, match="rho"):
            zcdp_to_epsilon(bad, DELTA)
    assert zcdp_to_epsilon(0, DELTA) == 0.0 and zcdp_to_epsilon(0.0, DELTA) == 0.0
