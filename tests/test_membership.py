"""dp_lib.membership: the rates on toy cases with known answers, LiRA's likelihood ratio, the PLD ceiling, the shipped
table, and the chapter's exercise checks."""

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from dp_lib import (PldAccountant, clopper_pearson, dp_sgd_sigma, gradient_descent, leave_one_out_scores, lira_scores,
                    loss_scores, make_rng, max_tpr, pld_max_tpr, roc_auc, roc_curve, tpr_at_fpr, train_on_random_halves,
                    true_label_logit)
from dp_lib.events import GaussianEvent, PoissonSampled, Repeated
from dp_lib.membership import _delta_curve

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "dp_lib" / "datasets" / "membership_inference.csv"


def _two_normals(mu, n, seed):
    rng = make_rng(seed)
    scores = np.concatenate([rng.normal(mu, 1.0, n), rng.normal(0.0, 1.0, n)])
    return scores, np.repeat([True, False], n)


def test_auc_of_two_normals_is_phi_of_mu_over_root_two():
    mu, n = 1.0, 100_000
    scores, members = _two_normals(mu, n, 1)
    exact = norm.cdf(mu / math.sqrt(2))
    # Hanley & McNeil's standard error of the Mann–Whitney AUC, with equal group sizes, is below sqrt(A(1-A)/n)
    assert abs(roc_auc(scores, members) - exact) < 5 * math.sqrt(exact * (1 - exact) / n)


@pytest.mark.parametrize("fpr", [0.001, 0.01, 0.1])
def test_tpr_at_fpr_of_two_normals(fpr):
    mu, n = 1.5, 200_000
    scores, members = _two_normals(mu, n, 2)
    point = tpr_at_fpr(scores, members, fpr)
    exact = norm.cdf(mu - norm.ppf(1 - fpr))
    # the TPR's binomial error plus the threshold's: the FPR's binomial error times the slope dTPR/dFPR there
    slope = math.exp(mu * norm.ppf(1 - fpr) - mu ** 2 / 2)
    se = math.sqrt(exact * (1 - exact) / n) + slope * math.sqrt(fpr * (1 - fpr) / n)
    assert abs(point.tpr - exact) < 5 * se
    assert point.fpr <= fpr and point.false_positives == math.floor(fpr * n)  # continuous scores: no ties
    assert (point.in_scores, point.out_scores) == (n, n)


def test_roc_curve_area_is_the_auc_even_with_ties():
    rng = make_rng(3)
    scores = rng.integers(0, 5, 400).astype(float)  # many ties
    members = rng.random(400) < 0.5
    scores[members] += 1
    fpr, tpr = roc_curve(scores, members)
    assert fpr[0] == tpr[0] == 0 and fpr[-1] == tpr[-1] == 1
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    assert np.trapezoid(tpr, fpr) == pytest.approx(roc_auc(scores, members), abs=1e-12)


def test_threshold_never_counts_ties_as_members():
    point = tpr_at_fpr([1.0, 1.0, 1.0, 1.0], [True, False, True, False], 0.5)
    assert point.tpr == 0.0 and point.fpr == 0.0


def test_lira_online_is_the_gaussian_log_likelihood_ratio():
    # IN shadows of example 0: 1 ± 0.5 (mean 1, sd 0.5); OUT: -1 ± 2 (mean -1, sd 2). Example 1 the other way round.
    shadows = np.array([[0.5, -3.0], [1.5, 1.0], [-3.0, 0.5], [1.0, 1.5]])
    keep = np.array([[True, False], [True, False], [False, True], [False, True]])
    c = np.array([0.2, 0.7])
    expected0 = norm.logpdf(0.2, 1.0, 0.5) - norm.logpdf(0.2, -1.0, 2.0)
    expected1 = norm.logpdf(0.7, 1.0, 0.5) - norm.logpdf(0.7, -1.0, 2.0)
    assert lira_scores(c, shadows, keep) == pytest.approx([expected0, expected1], rel=1e-12)
    assert lira_scores(c, shadows, keep, online=False) == pytest.approx([(0.2 + 1) / 2, (0.7 + 1) / 2], rel=1e-12)
    pooled = math.sqrt((0.25 + 0.25) / 2)  # both examples have IN sd 0.5
    assert lira_scores(c, shadows, keep, global_variance=True)[0] == pytest.approx(
        norm.logpdf(0.2, 1.0, pooled) - norm.logpdf(0.2, -1.0, 2.0), rel=1e-12)


def test_lira_reaches_the_neyman_pearson_rate_where_a_global_threshold_cannot():
    """Per-example Gaussians: example i has φ ~ N(m_i + IN, 1) with m_i spread wide. Knowing m_i (LiRA, from the
    shadows) the best test is N(1, 1) against N(0, 1): TPR at FPR f is Φ(1 - Φ⁻¹(1 - f)); a global threshold
    on φ (the loss attack) is swamped by the spread of the m_i."""
    rng = make_rng(4)
    models, n = 200, 400
    means = rng.normal(0.0, 3.0, n)
    keep = rng.random((models, n)) < 0.5
    phi = means + keep + rng.normal(0.0, 1.0, (models, n))
    online = leave_one_out_scores(phi, keep, attack="online")
    exact = norm.cdf(1 - norm.ppf(0.99))
    assert abs(tpr_at_fpr(online, keep, 0.01).tpr - exact) < 0.02
    assert tpr_at_fpr(leave_one_out_scores(phi, keep, attack="loss"), keep, 0.01).tpr < 0.03


def test_loss_attack_is_a_global_threshold_on_the_true_label_logit():
    rng = make_rng(5)
    X = np.column_stack([np.ones(50), rng.normal(size=(50, 2))])
    y = (rng.random(50) < 0.5).astype(float)
    thetas = rng.normal(size=(3, 3))
    members = rng.random((3, 50)) < 0.5
    assert np.array_equal(np.argsort(loss_scores(thetas, X, y), axis=1, kind="stable"),
                          np.argsort(true_label_logit(thetas, X, y), axis=1, kind="stable"))
    assert roc_auc(loss_scores(thetas, X, y), members) == roc_auc(true_label_logit(thetas, X, y), members)


def test_random_halves_are_fair_coins_and_each_model_sees_its_half():
    X = np.column_stack([np.ones(40), np.arange(40.0) / 40])
    y = np.tile([1.0, 0.0], 20)
    thetas, keep = train_on_random_halves(X, y, 200, lambda X, y, rng: (np.array([len(y), 0.0]), None),
                                          rng=make_rng(6))
    assert np.array_equal(thetas[:, 0], keep.sum(axis=1))
    assert abs(keep.mean() - 0.5) < 4 * math.sqrt(0.25 / keep.size)


# --- the ceiling the PLD accountant certifies --------------------------------------------------------------------

def _sgd(target, q=0.2, steps=100):
    """The PLD accountant of the table's DP-SGD training calibrated by RDP for ``target`` (q = 0.2, T = 100)."""
    return PldAccountant().compose(Repeated(PoissonSampled(q, GaussianEvent(dp_sgd_sigma(target, 1e-5, q, steps))),
                                            steps))


def test_delta_curve_is_the_hockey_stick_formula_vectorised():
    acc = _sgd(2.0)
    eps = np.concatenate([[0.0, 1e-9], make_rng(7).uniform(0.0, 6.0, 40), [50.0]])
    for pld in acc.plds:
        assert _delta_curve(pld, eps) == pytest.approx([pld.delta(e) for e in eps], rel=1e-9, abs=1e-14)


@pytest.mark.parametrize("target,expected", [(0.5, (0.00154, 0.01403)), (1.0, (0.00222, 0.01868)),
                                             (2.0, (0.00425, 0.03066))])
def test_pld_ceiling_agrees_with_dp_accounting(target, expected):
    """The same minimum over ε, with δ(ε) from Google's dp-accounting 0.6 PLD (get_delta_for_epsilon), and the
    values the DP review read off it (0.00154/0.01403, 0.00222/0.0187, 0.00425/0.0307); all below the ceiling of
    the single pair (ε_PLD, 1e-5)."""
    from dp_accounting import dp_event
    from dp_accounting import pld as g_pld

    sigma, fpr = dp_sgd_sigma(target, 1e-5, 0.2, 100), np.array([0.001, 0.01])
    event = dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(0.2, dp_event.GaussianDpEvent(sigma)), 100)
    theirs = g_pld.PLDAccountant(value_discretization_interval=1e-4).compose(event)._pld
    eps = np.linspace(0.0, 6.0, 6001)
    d = np.array(theirs.get_delta_for_epsilon(eps))[:, None]
    google = np.minimum(np.min(np.exp(eps)[:, None] * fpr + d, axis=0),
                        np.min(1 - np.exp(-eps)[:, None] * (1 - d - fpr), axis=0))
    acc = _sgd(target)
    mine = pld_max_tpr(fpr, acc)
    assert mine == pytest.approx(google, rel=1e-4)
    assert pld_max_tpr(fpr, acc, epsilons=eps) == pytest.approx(google, rel=1e-4)
    assert mine.round(5).tolist() == list(expected)
    assert np.all(mine < max_tpr(fpr, acc.epsilon(1e-5), 1e-5))


def test_pld_ceiling_is_valid_and_tight_for_a_gaussian():
    """One Gaussian step with σ = 2 is exactly (1/2)-GDP: the best test has TPR Φ(Φ⁻¹(FPR) + 1/2). The accountant's
    ceiling lies above it (a valid bound, the discretisation is pessimistic) and within 1e-3; a coarse ε grid is
    still valid, only looser."""
    acc = PldAccountant().compose(GaussianEvent(2.0))
    fpr = np.geomspace(1e-4, 0.5, 30)
    exact = norm.cdf(norm.ppf(fpr) + 0.5)
    ceiling = pld_max_tpr(fpr, acc)
    assert np.all(ceiling >= exact - 1e-12) and np.all(ceiling - exact < 1e-3)
    coarse = pld_max_tpr(fpr, acc, epsilons=[0.0, 1.0, 3.0])
    assert np.all(coarse >= ceiling - 1e-12) and np.any(coarse > ceiling + 1e-3)
    assert pld_max_tpr(0.0, acc) < 1e-9 and pld_max_tpr(1.0, acc) == 1.0
    assert isinstance(pld_max_tpr(0.01, acc), float) and pld_max_tpr(fpr, acc).shape == fpr.shape


def test_pld_ceiling_names_bad_input():
    acc = PldAccountant().compose(GaussianEvent(2.0))
    with pytest.raises(TypeError, match="accountant"):
        pld_max_tpr(0.1, 1.0)
    with pytest.raises(ValueError, match="accountant"):
        pld_max_tpr(0.1, PldAccountant())
    with pytest.raises(ValueError, match="fpr"):
        pld_max_tpr(1.5, acc)
    with pytest.raises(ValueError, match="epsilons"):
        pld_max_tpr(0.1, acc, epsilons=[-1.0])


# --- the shipped table ------------------------------------------------------------------------------------------

def _ceiling_respected(row, ceiling, alpha=1e-3):
    """The measured rates are consistent with ``ceiling`` (a function of the FPR): the Clopper–Pearson lower bound
    on the TPR lies below the ceiling at the Clopper–Pearson upper bound on the FPR (both one-sided at level alpha)."""
    ok = True
    for f in ("0.001", "0.01"):
        tpr_low = clopper_pearson(row[f"true_positives_at_{f}"], row["in_scores"], alpha)[0]
        fpr_high = clopper_pearson(row[f"false_positives_at_{f}"], row["out_scores"], alpha)[1]
        ok &= bool(tpr_low <= ceiling(fpr_high))
    return ok


def test_private_models_respect_the_ceiling_and_the_check_can_fail():
    table = pd.read_csv(TABLE)
    private = table[table["model"] == "DP-SGD"]
    assert len(private) == 12
    accountants = {eps: _sgd(eps) for eps in private["epsilon"].unique()}
    assert all(_ceiling_respected(row, lambda f, a=accountants[row["epsilon"]]: pld_max_tpr(f, a))
               for _, row in private.iterrows())
    assert (private["epsilon_pld"] < private["epsilon"]).all()  # PLD is tighter than the RDP calibration
    for eps, acc in accountants.items():  # the stored ceilings are the accountant's curve, below the single pair's
        row = private[private["epsilon"] == eps].iloc[0]
        for f in (0.001, 0.01):
            assert row[f"ceiling_at_{f:g}"] == round(pld_max_tpr(f, acc), 5)
            assert row[f"ceiling_at_{f:g}"] < max_tpr(f, row["epsilon_pld"], 1e-5)
    # the non-private model's LiRA breaks the ceiling that DP-SGD at ε = 0.5 would impose: the check has teeth
    lira = table[(table["model"] == "non-private") & (table["attack"] == "online")].iloc[0]
    assert not _ceiling_respected(lira, lambda f: pld_max_tpr(f, accountants[0.5]))


def test_table_rests_on_enough_non_member_scores():
    table = pd.read_csv(TABLE)
    assert (table["out_scores"] > 40_000).all() and (table["false_positives_at_0.001"] >= 40).all()


def test_one_row_of_the_table_is_what_the_code_gives():
    """Re-run the DP-SGD ε = 8 setting (512 trainings, about 4 s) and compare its rows with the shipped file."""
    from benchmarks.membership_table import SETTINGS, setting_rows

    index = SETTINGS.index(("DP-SGD", 8.0))
    fresh = pd.DataFrame(setting_rows(index)).to_csv(index=False).splitlines()[1:]
    shipped = TABLE.read_text().splitlines()
    assert fresh == shipped[1 + 3 * index: 4 + 3 * index]


# --- bad input ----------------------------------------------------------------------------------------------------

def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="members"):
        roc_auc([1.0, 2.0], [True, True])
    with pytest.raises(ValueError, match="members"):
        tpr_at_fpr([1.0, 2.0], [True], 0.1)
    with pytest.raises(ValueError, match="fpr"):
        tpr_at_fpr([1.0, 2.0], [True, False], 1.0)
    with pytest.raises(TypeError, match="scores"):
        roc_curve("abc", [True])
    with pytest.raises(ValueError, match="shadow_keep"):
        lira_scores([0.0, 1.0], [[0.0, 1.0]], [[True]])
    with pytest.raises(ValueError, match="attack"):
        leave_one_out_scores([[0.0], [1.0]], [[True], [False]], attack="lira")
    with pytest.raises(TypeError, match="online"):
        lira_scores([0.0], [[0.0]], [[True]], online=1)
    with pytest.raises(TypeError, match="trainer"):
        train_on_random_halves([[1.0]], [1.0], 2, None, rng=make_rng(0))
    with pytest.raises(TypeError, match="rng"):
        train_on_random_halves([[1.0]], [1.0], 2, lambda X, y, rng: gradient_descent(X, y, 1), rng=0)
    with pytest.raises(ValueError, match="theta"):
        true_label_logit([1.0, 2.0, 3.0], [[1.0, 2.0]], [1.0])


def test_discounted_tail_carries_across_blocks():
    """W_k = Σ_{j>=k} m_j r^(j-k), checked by brute force with r small enough for blocks of 6 points."""
    from dp_lib.membership import _discounted_tail

    m = make_rng(8).random(50)
    for r in (math.exp(-100.0), 0.5, 0.9999):
        brute = [sum(m[j] * r ** (j - k) for j in range(k, 50)) for k in range(50)]
        assert _discounted_tail(m, r) == pytest.approx(brute, rel=1e-12)


# --- the chapter's exercise checks ---------------------------------------------------------------------------------

def _check_cell(label):
    import json

    nb = json.loads((ROOT / "chapters" / "12_attacking_models.ipynb").read_text())
    return next("".join(c["source"]) for c in nb["cells"] if c.get("id", "").startswith(f"ch12-{label}-check-"))


def _run_check(label, answer):
    """Run the chapter's check cell with ``answer``; the message of the failed assertion, or None if it passes."""
    from dp_lib.selfcheck import check  # the check cells call check(answer, "dpx1:...") (the chapter's setup imports it)

    namespace = {"math": math, "np": np, "norm": norm, "clopper_pearson": clopper_pearson, "max_tpr": max_tpr,
                 "check": check, f"answer_{label}": answer}
    try:
        exec(_check_cell(label), namespace)
    except AssertionError as err:
        return str(err)
    return None


_EX1 = float(max_tpr(0.01, 2.0, 1e-3))
_EX2 = float(norm.cdf(0.5 / math.sqrt(2)))


@pytest.mark.parametrize("label,answer,message", [
    ("ex1", None, "set answer_ex1"), ("ex1", _EX1, None), ("ex1", 0.075, None), ("ex1", round(_EX1, 4), None),
    ("ex1", math.exp(2) * 0.01, "add delta"), ("ex1", 0.021, "grows with e.eps, not with eps"), ("ex1", 0.05, "max_tpr"),
    ("ex2", None, "set answer_ex2"), ("ex2", _EX2, None), ("ex2", 0.64, None), ("ex2", 0.638, None),
    ("ex2", _EX2 + 0.004, None), ("ex2", _EX2 - 0.008, None),  # estimates: 3 standard deviations at 10,000 draws
    ("ex2", float(norm.cdf(0.5)), "not Phi\\(0.5\\)"), ("ex2", float(norm.cdf(0.25)), "not 2"),
    ("ex2", 0.5, "AUC = P"), ("ex2", 0.55, "AUC = P"),
    ("ex3", None, "set answer_ex3"), ("ex3", (3.0, 0.6), "must be"), ("ex3", (3.0, 0.6, 15.0), None), ("ex3", (3, 0.6, 15), None),
    ("ex3", (3.0, 0.4, 15.0), "eta = 0"), ("ex3", (3.0, 3.0, 15.0), "does not pay per run"),
    ("ex3", (0.2, 0.6, 15.0), "composes 15 runs"), ("ex3", (3.0, 0.6, 1 / 15), "mean 1/gamma"),
    ("ex4", None, "set answer_ex4"), ("ex4", 50_000, None), ("ex4", 20_000, "alpha/4"), ("ex4", 10_000, "stays below"),
    ("ex4", 5000, "stays below"), ("ex4", 100_000, "smaller size"), ("ex4", 30_000, "must be one of"),
])
def test_exercise_checks_accept_right_answers_and_name_the_mistakes(label, answer, message):
    got = _run_check(label, answer)
    if message is None:
        assert got is None, got
    else:
        assert got is not None and re.search(message, got), got
