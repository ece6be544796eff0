"""The edge cases of issue 14, each pinned: a result, or a ValueError naming the parameter; never inf, NaN,
OverflowError, ZeroDivisionError, StopIteration or AttributeError; a refused call records nothing."""

import math
import re
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


# --- issue 30: the edge sweep of L-C's modules (one test per edge case) ----------------------------------------------

def _quiet(func, *args, **kwargs):
    """Call with every warning an error: an edge case must not leak a RuntimeWarning."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return func(*args, **kwargs)


@pytest.mark.parametrize("func", [dp.exponential_probabilities, dp.permute_and_flip_probabilities])
def test_edge_selection_probabilities_at_scores_of_1e308(func):
    assert _quiet(func, [1e308, -1e308], 1.0, 1.0).tolist() == [1.0, 0.0]
    assert _quiet(func, [-1e308, 1e308, 0.0], 1.0, 1.0).tolist() == [0.0, 1.0, 0.0]
    assert _quiet(func, [1e308, -1e308], 1.0, 1e-300).tolist() == [1.0, 0.0]  # a tiny rate: scaled first


@pytest.mark.parametrize("mech", [dp.exponential_mech, dp.permute_and_flip])
def test_edge_selection_mechanisms_at_scores_of_1e308(mech):
    assert _quiet(mech, ["a", "b"], [-1e308, 1e308], 1.0, 1.0, rng=make_rng(0), size=50).tolist() == ["b"] * 50


def test_edge_clipped_gradients_of_features_of_1e308():
    X, y = [[1e308, 1e308]] * 20, [1.0] * 20
    got = _quiet(dp.clipped_gradient_sum, [0.0, 0.0], X, y, 1.0)  # each g_i clipped to (-1, -1)/sqrt(2)
    assert got == pytest.approx([-20 / math.sqrt(2)] * 2)


def test_edge_noisy_gradient_descent_with_features_of_1e308():
    X, y = [[1e308, -1e308], [1.0, 1.0]] * 10, [1.0, 0.0] * 10
    theta, history = _quiet(dp.noisy_gradient_descent, X, y, 1.0, 1e-5, 3, 1.0, rng=make_rng(0))
    assert np.all(np.isfinite(theta)) and np.all(np.isfinite(history.to_numpy()))


def test_edge_adult_features_with_a_missing_age():
    adult = dp.load_adult().head(40).astype({"Age": float, "Capital Gain": float})
    adult.loc[adult.index[:3], "Age"] = [np.nan, np.inf, -np.inf]
    adult.loc[adult.index[3], "Capital Gain"] = np.nan
    features = _quiet(dp.adult_features, adult)
    both = np.vstack([features.X_train, features.X_test])
    assert np.all(np.isfinite(both))  # never NaN out
    age, gain = features.feature_names.index("Age"), features.feature_names.index("Capital Gain")
    one = [_quiet(dp.adult_features, adult.iloc[[i]]) for i in range(4)]
    rows = [np.r_[f.X_train, f.X_test][0] for f in one]
    assert [r[age] for r in rows[:3]] == [0.0, 1.0, -1.0]  # NaN: the centre of [17, 90]; ±inf: the bounds
    assert rows[3][gain] == 0.0  # the same rule for every numeric column


def test_edge_audit_table_refuses_a_nan_bound():
    good = dict(event=dp.ThresholdEvent(0.0), trials=100, count=60, count_prime=20, frequency=0.6,
                frequency_prime=0.2, interval=(0.45, 0.73), interval_prime=(0.12, 0.31), confidence=0.95, delta=0.0,
                epsilon_lb=0.37, larger="x", claimed_epsilon=1.0, flagged=False)
    for field in ("epsilon_lb", "claimed_epsilon"):
        with named("results"):
            dp.audit_table({"demo": dp.AuditResult(**{**good, field: math.nan})})


def test_edge_subset_queries_refuses_huge_counts_before_allocating():
    import time

    start = time.perf_counter()
    for n, m in ((2**40, 2**20), (2**27 + 1, 1), (2**14, 2**14)):
        with pytest.raises(ValueError, match=r"\bn and m\b"):
            dp.subset_queries(n, m, rng=make_rng(0))
    assert time.perf_counter() - start < 1.0
    assert dp.subset_queries(2**13, 2**14, rng=make_rng(0)).shape == (2**14, 2**13)  # 2**27: allowed


def test_edge_quantile_intervals_at_epsilon_1e308():
    for values in ([2.0] * 10, [1.0, 2.0, 3.0], []):
        _, p = _quiet(dp.quantile_intervals, values, 0.5, 1e308, 0.0, 4.0)
        assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0)


def test_edge_booleans_as_bounds_are_refused():
    log = pd.DataFrame({"user": [1, 2], "page": ["a", "b"], "spend": [1.0, 2.0]})
    for bounds in ((True, 4.0), (0.0, True), (np.False_, 4.0)):
        with named("lower|upper", TypeError):
            dp.private_quantile([1.0], 0.5, 1.0, *bounds, rng=make_rng(0))
        with named("lower|upper", TypeError):
            dp.quantile_intervals([1.0], 0.5, 1.0, *bounds)
        with named("min_value|max_value", TypeError):
            dp.user_level_sum(log, "user", "page", "spend", partitions=["a"], max_partitions=1, max_per_partition=1,
                              min_value=bounds[0], max_value=bounds[1], epsilon=1.0, rng=make_rng(0))


def test_edge_link_records_with_a_column_named_index():
    released = pd.DataFrame({"index": [5, 6], "Zip": ["1", "2"]}, index=[10, 11])
    roster = pd.DataFrame({"Name": ["A", "B"], "Zip": ["2", "1"]})
    linked = dp.link_records(released, roster, ["Zip"])
    assert linked.index.tolist() == [10, 11] and linked["index"].tolist() == [5, 6]
    assert linked["Name"].tolist() == ["B", "A"]


def test_edge_figure_helpers_refuse_what_is_not_a_figure():
    from dp_lib.widgets import default_layout, figure_png

    for bad in (0.5, None, "fig"):
        with named("fig", TypeError):
            figure_png(bad)
    with named("function", TypeError):
        default_layout(lambda: None)
    with named("function", TypeError):
        default_layout(3)


def test_edge_load_visits_refuses_an_empty_file_and_a_missing_column(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ValueError, match="empty.csv is empty"):
        dp.load_visits(empty)
    no_spend = tmp_path / "no_spend.csv"
    no_spend.write_text("user,category\n1,books\n")
    with pytest.raises(ValueError, match=r"no_spend.csv has no column\(s\) \['spend'\]"):
        dp.load_visits(no_spend)


def test_edge_contribution_envelope_refuses_empty_or_duplicated_partitions():
    log = pd.DataFrame({"user": [1, 2], "page": ["a", "b"], "spend": [1.0, 2.0]})
    kw = dict(max_partitions=1, max_per_partition=1, min_value=0.0, max_value=10.0)
    for bad in ([], ["a", "a"], ["a", None]):
        with named("partitions"):
            dp.contribution_envelope(log, "user", "page", "spend", partitions=bad, **kw)
    with named("partitions", TypeError):
        dp.contribution_envelope(log, "user", "page", "spend", partitions="ab", **kw)


def test_edge_user_level_sum_with_a_missing_value():
    log = pd.DataFrame({"user": [1, 2, 3], "page": ["a", "a", "a"], "spend": [np.nan, np.inf, 2.0]})
    out = _quiet(dp.user_level_sum, log, "user", "page", "spend", partitions=["a"], max_partitions=1,
                 max_per_partition=1, min_value=1.0, max_value=10.0, epsilon=1.0, rng=make_rng(0))
    noise = dp.laplace_mech(np.zeros(1), 10.0, 1.0, rng=_bounded_rng(log))
    assert out.tolist() == pytest.approx((1.0 + 10.0 + 2.0 + noise).tolist())  # NaN -> clamp(0) = 1, inf -> 10


def _bounded_rng(log):
    """The generator state after bounding ``log`` (one row per user): the noise user_level_sum then draws."""
    rng = make_rng(0)
    dp.bound_contributions(log, "user", "page", max_partitions=1, max_per_partition=1, rng=rng)
    return rng


# --- PipelineDP: checked before the call, NaN handled, numpy's global RandomState untouched -------------------------

def _pipeline(**kw):
    pipeline_dp = pytest.importorskip("pipeline_dp")
    args = dict(rows=[(u, "a", 1.0) for u in range(20)], backend=pipeline_dp.LocalBackend(), partitions=["a"],
                epsilon=1.0, max_partitions=1, max_per_partition=1, min_value=0.0, max_value=5.0) | kw
    rows, backend = args.pop("rows"), args.pop("backend")
    return dp.pipeline_dp_release(rows, backend, **args)


@pytest.mark.parametrize("kw, name, error", [
    ({"min_value": True}, "min_value", TypeError), ({"max_value": "1.0"}, "max_value", TypeError),
    ({"min_value": 6.0}, "min_value", ValueError), ({"max_value": math.nan}, "max_value", ValueError),
    ({"rows": "abc"}, "rows", TypeError), ({"rows": [(1, "a")]}, "rows", ValueError),
    ({"rows": [(1, "a", "3")]}, "rows", TypeError), ({"rows": [(1, "a", True)]}, "rows", TypeError),
    ({"backend": "local"}, "backend", TypeError), ({"backend": None}, "backend", TypeError),
    ({"partitions": []}, "partitions", ValueError), ({"partitions": ["a", "a"]}, "partitions", ValueError),
    ({"partitions": "a"}, "partitions", TypeError), ({"max_partitions": True}, "max_partitions", TypeError),
    ({"max_partitions": 2**63}, "max_partitions", ValueError), ({"epsilon": "1"}, "epsilon", TypeError),
])
def test_edge_pipeline_dp_release_checks_before_calling(kw, name, error):
    with named(name, error):
        _pipeline(**kw)


def test_edge_pipeline_dp_release_with_a_missing_value_and_the_global_random_state():
    heavy = [(7, "b", 1.0)] * 5 + [(7, "a", 1.0)] * 5  # over both bounds: PipelineDP samples with np.random
    rows = [(u, "a", 1.0) for u in range(10, 210)] + heavy + [(999, "a", math.nan), (998, "a", math.inf)]
    np.random.seed(1234)
    before = np.random.get_state()[1].copy()
    out = dict(_pipeline(rows=rows, partitions=["a", "b"], max_value=2.0))
    assert np.array_equal(np.random.get_state()[1], before), "numpy's global RandomState changed"
    assert all(math.isfinite(v) for m in out.values() for v in m)
    assert abs(out["a"].sum - (200 + 0.0 + 2.0 + 1.0)) < 60  # NaN -> 0 (clamped), inf -> 2; Lap(4) noise
    np.random.seed(1234)  # the control: PipelineDP called directly does move the global state here
    pipeline_dp = pytest.importorskip("pipeline_dp")
    accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=1.0, total_delta=0)
    engine = pipeline_dp.DPEngine(accountant, pipeline_dp.LocalBackend())
    params = pipeline_dp.AggregateParams(noise_kind=pipeline_dp.NoiseKind.LAPLACE, metrics=[pipeline_dp.Metrics.COUNT],
                                         max_partitions_contributed=1, max_contributions_per_partition=1)
    extract = pipeline_dp.DataExtractors(privacy_id_extractor=lambda r: r[0], partition_extractor=lambda r: r[1],
                                         value_extractor=lambda r: r[2])
    result = engine.aggregate(rows[:-2], params, extract, public_partitions=["a", "b"])
    accountant.compute_budgets()
    list(result)
    assert not np.array_equal(np.random.get_state()[1], before), "the control no longer moves the state"


# --- dp_lib.events: every event class, every field, extreme values -------------------------------------------------

def _event_valid():
    from dp_lib import events as ev

    return {ev.EpsilonDeltaEvent: dict(epsilon=1.0, delta=1e-6), ev.LaplaceEvent: dict(scale=1.0, sensitivity=1.0),
            ev.GaussianEvent: dict(sigma=1.0, sensitivity=1.0), ev.RandomizedResponseEvent: dict(epsilon=1.0),
            ev.ZcdpEvent: dict(rho=0.5), ev.PoissonSampled: dict(q=0.1, event=ev.GaussianEvent(1.0)),
            ev.Composed: dict(events=(ev.LaplaceEvent(1.0),)), ev.Repeated: dict(event=ev.LaplaceEvent(1.0), count=3)}


EVENT_EXTREMES = [0, 0.0, -1.0, 5e-324, 1e-300, 1e308, -1e308, math.inf, -math.inf, math.nan, 10**400, 2**63, True,
                  np.True_, "1.0", None, [], (), "replace_one", "nonsense"]


def test_edge_every_event_class_has_valid_arguments_here():
    from dp_lib import events as ev

    classes = {getattr(ev, n) for n in ev.__all__ if isinstance(getattr(ev, n), type)
               and issubclass(getattr(ev, n), ev.DpEvent) and getattr(ev, n) is not ev.DpEvent}
    missing = classes - set(_event_valid())
    assert not missing, f"add the new event classes to _event_valid in tests/test_edges.py: {missing}"


def test_edge_events_at_extreme_values():
    import dataclasses

    for cls, valid in _event_valid().items():
        for field in dataclasses.fields(cls):
            for value in EVENT_EXTREMES:
                try:
                    event = _quiet(cls, **{**valid, field.name: value})
                except (TypeError, ValueError) as err:
                    assert re.search(rf"\b{field.name}\b", str(err)), f"{cls.__name__}({field.name}={value!r}): {err}"
                    continue
                for f in dataclasses.fields(event):  # constructed: every number finite, every flag a str
                    v = getattr(event, f.name)
                    if isinstance(v, float):
                        assert math.isfinite(v), f"{cls.__name__}({field.name}={value!r}) stored {f.name}={v}"
