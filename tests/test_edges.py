"""The edge cases of issue 14, each pinned: a result, or a ValueError naming the parameter; never inf, NaN,
OverflowError, ZeroDivisionError, StopIteration or AttributeError; a refused call records nothing."""

import math
import shutil

import numpy as np
import pandas as pd
import pytest

import dp_lib as dp
import dp_lib.data as data_module
from dp_lib import make_rng


def named(name, error=ValueError):
    """A wrong VALUE: ValueError naming ``name`` (``error=TypeError`` for a wrong TYPE)."""
    return pytest.raises(error, match=rf"\b{name}\b")


def typed(name):
    """A wrong TYPE: TypeError naming ``name``."""
    return named(name, TypeError)


def test_refused_accountant_call_records_nothing():
    acct = dp.PrivacyAccountant(1.0)
    with named("sensitivity"):
        acct.laplace_mech(100.0, 1e308, 0.5, rng=make_rng(0))
    assert acct.spent == (0.0, 0.0) and len(acct.history) == 0


def test_spend_many_is_all_or_nothing():
    acct = dp.PrivacyAccountant(1.0, 1e-5)
    acct.spend_many([(0.25, 0.0, "a"), (0.25, 1e-6, "b")])
    with pytest.raises(dp.BudgetExceededError):
        acct.spend_many([(0.25, 0.0), (0.5, 0.0)])  # the first fits, the pair does not
    with named("epsilon"):
        acct.spend_many([(0.1, 0.0), (-1.0, 0.0)])  # a bad charge anywhere refuses them all
    assert acct.history["label"].tolist() == ["a", "b"] and acct.spent == (0.5, 1e-6)
    assert acct.check_room([(0.5, 0.0)]) == [("charge 3", 0.5, 0.0)] and len(acct.history) == 2


def test_huge_ints_strings_and_booleans_are_refused_everywhere():
    with named("epsilon"):
        dp.laplace_scale(1.0, 10**400)
    for bad in ("1.0", True, ["1.0"], np.array([True])):
        with typed("value"):
            dp.laplace_mech(bad, 1, 1, rng=make_rng(0))
    with named("values"):
        dp.gs_mean([10**400], 100, 1.0, rng=make_rng(0))


def test_tiny_delta_uses_minus_log_delta():
    assert dp.ptr_threshold(1, 1e-320) == pytest.approx(-math.log(1e-320))
    eps_total, _ = dp.advanced_composition(0.1, 0, 100, 1e-320)
    assert math.isfinite(eps_total) and eps_total > 0
    assert math.isfinite(dp.gaussian_sigma(1, 0.5, 1e-310))
    assert math.isfinite(dp.gaussian_mech(1.0, 1.0, 0.5, 1e-320, rng=make_rng(0), calibration="classic"))


def test_under_and_overflow():
    with named("sensitivity"):
        dp.noisy_max_scale(1e308, 1.0)
    eps_i, _, _, rule = dp.iteration_budget(1500.0, 1e-5, 100, composition="advanced")
    assert math.isfinite(eps_i) and rule in ("sequential", "advanced")
    with named("epsilon"):
        dp.analytic_gaussian_sigma(1e17, 1e300, 1e-5)
    var = dp.krr_variance(1000, 14, 1e-17)
    assert math.isfinite(var) and var == pytest.approx(1000 * 13 / 1e-34, rel=1e-6)
    with named("n"):
        dp.distance_to_high_sensitivity(2**63, 100, 0.005)
    assert dp.distance_to_high_sensitivity(2**52, 100, 0.005) == 2**52 - 19999  # exact integer arithmetic
    with named("epsilons"):
        dp.sequential_epsilon([1e308, 1e308])
    assert dp.laplace_noisy_max_win_probability(0.5, 1e-320) == 1.0
    assert dp.laplace_noisy_max_win_probability(-0.5, 1e-320) == 0.0
    with named("theta"):
        dp.logistic_loss([1e308, 1e308], [[1e308, 1e308]], [1.0])
    with named("learning_rate"):
        dp.gradient_descent([[1e200, 1.0], [-1e200, 1.0]], [1.0, 0.0], 5, learning_rate=1e200)


def test_unsigned_integers_do_not_wrap():
    k = np.arange(6)
    assert np.array_equal(dp.log_smooth_sensitivity_terms(3, 90, 0.5, k.astype(np.uint64)),
                          dp.log_smooth_sensitivity_terms(3, 90, 0.5, k))
    assert dp.clip_rows([[1e155, 1e155]], 1.0) == pytest.approx(np.array([[0.5**0.5, 0.5**0.5]]))
    assert dp.laplace_pdf(np.array([1], dtype=np.uint64)) == pytest.approx(0.5 * math.exp(-1))


def test_types():
    X, y = [[1.0, 0.5], [1.0, -0.5]] * 10, [1.0, 0.0] * 10
    with typed("accountant"):
        dp.noisy_gradient_descent(X, y, 1.0, 1e-5, 3, 1.0, rng=make_rng(0), accountant=3)
    with typed("ssn"):
        dp.holdout_mask("161-03-5439")
    for bad in ("abc", True, None):
        with typed("threshold"):
            dp.ThresholdEvent(bad)
    for bad in (math.nan, math.inf):
        with named("threshold"):
            dp.ThresholdEvent(bad)
    with typed("above"):
        dp.ThresholdEvent(0.0, above=1)


def test_accountant_refusal_in_training_records_nothing():
    X, y = [[1.0, 0.5], [1.0, -0.5]] * 10, [1.0, 0.0] * 10
    acct = dp.PrivacyAccountant(0.5, 1e-5)
    with pytest.raises(dp.BudgetExceededError):
        dp.noisy_gradient_descent(X, y, 1.0, 1e-5, 3, 1.0, rng=make_rng(0), accountant=acct)
    assert len(acct.history) == 0
    dp.noisy_gradient_descent(X, y, 0.5, 1e-5, 3, 1.0, rng=make_rng(0), accountant=acct)
    assert len(acct.history) == 4 and acct.spent[0] == pytest.approx(0.5)


def _infinite_outputs(data, size, rng):
    """A leaky mechanism whose outputs are only ±inf: +inf with probability 0.9 on x, 0.5 on x'."""
    p = 0.9 if len(data) == 1 else 0.5
    return np.where(rng.random(size) < p, np.inf, -np.inf)


def test_auditor_handles_infinite_outputs():
    fixed = dp.epsilon_lower_bound(_infinite_outputs, [0], [0, 0], dp.ThresholdEvent(0.0), 20_000, rng=make_rng(1))
    searched = dp.search_events(_infinite_outputs, [0], [0, 0], 20_000, rng=make_rng(1))
    assert math.isfinite(searched.event.threshold)
    assert searched.epsilon_lb > 0.5 * fixed.epsilon_lb > 0


def _write(tmp_path, text):
    path = tmp_path / "adult.csv"
    path.write_text(text)
    return path


def test_load_adult_refuses_cut_off_rows_and_text_in_numbers(tmp_path):
    original = data_module.ADULT_PATH.read_text()
    cut = original.rstrip("\n")
    cut = cut[: cut.rindex(",")]  # the last row loses its last field(s)
    with pytest.raises(ValueError, match="corrupted"):
        dp.load_adult(_write(tmp_path, cut + "\n"))
    lines = original.splitlines()
    header, row = lines[0].split(","), lines[1].split(",")
    row[header.index("Age")] = "forty"
    with pytest.raises(ValueError, match="Age"):
        dp.load_adult(_write(tmp_path, "\n".join([lines[0], ",".join(row), *lines[2:]]) + "\n"))


def test_load_adult_cache_follows_the_file(tmp_path):
    path = tmp_path / "adult.csv"
    shutil.copy(data_module.ADULT_PATH, path)
    first = dp.load_adult(path)
    text = path.read_text().replace(f",{first['Age'].iloc[0]},", ",77,", 1)
    path.write_text(text)
    assert dp.load_adult(path)["Age"].iloc[0] == 77


def test_shipped_file_checksum_is_verified(tmp_path, monkeypatch):
    path = tmp_path / "adult_with_pii.csv"
    path.write_text(data_module.ADULT_PATH.read_text().replace("Married-civ-spouse", "Married-civ-spouze", 1))
    monkeypatch.setattr(data_module, "ADULT_PATH", path)
    with pytest.raises(ValueError, match="SHA-256"):
        dp.load_adult()


def test_sample_and_aggregate_never_raises_because_of_the_data():
    for values in ([], [50.0], [10.0, 20.0, 30.0]):  # neighbours, down to the empty data set
        out = dp.sample_and_aggregate(values, np.median, 10, 0, 100, 1.0, rng=make_rng(0))
        assert math.isfinite(out)
    # empty chunks answer the default: with no data the release is default + noise
    no_noise = dp.chunk_answers([], "mean", 4, 0, 100, default=7.0)
    assert no_noise.tolist() == [7.0] * 4


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_iteration_budget_picks_the_rule_with_less_noise(noise):
    for eps in (0.1, 1.0, 5.0):
        for k in (2, 10, 100, 1000):
            seq = dp.iteration_budget(eps, 1e-5, k, noise=noise)
            chosen = dp.iteration_budget(eps, 1e-5, k, noise=noise, composition="advanced")
            if noise == "gaussian":
                std = [dp.analytic_gaussian_sigma(1.0, b[0], b[1]) for b in (seq, chosen)]
            else:
                std = [1 / b[0] for b in (seq, chosen)]
            assert std[1] <= std[0] * (1 + 1e-12), (eps, k, chosen[3])


def test_gaussian_sigma_states_the_delta_of_its_crossover():
    doc = dp.gaussian_sigma.__doc__
    assert "δ = 1e-5" in doc and "7.46 at δ = 1e-3" in doc and "9.85 at δ = 1e-10" in doc
    for delta, crossover in ((1e-3, 7.46), (1e-5, 8.42), (1e-10, 9.85)):
        classic = lambda e, delta=delta: math.sqrt(2 * math.log(1.25 / delta)) / e  # noqa: E731
        assert dp.gaussian_delta(classic(crossover - 0.01), 1.0, crossover - 0.01) <= delta
        assert dp.gaussian_delta(classic(crossover + 0.01), 1.0, crossover + 0.01) > delta


def test_parallel_histogram_size():
    df = pd.DataFrame({"c": ["a", "a", "b"]})
    many = dp.parallel_histogram(df, "c", 1.0, rng=make_rng(3), domain=["a", "b"], size=4000)
    assert many.shape == (4000, 2) and list(many.columns) == ["a", "b"]
    assert many.mean().to_numpy() == pytest.approx([2.0, 1.0], abs=0.15)
    one = dp.parallel_histogram(df, "c", 1.0, rng=make_rng(3), domain=["a", "b"])
    assert np.array_equal(one.to_numpy(), dp.parallel_histogram(df, "c", 1.0, rng=make_rng(3), domain=["a", "b"],
                                                                size=1).iloc[0].to_numpy())


def test_one_size_contract():
    rng = make_rng(0)
    for f in (lambda s: dp.sample_laplace(1.0, size=s, rng=rng),
              lambda s: dp.krr_perturb_counts([3, 1], 1.0, rng=rng, size=s),
              lambda s: dp.exponential_mech(["a", "b"], [1.0, 0.0], 1.0, 1.0, rng=rng, size=s),
              lambda s: dp.gs_mean([1.0, 2.0], 10, 1.0, rng=rng, size=s)):
        assert np.shape(f(0))[0] == 0 and np.shape(f((2, 3)))[:2] == (2, 3)
        for bad in (-1, (2, -1)):
            with named("size"):
                f(bad)
        for bad in (2.5, True, "3", (2, 2.0)):
            with typed("size"):
                f(bad)
