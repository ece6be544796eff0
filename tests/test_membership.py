"""dp_lib.membership: the rates on toy cases with known answers, LiRA's likelihood ratio, the shipped table."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from dp_lib import (clopper_pearson, gradient_descent, leave_one_out_scores, lira_scores, loss_scores, make_rng,
                    max_tpr, roc_auc, roc_curve, tpr_at_fpr, train_on_random_halves, true_label_logit)

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


# --- the shipped table ------------------------------------------------------------------------------------------

def _ceiling_respected(row, epsilon, delta=1e-5, alpha=1e-3):
    """The measured rates are consistent with the ceiling: the Clopper–Pearson lower bound on the TPR lies below
    the ceiling at the Clopper–Pearson upper bound on the FPR (both one-sided at level alpha)."""
    ok = True
    for f in ("0.001", "0.01"):
        tpr_low = clopper_pearson(row[f"true_positives_at_{f}"], row["in_scores"], alpha)[0]
        fpr_high = clopper_pearson(row[f"false_positives_at_{f}"], row["out_scores"], alpha)[1]
        ok &= bool(tpr_low <= max_tpr(fpr_high, epsilon, delta))
    return ok


def test_private_models_respect_the_ceiling_and_the_check_can_fail():
    table = pd.read_csv(TABLE)
    private = table[table["model"] == "DP-SGD"]
    assert len(private) == 12
    assert all(_ceiling_respected(row, row["epsilon_pld"]) for _, row in private.iterrows())
    assert (private["epsilon_pld"] < private["epsilon"]).all()  # PLD is tighter than the RDP calibration
    # the non-private model's LiRA breaks the ceiling that DP-SGD at ε = 0.5 would impose: the check has teeth
    lira = table[(table["model"] == "non-private") & (table["attack"] == "online")].iloc[0]
    assert not _ceiling_respected(lira, 0.4542)


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
