"""The sparse vector technique: pay only for the queries whose answer is above a threshold.

A stream of queries q_1, q_2, ... (each of sensitivity Δ) is compared with a
threshold T. The threshold gets Laplace noise ρ **once**; every query gets
fresh Laplace noise ν_i; the algorithm reports ⊤ when q_i + ν_i >= T + ρ and
⊥ otherwise, and halts after c reports of ⊤. The ⊥ answers are free: the
privacy cost depends on c, not on the number of queries.

``svt_transcript`` is that loop with the noise scales as arguments;
``above_threshold`` (Dwork & Roth's AboveThreshold, c = 1),
``sparse_vector`` (Lyu, Su & Li 2017: their Algorithm 1, which fixes
ε₁ = ε/2, with the split ε₁ + ε₂ = ε left free) and
``numeric_sparse_vector`` (which also releases fresh noisy values of the
positive queries, with a separately charged budget) fix the scales that make
them private. ``svt_pattern_probability`` computes the exact probability of
a transcript by one-dimensional quadrature over ρ, for tests and figures.
Published variants that are *not* private live in ``dp_lib.svt_broken``.

Validation: each public function checks its own arguments once (``epsilon`` by
one ``check_epsilon``), derives the scales, range-checks them against the
threshold and the answers, and runs the unchecked loop ``_transcript``; no layer
below re-validates (``dp_lib.noise.laplace_draws`` and ``require_noise_range``
take checked values).

Drawing order (so a chapter can reproduce a run by hand): ρ first (one per
run), then one ν per query and run, for all queries, even those after the
halt (they are never looked at, so the law of the output is unchanged).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .noise import laplace_cdf_values, laplace_draws, require_noise_range
from .random import check_rng
from .validation import check_bool, check_epsilon, check_finite_array, check_int, check_nonnegative, check_positive

__all__ = ["svt_budget_split", "svt_noise_scales", "svt_transcript", "above_threshold", "sparse_vector",
           "numeric_sparse_vector", "svt_pattern_probability", "above_threshold_probabilities"]


def _check_answers(values, threshold):
    """(q, T): a non-empty 1-d array of finite floats and a finite float."""
    return (check_finite_array(values, "values", ndim=1, allow_empty=False),
            float(check_finite_array(threshold, "threshold", ndim=0)))


def _check_given_scales(values, threshold, threshold_scale, query_scale):
    """(q, T, ρ's scale, ν's scale) for the functions that take the scales; refused if T + ρ or q_i + ν_i overflow."""
    q, t = _check_answers(values, threshold)
    b_rho = check_positive(threshold_scale, "threshold_scale")
    b_nu = check_nonnegative(query_scale, "query_scale")
    require_noise_range(b_rho, t, name="threshold_scale")
    if b_nu > 0:
        require_noise_range(b_nu, float(np.max(np.abs(q))), name="query_scale")
    return q, t, b_rho, b_nu


def _check_runs(size):
    return 1 if size is None else check_int(size, "size", minimum=1)


def _check_budget(epsilon, c, monotone, split):
    """(ε, c, monotone, share ε₁/ε), checked; share = Lyu–Su–Li's 1 / (1 + (2c)^(2/3)) when split is None
    (1 / (1 + c^(2/3)) for monotone queries)."""
    eps = check_epsilon(epsilon)
    c = check_int(c, "c", minimum=1)
    monotone = check_bool(monotone, "monotone")  # checked even when a split is given: it sets the query noise
    if split is None:
        return eps, c, monotone, 1.0 / (1.0 + (float(c) if monotone else 2.0 * c) ** (2 / 3))
    share = check_positive(split, "split")
    if share >= 1:
        raise ValueError(f"split must be the share ε₁/ε in (0, 1), got {split!r}")
    return eps, c, monotone, share


def _noise_scales(delta_q, eps, c, monotone, share):
    """(Δ/ε₁, 2cΔ/ε₂ or cΔ/ε₂) from checked values; inf when a share of ε rounds to 0 (refused by the caller)."""
    eps1, eps2 = eps * share, eps * (1.0 - share)
    factor = c if monotone else 2 * c
    try:
        return delta_q / eps1, factor * delta_q / eps2
    except (ZeroDivisionError, OverflowError):  # epsilon so small that a share of it rounds to 0
        return math.inf, math.inf


_SCALES = "sensitivity / epsilon (with c and split)"  # what sets the scales, for the messages


def _checked_scales(values, threshold, epsilon, c, sensitivity, monotone, split):
    """Check a private SVT's arguments once: (q, T, ρ's scale, ν's scale, c, Δ), the scales range-checked."""
    q, t = _check_answers(values, threshold)
    delta_q = check_positive(sensitivity, "sensitivity")
    eps, c, monotone, share = _check_budget(epsilon, c, monotone, split)
    b_rho, b_nu = _noise_scales(delta_q, eps, c, monotone, share)
    require_noise_range(b_rho, t, name=_SCALES)  # T + ρ and q_i + ν_i stay finite
    require_noise_range(b_nu, float(np.max(np.abs(q))), name=_SCALES)
    return q, t, b_rho, b_nu, c, delta_q


def svt_budget_split(epsilon: float, c: int = 1, monotone: bool = False,
                     split: float | None = None) -> tuple[float, float]:
    """Split ε into ε₁ (threshold noise) and ε₂ (query noise) for ``sparse_vector``.

    The default is Lyu, Su & Li's ratio ε₁ : ε₂ = 1 : (2c)^(2/3), or
    1 : c^(2/3) for monotone queries: it minimises the variance of ν - ρ,
    2(Δ/ε₁)² + 2(2cΔ/ε₂)², under ε₁ + ε₂ = ε.

    Parameters
    ----------
    epsilon : float > 0, the total budget of the threshold tests.
    c : int >= 1, the number of positive answers before halting.
    monotone : bool, True when all queries move in the same direction between neighbours.
    split : None or float in (0, 1), the share ε₁/ε given to the threshold (None: the default ratio).

    Returns
    -------
    (epsilon1, epsilon2) : floats > 0 summing to ``epsilon``.

    Privacy: none: a helper that touches no private data.

    Defined in: chapters/06_sparse_vector.ipynb

    Examples
    --------
    >>> [round(e, 4) for e in svt_budget_split(1.0, c=1)]
    [0.3865, 0.6135]
    >>> svt_budget_split(1.0, c=3, split=0.5)
    (0.5, 0.5)
    """
    eps, _, _, share = _check_budget(epsilon, c, monotone, split)
    return eps * share, eps * (1.0 - share)


def svt_noise_scales(epsilon: float, c: int = 1, *, sensitivity: float = 1.0, monotone: bool = False,
                     split: float | None = None) -> tuple[float, float]:
    """Laplace scales (threshold, query) of Lyu–Su–Li SVT, any split: Δ/ε₁ and 2cΔ/ε₂ (cΔ/ε₂ monotone).

    Parameters
    ----------
    epsilon, c, monotone, split : as for ``svt_budget_split``.
    sensitivity : float > 0, Δ, a bound on |q_i(x) - q_i(x')| for every query and neighbours.

    Returns
    -------
    (threshold_scale, query_scale) : floats > 0.

    Privacy: none: a helper that touches no private data.

    Defined in: chapters/06_sparse_vector.ipynb

    Examples
    --------
    >>> svt_noise_scales(1.0, c=1, split=0.5)  # AboveThreshold: Lap(2Δ/ε), Lap(4Δ/ε)
    (2.0, 4.0)
    >>> svt_noise_scales(1.0, c=1, split=0.5, monotone=True)
    (2.0, 2.0)
    """
    delta_q = check_positive(sensitivity, "sensitivity")
    scales = _noise_scales(delta_q, *_check_budget(epsilon, c, monotone, split))
    for s in scales:
        require_noise_range(s, 0.0, name=_SCALES)
    return scales


def svt_transcript(values: ArrayLike, threshold: float, threshold_scale: float, query_scale: float, *,
                   rng: np.random.Generator, c: int | None = None,
                   size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Run the SVT loop with given noise scales; return the ⊤ marks and the noisy answers.

    ρ ~ Lap(threshold_scale) once per run; ν_i ~ Lap(query_scale) per query
    (no noise when ``query_scale`` is 0); query i is positive when
    values[i] + ν_i >= threshold + ρ; after ``c`` positives the run halts (no
    halting when ``c`` is None) and later queries are reported negative.

    Parameters
    ----------
    values : 1-d array of finite floats, the true answers q_i(x).
    threshold : float, the public threshold T.
    threshold_scale : float > 0; query_scale : float >= 0.
    rng : numpy.random.Generator (keyword-only, required).
    c : None or int >= 1, the number of positives after which the run halts.
    size : None or int >= 1, the number of independent runs.

    Returns
    -------
    (positive, noisy_answer) : a boolean array and a float array of q_i + ν_i, each of
    shape (len(values),), or (size, len(values)) with ``size``.

    Privacy: depends on the scales; with those of ``svt_noise_scales`` the ⊤ marks are
    ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
    (Lyu, Su & Li 2017, Algorithm 1, there with ε₁ = ε/2; the proof holds for any split). The noisy
    answers are NOT private: releasing them is the classic bug (see ``dp_lib.svt_broken``).

    Used in: chapters/06_sparse_vector.ipynb, through ``above_threshold`` and ``sparse_vector``

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> positive, _ = svt_transcript([0.0, 9.0, 9.0], 5.0, 1.0, 1.0, rng=make_rng(1), c=1)
    >>> positive.tolist()
    [False, True, False]
    """
    q, t, b_rho, b_nu = _check_given_scales(values, threshold, threshold_scale, query_scale)
    cap = math.inf if c is None else check_int(c, "c", minimum=1)
    rng, runs = check_rng(rng), _check_runs(size)
    positive, noisy_answer = _transcript(q, t, b_rho, b_nu, rng, cap, runs)
    return (positive[0], noisy_answer[0]) if size is None else (positive, noisy_answer)


def _transcript(q, t, b_rho, b_nu, rng, cap, runs):
    """The SVT loop of ``svt_transcript`` on checked values; arrays of shape (runs, len(q))."""
    noisy_threshold = t + laplace_draws(b_rho, runs, 0.0, rng=rng)  # T + ρ, drawn once per run
    nu = laplace_draws(b_nu, (runs, q.size), 0.0, rng=rng) if b_nu > 0 else np.zeros((runs, q.size))
    noisy_answer = q + nu  # q_i + ν_i
    positive = np.zeros((runs, q.size), dtype=bool)
    count = np.zeros(runs, dtype=np.int64)  # positives so far, per run
    for i in range(q.size):  # the chapter's loop over queries (all runs at once)
        running = count < cap  # a run that reached c positives has halted
        positive[:, i] = running & (noisy_answer[:, i] >= noisy_threshold)
        count += positive[:, i]
    return positive, noisy_answer


def above_threshold(values: ArrayLike, threshold: float, epsilon: float, *, rng: np.random.Generator,
                    sensitivity: float = 1.0, monotone: bool = False, size: int | None = None) -> int | np.ndarray:
    """AboveThreshold: the index of the first query whose noisy answer beats the noisy threshold.

    ρ ~ Lap(2Δ/ε) once, ν_i ~ Lap(4Δ/ε) per query (Lap(2Δ/ε) for monotone
    queries); returns the first i with values[i] + ν_i >= threshold + ρ.

    Parameters
    ----------
    values : 1-d array of finite floats, the true answers (all of sensitivity Δ).
    threshold : float, the public threshold T.
    epsilon : float > 0.
    rng : numpy.random.Generator (keyword-only, required).
    sensitivity : float > 0, Δ.
    monotone : bool, True only if for every pair of neighbours all queries move in the same direction.
    size : None or int >= 1, the number of independent runs.

    Returns
    -------
    int: the index of the first query above, or -1 when none is (a run that reaches the end);
    with ``size``, an int64 array of such indices, one per run. (Always -1 for "none", never None,
    so one run and many runs are read the same way; ``idx >= 0`` marks the runs that found one.)

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
    for neighbours under which every query changes by at most Δ, however many
    queries there are (Dwork & Roth 2014, Algorithm 1 and Theorem 3.23; monotone case:
    Lyu, Su & Li 2017, §4).

    Defined in: chapters/06_sparse_vector.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> above_threshold([1.0, 2.0, 50.0, 60.0], 30.0, 1.0, rng=make_rng(3))
    2
    >>> above_threshold([1.0, 2.0], 30.0, 1.0, rng=make_rng(3))
    -1
    """
    q, t, b_rho, b_nu, _, _ = _checked_scales(values, threshold, epsilon, 1, sensitivity, monotone, 0.5)
    rng, runs = check_rng(rng), _check_runs(size)
    positive, _ = _transcript(q, t, b_rho, b_nu, rng, 1, runs)  # halts at the first ⊤
    positive = positive[0] if size is None else positive
    first = np.where(positive.any(axis=-1), np.argmax(positive, axis=-1), -1)
    return int(first) if size is None else first


def sparse_vector(values: ArrayLike, threshold: float, epsilon: float, c: int, *, rng: np.random.Generator,
                  sensitivity: float = 1.0, monotone: bool = False, split: float | None = None,
                  size: int | None = None) -> np.ndarray:
    """Lyu–Su–Li SVT with any split: report up to c queries above a noisy threshold, then halt.

    ε = ε₁ + ε₂ (``svt_budget_split``); ρ ~ Lap(Δ/ε₁) drawn once and never
    re-drawn; ν_i ~ Lap(2cΔ/ε₂) (cΔ/ε₂ for monotone queries).

    Parameters
    ----------
    values, threshold, epsilon, rng, sensitivity, monotone, size : as for ``above_threshold``.
    c : int >= 1, the number of positive answers before halting.
    split : None or float in (0, 1), the share ε₁/ε (None: Lyu–Su–Li's ratio 1 : (2c)^(2/3),
        or 1 : c^(2/3) with ``monotone``; 0.5 is their Algorithm 1 as published).

    Returns
    -------
    boolean array of shape (len(values),) marking the positive queries (at most c; the run halted
    at the c-th), or (size, len(values)) with ``size``, one row per run. ``np.flatnonzero`` gives
    the indices of one run.

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
    for neighbours under which every query changes by at most Δ
    (Lyu, Su & Li 2017: their Algorithm 1 fixes ε₁ = ε/2; its privacy proof holds for any split ε₁ + ε₂ = ε).

    Defined in: chapters/06_sparse_vector.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> positive = sparse_vector([0.0, 80.0, 5.0, 90.0, 70.0], 40.0, 1.0, c=2, rng=make_rng(0))
    >>> np.flatnonzero(positive).tolist()
    [1, 3]
    """
    q, t, b_rho, b_nu, c, _ = _checked_scales(values, threshold, epsilon, c, sensitivity, monotone, split)
    rng, runs = check_rng(rng), _check_runs(size)
    positive, _ = _transcript(q, t, b_rho, b_nu, rng, c, runs)
    return positive[0] if size is None else positive


def numeric_sparse_vector(values: ArrayLike, threshold: float, epsilon: float, epsilon_values: float, c: int, *,
                          rng: np.random.Generator, sensitivity: float = 1.0, monotone: bool = False,
                          split: float | None = None,
                          size: int | None = None) -> dict[int, float] | list[dict[int, float]]:
    """``sparse_vector`` that also releases q_i + fresh Lap(cΔ/ε₃) noise for each positive query.

    The positives are chosen exactly as by ``sparse_vector`` with budget
    ``epsilon``; then each positive query gets a NEW Laplace draw with scale
    cΔ/``epsilon_values`` (the noise used in the threshold test is never released).
    That is the Laplace mechanism on at most c queries, so it costs ε₃ = ``epsilon_values`` more.

    Parameters
    ----------
    values, threshold, epsilon, c, rng, sensitivity, monotone, split, size : as for ``sparse_vector``.
    epsilon_values : float > 0, ε₃, the budget of the released values.

    Returns
    -------
    dict {index i: released value q_i + fresh noise} over the positive queries of the run (in
    increasing i); with ``size``, a list of ``size`` such dicts, one per run. Nothing else is
    released, so no placeholder (NaN) ever appears in the output.

    Privacy: (ε + ε₃)-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
    by sequential composition (Lyu, Su & Li 2017, Algorithm 7 with
    ε₃ > 0; Dwork & Roth 2014, NumericSparse, Theorem 3.27).

    Defined in: chapters/06_sparse_vector.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> out = numeric_sparse_vector([0.0, 80.0, 5.0, 90.0], 40.0, 1.0, 1.0, c=2, rng=make_rng(0))
    >>> sorted(out), [round(v) for v in out.values()]
    ([1, 3], [80, 90])
    """
    eps3 = check_epsilon(epsilon_values, "epsilon_values")
    q, t, b_rho, b_nu, c, delta_q = _checked_scales(values, threshold, epsilon, c, sensitivity, monotone, split)
    rng, runs = check_rng(rng), _check_runs(size)
    scale = c * delta_q / eps3
    require_noise_range(scale, float(np.max(np.abs(q))), name="sensitivity / epsilon_values")
    positive, _ = _transcript(q, t, b_rho, b_nu, rng, c, runs)
    fresh = laplace_draws(scale, positive.shape, 0.0, rng=rng)
    released = [{int(i): float(q[i] + fresh[run, i]) for i in np.flatnonzero(positive[run])} for run in range(runs)]
    return released[0] if size is None else released


def _survival(z, b):
    """P[ν >= z] for ν ~ Lap(b), or the indicator z <= 0 when b = 0 (no noise)."""
    return laplace_cdf_values(-z, 0.0, b) if b > 0 else (z <= 0).astype(float)


def svt_pattern_probability(values: ArrayLike, threshold: float, positives: ArrayLike, threshold_scale: float,
                            query_scale: float, c: int | None = None) -> float:
    """Exact probability that ``svt_transcript`` marks exactly ``positives``, by quadrature over ρ.

    Given ρ = r the queries are independent, so
    P = ∫ f_ρ(r) ∏_{i answered} [P(ν_i >= T + r - q_i) if i is positive, else P(ν_i < T + r - q_i)] dr,
    where the answered queries are all of them, or those up to the c-th positive.
    Integrated with ``scipy.integrate.quad`` in u = F_ρ(r), between the kinks r = q_i - T.

    Parameters
    ----------
    values, threshold, threshold_scale, query_scale, c : as for ``svt_transcript``.
    positives : boolean array like ``values``, the transcript's ⊤ marks.

    Returns
    -------
    float in [0, 1].

    Privacy: none (exact arithmetic on a hypothetical input, for tests and figures).

    Defined in: chapters/06_sparse_vector.ipynb

    Examples
    --------
    >>> p = [svt_pattern_probability([1.0], 0.0, [hit], 2.0, 4.0) for hit in (True, False)]
    >>> round(p[0], 6), round(sum(p), 9)
    (0.581888, 1.0)
    """
    q, t, b_rho, b_nu = _check_given_scales(values, threshold, threshold_scale, query_scale)  # ρ stays finite
    hit = np.asarray(positives)
    if hit.dtype != bool or hit.shape != q.shape:
        raise ValueError(f"positives must be a boolean array of shape {q.shape}, like values")
    if c is not None:
        c = check_int(c, "c", minimum=1)
        if hit.sum() > c:
            raise ValueError(f"positives marks {int(hit.sum())} queries, more than c = {c}")
    return _pattern_probability(q - t, hit, b_rho, b_nu, c)


def _pattern_probability(gap, hit, b_rho, b_nu, c):
    """``svt_pattern_probability`` on checked values, with gap = q - T."""
    if c is not None and hit.sum() == c:  # the run halted at the c-th positive: later queries were never answered
        last = np.flatnonzero(hit)[-1]
        gap, hit = gap[:last + 1], hit[:last + 1]
    return _integrate_over_threshold_noise(gap, hit, b_rho, b_nu)


def _integrate_over_threshold_noise(gap, hit, b_rho, b_nu):
    """∫ over ρ of P(pattern | ρ), in the variable u = F_ρ(r) in (0, 1): r = b ln(2u) or -b ln(2(1 - u)).

    In u the integrand is a product of probabilities on a bounded interval, so no mass can hide far
    out (quadrature over r missed it at extreme thresholds); it is split at the kinks u = F_ρ(q_i - T).
    """
    from scipy.integrate import quad

    def integrand(u):
        r = b_rho * math.log(2 * u) if u < 0.5 else -b_rho * math.log(2 * (1 - u))
        up = _survival(r - gap, b_nu)  # P(ν_i >= T + r - q_i)
        return float(np.prod(np.where(hit, up, 1.0 - up)))

    kinks = np.unique(np.concatenate([[0.0, 1.0], laplace_cdf_values(gap, 0.0, b_rho).reshape(-1)]))
    total = 0.0
    for lo, hi in zip(kinks[:-1], kinks[1:]):
        if hi > lo:
            total += quad(integrand, lo, hi, limit=200, epsabs=1e-13, epsrel=1e-12, full_output=1)[0]
    return float(min(max(total, 0.0), 1.0))


def above_threshold_probabilities(values: ArrayLike, threshold: float, epsilon: float, sensitivity: float = 1.0,
                                  monotone: bool = False) -> np.ndarray:
    """Exact output distribution of ``above_threshold``: P[index = i] for each i, then P[none].

    Parameters
    ----------
    values, threshold, epsilon, sensitivity, monotone : as for ``above_threshold``.

    Returns
    -------
    numpy array of length len(values) + 1 summing to 1 (the last entry is P[no query above],
    i.e. P[``above_threshold`` returns -1]). Parameters whose probabilities the quadrature cannot
    resolve to within 1e-6 of a total of 1 raise ValueError instead of returning a wrong law.

    Privacy: none (exact arithmetic, for tests and figures).

    Defined in: chapters/06_sparse_vector.ipynb

    Examples
    --------
    >>> above_threshold_probabilities([1.0], 0.0, 1.0).round(4)  # P[ν - ρ >= -1], ρ ~ Lap(2), ν ~ Lap(4)
    array([0.5819, 0.4181])
    """
    q, t, b_rho, b_nu, _, _ = _checked_scales(values, threshold, epsilon, 1, sensitivity, monotone, 0.5)
    eye = np.eye(q.size + 1, q.size, dtype=bool)  # row i: only query i positive; last row: none
    probs = np.array([_pattern_probability(q - t, row, b_rho, b_nu, 1) for row in eye])
    if abs(probs.sum() - 1.0) > 1e-6:
        raise ValueError(f"values, threshold and epsilon: the quadrature cannot resolve these probabilities "
                         f"(they sum to {probs.sum():.8f}); use less extreme parameters")
    return probs
