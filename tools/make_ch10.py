"""Write chapters/10_user_level.ipynb from the cells below (stable cell ids); then run tools/refresh_notebooks.py."""

import hashlib
from pathlib import Path

import nbformat

OUT = Path(__file__).resolve().parents[1] / "chapters" / "10_user_level.ipynb"
cells = []


def _id(kind, text):
    return hashlib.sha1(f"ch10-{kind}-{text.strip()[:200]}".encode()).hexdigest()[:8]


def md(text):
    cells.append(nbformat.v4.new_markdown_cell(text.strip("\n"), id=_id("md", text)))


def code(text, tags=None, **metadata):
    cell = nbformat.v4.new_code_cell(text.strip("\n"), id=_id("code", text))
    if tags:
        cell.metadata["tags"] = tags
    cell.metadata.update(metadata)
    cells.append(cell)


md(r"""
(ch10-user-level)=
# One person, many rows: user-level privacy

Every chapter so far had one row per person, so "add or remove one record" meant "add or remove one person". Real
data is rarely like that. A shop's log has one row per *visit*, a ride-hailing company one row per trip, a browser
one row per page view, and some people have thousands of rows. This chapter makes the unit of privacy explicit,
shows that noise calibrated to one row fails the heaviest users, and repairs it by **bounding each person's
contribution**. Then it does the same release with two production libraries, PipelineDP and OpenDP, and runs the
identical PipelineDP pipeline on Apache Spark, the way a release on millions of rows is run in practice.

:::{admonition} Learning objectives
:class: tip
After this chapter you can
- tell event-level from user-level privacy and show, by an experiment and an audit, how event-level noise exposes a heavy user;
- bound contributions (at most L0 partitions per user, at most L∞ rows per partition) and derive the sensitivity that follows;
- choose the bounds by weighing the bias of dropped rows against the noise;
- explain why releasing the *set* of keys leaks, and select partitions privately with a threshold you can derive;
- run the same release with PipelineDP and OpenDP, check results whose noise cannot be seeded, and scale it out on Spark.

Core reading time: about 25 minutes.
:::
""")

md(r"""
The setup cell imports `dp_lib`, the two production libraries and the widgets, makes the seeded generator and
loads the **shop log**: 84,215 visits by the 32,561 people of the Adult data, keyed by their (fake) social security
numbers. The log is synthetic and reproducible (`data/make_visits.py`; see `data/README.md`).
""")

code(r"""
import math

import numpy as np
import opendp.prelude as dp
import pandas as pd
import pipeline_dp
from ipywidgets import FloatSlider, IntSlider, interact

from dp_lib import (CATEGORIES, audit_table, bound_contributions, contribution_envelope, contribution_sensitivity,
                    laplace_mech, load_visits, make_rng, partition_selection_threshold, pipeline_dp_release,
                    search_events, select_partitions, user_level_count, user_level_sum)
from dp_lib.plotting import (expected_bounded_counts, plot_bounding_tradeoff, plot_heavy_user,
                             plot_partition_selection)

%matplotlib inline
pd.set_option("display.width", 120)
dp.enable_features("contrib")
rng = make_rng(2030)
visits = load_visits()
visits.head(3)
""", tags=["hide-input"])

md(r"""
## One person, many rows

Each row is one visit: who (`user`), to which department of the shop (`category`, the **partition** we will group
by), and how much they spent. Most people came once; a few came hundreds of times:
""")

code(r"""
per_user = visits.groupby("user").size()
pd.Series({"users": per_user.size, "visits": len(visits), "share with one visit": round((per_user == 1).mean(), 3),
           "99th percentile of visits": int(per_user.quantile(0.99)), "most visits": int(per_user.max())})
""")

code(r"""
heavy = per_user.idxmax()
heavy_rows = visits[visits["user"] == heavy]
heavy, len(heavy_rows), heavy_rows["category"].value_counts().head(3).to_dict()
""")

md(r"""
## Event level is not enough

Suppose the shop publishes the number of visits per category with $\mathrm{Lap}(1/\varepsilon)$ noise, the
histogram release of {ref}`ch01-laplace`. That is ε-DP if neighbouring logs differ by **one row**: *event-level*
privacy. But the heaviest user is 964 rows. Removing that person moves the histogram by 964 in L1 norm, and the
kitchen count alone by 631:
""")

code(r"""
epsilon = 1.0
without = visits[visits["user"] != heavy]
counts = visits["category"].value_counts().reindex(CATEGORIES, fill_value=0)
shift = counts - without["category"].value_counts().reindex(CATEGORIES, fill_value=0)
int(shift.abs().sum()), int(shift["kitchen"])
""")

md(r"""
By group privacy ({ref}`ch02-composition`) the event-level release protects this person only with
$\varepsilon \cdot 964$, which is no protection at all. **User-level** privacy takes all rows of one person as the
unit: neighbouring logs differ by adding or removing *one user with all their rows*. Here is the kitchen count both
ways, as mechanisms in the audit convention. The user-level one keeps at most $L_\infty = 10$ kitchen rows per user
(chosen at random, as we derive below) and adds $\mathrm{Lap}(L_\infty/\varepsilon)$:
""")

code(r'''
kitchen = visits[visits["category"] == "kitchen"]
kitchen_without = kitchen[kitchen["user"] != heavy]

def kitchen_event_level(log, size, rng):
    """Event level: the kitchen row count + Lap(1/ε), `size` independent releases."""
    return laplace_mech(np.full(size, float(len(log))), 1.0, epsilon, rng=rng)

def kitchen_user_level(log, size, rng):
    """User level, one public partition: at most 10 rows per user, then + Lap(10/ε)."""
    kept = bound_contributions(log, "user", "category", max_partitions=1, max_per_partition=10, rng=rng)
    return laplace_mech(np.full(size, float(len(kept))), 10.0, epsilon, rng=rng)
''')

md(r"""
**A distinguishing experiment.** An attacker knows the whole log except whether the heavy user is in it, sees one
release of the kitchen count, and guesses "in" when it lies above the midpoint of the two possible true values. At
$\varepsilon = 1$ no test can be right more than $e/(1+e) \approx 73.1\%$ of the time against an ε-DP release
(the hypothesis-testing meaning of ε):
""")

code(r"""
def attacker_accuracy(mechanism, trials=20_000):
    released_in, released_out = mechanism(kitchen, trials, rng), mechanism(kitchen_without, trials, rng)
    cut = (released_in.mean() + released_out.mean()) / 2
    return (np.mean(released_in > cut) + np.mean(released_out <= cut)) / 2

print(f"event level: the attacker is right {attacker_accuracy(kitchen_event_level):.1%} of the time")
print(f"user level:  the attacker is right {attacker_accuracy(kitchen_user_level):.1%} of the time")
""")

code(r"""
plot_heavy_user(epsilon=1.0, heavy_rows=int(shift["kitchen"]), max_per_partition=10, base=len(kitchen_without))
""", mystnb={"image": {"alt": "Two panels of Laplace densities of the released kitchen count, with and without the "
                                 "heaviest user. At event level the two peaks are 631 apart and never overlap, so one "
                                 "release reveals the user; at user level they are 10 apart and overlap almost "
                                 "entirely."}})

md(r"""
The auditor of {ref}`chA1-auditing` turns this into a certified statement. It picks an event on a pilot batch and
bounds ε from below with 95 % confidence on the neighbour pair "log with / without the heavy user". A claimed
$\varepsilon = 1$ is refuted for the event-level release and not for the user-level one:
""")

code(r"""
audits = {
    "event level, Lap(1/ε)": search_events(kitchen_event_level, kitchen, kitchen_without, 50_000, rng=rng,
                                           claimed_epsilon=epsilon),
    "user level, L∞ = 10, Lap(10/ε)": search_events(kitchen_user_level, kitchen, kitchen_without, 50_000, rng=rng,
                                                    claimed_epsilon=epsilon),
}
audit_table(audits)[["claimed ε", "certified lower bound", "verdict"]].round(3)
""")

md(r"""
## Contribution bounding

A kitchen-only release needs one bound. A histogram over many categories needs two, because a user can visit many
categories:

- **L0** (`max_partitions`): keep at most $L_0$ of each user's partitions, chosen uniformly at random;
- **L∞** (`max_per_partition`): in each kept partition keep at most $L_\infty$ of the user's rows, chosen
  uniformly at random.

The choice for one user must use that user's own coin flips only, never the other users' rows; then removing a user
removes exactly that user's kept rows and nothing else changes {cite}`wilson2020differentially`.

```{prf:theorem} Sensitivity after contribution bounding
:label: ch10-thm-sensitivity

After bounding, adding or removing one user changes at most $L_0$ per-partition counts, each by at most $L_\infty$.
So the vector of counts has $L_1$ sensitivity $L_0 L_\infty$ and $L_2$ sensitivity $\sqrt{L_0}\,L_\infty$. With
values clamped to $[0, U]$ the per-partition sums have $L_1$ sensitivity $L_0 L_\infty U$. Adding
$\mathrm{Lap}(L_0 L_\infty/\varepsilon)$ to every count is ε-DP for user-level neighbours.
```

```{prf:proof}
Bounding treats users independently, so (coupling the coin flips) the bounded logs of $D$ and $D \cup \{u\}$ differ
by $u$'s kept rows alone: at most $L_\infty$ rows in each of at most $L_0$ partitions. Each row adds 1 to one count
(or at most $U$ to one sum). Summing over at most $L_0$ partitions gives the $L_1$ bounds; the $L_2$ bound is
$\sqrt{L_0 \cdot L_\infty^2}$. The Laplace mechanism (Dwork and Roth {cite}`dwork2014algorithmic`, Thm 3.6) then
gives ε-DP.
```
""")

code(r"""
contribution_sensitivity(max_partitions=3, max_per_partition=10)
""")

md(r"""
**Bounding by hand.** Give every row and every (user, partition) pair an independent uniform priority; keep a row
if its priority is among the $L_\infty$ smallest of its pair, and the pair if its priority is among the $L_0$
smallest of its user. That is a uniformly random subset at both levels, with no loop over users. `bound_contributions`
is exactly this (its pairs are ordered by user and partition code) and, from the same generator state, keeps
exactly the same rows:
""")

code(r"""
draws = make_rng(7)
codes = pd.DataFrame({"u": pd.factorize(visits["user"])[0], "p": pd.factorize(visits["category"])[0]})
codes["row_priority"] = draws.random(len(codes))
row_rank = codes.groupby(["u", "p"])["row_priority"].rank(method="first") - 1
pairs = codes[["u", "p"]].drop_duplicates().sort_values(["u", "p"])
pairs["pair_priority"] = draws.random(len(pairs))
kept_pairs = pairs[pairs.groupby("u")["pair_priority"].rank(method="first") <= 3].set_index(["u", "p"]).index
by_hand = codes[(row_rank < 10) & codes.set_index(["u", "p"]).index.isin(kept_pairs)]
library = bound_contributions(visits, "user", "category", max_partitions=3, max_per_partition=10, rng=make_rng(7))
by_hand.index.equals(library.index)
""")

md(r"""
From here on we use the library. With $L_0 = 3$ and $L_\infty = 10$ every user respects both bounds, and the heavy
user keeps 30 of 964 rows:
""")

code(r"""
bounded = bound_contributions(visits, "user", "category", max_partitions=3, max_per_partition=10, rng=rng)
print(f"rows kept: {len(bounded):,} of {len(visits):,}")
print(f"most partitions per user: {bounded.groupby('user')['category'].nunique().max()}, "
      f"most rows per (user, partition): {bounded.groupby(['user', 'category']).size().max()}")
print(f"the heavy user keeps {int((bounded['user'] == heavy).sum())} of {len(heavy_rows)} rows")
""")

md(r"""
`user_level_count` does the whole release: keep the rows of the public partitions, bound, count, and add
$\mathrm{Lap}(L_0 L_\infty/\varepsilon) = \mathrm{Lap}(30)$ to every count:
""")

code(r"""
released = user_level_count(visits, "user", "category", partitions=CATEGORIES[:10], max_partitions=3,
                            max_per_partition=10, epsilon=epsilon, rng=rng)
pd.DataFrame({"true visits": counts[:10], "released": released.round(0).astype(int)}).T
""")

md(r"""
## Bias against noise

The released counts are about a quarter too low, and not because of the noise (its standard deviation is
$\sqrt2 \cdot 30 \approx 42$). The bounds **dropped rows**: a user with visits in five categories keeps three, and the
heavy users keep ten visits per category. Small bounds drop many rows (bias); large bounds need more noise. The
figure shows both for the ten big categories. The bars are the expected share of rows dropped, which follows
exactly from the log (each user keeps a partition with probability $\min(1, L_0/m)$ when they have $m$ of them). The
dots are the noise's standard deviation. On the right is the root-mean-square relative error.
""")

code(r"""
plot_bounding_tradeoff(max_partitions=3, max_per_partition=10, epsilon=1.0)
""", mystnb={"image": {"alt": "Left: bars of the expected share of rows dropped by bounding at L0 = 3, L∞ = 10 "
                                 "(about 18 to 30 % per category) and dots for the noise standard deviation (under 3 "
                                 "%). Right: RMS relative error against L∞ for L0 from 1 to 10; larger L0 helps, and "
                                 "each curve falls and then rises again once the noise dominates, with the smallest "
                                 "error near L0 = 10, L∞ = 20."}})

md(r"""
Move the bounds and ε. The slider needs a running kernel: open this chapter in JupyterLab or through the launch
buttons (rocket icon) at the top.
""")

code(r"""
_ = interact(plot_bounding_tradeoff, max_partitions=IntSlider(min=1, max=10, value=3, description="L0"), max_per_partition=IntSlider(min=1, max=200, value=10, description="L∞"), epsilon=FloatSlider(min=0.1, max=2.0, step=0.1, value=1.0, description="ε"))
""", tags=["nbval-ignore-output"], slider_frames={
    "function": "dp_lib.plotting.plot_bounding_tradeoff",
    "grid": {"max_partitions": [1, 2, 3, 5, 10], "max_per_partition": [1, 3, 10, 30, 100, 200]},
    "alt": "Bias (rows dropped) and noise of the shop-log counts at L0 = {max_partitions}, L∞ = {max_per_partition}",
    "labels": {"max_partitions": "L0", "max_per_partition": "L∞"}})

md(r"""
The same numbers as a table: rows dropped against error at a few bounds ($\varepsilon = 1$; medians over the ten big
categories, in % of the true count):
""")

code(r"""
true10 = counts[:10].to_numpy(dtype=float)
table = []
for l0, linf in [(1, 1), (2, 3), (3, 10), (5, 30), (10, 20), (10, 100)]:
    bias, noise_sd = true10 - expected_bounded_counts(l0, linf)[:10], math.sqrt(2) * l0 * linf / epsilon
    table.append({"L0": l0, "L∞": linf, "rows dropped": 100 * (1 - expected_bounded_counts(l0, linf).sum() / len(visits)),
                  "bias": np.median(100 * bias / true10), "noise sd": np.median(100 * noise_sd / true10),
                  "RMS error": 100 * math.sqrt(np.mean((bias ** 2 + noise_sd ** 2) / true10 ** 2))})
pd.DataFrame(table).round(1)
""")

md(r"""
The bounds are **public parameters**. Choosing them by looking at the private log, as this table does, leaks
information unless that choice is itself made privately (PipelineDP, for example, offers a private estimate of
good bounds); in practice they come from domain knowledge ("nobody buys in more than ten departments a month") or
from public or older data.

## Why the set of keys leaks

So far the categories were a public list. A plain `GROUP BY category` outputs only the keys that occur in the data,
and that is a leak in itself. Five niche categories were visited by exactly one person:
""")

code(r"""
users_per_category = visits.groupby("category")["user"].nunique()
users_per_category[users_per_category <= 2].to_dict()
""")

md(r"""
If the output contains the row `niche-16`, that one person is in the log, however much noise its count carries.
**Partition selection** releases a key only when its noisy number of distinct users clears a threshold. Laplace
thresholding goes back to Korolova et al. {cite}`korolova2009releasing`; Wilson et al. use it with bounded
contributions {cite}`wilson2020differentially`, and Desfontaines et al. give the optimal rule for $L_0 = 1$ and
discuss $L_0 > 1$ {cite}`desfontaines2022differentially`.

```{prf:theorem} Laplace thresholding
:label: ch10-thm-threshold

Bound each user to at most $L_0$ partitions, count distinct users per partition, add $\mathrm{Lap}(b)$ with
$b = L_0/\varepsilon$, and release the partitions whose noisy count exceeds
$\tau = 1 + b \ln\!\bigl(L_0/(2\delta)\bigr)$. This is $(\varepsilon, \delta)$-DP for user-level neighbours.
```

```{prf:proof}
Let $D' = D \cup \{u\}$. On partitions present in both logs the distinct-user counts differ by at most 1 in at
most $L_0$ places, so their noisy counts are ε-DP, and thresholding is post-processing. The only other outcomes are
partitions that $u$ alone holds: their count is 1 in $D'$ and they cannot appear from $D$. Each passes with
probability $P(1 + \mathrm{Lap}(b) > \tau) = \tfrac12 e^{-(\tau - 1)/b} = \delta / L_0$, and $u$ has at most
$L_0$ of them, so together they add at most $\delta$.
```
""")

code(r"""
eps_select, delta, l0 = 1.0, 1e-6, 3
b = l0 / eps_select
tau = 1 + b * math.log(l0 / (2 * delta))
round(tau, 4), round(partition_selection_threshold(eps_select, delta, l0)[1], 4)
""")

md(r"""
OpenDP implements the same idea as `make_laplace_threshold`, with its own proof and exact discrete noise. Its
privacy map, asked about a user who touches $L_0$ partitions by one each, confirms that our (rounded-up) threshold
spends no more than our δ:
""")

code(r"""
threshold_measurement = dp.m.make_laplace_threshold(
    dp.map_domain(dp.atom_domain(T=str), dp.atom_domain(T=int)), dp.l01inf_distance(dp.absolute_distance(T=int)),
    scale=b, threshold=math.ceil(tau))
eps_map, delta_map = threshold_measurement.map((l0, l0, 1))
f"OpenDP's map: ε = {eps_map:g}, δ = {delta_map:.2e} <= {delta:g}: {delta_map <= delta}"
""")

md(r"""
Now select on the log. Bound to $L_0 = 3$ partitions per user (one row each is enough to count distinct users),
count, and threshold. Only partitions with well over $\tau \approx 43$ users are likely to survive:
""")

code(r"""
one_row_each = bound_contributions(visits, "user", "category", max_partitions=l0, max_per_partition=1, rng=rng)
distinct_users = one_row_each.groupby("category")["user"].nunique()
kept = select_partitions(distinct_users, eps_select, delta, l0, rng=rng)
f"{int(kept.sum())} of the {kept.size} categories in the log are released: {sorted(kept[kept].index)}"
""")

code(r"""
plot_partition_selection(epsilon=1.0, delta=1e-6, max_partitions=3, user_counts=distinct_users[distinct_users < 100])
""", mystnb={"image": {"alt": "The probability that Laplace thresholding releases a partition, rising from almost "
                                 "0 to 1 around the threshold of about 43 distinct users; the niche categories of "
                                 "the shop log, all below 40 users, sit on the flat part near 0."}})

md(r"""
The niche categories are too small to be released safely: that is the price of not publishing a list of keys. With
$L_0 = 1$ the threshold would drop to about 14, and the optimal rule of Desfontaines et al. is lower still.

## The same release with production libraries

`dp_lib` is a teaching library. Two open-source libraries are built for production:

- **PipelineDP** {cite}`pipelinedp` runs one pipeline on a local Python backend, on Apache Spark or on Apache Beam.
  Its noise comes from Google's differential-privacy library, and it does the contribution bounding itself.
- **OpenDP** {cite}`opendp` builds a release from *transformations* and *measurements*, each with a stability or
  privacy map, and samples exact discrete noise.

Both draw noise from a cryptographically secure generator that cannot be seeded. So this section never prints a
noisy number. It prints facts that hold for every run: the noise scales, and whether every released value lies
within its error bound. The bound holds simultaneously for all values except with probability below
$2 \cdot 10^{-6}$. It combines Hoeffding's inequality, for the randomness of bounding, with the Laplace tail, for
the noise (`contribution_envelope`). We run all three on the first 8,000 users (about 20,000 rows) to keep the chapter fast:
""")

code(r"""
sample = visits[visits["user"].isin(per_user.index[:8000])]
L0, LINF, MAX_SPEND, big10 = 3, 10, 100.0, list(CATEGORIES[:10])
envelope = contribution_envelope(sample, "user", "category", "spend", partitions=big10, max_partitions=L0,
                                 max_per_partition=LINF, min_value=0.0, max_value=MAX_SPEND, failure=1e-6)
tail = math.log(2 * len(big10) / 1e-6)   # P(|Lap(b)| > b·tail) = 1e-6 / 20 for each of the 20 values
b_count, b_sum = L0 * LINF / (epsilon / 2), L0 * LINF * MAX_SPEND / (epsilon / 2)  # ε/2 for counts, ε/2 for sums
len(sample), b_count, b_sum
""")

code(r'''
def counts_ok(count):
    """Every released count within its simultaneous bound."""
    return bool(np.all(np.abs(np.asarray(count) - envelope["count_mean"]) <= envelope["count_slack"] + b_count * tail))

def sums_ok(total):
    """Every released sum within its simultaneous bound."""
    return bool(np.all(np.abs(np.asarray(total) - envelope["sum_mean"]) <= envelope["sum_slack"] + b_sum * tail))
''')

md(r"""
**PipelineDP.** `pipeline_dp_release` is the whole pipeline (read its source): a budget accountant for ε, an engine
on a backend, the bounds and the value range as `AggregateParams`, and extractors that tell it which field is the
user, the partition and the value. PipelineDP splits ε evenly between COUNT and SUM, so its noise scales are
`b_count` and `b_sum` above.
""")

code(r"""
rows = list(sample.itertuples(index=False, name=None))   # (user, category, spend) tuples
pipeline = dict(pipeline_dp_release(rows, pipeline_dp.LocalBackend(), partitions=big10, epsilon=epsilon,
                                    max_partitions=L0, max_per_partition=LINF, min_value=0.0, max_value=MAX_SPEND))
pipeline_count = [pipeline[c].count for c in big10]
pipeline_sum = [pipeline[c].sum for c in big10]
sorted(pipeline) == sorted(big10), counts_ok(pipeline_count), sums_ok(pipeline_sum)
""")

md(r"""
**OpenDP.** Its `make_count_by_categories` transformation works on rows, so we bound first (with `dp_lib`) and
hand it the bounded column. We do not tell OpenDP the sensitivity. It derives the ε of the chain from the number
of rows one user can contribute, $L_0 L_\infty = 30$:
""")

code(r"""
opendp_count = (dp.t.make_count_by_categories(dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance(),
                                              categories=big10, null_category=False)
                >> dp.m.then_laplace(scale=b_count))
opendp_bounded = bound_contributions(sample[sample["category"].isin(big10)], "user", "category", max_partitions=L0,
                                     max_per_partition=LINF, rng=rng)
opendp_released = opendp_count(opendp_bounded["category"].tolist())
opendp_count.map(L0 * LINF), counts_ok(opendp_released)
""")

md(r"""
**dp_lib** on the same rows with the same split of ε, and the three side by side. PipelineDP bounds contributions
itself; for OpenDP we bounded with `dp_lib`; only `dp_lib` can be seeded (which is why it can teach, and why it
must not be deployed):
""")

code(r"""
ours_count = user_level_count(sample, "user", "category", partitions=big10, max_partitions=L0, max_per_partition=LINF,
                              epsilon=epsilon / 2, rng=rng)
ours_sum = user_level_sum(sample, "user", "category", "spend", partitions=big10, max_partitions=L0,
                          max_per_partition=LINF, min_value=0.0, max_value=MAX_SPEND, epsilon=epsilon / 2, rng=rng)
pd.DataFrame({
    "count noise": ["Lap(60)", "Lap(60)", "discrete Lap(60)"],
    "counts within bound": [counts_ok(ours_count), counts_ok(pipeline_count), counts_ok(opendp_released)],
    "sums within bound": [sums_ok(ours_sum), sums_ok(pipeline_sum), "not run"],
    "seedable": ["yes", "no", "no"],
}, index=["dp_lib", "PipelineDP", "OpenDP"])
""")

md(r"""
All three agree within the bounds, with the same noise scale. The production libraries add what a teaching library
leaves out: secure noise, floating-point-safe or exact sampling, private partition selection and a budget accountant
built into the engine, and, for PipelineDP, backends that scale.

## Scaling out

`pipeline_dp_release(rows, backend, ...)` never looks at how `rows` is stored. Pass a Python list and
`pipeline_dp.LocalBackend()`, and it runs in this process. Pass a Spark RDD and `pipeline_dp.SparkRDDBackend(sc)`,
and the **identical pipeline** runs on Spark. `tests/spark/` does exactly that on a local Spark session with two
workers (`local[2]`), on $10^6$ visits generated on the fly. It checks the same invariants as above: every
partition released, every count and sum within its bound. The timings of `python -m benchmarks.spark_scaling`
(see `benchmarks/results/spark_scaling.json`):

SPARK_TABLE
""")

md(r"""
Spark pays a fixed cost to start its JVM and schedule tasks, so on one small machine it is slower than the local
backend at $10^5$ rows. It catches up as the data grows, and it keeps going when the data no longer fits in one
Python process. On a real cluster, nothing in the pipeline changes. The `SparkContext` comes from `spark-submit
--master <cluster URL>` (Spark's standalone manager, YARN or Kubernetes) instead of `local[2]`
{cite}`spark_cluster`. With PipelineDP's Beam backend, the same pipeline runs on any Beam runner, such as Google
Cloud Dataflow, Apache Flink or Spark {cite}`beam_overview`. The privacy guarantee does not depend on where the
pipeline runs. It depends only on the bounds, the value range and ε.
""")

md(r"""
:::{admonition} What to remember
:class: note
- Decide the **unit of privacy** first. With many rows per person, one-row (event-level) noise protects a heavy user
  with ε times their number of rows.
- **Bound contributions** per user with the user's own randomness: $L_0$ partitions, $L_\infty$ rows each. The count
  vector then has $L_1$ sensitivity $L_0 L_\infty$; sums also multiply by the value bound.
- Small bounds drop rows (bias), large bounds need more noise; choose them from public knowledge.
- The **set of keys** leaks. Use a public list, or select partitions with a threshold $\tau = 1 + (L_0/\varepsilon)
  \ln(L_0/2\delta)$.
- Production libraries (PipelineDP, OpenDP) do this with secure noise. Check their output with seed-independent
  bounds, and scale out by swapping the backend.
:::

## Exercises
""")

md(r"""
````{exercise}
:label: ch10-ex1

A shop releases the total spend per category, each visit's spend clamped to $[0, 50]$, with $L_0 = 2$ and
$L_\infty = 5$. What is the $L_1$ sensitivity of the vector of sums under user-level neighbours? Set `answer_ex1`.
The cell after it checks your answer.
````

````{solution} ch10-ex1
:class: dropdown

One user changes at most $L_0 = 2$ sums, each by at most $L_\infty \cdot U = 5 \cdot 50 = 250$, so the $L_1$
sensitivity is $2 \cdot 250 = 500$, and $\mathrm{Lap}(500/\varepsilon)$ per sum is ε-DP.
````
""")

code(r"""
answer_ex1 = contribution_sensitivity(max_partitions=2, max_per_partition=5, max_value=50.0)["L1"]
answer_ex1
""", tags=["solution", "hide-cell"])

code(r"""
assert answer_ex1 is not None, "set answer_ex1 to a number"
assert not math.isclose(answer_ex1, 50), "50 is one visit's spend: a user has up to L∞ visits in up to L0 categories"
assert not math.isclose(answer_ex1, 250), "250 is one category; the user can change L0 = 2 of them"
assert not math.isclose(answer_ex1, 100), "that forgets L∞: up to 5 visits per category count"
assert math.isclose(answer_ex1, 500, rel_tol=1e-6), "L1 = L0 · L∞ · U"
"Correct!"
""", tags=["check"])

md(r"""
````{exercise}
:label: ch10-ex2

For private partition selection with $\varepsilon = 0.5$, $\delta = 10^{-5}$ and $L_0 = 2$, compute the Laplace
thresholding threshold $\tau$ (to two decimals) and set `answer_ex2`. How many distinct users does a partition need
to be released with probability at least ½?
````

````{solution} ch10-ex2
:class: dropdown

$b = L_0/\varepsilon = 4$ and $\tau = 1 + 4 \ln(2 / (2 \cdot 10^{-5})) = 1 + 4 \ln 10^5 \approx 47.05$. A partition
with $c$ users passes with probability ½ exactly when $c = \tau$, so it needs 48 users (47 give slightly less than ½).
````
""")

code(r"""
answer_ex2 = partition_selection_threshold(0.5, 1e-5, 2)[1]
round(answer_ex2, 2)
""", tags=["solution", "hide-cell"])

code(r"""
assert answer_ex2 is not None, "set answer_ex2 to the threshold"
assert abs(answer_ex2 - (1 + 4 * math.log(1 / 2e-5))) > 0.05, \
    "that is ln(1/(2δ)): the δ must be split over the L0 partitions a user can create, ln(L0/(2δ))"
assert abs(answer_ex2 - (1 + 2 * math.log(1 / 2e-5))) > 0.05, "the noise scale is L0/ε = 4, not 1/ε"
assert abs(answer_ex2 - 47.05) < 0.05, "τ = 1 + (L0/ε)·ln(L0/(2δ))"
"Correct!"
""", tags=["check"])

md(r"""
````{exercise}
:label: ch10-ex3

At $\varepsilon = 0.1$ the noise is ten times larger. Which bounds $(L_0, L_\infty)$ with $L_0 \in \{1, 2, 3, 5,
10\}$ and $L_\infty \in \{1, 2, 3, 5, 10, 20, 50, 100\}$ minimise the RMS relative error of the ten big categories?
Compare with $\varepsilon = 1$. Move the sliders to see the curves.
````

````{solution} ch10-ex3
:class: dropdown

Evaluate bias² + noise variance for every pair (the expected counts come from `expected_bounded_counts`). At
$\varepsilon = 1$ the best pair is $(10, 20)$; at $\varepsilon = 0.1$ the noise pushes the optimum to smaller
bounds, $(5, 10)$, and the smallest error grows from about 10 % to about 22 %: a smaller budget buys less data.
````
""")

code(r"""
def best_bounds(eps):
    grid = [(l0, linf) for l0 in (1, 2, 3, 5, 10) for linf in (1, 2, 3, 5, 10, 20, 50, 100)]
    def rms(l0, linf):
        bias = true10 - expected_bounded_counts(l0, linf)[:10]
        return 100 * math.sqrt(np.mean((bias ** 2 + 2 * (l0 * linf / eps) ** 2) / true10 ** 2))
    best = min(grid, key=lambda pair: rms(*pair))
    return best, round(rms(*best), 1)

best_bounds(1.0), best_bounds(0.1)
""", tags=["solution", "hide-cell"])

md(r"""
````{exercise}
:label: ch10-ex4

Repeat the distinguishing experiment with $L_\infty = 1$ and $L_\infty = 100$ (change `kitchen_user_level`, keeping
the noise at $\mathrm{Lap}(L_\infty/\varepsilon)$). Does the attacker's accuracy change? Why, or why not?
````

````{solution} ch10-ex4
:class: dropdown

It stays below $e/(1+e) \approx 73\%$ in both cases and in fact barely moves. The heavy user shifts the bounded count
by $L_\infty$ and the noise scale is $L_\infty/\varepsilon$, so the two distributions are the same up to a
rescaling. What changes with $L_\infty$ is the accuracy for everyone else (the bias of dropped rows against the
noise), not the protection.
````
""")

code(r"""
def user_level_with(linf):
    def mechanism(log, size, rng):
        kept = bound_contributions(log, "user", "category", max_partitions=1, max_per_partition=linf, rng=rng)
        return laplace_mech(np.full(size, float(len(kept))), float(linf), epsilon, rng=rng)
    return mechanism

{linf: f"{attacker_accuracy(user_level_with(linf)):.1%}" for linf in (1, 100)}
""", tags=["solution", "hide-cell"])

md(r"""
## References

```{bibliography}
:filter: docname in docnames
```
""")

nb = nbformat.v4.new_notebook(cells=cells)
nb.metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
               "language_info": {"name": "python"}}
if __name__ == "__main__":
    import sys
    # Overwrites the notebook WITHOUT outputs: run tools/refresh_notebooks.py on it afterwards.
    table = (Path(sys.argv[1]) if len(sys.argv) > 1 else OUT.parents[1] / "benchmarks/results/spark_scaling.md")
    table = table.read_text().strip()
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = cell.source.replace("SPARK_TABLE", table)
    target = Path(sys.argv[2]) if len(sys.argv) > 2 else OUT
    nbformat.write(nb, target)
    print(f"wrote {target} ({len(cells)} cells)")
