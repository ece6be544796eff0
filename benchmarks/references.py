"""Straightforward reference implementations, written the way tutorials first write DP code.

One Python call per respondent, per bit, per draw or per release, on plain
Python lists. They are deliberately NOT fast: they are the yardstick that
``dp_lib`` is measured against. Each computes the same statistic as the
``dp_lib`` pipeline it is compared with (``tests/test_benchmarks_smoke.py``
checks that at a tiny size), so a ratio of running times compares like with like.

Every function takes the generator as a keyword-only ``rng`` and draws with
scalar calls (``rng.random()``, ``rng.laplace(...)``, ``rng.choice(...)``).
"""

from __future__ import annotations

import math

__all__ = [
    "laplace_from_uniform", "reference_laplace",
    "rr_respond", "rr_estimate", "reference_rr",
    "ue_encode", "ue_perturb_bit", "ue_estimate", "reference_unary",
    "em_score", "em_probabilities", "reference_em_draw", "reference_em",
    "em_probabilities_from_scores", "reference_em_sampler",
    "saa_chunk_answers", "reference_saa_release", "reference_saa",
    "smooth_sensitivity", "reference_smooth_release", "reference_smooth",
    "reference_svt_run", "reference_svt",
]


# --- Laplace sampling: inverse CDF, one uniform per draw ----------------------------------------

def laplace_from_uniform(u, scale):
    """Inverse CDF of Lap(0, scale) at one uniform u in (0, 1), as 02_laplace derives it."""
    if u < 0.5:
        return scale * math.log(2 * u)
    return -scale * math.log(2 * (1 - u))


def reference_laplace(n, scale, *, rng):
    """n Laplace draws, one ``rng.random()`` and one ``math.log`` per draw."""
    return [laplace_from_uniform(rng.random(), scale) for _ in range(n)]


# --- randomized response: two coins per respondent ----------------------------------------------

def rr_respond(truth, p, rng):
    """One respondent: with probability 2p - 1 the truth, otherwise a fair coin."""
    if rng.random() < 2 * p - 1:
        return truth
    return rng.random() < 0.5


def rr_estimate(reports, p):
    """Unbiased count of true "yes": (Y - n(1 - p)) / (2p - 1), summed in Python."""
    yes = sum(1 for r in reports if r)
    return (yes - len(reports) * (1 - p)) / (2 * p - 1)


def reference_rr(truths, p, *, rng):
    """Randomized response survey + estimate, one Python call per respondent."""
    return rr_estimate([rr_respond(t, p, rng) for t in truths], p)


# --- unary encoding: one call per bit -----------------------------------------------------------

def ue_encode(value, domain):
    """One-hot list of 0/1 for one respondent."""
    return [1 if value == d else 0 for d in domain]


def ue_perturb_bit(bit, p, q, rng):
    """Report 1 with probability p for a 1 bit and q for a 0 bit."""
    return 1 if rng.random() < (p if bit else q) else 0


def ue_estimate(totals, n, p, q):
    """Unbiased counts (C - n q) / (p - q) from the per-category totals of reported 1s."""
    return [(c - n * q) / (p - q) for c in totals]


def reference_unary(values, domain, p, q, *, rng):
    """Unary encoding survey: encode, perturb bit by bit, add up, debias (a list of k estimates)."""
    totals = [0] * len(domain)
    for v in values:
        for j, bit in enumerate(ue_encode(v, domain)):
            totals[j] += ue_perturb_bit(bit, p, q, rng)
    return ue_estimate(totals, len(values), p, q)


# --- exponential mechanism ----------------------------------------------------------------------

def em_score(column, option):
    """The score of one candidate: its count in the column, recomputed with value_counts."""
    return column.value_counts()[option]


def em_probabilities_from_scores(scores, sensitivity, epsilon):
    """exp(ε u / (2Δ)) normalised, shifted by the best score so exp never overflows."""
    best = max(scores)
    weights = [math.exp(epsilon * (s - best) / (2 * sensitivity)) for s in scores]
    total = sum(weights)
    return [w / total for w in weights]


def em_probabilities(column, options, sensitivity, epsilon):
    """Probabilities of the exponential mechanism, scoring every candidate from the column."""
    return em_probabilities_from_scores([em_score(column, r) for r in options], sensitivity, epsilon)


def reference_em_draw(column, options, sensitivity, epsilon, rng):
    """One draw: score every candidate (one value_counts each), then one ``rng.choice``."""
    return rng.choice(options, p=em_probabilities(column, options, sensitivity, epsilon))


def reference_em(column, options, sensitivity, epsilon, n_draws, *, rng):
    """``n_draws`` draws, each recomputing every score from the data as tutorials do."""
    return [reference_em_draw(column, options, sensitivity, epsilon, rng) for _ in range(n_draws)]


def reference_em_sampler(options, scores, sensitivity, epsilon, n_draws, *, rng):
    """``n_draws`` draws from given scores: probabilities and one ``rng.choice`` per draw."""
    return [rng.choice(options, p=em_probabilities_from_scores(scores, sensitivity, epsilon))
            for _ in range(n_draws)]


# --- sample-and-aggregate (mean of k chunk means) -----------------------------------------------

def saa_chunk_answers(values, keys, k, lower, upper, chunk_of=None):
    """Chunk means clipped to [lower, upper], records assigned one by one (``hash(key) % k`` unless ``chunk_of``)."""
    chunk_of = chunk_of or (lambda key: hash(key) % k)
    chunks = [[] for _ in range(k)]
    for key, x in zip(keys, values):
        chunks[chunk_of(key)].append(x)
    middle = (lower + upper) / 2
    return [min(max(sum(c) / len(c), lower), upper) if c else middle for c in chunks]


def reference_saa_release(values, keys, k, lower, upper, epsilon, rng, chunk_of=None):
    """One release: partition, average the clipped chunk answers, add Lap((upper - lower)/(kε))."""
    answers = saa_chunk_answers(values, keys, k, lower, upper, chunk_of)
    return sum(answers) / k + rng.laplace(0.0, (upper - lower) / (k * epsilon))


def reference_saa(values, keys, k, lower, upper, epsilon, n_releases, *, rng):
    """``n_releases`` independent releases, each recomputed from the records."""
    return [reference_saa_release(values, keys, k, lower, upper, epsilon, rng) for _ in range(n_releases)]


# --- smooth sensitivity of the clipped mean ----------------------------------------------------

def smooth_sensitivity(n, upper, epsilon, delta):
    """max over k of e^{-βk} upper / max(n - k, 1), by a loop over every distance k = 0..n."""
    beta = epsilon / (2 * math.log(2 / delta))
    return max(math.exp(-beta * k) * upper / max(n - k, 1) for k in range(n + 1))


def reference_smooth_release(values, upper, epsilon, delta, rng):
    """One release: clip and average record by record, smooth sensitivity S, add (2S/ε) Lap(1)."""
    clipped = [min(max(x, 0.0), upper) for x in values]
    s = smooth_sensitivity(len(clipped), upper, epsilon, delta)
    return sum(clipped) / len(clipped) + rng.laplace(0.0, 2 * s / epsilon)


def reference_smooth(values, upper, epsilon, delta, n_releases, *, rng):
    """``n_releases`` independent releases, each recomputed from the records."""
    return [reference_smooth_release(values, upper, epsilon, delta, rng) for _ in range(n_releases)]


# --- sparse vector: one noisy threshold, one noise draw per query, halt after c positives ------------

def reference_svt_run(values, threshold, threshold_scale, query_scale, c, rng):
    """One run of Lyu-Su-Li Algorithm 1: the positions of the positives, one ``rng.laplace`` per query."""
    noisy_threshold = threshold + rng.laplace(0.0, threshold_scale)
    found = []
    for i, value in enumerate(values):
        if value + rng.laplace(0.0, query_scale) >= noisy_threshold:
            found.append(i)
            if len(found) == c:
                break
    return found


def reference_svt(values, threshold, threshold_scale, query_scale, c, n_runs, *, rng):
    """n_runs independent runs, each as a list of 0/1 marks (1 = reported positive), one per query."""
    runs = []
    for _ in range(n_runs):
        marks = [0] * len(values)
        for i in reference_svt_run(values, threshold, threshold_scale, query_scale, c, rng):
            marks[i] = 1
        runs.append(marks)
    return runs
