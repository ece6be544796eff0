"""Tests for dp_lib.selection: exact distributions, samplers, privacy and bad input.

Statistical tests use fixed seeds and reject at alpha = 0.001; each comes with
a "power" twin showing that the same test rejects a wrong scale.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from dp_lib import (exponential_error_bound, exponential_mech, exponential_probabilities, make_rng,
                    noisy_max_scale, permute_and_flip, permute_and_flip_probabilities, report_noisy_max)

ALPHA = 1e-3
N = 100_000
SCORES = np.array([3.0, 2.5, 1.0, 0.0])
CANDS = ["w", "x", "y", "z"]


def chi2_pvalue(draws, probabilities, candidates=CANDS):
    counts = np.array([(np.asarray(draws) == c).sum() for c in candidates])
    return stats.chisquare(counts, probabilities * counts.sum()).pvalue


def brute_force_pf(scores, sensitivity, epsilon, monotone=False):
    """Permute-and-flip probabilities by enumerating every visiting order."""
    u = np.asarray(scores, float)
    q = np.exp(epsilon * (u - u.max()) / (sensitivity if monotone else 2 * sensitivity))
    p = np.zeros(u.size)
    for order in itertools.permutations(range(u.size)):
        still_running = 1.0
        for r in order:
            p[r] += still_running * q[r]
            still_running *= 1 - q[r]
    return p / math.factorial(u.size)


def rnm_laplace_probabilities(scores, scale):
    """Pr[argmax(u + Lap(scale))] = ∫ f(x - u_i) ∏_{j≠i} F(x - u_j) dx, by quadrature."""
    u = np.asarray(scores, float)
    lap = stats.laplace(scale=scale)
    out = []
    for i in range(u.size):
        others = np.delete(u, i)
        def integrand(x, ui=u[i], others=others):
            return lap.pdf(x - ui) * np.prod(lap.cdf(x - others))
        value, _ = integrate.quad(integrand, u.min() - 60 * scale, u.max() + 60 * scale,
                                  points=list(u), limit=200, epsabs=1e-12)
        out.append(value)
    return np.array(out)


# --- exact probabilities -------------------------------------------------------------------------

def test_exponential_probabilities_by_hand():
    e = math.e
    assert np.allclose(exponential_probabilities([2.0, 0.0], 1.0, 1.0), [e / (e + 1), 1 / (e + 1)])
    assert np.allclose(exponential_probabilities([2.0, 0.0], 1.0, 1.0, monotone=True),
                       [e**2 / (e**2 + 1), 1 / (e**2 + 1)])
    # Δ = 2, ε = 4: weights exp(u); u = (1, 0, -1)
    w = np.exp([1.0, 0.0, -1.0])
    assert np.allclose(exponential_probabilities([1.0, 0.0, -1.0], 2.0, 4.0), w / w.sum())


def test_exponential_probabilities_stable_for_huge_scores():
    p = exponential_probabilities([1e6, 0.0, 5e5], 1.0, 10.0)
    assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0)
    assert p[0] == 1.0
    p = exponential_probabilities([1e6, 1e6 - 1], 1.0, 10.0, monotone=True)
    assert p[1] / p[0] == pytest.approx(math.exp(-10.0))
    # Adult marital-status counts at ε = 1: the naive formula overflows, this does not
    counts = [14976, 10683, 4443, 1025, 993, 418, 23]
    p = exponential_probabilities(counts, 1.0, 1.0)
    assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0)


def test_permute_and_flip_two_candidates_by_hand():
    # q = (1, e^-1): the low candidate wins only if visited first (1/2) and its coin lands (e^-1)
    p = permute_and_flip_probabilities([2.0, 0.0], 1.0, 1.0)
    assert np.allclose(p, [1 - math.exp(-1) / 2, math.exp(-1) / 2], atol=1e-14)


@pytest.mark.parametrize("monotone", [False, True])
def test_permute_and_flip_probabilities_match_enumeration(monotone):
    rng = make_rng(3)
    for m in range(1, 7):
        for _ in range(5):
            u = rng.integers(0, 6, size=m).astype(float)  # integer scores, so ties occur
            eps = float(rng.choice([0.3, 1.0, 3.0]))
            exact = permute_and_flip_probabilities(u, 1.5, eps, monotone=monotone)
            assert np.allclose(exact, brute_force_pf(u, 1.5, eps, monotone), rtol=1e-12, atol=1e-14)
            assert exact.sum() == pytest.approx(1.0, abs=1e-12)


def test_permute_and_flip_probabilities_large_and_extreme():
    rng = make_rng(4)
    p = permute_and_flip_probabilities(rng.normal(size=3000), 1.0, 1.0)
    assert p.sum() == pytest.approx(1.0, abs=1e-10) and np.all(p > 0)
    p = permute_and_flip_probabilities([1e6, 0.0, 1e6], 1.0, 10.0)
    assert np.allclose(p, [0.5, 0.0, 0.5])


def test_reference_example_pf_beats_em():
    # DP_REFERENCE §4: u = (10, 9, 7, 3, 0), ε = 1, Δ = 1; expected error PF 0.645 (0.648 by Monte Carlo), EM 0.833
    u = np.array([10.0, 9.0, 7.0, 3.0, 0.0])
    err_pf = u.max() - permute_and_flip_probabilities(u, 1.0, 1.0) @ u
    err_em = u.max() - exponential_probabilities(u, 1.0, 1.0) @ u
    assert err_pf == pytest.approx(0.6452, abs=5e-4)
    assert err_em == pytest.approx(0.8329, abs=5e-4)


@pytest.mark.parametrize("monotone", [False, True])
def test_pf_expected_score_at_least_em(monotone):
    rng = make_rng(5)
    for _ in range(300):
        m = int(rng.integers(2, 40))
        u = rng.normal(scale=float(rng.choice([0.5, 3.0, 20.0])), size=m)
        eps = float(rng.choice([0.1, 1.0, 5.0]))
        pf = permute_and_flip_probabilities(u, 1.0, eps, monotone=monotone) @ u
        em = exponential_probabilities(u, 1.0, eps, monotone=monotone) @ u
        assert pf >= em - 1e-9


def _max_log_ratio(f, u, v, eps, monotone):
    a, b = f(u, 1.0, eps, monotone=monotone), f(v, 1.0, eps, monotone=monotone)
    return float(np.max(np.abs(np.log(a) - np.log(b))))


@pytest.mark.parametrize("f", [exponential_probabilities, permute_and_flip_probabilities])
def test_exact_privacy_loss(f):
    rng = make_rng(6)
    worst_general = worst_monotone = worst_misused = 0.0
    for _ in range(300):
        u = rng.integers(0, 5, size=int(rng.integers(2, 6))).astype(float)
        general = u + rng.integers(-1, 2, size=u.size)  # each score moves by at most Δ = 1
        mono = u + rng.integers(0, 2, size=u.size)  # all scores move up (a record was added)
        worst_general = max(worst_general, _max_log_ratio(f, u, general, 1.0, False))
        worst_monotone = max(worst_monotone, _max_log_ratio(f, u, mono, 1.0, True))
        worst_misused = max(worst_misused, _max_log_ratio(f, u, general, 1.0, True))
    assert worst_general <= 1.0 + 1e-9 and worst_monotone <= 1.0 + 1e-9
    assert worst_misused > 1.5  # the monotone scale on non-monotone scores is not 1-DP


# --- samplers -------------------------------------------------------------------------------------

def test_exponential_mech_chi_square():
    draws = exponential_mech(CANDS, SCORES, 1.0, 1.0, rng=make_rng(10), size=N)
    assert chi2_pvalue(draws, exponential_probabilities(SCORES, 1.0, 1.0)) > ALPHA
    assert chi2_pvalue(draws, exponential_probabilities(SCORES, 1.0, 1.0, monotone=True)) < ALPHA
    draws = exponential_mech(CANDS, SCORES, 1.0, 1.0, rng=make_rng(11), size=N, monotone=True)
    assert chi2_pvalue(draws, exponential_probabilities(SCORES, 1.0, 1.0, monotone=True)) > ALPHA


def test_exponential_mech_is_inverse_cdf_on_the_same_draws():
    p = exponential_probabilities(SCORES, 1.0, 1.0)
    cdf = np.cumsum(p)
    by_hand = np.searchsorted(cdf, cdf[-1] * make_rng(12).random(1000), side="right")
    draws = exponential_mech(np.arange(4), SCORES, 1.0, 1.0, rng=make_rng(12), size=1000)
    assert np.array_equal(draws, by_hand)


def test_exponential_mech_never_returns_zero_probability_candidate():
    draws = exponential_mech(CANDS, [0.0, 0.0, -1e6, -1e6], 1.0, 1.0, rng=make_rng(13), size=N)
    assert set(draws.tolist()) == {"w", "x"}


def test_gumbel_noisy_max_is_exponential_mechanism():
    for monotone in (False, True):
        draws = report_noisy_max(CANDS, SCORES, 1.0, 1.0, rng=make_rng(20), noise="gumbel",
                                 monotone=monotone, size=N)
        assert chi2_pvalue(draws, exponential_probabilities(SCORES, 1.0, 1.0, monotone=monotone)) > ALPHA
        assert chi2_pvalue(draws, exponential_probabilities(SCORES, 1.0, 1.0, monotone=not monotone)) < ALPHA


def test_exponential_noisy_max_is_permute_and_flip():
    for monotone in (False, True):
        exact = permute_and_flip_probabilities(SCORES, 1.0, 1.0, monotone=monotone)
        rnm = report_noisy_max(CANDS, SCORES, 1.0, 1.0, rng=make_rng(30), noise="exponential",
                               monotone=monotone, size=N)
        pf = permute_and_flip(CANDS, SCORES, 1.0, 1.0, rng=make_rng(31), monotone=monotone, size=N)
        assert chi2_pvalue(rnm, exact) > ALPHA and chi2_pvalue(pf, exact) > ALPHA
        assert chi2_pvalue(pf, exponential_probabilities(SCORES, 1.0, 1.0, monotone=monotone)) < ALPHA


def test_laplace_noisy_max_scale():
    general = rnm_laplace_probabilities(SCORES, 2.0)  # 2Δ/ε with Δ = 1, ε = 1
    monotone = rnm_laplace_probabilities(SCORES, 1.0)
    assert general.sum() == pytest.approx(1.0, abs=1e-6)
    draws = report_noisy_max(CANDS, SCORES, 1.0, 1.0, rng=make_rng(40), size=N)
    assert chi2_pvalue(draws, general) > ALPHA and chi2_pvalue(draws, monotone) < ALPHA
    draws = report_noisy_max(CANDS, SCORES, 1.0, 1.0, rng=make_rng(41), monotone=True, size=N)
    assert chi2_pvalue(draws, monotone) > ALPHA and chi2_pvalue(draws, general) < ALPHA


def test_noisy_max_scale():
    assert noisy_max_scale(1.0, 1.0) == 2.0
    assert noisy_max_scale(3.0, 0.5, monotone=True) == 6.0
    assert noisy_max_scale(3.0, 0.5) == 12.0


def test_utility_bound_holds_empirically():
    u = make_rng(50).normal(scale=5.0, size=100)
    draws = exponential_mech(np.arange(100), u, 1.0, 1.0, rng=make_rng(51), size=N)
    errors = u.max() - u[draws]
    for t in (0.5, 1.0, 2.0, 4.0):
        share = np.mean(errors >= exponential_error_bound(100, 1.0, 1.0, t))
        assert share <= math.exp(-t) + 3 * math.sqrt(math.exp(-t) / N)
    assert exponential_error_bound(100, 1.0, 1.0, 3.0) == pytest.approx(2 * (math.log(100) + 3))
    assert exponential_error_bound(100, 1.0, 1.0, 3.0, n_optimal=4, monotone=True) == pytest.approx(
        math.log(25) + 3)
    assert np.allclose(exponential_error_bound(10, 2.0, 1.0, np.array([0.0, 1.0])),
                       4 * (math.log(10) + np.array([0.0, 1.0])))


# --- return types ---------------------------------------------------------------------------------

@pytest.mark.parametrize("mech", [exponential_mech, report_noisy_max, permute_and_flip])
def test_return_types(mech):
    one = mech(["a", "b"], [1.0, 0.0], 1.0, 1.0, rng=make_rng(60))
    assert isinstance(one, str)
    num = mech(np.array([7, 8]), [1.0, 0.0], 1.0, 1.0, rng=make_rng(60))
    assert type(num) is int
    many = mech([(1, 2), (3, 4)], [1.0, 0.0], 1.0, 1.0, rng=make_rng(60), size=5)
    assert many.shape == (5,) and many[0] in [(1, 2), (3, 4)]
    assert mech(["a", "b"], [1.0, 0.0], 1.0, 1.0, rng=make_rng(60), size=0).shape == (0,)


# --- bad input ------------------------------------------------------------------------------------

SAMPLERS = [exponential_mech, report_noisy_max, permute_and_flip]


@pytest.mark.parametrize("mech", SAMPLERS)
@pytest.mark.parametrize("candidates, scores, sensitivity, epsilon, match", [
    ([], [], 1.0, 1.0, "candidates must not be empty"),
    (["a", "b"], [1.0], 1.0, 1.0, "candidates and scores must have the same length"),
    (["a", "b"], [1.0, np.nan], 1.0, 1.0, "scores must contain only finite"),
    (["a", "b"], [1.0, np.inf], 1.0, 1.0, "scores must contain only finite"),
    (["a", "b"], [[1.0, 0.0]], 1.0, 1.0, "scores must be a 1-dimensional"),
    (["a", "b"], [1.0, 0.0], 0.0, 1.0, "sensitivity"),
    (["a", "b"], [1.0, 0.0], -1.0, 1.0, "sensitivity"),
    (["a", "b"], [1.0, 0.0], 1.0, 0.0, "epsilon"),
    (["a", "b"], [1.0, 0.0], 1.0, -2.0, "epsilon"),
    (["a", "b"], [1.0, 0.0], 1.0, np.nan, "epsilon"),
])
def test_bad_input(mech, candidates, scores, sensitivity, epsilon, match):
    with pytest.raises(ValueError, match=match):
        mech(candidates, scores, sensitivity, epsilon, rng=make_rng(0))


@pytest.mark.parametrize("mech", SAMPLERS)
def test_bad_rng_size_monotone(mech):
    args = (["a", "b"], [1.0, 0.0], 1.0, 1.0)
    for bad_rng in (None, 42):
        with pytest.raises(TypeError, match="rng"):
            mech(*args, rng=bad_rng)
    with pytest.raises(ValueError, match="size"):
        mech(*args, rng=make_rng(0), size=-1)
    for bad_size in (2.5, "3"):
        with pytest.raises(TypeError, match="size"):
            mech(*args, rng=make_rng(0), size=bad_size)
    for bad_flag in ("yes", 1, None):
        with pytest.raises(TypeError, match="monotone"):
            mech(*args, rng=make_rng(0), monotone=bad_flag)
    with pytest.raises(TypeError, match="scores must be numeric"):
        mech(["a", "b"], ["x", "y"], 1.0, 1.0, rng=make_rng(0))


def test_bad_noise_and_probability_inputs():
    with pytest.raises(ValueError, match="noise must be one of"):
        report_noisy_max(["a"], [1.0], 1.0, 1.0, rng=make_rng(0), noise="normal")
    for f in (exponential_probabilities, permute_and_flip_probabilities):
        with pytest.raises(ValueError, match="scores must not be empty"):
            f([], 1.0, 1.0)
        with pytest.raises(ValueError, match="scores must contain only finite"):
            f([0.0, np.nan], 1.0, 1.0)
        with pytest.raises(ValueError, match="sensitivity"):
            f([0.0], 0.0, 1.0)
        with pytest.raises(ValueError, match="epsilon"):
            f([0.0], 1.0, 0.0)
        with pytest.raises(ValueError, match="epsilon / sensitivity is too large"):
            f([0.0, 1.0], 1e-320, 1e10)
    with pytest.raises(ValueError, match="n_optimal"):
        exponential_error_bound(3, 1.0, 1.0, 1.0, n_optimal=4)
    with pytest.raises(ValueError, match="t must be >= 0"):
        exponential_error_bound(3, 1.0, 1.0, -1.0)
    with pytest.raises(ValueError, match="n_candidates"):
        exponential_error_bound(0, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        noisy_max_scale(1.0, 0.0)


# --- two-candidate noisy max formula and figures -------------------------------------------------

def test_laplace_noisy_max_win_probability():
    from dp_lib import laplace_noisy_max_win_probability as win
    for gap, scale in [(0.0, 1.0), (1.5, 2.0), (-3.0, 0.5), (7.0, 3.0)]:
        exact = rnm_laplace_probabilities([gap, 0.0], scale)[0]
        assert win(gap, scale) == pytest.approx(exact, abs=1e-8)
        assert win(gap, scale) + win(-gap, scale) == pytest.approx(1.0)
    # the worst loss of Lap(1/ε) noise: below ε for monotone neighbours, towards 2ε for general ones
    g = np.linspace(-40, 40, 8001)
    mono = np.abs(np.log(win(g, 1.0)) - np.log(win(g + 1, 1.0))).max()
    general = np.abs(np.log(win(g, 1.0)) - np.log(win(g + 2, 1.0))).max()
    assert mono < 1.0 < 1.9 < general < 2.0
    with pytest.raises(ValueError, match="scale"):
        win(0.0, 0.0)
    with pytest.raises(ValueError, match="gap"):
        win(np.nan, 1.0)


def test_slider_figure_defaults_and_bad_settings():
    from matplotlib.figure import Figure

    from dp_lib.plotting import marital_status_counts, plot_selection_distributions
    categories, counts = marital_status_counts()
    assert len(categories) == 7 and counts.sum() == 32561 and counts[0] == counts.max()
    fig = plot_selection_distributions()
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="epsilon"):  # the slider shows this message (dp_lib.widgets)
            plot_selection_distributions(epsilon=bad)
