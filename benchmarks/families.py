"""The mechanism families: for each, a per-element reference, the dp_lib pipeline and the numpy floor.

``build_families(tiny=False)`` returns one ``Family`` per row of the table.
Every contender is a zero-argument callable over inputs prepared once (the
Adult columns as numpy arrays or Python lists), with its own seeded generator.

The floor is what any correct implementation must at least do, as bare numpy
calls: numpy's own sampler for the same number and kind of draws
(``rng.laplace``, ``rng.random`` for Bernoulli bits, ``rng.choice`` for a
categorical), plus, for the mechanisms whose cost is reading the data rather
than drawing (scores from ``value_counts``, sample-and-aggregate, smooth
sensitivity), the same pass over the data written as one bare pandas/numpy call.

When a reference would take too long at the full size, it runs on a smaller
size (``reference_size``) and its time is scaled linearly by
``reference_scale`` = full size / reference size (its cost is one Python call
per element, so it is linear); the table says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import numpy as np
import pandas as pd

import dp_lib
from dp_lib import load_adult, make_rng

from . import references as ref

__all__ = ["Family", "adult_inputs", "build_families", "run_mechanisms"]

SEED = 2024
EPSILON_LN9 = math.log(9)  # SUE at p = 3/4, q = 1/4
EM_EPSILON = 0.0002  # the exponential-mechanism chapter's default on the Marital Status counts
UPPER = 100.0


@dataclass
class Family:
    """One row of the mechanisms table."""

    name: str
    size: str  # the workload in words, e.g. "10^6 draws"
    reference: Callable
    dp_lib: Callable
    floor: Callable
    floor_label: str
    reference_size: str = ""  # empty when the reference runs at the full size
    reference_scale: float = 1.0
    dp_lib_label: str = ""
    extra_floors: dict = field(default_factory=dict)  # label -> callable, reported as extra ratios


@lru_cache(maxsize=1)
def adult_inputs() -> dict:
    """The Adult columns the benchmarks use, read once, as numpy arrays."""
    adult = load_adult()
    occupation = adult["Occupation"].dropna().to_numpy()
    return {
        "female": (adult["Sex"] == "Female").to_numpy(),
        "occupation": occupation,
        "occupation_domain": sorted(set(occupation.tolist())),
        "marital": adult["Marital Status"],
        "ages": adult["Age"].to_numpy(dtype=float),
        # the SSN as an integer per-record key (a stable id for hashing records into chunks)
        "ids": adult["SSN"].str.replace("-", "", regex=False).astype(np.int64).to_numpy(),
    }


def _rngs():
    return {name: make_rng(SEED) for name in ("reference", "dp_lib", "floor")}


def _laplace(tiny):
    n, n_ref = (1000, 200) if tiny else (1_000_000, 200_000)
    rng = _rngs()
    return Family(
        name="Laplace sampling", size=f"{n:,} draws, scale 1",
        reference=lambda: ref.reference_laplace(n_ref, 1.0, rng=rng["reference"]),
        reference_size=f"{n_ref:,} draws", reference_scale=n / n_ref,
        dp_lib=lambda: dp_lib.sample_laplace(1.0, size=n, rng=rng["dp_lib"]),
        dp_lib_label="sample_laplace(size=n)",
        floor=lambda: rng["floor"].laplace(0.0, 1.0, size=n), floor_label="rng.laplace(size=n)",
        extra_floors={"rng.random(n)": lambda: rng["floor"].random(n)},
    )


def _rr(tiny):
    truth = adult_inputs()["female"]
    truth = truth[:500] if tiny else truth
    truth_list = truth.tolist()
    n = truth.size
    rng = _rngs()
    return Family(
        name="Randomized response", size=f"{n:,} respondents (Adult Sex)",
        reference=lambda: ref.reference_rr(truth_list, 0.75, rng=rng["reference"]),
        dp_lib=lambda: dp_lib.rr_estimate_count(dp_lib.randomized_response(truth, 0.75, rng=rng["dp_lib"]), 0.75),
        dp_lib_label="randomized_response + rr_estimate_count",
        floor=lambda: rng["floor"].random(n), floor_label="rng.random(n)",
        extra_floors={"rng.random((2, n))": lambda: rng["floor"].random((2, n))},
    )


def _unary(tiny):
    inputs = adult_inputs()
    values = inputs["occupation"][:300] if tiny else inputs["occupation"]
    domain = inputs["occupation_domain"]
    values_list = values.tolist()
    n, k = values.size, len(domain)
    p, q = dp_lib.sue_params(EPSILON_LN9)
    rng = _rngs()

    def lib():
        bits = dp_lib.unary_encode(values, domain)
        return dp_lib.unary_aggregate(dp_lib.unary_perturb(bits, p, q, rng=rng["dp_lib"]), p, q, domain=domain)

    return Family(
        name="Unary encoding (SUE)", size=f"{n:,} respondents x {k} (Adult Occupation)",
        reference=lambda: ref.reference_unary(values_list, domain, p, q, rng=rng["reference"]),
        dp_lib=lib, dp_lib_label="unary_encode + unary_perturb + unary_aggregate",
        floor=lambda: rng["floor"].random((n, k)), floor_label="rng.random((n, k))",
    )


def _em(tiny):
    column = adult_inputs()["marital"]
    column = column.iloc[:200] if tiny else column
    options = sorted(column.unique().tolist())
    n, n_ref = (20, 2) if tiny else (10_000, 50)
    rng = _rngs()

    def lib():
        counts = column.value_counts()
        return dp_lib.exponential_mech(counts.index, counts.to_numpy(), 1.0, EM_EPSILON, rng=rng["dp_lib"],
                                       size=n)

    def floor():
        counts = column.value_counts()
        w = np.exp(EM_EPSILON / 2 * (counts.to_numpy() - counts.max()))
        return rng["floor"].choice(counts.index.to_numpy(), size=n, p=w / w.sum())

    return Family(
        name="Exponential mechanism, from the data", size=f"{n:,} draws over {len(options)} Marital Status values",
        reference=lambda: ref.reference_em(column, options, 1.0, EM_EPSILON, n_ref, rng=rng["reference"]),
        reference_size=f"{n_ref:,} draws (value_counts per candidate per draw)", reference_scale=n / n_ref,
        dp_lib=lib, dp_lib_label="value_counts once + exponential_mech(size=n)",
        floor=floor, floor_label="value_counts once + rng.choice(size=n, p)",
    )


def _em_sampler(tiny):
    counts = adult_inputs()["marital"].value_counts()
    options, scores = counts.index.tolist(), counts.to_numpy(dtype=float)
    n, n_ref = (20, 20) if tiny else (10_000, 10_000)
    p = dp_lib.exponential_probabilities(scores, 1.0, EM_EPSILON)
    rng = _rngs()
    return Family(
        name="Exponential mechanism, scores given", size=f"{n:,} draws over {len(options)} candidates",
        reference=lambda: ref.reference_em_sampler(options, scores.tolist(), 1.0, EM_EPSILON, n_ref,
                                                   rng=rng["reference"]),
        reference_size=f"{n_ref:,} draws" if n_ref != n else "", reference_scale=n / n_ref,
        dp_lib=lambda: dp_lib.exponential_mech(options, scores, 1.0, EM_EPSILON, rng=rng["dp_lib"], size=n),
        dp_lib_label="exponential_mech(size=n)",
        floor=lambda: rng["floor"].choice(np.asarray(options), size=n, p=p), floor_label="rng.choice(size=n, p)",
        extra_floors={"rng.random(n)": lambda: rng["floor"].random(n)},
    )


def _saa(tiny):
    inputs = adult_inputs()
    ages, ids = inputs["ages"], inputs["ids"]
    if tiny:
        ages, ids = ages[:500], ids[:500]
    ages_list, ids_list = ages.tolist(), ids.tolist()
    k = 10 if tiny else 1000
    n_rel, n_ref = (5, 2) if tiny else (1000, 40)
    scale = UPPER / (k * 1.0)
    rng = _rngs()

    def floor():
        labels = (pd.util.hash_array(ids) % np.uint64(k)).astype(np.int64)
        means = np.bincount(labels, weights=ages, minlength=k) / np.bincount(labels, minlength=k)
        return np.clip(means, 0.0, UPPER).mean() + rng["floor"].laplace(0.0, scale, size=n_rel)

    return Family(
        name="Sample-and-aggregate", size=f"{n_rel:,} releases, mean Age, k = {k:,} hash chunks",
        reference=lambda: ref.reference_saa(ages_list, ids_list, k, 0.0, UPPER, 1.0, n_ref, rng=rng["reference"]),
        reference_size=f"{n_ref:,} releases", reference_scale=n_rel / n_ref,
        dp_lib=lambda: dp_lib.sample_and_aggregate(ages, "mean", k, 0.0, UPPER, 1.0, rng=rng["dp_lib"], keys=ids,
                                                   size=n_rel),
        dp_lib_label="sample_and_aggregate(size=releases)",
        floor=floor, floor_label="hash_array + 2 bincount + rng.laplace(size=releases)",
    )


def _smooth(tiny):
    ages = adult_inputs()["ages"]
    ages = ages[:500] if tiny else ages
    ages_list = ages.tolist()
    delta = 1 / ages.size**2
    n_rel, n_ref = (5, 2) if tiny else (1000, 20)
    s = dp_lib.smooth_sensitivity_mean(ages.size, UPPER, 1.0, delta)
    rng = _rngs()
    return Family(
        name="Smooth sensitivity", size=f"{n_rel:,} releases, mean Age, δ = 1/n²",
        reference=lambda: ref.reference_smooth(ages_list, UPPER, 1.0, delta, n_ref, rng=rng["reference"]),
        reference_size=f"{n_ref:,} releases (loop over k = 0..n)", reference_scale=n_rel / n_ref,
        dp_lib=lambda: dp_lib.smooth_mean(ages, UPPER, 1.0, delta, rng=rng["dp_lib"], size=n_rel),
        dp_lib_label="smooth_mean(size=releases)",
        floor=lambda: np.clip(ages, 0.0, UPPER).mean() + rng["floor"].laplace(0.0, 2 * s, size=n_rel),
        floor_label="clip + mean + rng.laplace(size=releases)",
    )


def _svt(tiny):
    from dp_lib.plotting.sparse_vector import country_counts

    _, counts = country_counts()  # Chapter 6's queries: people per native country, threshold 50, c = 3
    n_runs, n_ref = (20, 5) if tiny else (2000, 200)
    b_rho, b_nu = dp_lib.svt_noise_scales(1.0, 3, monotone=True)
    counts_list = counts.tolist()
    rng = _rngs()
    return Family(
        name="Sparse vector", size=f"{n_runs:,} runs over {counts.size} country counts, c = 3",
        reference=lambda: ref.reference_svt(counts_list, 50.0, b_rho, b_nu, 3, n_ref, rng=rng["reference"]),
        reference_size=f"{n_ref:,} runs", reference_scale=n_runs / n_ref,
        dp_lib=lambda: dp_lib.sparse_vector(counts, 50.0, 1.0, 3, rng=rng["dp_lib"], monotone=True, size=n_runs),
        dp_lib_label="sparse_vector(size=runs) (the chapter's loop over queries)",
        floor=lambda: rng["floor"].laplace(0.0, b_nu, size=(n_runs, counts.size + 1)),
        floor_label="rng.laplace(size=(runs, queries + 1))",
    )


BUILDERS = (_laplace, _rr, _unary, _em, _em_sampler, _saa, _smooth, _svt)


def build_families(tiny=False) -> list[Family]:
    """Every family, at the benchmark size or (``tiny=True``) at a size for the smoke test."""
    return [build(tiny) for build in BUILDERS]


def run_mechanisms(rounds=5, log=print, tiny=False) -> list[dict]:
    """Time every family (reference, dp_lib, floors interleaved) and return one result row each."""
    from .report import FLOOR_TARGET, REF_TARGET
    from .timing import interleaved

    rows = []
    for fam in build_families(tiny):
        contenders = {"reference": fam.reference, "dp_lib": fam.dp_lib, "floor": fam.floor,
                      **{f"extra:{label}": fn for label, fn in fam.extra_floors.items()}}
        res = interleaved(contenders, rounds=rounds, fixed={"reference": 1})
        ref_s = res["reference"]["median"] * fam.reference_scale
        dp_s, floor_s = res["dp_lib"]["median"], res["floor"]["median"]
        row = {"family": fam.name, "size": fam.size, "reference_s": ref_s, "dp_lib_s": dp_s, "floor_s": floor_s,
               "reference_size": fam.reference_size, "reference_scale": fam.reference_scale,
               "dp_lib_label": fam.dp_lib_label, "floor_label": fam.floor_label,
               "ref_over_dp": ref_s / dp_s, "dp_over_floor": dp_s / floor_s,
               "dp_over_floor_cpu": res["dp_lib"]["cpu_median"] / res["floor"]["cpu_median"],
               "extra": {label: dp_s / res[f"extra:{label}"]["median"] for label in fam.extra_floors},
               "timings": res}
        row["ref_ok"], row["floor_ok"] = row["ref_over_dp"] >= REF_TARGET, row["dp_over_floor"] <= FLOOR_TARGET
        rows.append(row)
        log(f"  {fam.name:38s} ref {ref_s:9.4f} s  dp_lib {dp_s:9.5f} s  floor {floor_s:9.5f} s  "
            f"ref/dp {row['ref_over_dp']:9.0f}  dp/floor {row['dp_over_floor']:6.2f}")
    return rows
