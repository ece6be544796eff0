"""User-level privacy: contribution bounding, its sensitivity, partition selection, and the production libraries."""

import hashlib
import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dp_lib import (CATEGORIES, VISITS_PATH, bound_contributions, contribution_sensitivity, laplace_cdf, load_visits,
                    make_rng, partition_selection_threshold, pipeline_dp_release, search_events, select_partitions,
                    simulate_visits, user_level_count, user_level_sum)

ALPHA = 1e-3
VISITS_MD5 = "2688a505fda503d5dceca20a17342391"


@pytest.fixture(scope="module")
def visits():
    return load_visits()


def small_log(rng, n_users=6, n_partitions=4, max_rows=5):
    """A random log in which users have 1..n_partitions partitions and 1..max_rows rows in each."""
    rows = []
    for u in range(n_users):
        for p in rng.choice(n_partitions, size=rng.integers(1, n_partitions + 1), replace=False):
            rows += [(u, f"p{p}", float(rng.integers(0, 10)))] * int(rng.integers(1, max_rows + 1))
    return pd.DataFrame(rows, columns=["user", "page", "value"])


# --- the data ----------------------------------------------------------------------------------------------------

def test_visits_file_is_the_documented_one(visits):
    assert hashlib.md5(VISITS_PATH.read_bytes()).hexdigest() == VISITS_MD5
    assert list(visits.columns) == ["user", "category", "spend"]
    per_user = visits.groupby("user").size()
    assert per_user.size == 32_561 and per_user.min() == 1
    assert per_user.max() > 500, "a few heavy users are the point of the data"
    assert set(visits["category"]) <= set(CATEGORIES)


def test_simulate_visits_is_reproducible_and_refuses_bad_ids():
    a = simulate_visits(np.arange(500), rng=make_rng(3))
    b = simulate_visits(np.arange(500), rng=make_rng(3))
    pd.testing.assert_frame_equal(a, b)
    with pytest.raises(ValueError, match="distinct"):
        simulate_visits([1, 1, 2], rng=make_rng(0))
    with pytest.raises(TypeError, match="rng"):
        simulate_visits([1, 2], rng=0)


# --- bounding ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("l0, linf", [(1, 1), (2, 3), (3, 10), (30, 2000)])
def test_bounds_hold_exactly_for_every_user(visits, l0, linf):
    kept = bound_contributions(visits, "user", "category", max_partitions=l0, max_per_partition=linf,
                               rng=make_rng(l0 * 100 + linf))
    assert kept.index.isin(visits.index).all() and kept.index.is_monotonic_increasing
    pd.testing.assert_frame_equal(kept, visits.loc[kept.index])  # rows are kept whole, not altered
    # exactly min(#partitions, L0) partitions per user and min(#rows, L∞) rows in each kept partition
    want_parts = visits.groupby("user")["category"].nunique().clip(upper=l0)
    got_parts = kept.groupby("user")["category"].nunique()
    pd.testing.assert_series_equal(got_parts, want_parts)
    rows = visits.groupby(["user", "category"]).size()
    got_rows = kept.groupby(["user", "category"]).size()
    pd.testing.assert_series_equal(got_rows, rows.loc[got_rows.index].clip(upper=linf))


def test_generous_bounds_keep_everything(visits):
    kept = bound_contributions(visits, "user", "category", max_partitions=len(CATEGORIES), max_per_partition=10_000,
                               rng=make_rng(0))
    pd.testing.assert_frame_equal(kept, visits)


def copies(pattern, n):
    """n users with the same visit pattern (a list of pages): one bounding call draws n independent choices."""
    return pd.DataFrame({"user": np.repeat(np.arange(n), len(pattern)), "page": np.tile(pattern, n),
                         "row": np.tile(np.arange(len(pattern)), n)})


def test_kept_partitions_are_uniform_over_subsets():
    """Users with 4 partitions, L0 = 2: each of the 6 pairs with probability 1/6 (χ²), and a power check."""
    kept = bound_contributions(copies(list("aabbccdd"), 6000), "user", "page", max_partitions=2,
                               max_per_partition=1, rng=make_rng(11))
    chosen = kept.groupby("user")["page"].agg("".join).value_counts()
    assert sorted(chosen.index) == ["".join(p) for p in combinations("abcd", 2)]
    observed = chosen.sort_index().to_numpy()
    assert stats.chisquare(observed).pvalue > ALPHA
    skewed = np.array([0.25, 0.15, 0.15, 0.15, 0.15, 0.15]) * observed.sum()  # what a biased rule would produce
    assert stats.chisquare(observed, skewed).pvalue < ALPHA


def test_kept_rows_are_uniform_within_a_partition():
    kept = bound_contributions(copies(["a"] * 5, 4000), "user", "page", max_partitions=1, max_per_partition=2,
                               rng=make_rng(12))
    hits = kept["row"].value_counts().sort_index().to_numpy()
    assert hits.sum() == 8000
    assert stats.chisquare(hits).pvalue > ALPHA  # each row kept with probability 2/5
    assert stats.chisquare(hits, np.array([0.3, 0.3, 0.2, 0.1, 0.1]) * hits.sum()).pvalue < ALPHA


def test_a_users_kept_rows_do_not_depend_on_other_users():
    """Bounding is per user: the law of a user's kept partition is the same with or without other users (χ²)."""
    alone = copies(["a", "b", "c"], 3000)
    others = pd.DataFrame({"user": np.arange(3000, 9000), "page": np.tile(["a", "a", "b"], 2000), "row": 0})
    table = []
    for i, log in enumerate((alone, pd.concat([others, alone], ignore_index=True))):
        kept = bound_contributions(log, "user", "page", max_partitions=1, max_per_partition=1, rng=make_rng(13 + i))
        table.append(kept.loc[kept["user"] < 3000, "page"].value_counts().reindex(list("abc")).to_numpy())
    assert stats.chi2_contingency(np.array(table)).pvalue > ALPHA


def test_sensitivity_claim_by_brute_force():
    """Over random small logs and bounding runs, every user's bounded contribution to the count and sum vectors
    (which is f(D) - f(D minus that user) under the per-user coupling) has at most L0 nonzero entries, each at
    most L∞ (· max value), and L1 norm at most L0·L∞ (· max value); and the L1 bound is attained."""
    rng = make_rng(14)
    attained = False
    for _ in range(25):
        log = small_log(rng)
        l0, linf = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        sens, sens_sum = contribution_sensitivity(l0, linf), contribution_sensitivity(l0, linf, 9.0)
        for _ in range(2):
            kept = bound_contributions(log, "user", "page", max_partitions=l0, max_per_partition=linf, rng=rng)
            cell = kept.groupby(["user", "page"]).agg(n=("value", "size"), s=("value", "sum"))
            per_user = cell.groupby("user").agg(l0=("n", "size"), linf=("n", "max"), l1=("n", "sum"),
                                                s_inf=("s", "max"), s_l1=("s", "sum"))
            assert (per_user["l0"] <= sens["L0"]).all() and (per_user["linf"] <= sens["Linf"]).all()
            assert (per_user["l1"] <= sens["L1"]).all()
            assert (per_user["s_inf"] <= sens_sum["Linf"]).all() and (per_user["s_l1"] <= sens_sum["L1"]).all()
            attained |= bool((per_user["l1"] == sens["L1"]).any())
            # and removing a user's kept rows changes the count vector by exactly its contribution
            u = int(per_user.index[0])
            full = kept.groupby("page").size()
            without = kept[kept["user"] != u].groupby("page").size().reindex(full.index, fill_value=0)
            assert int((full - without).abs().sum()) == int(per_user.loc[u, "l1"])
    assert attained, "some user should reach the L1 bound exactly (the bound is tight)"


def test_sensitivity_formulas():
    assert contribution_sensitivity(4, 3, 2.5) == {"L0": 4, "Linf": 7.5, "L1": 30.0, "L2": 15.0}
    with pytest.raises(ValueError, match="max_partitions"):
        contribution_sensitivity(0, 1)
    with pytest.raises(ValueError, match="max_value"):
        contribution_sensitivity(1, 1, float("inf"))


# --- the releases ------------------------------------------------------------------------------------------------

def deterministic_log():
    """Every user has at most 2 partitions and 3 rows in each: bounding at (2, 3) keeps everything."""
    return pd.DataFrame({"user": [1, 1, 1, 1, 2, 2, 3], "page": ["a", "a", "a", "b", "b", "b", "c"],
                         "value": [10.0, 20.0, 500.0, 1.0, 2.0, 3.0, -4.0]})


def many_partitions(n_partitions=3000):
    """Users with rows in 2 partitions, 3 rows each; bounding at (2, 3) keeps every row, so the true values are fixed."""
    users = np.repeat(np.arange(n_partitions), 6)
    pages = (users + np.tile([0, 0, 0, 1, 1, 1], n_partitions)) % n_partitions
    values = np.tile([10.0, 20.0, 500.0, 1.0, 2.0, -4.0], n_partitions)
    return pd.DataFrame({"user": users, "page": pages, "value": values}), list(range(n_partitions))


def test_user_level_count_noise_is_laplace_with_the_stated_scale():
    log, keys = many_partitions()
    noise = user_level_count(log, "user", "page", partitions=keys, max_partitions=2, max_per_partition=3,
                             epsilon=0.5, rng=make_rng(15)).to_numpy() - 6  # every partition has 6 rows
    assert stats.kstest(noise, laplace_cdf, args=(0.0, 12.0)).pvalue > ALPHA  # b = L0·L∞/ε = 2·3/0.5
    assert stats.kstest(noise, laplace_cdf, args=(0.0, 2.0)).pvalue < ALPHA  # the event-level scale 1/ε is rejected


def test_user_level_sum_clamps_and_uses_the_stated_scale():
    log, keys = many_partitions()
    true = 10 + 20 + 100 + 1 + 2 + 0  # 500 clamped to 100, -4 clamped to 0
    noise = user_level_sum(log, "user", "page", "value", partitions=keys, max_partitions=2, max_per_partition=3,
                           min_value=0.0, max_value=100.0, epsilon=1.0, rng=make_rng(16)).to_numpy() - true
    assert stats.kstest(noise, laplace_cdf, args=(0.0, 600.0)).pvalue > ALPHA
    assert stats.kstest(noise, laplace_cdf, args=(0.0, 300.0)).pvalue < ALPHA


def test_release_validation():
    log = deterministic_log()
    kw = dict(max_partitions=1, max_per_partition=1, epsilon=1.0, rng=make_rng(0))
    with pytest.raises(ValueError, match="partitions"):
        user_level_count(log, "user", "page", partitions=["a", "a"], **kw)
    with pytest.raises(ValueError, match="user"):
        user_level_count(log, "nobody", "page", partitions=["a"], **kw)
    with pytest.raises(ValueError, match="epsilon"):
        user_level_count(log, "user", "page", partitions=["a"], **{**kw, "epsilon": 0})
    with pytest.raises(ValueError, match="min_value"):
        user_level_sum(log, "user", "page", "value", partitions=["a"], min_value=5.0, max_value=1.0, **kw)
    with pytest.raises(TypeError, match="df must be a pandas DataFrame"):
        bound_contributions([1, 2], "user", "page", max_partitions=1, max_per_partition=1, rng=make_rng(0))
    with pytest.raises(TypeError, match="rng"):
        bound_contributions(log, "user", "page", max_partitions=1, max_per_partition=1, rng=None)


def heavy_pair():
    """200 light users with one visit each, and the same log plus one heavy user with 60 visits to "kitchen"."""
    light = pd.DataFrame({"user": np.arange(200), "page": np.where(np.arange(200) % 2, "kitchen", "books")})
    heavy = pd.DataFrame({"user": [999] * 60, "page": ["kitchen"] * 60})
    return light, pd.concat([light, heavy], ignore_index=True)


def kitchen_release(user_level, epsilon=1.0):
    """The audited output: the released "kitchen" count, `size` independent runs."""
    def mechanism(log, size, rng):
        if user_level:  # bounding keeps every light row and 2 of the heavy user's; its count is then fixed
            kept = bound_contributions(log, "user", "page", max_partitions=1, max_per_partition=2, rng=rng)
            return (kept["page"] == "kitchen").sum() + rng.laplace(0.0, 2.0 / epsilon, size)
        return (log["page"] == "kitchen").sum() + rng.laplace(0.0, 1.0 / epsilon, size)  # one row = one person
    return mechanism


def test_audit_certifies_user_level_and_flags_event_level():
    light, with_heavy = heavy_pair()
    user = search_events(kitchen_release(True), light, with_heavy, 100_000, rng=make_rng(17), claimed_epsilon=1.0)
    event = search_events(kitchen_release(False), light, with_heavy, 100_000, rng=make_rng(18), claimed_epsilon=1.0)
    assert not user.flagged and user.epsilon_lb > 0.8  # the audit is sharp enough to see ε = 1
    assert event.flagged and event.epsilon_lb > 5


# --- partition selection -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("epsilon, delta, l0", [(1.0, 1e-6, 1), (0.5, 1e-5, 3), (2.0, 0.3, 1)])
def test_threshold_makes_a_lone_user_pass_with_probability_delta_over_l0(epsilon, delta, l0):
    b, tau = partition_selection_threshold(epsilon, delta, l0)
    assert b == l0 / epsilon
    assert 1 - laplace_cdf(tau - 1, 0.0, b) == pytest.approx(delta / l0, rel=1e-9)


def test_select_partitions_monte_carlo():
    """At δ = 0.05, L0 = 2: a one-user partition passes w.p. 0.025 (exact binomial test), a big one always."""
    rng = make_rng(19)
    keep = select_partitions(np.ones(200_000), 1.0, 0.05, 2, rng=rng)
    assert stats.binomtest(int(keep.sum()), keep.size, 0.025).pvalue > ALPHA
    assert stats.binomtest(int(keep.sum()), keep.size, 0.05).pvalue < ALPHA  # forgetting the split over L0
    assert select_partitions(np.full(1000, 100.0), 1.0, 0.05, 2, rng=rng).all()
    series = select_partitions(pd.Series([0, 1000], index=["x", "y"]), 1.0, 1e-6, 1, rng=rng)
    assert series.to_dict() == {"x": False, "y": True}


def test_select_partitions_audit():
    """Neighbours: a partition absent (0 users) vs held by the added user alone. With δ the audit is not flagged."""
    def mechanism(count, size, rng):
        return select_partitions(np.full(size, float(count)), 1.0, 0.01, 1, rng=rng).astype(float)
    result = search_events(mechanism, 0, 1, 200_000, rng=make_rng(20), claimed_epsilon=1.0, delta=0.01)
    assert not result.flagged
    assert result.frequency_prime == pytest.approx(0.01, abs=0.002)


def test_select_partitions_validation():
    with pytest.raises(ValueError, match="counts"):
        select_partitions([-1, 2], 1.0, 1e-6, 1, rng=make_rng(0))
    with pytest.raises(ValueError, match="delta"):
        select_partitions([1, 2], 1.0, 0.0, 1, rng=make_rng(0))
    with pytest.raises(ValueError, match="max_partitions"):
        select_partitions([1, 2], 1.0, 1e-6, 0, rng=make_rng(0))


def test_threshold_agrees_with_opendp():
    """OpenDP's own privacy map for Laplace thresholding at our (rounded-up) threshold gives δ <= ours."""
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    for epsilon, delta, l0 in [(1.0, 1e-6, 1), (1.0, 1e-6, 3), (0.5, 1e-8, 2)]:
        b, tau = partition_selection_threshold(epsilon, delta, l0)
        meas = dp.m.make_laplace_threshold(dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int)),
                                           dp.l01inf_distance(dp.absolute_distance(T=int)), scale=b,
                                           threshold=math.ceil(tau))
        eps_map, delta_map = meas.map((l0, l0, 1))
        assert eps_map == pytest.approx(epsilon) and 0 < delta_map <= delta


def test_the_bounding_figures_curves_are_the_rms_at_every_grid_point():
    """plot_bounding_tradeoff's curves come from a bias table computed once: the same numbers as _rms, per ε."""
    from dp_lib.plotting.contributions import L0_CURVES, LINF_GRID, _curves, _rms, expected_bounded_counts

    true = expected_bounded_counts(30, 10_000)[:10]
    rng = np.random.default_rng(10)
    for epsilon in (0.1, 1.0, 1.7):
        curves = _curves(epsilon)
        for i in rng.choice(LINF_GRID.size, 5, replace=False):
            for l0 in L0_CURVES:
                assert curves[l0][i] == _rms(l0, int(LINF_GRID[i]), epsilon, true)


# --- the production libraries ------------------------------------------------------------------------------------

def test_pipeline_dp_matches_the_stated_noise(visits):
    """PipelineDP (LocalBackend) on 2,000 public partitions where bounding keeps everything: the count noise has
    the Laplace scale 2·L0·L∞/ε (ε split between COUNT and SUM) — KS test — and every count is within its bound."""
    pipeline_dp = pytest.importorskip("pipeline_dp")
    rows = [(u, f"k{u % 2000}", 1.0) for u in range(6000)]  # 3 users per partition, one row each
    out = dict(pipeline_dp_release(rows, pipeline_dp.LocalBackend(), partitions=[f"k{i}" for i in range(2000)],
                                   epsilon=1.0, max_partitions=1, max_per_partition=2, min_value=0.0, max_value=1.0))
    noise = np.array([out[f"k{i}"].count - 3 for i in range(2000)])
    assert stats.kstest(noise, laplace_cdf, args=(0.0, 4.0)).pvalue > ALPHA
    assert stats.kstest(noise, laplace_cdf, args=(0.0, 2.0)).pvalue < ALPHA
    assert np.abs(noise).max() < 4.0 * math.log(2000 / ALPHA)


def test_opendp_count_by_categories_map_gives_the_user_level_epsilon():
    """OpenDP derives the sensitivity itself: a user with at most L0·L∞ rows moves the count vector by L0·L∞ in L1."""
    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    l0, linf, epsilon = 2, 3, 1.0
    meas = (dp.t.make_count_by_categories(dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance(),
                                          categories=["a", "b"], null_category=False)
            >> dp.m.then_laplace(scale=l0 * linf / epsilon))
    assert meas.map(l0 * linf) == pytest.approx(epsilon)
    assert meas.map(1) == pytest.approx(epsilon / (l0 * linf))  # the event-level reading of the same noise


def test_heavy_user_figure_centres_each_panel_on_its_own_count():
    """Review fix: the user-level panel is centred at the *bounded* count (bounding trims other heavy users too),
    not at the raw count of the event-level panel; the five-digit tick labels do not crowd."""
    from dp_lib.plotting import plot_heavy_user

    fig = plot_heavy_user(1.0, heavy_rows=631, max_per_partition=10, base=9_605, bounded_base=8_342)
    (left, right) = fig.axes
    for ax, expected in ((left, (9_605, 10_236)), (right, (8_342, 8_352))):
        peaks = [line.get_xdata()[np.argmax(line.get_ydata())] for line in ax.lines]
        step = np.diff(ax.lines[0].get_xdata()[:2])[0]
        assert np.allclose(peaks, expected, atol=step)
        assert len([t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]) <= 6


# --- bounding: the readable form equals the vectorised priorities (issue 30) ------------------------------------

def _random_rank_reference(groups, rng):
    """0.2's vectorised ranking: each element's rank within its group in a uniformly random order."""
    order = np.lexsort((rng.random(groups.size), groups))
    sorted_groups = groups[order]
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
    rank = np.empty(groups.size, dtype=np.int64)
    rank[order] = np.arange(groups.size) - np.repeat(starts, np.diff(np.r_[starts, groups.size]))
    return rank


def _bound_vectorised_reference(df, user, partition, l0, linf, rng):
    users = pd.factorize(df[user], use_na_sentinel=False)[0].astype(np.int64)
    parts = pd.factorize(df[partition], use_na_sentinel=False)[0].astype(np.int64)
    width = parts.max(initial=0) + 1
    pair_codes, row_pair = np.unique(users * width + parts, return_inverse=True)
    row_ok = _random_rank_reference(row_pair, rng) < linf
    pair_ok = _random_rank_reference(pair_codes // width, rng) < l0
    return df[row_ok & pair_ok[row_pair]]


@pytest.mark.parametrize("seed", range(20))
def test_readable_bounding_keeps_the_rows_of_the_vectorised_form(seed):
    log = small_log(make_rng(seed), n_users=8, n_partitions=5, max_rows=6).sample(frac=1.0, random_state=seed)
    l0, linf = 1 + seed % 3, 1 + seed % 4
    readable = bound_contributions(log, "user", "page", max_partitions=l0, max_per_partition=linf,
                                   rng=make_rng(1000 + seed))
    reference = _bound_vectorised_reference(log, "user", "page", l0, linf, make_rng(1000 + seed))
    assert readable.index.equals(reference.index)


def test_readable_bounding_on_the_visits_log(visits):
    readable = bound_contributions(visits, "user", "category", max_partitions=3, max_per_partition=10, rng=make_rng(7))
    reference = _bound_vectorised_reference(visits, "user", "category", 3, 10, make_rng(7))
    assert readable.index.equals(reference.index)
