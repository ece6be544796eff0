"""Private selection: the exponential mechanism, report noisy max, permute-and-flip.

All three pick one element of a finite, public candidate set R using scores
u(x, r) whose sensitivity Δ bounds |u(x, r) - u(x', r)| for every r and all
neighbours x ~ x'. Each has a ``monotone`` switch: pass ``monotone=True`` only
when, for every pair of neighbours, all scores move in the same direction
(counting queries under add/remove-one neighbours do). Exact output
probabilities sit beside the samplers, so chapters and tests can compare.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
import math

import numpy as np
from numpy.typing import ArrayLike

from .noise import open_uniform, sample_laplace
from .random import check_rng
from .validation import (check_bool, check_choice, check_domain, check_epsilon, check_finite_array, check_int,
                         check_positive, check_same_length, check_size, refuse_overflow, scalar_or_array)

__all__ = [
    "exponential_probabilities",
    "exponential_mech",
    "exponential_error_bound",
    "noisy_max_scale",
    "laplace_noisy_max_win_probability",
    "report_noisy_max",
    "permute_and_flip",
    "permute_and_flip_probabilities",
]

_NOISES = ("laplace", "gumbel", "exponential")


def _rate(sensitivity, epsilon, monotone) -> float:
    """ε/(2Δ), or ε/Δ for monotone scores: the factor in front of the scores."""
    delta_u = check_positive(sensitivity, "sensitivity")
    eps = check_epsilon(epsilon)
    rate = eps / (delta_u if check_bool(monotone, "monotone") else 2 * delta_u)
    if not (0 < rate < math.inf and 1 / rate < math.inf):
        raise ValueError(f"epsilon / sensitivity is too large to represent (epsilon={epsilon!r}, "
                         f"sensitivity={sensitivity!r})")
    return rate


def _check_scores(scores) -> np.ndarray:
    return check_finite_array(scores, "scores", ndim=1, allow_empty=False)


def _check_selection(candidates, scores):
    """Validate candidates against scores; return (scores array, candidates as a list)."""
    check_domain(candidates, "candidates", as_index=False)
    u = _check_scores(scores)
    check_same_length(candidates, u, "candidates", "scores")
    return u, list(candidates)


def _pick(cands: list, idx, size):
    """Candidate(s) at ``idx``: one plain Python object, or an array of ``size``."""
    shape = check_size(size)
    if shape is None:
        c = cands[int(idx[0])]
        return c.item() if isinstance(c, np.generic) else c
    arr = np.asarray(cands)
    if arr.ndim != 1:  # candidates that are themselves tuples or lists
        arr = np.empty(len(cands), dtype=object)
        arr[:] = cands
    return arr[idx].reshape(shape)


def _n_draws(size) -> int:
    shape = check_size(size)
    return 1 if shape is None else math.prod(shape)


def _shifted_logits(u: np.ndarray, rate: float) -> np.ndarray:
    """rate·(u - max u) <= 0, the logits shifted by their max, without overflow (takes checked values).

    A difference u - max u beyond float64 (scores near ±1e308) becomes -inf, and
    exp(-inf) = 0 is then the exact float answer: that candidate's weight
    exp(-rate·|difference|) is below the smallest float. With rate < 1 the scores
    are scaled first, so a large difference with a tiny rate stays exact.
    """
    with np.errstate(over="ignore"):
        d = u - u.max()
        if rate < 1 and not np.all(np.isfinite(d)):
            z = rate * u
            return z - z.max()
        return d * rate


def exponential_probabilities(scores: ArrayLike, sensitivity: float, epsilon: float,
                              monotone: bool = False) -> np.ndarray:
    """Exact output distribution of the exponential mechanism, Pr[r] ∝ exp(ε u_r / (2Δ)).

    Computed stably: logits z = ε u/(2Δ) (ε u/Δ if ``monotone``), shifted by
    their maximum, and p = exp(z - logsumexp(z)). Finite for any finite scores.

    Parameters
    ----------
    scores : 1-d array of finite floats, u(x, r) for each candidate r.
    sensitivity : float > 0, Δu = max over r and neighbours of |u(x, r) - u(x', r)|.
    epsilon : float > 0.
    monotone : bool; True uses exp(ε u/Δ), valid only for monotone scores.

    Returns
    -------
    numpy array of probabilities, summing to 1.

    Privacy: none by itself: an exact formula that draws nothing. Sampling one
    candidate from it (``exponential_mech``) is ε-DP in exact arithmetic, whatever
    the number of candidates, under any neighbouring relation for which
    ``sensitivity`` bounds Δu (and, with ``monotone``, for which all scores move
    the same way) (McSherry & Talwar 2007; Dwork & Roth 2014, Thm 3.10).

    Defined in: chapters/04_exponential_mechanism.ipynb

    Examples
    --------
    >>> exponential_probabilities([2.0, 0.0], sensitivity=1.0, epsilon=1.0).round(4)
    array([0.7311, 0.2689])
    >>> bool(np.isfinite(exponential_probabilities([1e6, 0.0], 1.0, 10.0)).all())
    True
    """
    u = _check_scores(scores)
    z = _shifted_logits(u, _rate(sensitivity, epsilon, monotone))
    from scipy.special import logsumexp  # imported here: `import dp_lib` stays free of scipy

    return np.exp(z - logsumexp(z))


def exponential_mech(candidates: Sequence[Any], scores: ArrayLike, sensitivity: float, epsilon: float, *,
                     rng: np.random.Generator, monotone: bool = False,
                     size: int | tuple[int, ...] | None = None) -> Any:
    """Select candidate(s) with the exponential mechanism, by inverse-CDF sampling.

    Draws U ~ Unif[0, 1) and returns the first candidate whose cumulative
    probability exceeds U (``np.searchsorted``): 10,000 draws are one call.

    Parameters
    ----------
    candidates : sequence, the public output set R (fixed before seeing the data).
    scores : 1-d array of finite floats, one per candidate.
    sensitivity : float > 0, the score sensitivity Δu.
    epsilon : float > 0.
    rng : numpy.random.Generator (keyword-only, required).
    monotone : bool; see ``exponential_probabilities``.
    size : None for one candidate, or an int for an array of independent draws.

    Returns
    -------
    One candidate, or a numpy array of ``size`` candidates.

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb; here a far-behind candidate's
    probability can underflow to exactly 0 on one data set and not on its neighbour, Ilvento 2020)
    for add/remove-one neighbours when ``sensitivity`` bounds
    the score sensitivity (and the scores are monotone if ``monotone=True``),
    whatever |R|. Each of ``size`` draws costs ε.

    Defined in: chapters/04_exponential_mechanism.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> exponential_mech(["a", "b", "c"], [3, 2, 0], 1.0, 1.0, rng=make_rng(2024))
    'b'
    >>> exponential_mech(["a", "b", "c"], [3, 2, 0], 1.0, 1.0, rng=make_rng(2024), size=5).tolist()
    ['b', 'a', 'a', 'b', 'c']
    """
    u, cands = _check_selection(candidates, scores)
    p = exponential_probabilities(u, sensitivity, epsilon, monotone)
    n = _n_draws(size)
    rng = check_rng(rng)
    cdf = np.cumsum(p)
    idx = np.searchsorted(cdf, cdf[-1] * rng.random(n), side="right")
    idx = np.minimum(idx, np.flatnonzero(p > 0)[-1])  # guards U * cdf[-1] rounding up to cdf[-1]
    return _pick(cands, idx, size)


@refuse_overflow("n_candidates", "sensitivity", "epsilon", "t")
def exponential_error_bound(n_candidates: int, sensitivity: float, epsilon: float, t: float, *, n_optimal: int = 1,
                            monotone: bool = False) -> float:
    """Utility bound of the exponential mechanism: error ≤ (2Δ/ε)(ln(|R|/|R_OPT|) + t) w.p. ≥ 1 - e^-t.

    The error is OPT - u(output). With ``monotone=True`` the factor 2Δ/ε becomes Δ/ε.

    Privacy: none (a formula about accuracy; Dwork & Roth 2014, Thm 3.11).

    Defined in: chapters/04_exponential_mechanism.ipynb

    Examples
    --------
    >>> round(exponential_error_bound(100, 1.0, 1.0, t=3.0), 4)
    15.2103
    """
    k = check_int(n_candidates, "n_candidates", minimum=1)
    k_opt = check_int(n_optimal, "n_optimal", minimum=1, maximum=k)
    t = check_finite_array(t, "t")
    if np.any(t < 0):
        raise ValueError("t must be >= 0")
    bound = (math.log(k / k_opt) + t) / _rate(sensitivity, epsilon, monotone)
    return float(bound) if bound.ndim == 0 else bound


def noisy_max_scale(sensitivity: float, epsilon: float, *, monotone: bool = False) -> float:
    """Noise scale for report noisy max: 2Δ/ε for general scores, Δ/ε for monotone ones.

    The same scale serves Laplace, Gumbel and exponential noise.

    Privacy: ε-DP for the released argmax only (not the noisy value); the
    smaller scale Δ/ε needs monotone scores, e.g. counting queries under
    add/remove-one neighbours (Dwork & Roth 2014, Claim 3.9).

    Defined in: chapters/04_exponential_mechanism.ipynb

    Examples
    --------
    >>> noisy_max_scale(1.0, 0.5), noisy_max_scale(1.0, 0.5, monotone=True)
    (4.0, 2.0)
    """
    return 1.0 / _rate(sensitivity, epsilon, monotone)


@refuse_overflow("gap", "scale")
def laplace_noisy_max_win_probability(gap: float, scale: float) -> float:
    """Pr[A is released] by noisy max over two candidates A, B with iid Lap(scale) noise.

    With gap = u_A - u_B and D the difference of two Lap(b) variables,
    Pr[D > t] = e^{-t/b} (1 + t/(2b)) / 2 for t >= 0; the answer is Pr[D > -gap].

    Privacy: none (a formula); chapters/04_exponential_mechanism.ipynb uses it for the exact privacy loss of noisy max.

    Defined in: chapters/04_exponential_mechanism.ipynb

    Examples
    --------
    >>> laplace_noisy_max_win_probability(0.0, 1.0)
    0.5
    >>> round(laplace_noisy_max_win_probability(-2.0, 1.0), 4)
    0.1353
    """
    g = check_finite_array(gap, "gap")
    b = check_positive(scale, "scale")
    t = np.minimum(np.abs(g) / b, 1e4)  # e^{-t} is 0 in float64 from t ≈ 745 on; the cap avoids 0 * inf
    loser = 0.5 * np.exp(-t) * (1 + t / 2)  # Pr[the lower-scored candidate wins]
    return scalar_or_array(np.where(g >= 0, 1 - loser, loser))


def report_noisy_max(candidates: Sequence[Any], scores: ArrayLike, sensitivity: float, epsilon: float, *,
                     rng: np.random.Generator, noise: str = "laplace", monotone: bool = False,
                     size: int | tuple[int, ...] | None = None) -> Any:
    """Add independent noise to every score and release only the argmax.

    The scale is ``noisy_max_scale``: 2Δ/ε for general scores of sensitivity
    Δ, and Δ/ε only when the caller declares them monotone (``monotone=True``),
    as counting queries under add/remove-one neighbours are. With
    ``noise="gumbel"`` this *is* the exponential mechanism (same
    distribution); with ``noise="exponential"`` it *is* permute-and-flip.

    Parameters
    ----------
    candidates, scores, sensitivity, epsilon : as for ``exponential_mech``.
    rng : numpy.random.Generator (keyword-only, required).
    noise : "laplace", "gumbel" or "exponential".
    monotone : bool, True only for monotone scores.
    size : None for one candidate, or an int for independent draws.

    Returns
    -------
    One candidate, or a numpy array of ``size`` candidates.

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
    for add/remove-one neighbours when ``sensitivity`` bounds the
    score sensitivity (Dwork & Roth 2014, Claim 3.9 for monotone counts;
    McKenna & Sheldon 2020 and Ding et al. 2021 for exponential noise).
    Releasing the noisy maximum *value* as well is not covered.

    Defined in: chapters/04_exponential_mechanism.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> report_noisy_max(["a", "b", "c"], [3, 2, 0], 1.0, 1.0, rng=make_rng(2024), noise="gumbel")
    'a'
    """
    check_choice(noise, "noise", _NOISES)
    u, cands = _check_selection(candidates, scores)
    b = noisy_max_scale(sensitivity, epsilon, monotone=monotone)
    n = _n_draws(size)
    rng = check_rng(rng)
    if noise == "laplace":
        z = sample_laplace(b, size=(n, u.size), rng=rng)
    elif noise == "gumbel":  # inverse CDF of Gumbel(0, b): -b ln(-ln U)
        z = -b * np.log(-np.log(open_uniform((n, u.size), rng=rng)))
    else:  # inverse CDF of Exponential(b): -b ln U
        z = -b * np.log(open_uniform((n, u.size), rng=rng))
    return _pick(cands, np.argmax(u + z, axis=1), size)


def permute_and_flip(candidates: Sequence[Any], scores: ArrayLike, sensitivity: float, epsilon: float, *,
                     rng: np.random.Generator, monotone: bool = False,
                     size: int | tuple[int, ...] | None = None) -> Any:
    """Permute-and-flip: visit candidates in random order, accept r w.p. exp(ε (u_r - u*)/(2Δ)).

    u* is the best score, so a best candidate is always accepted when reached.
    Vectorized: each of ``size`` draws uses its own random permutation and coins.

    Parameters
    ----------
    candidates, scores, sensitivity, epsilon : as for ``exponential_mech``.
    rng : numpy.random.Generator (keyword-only, required).
    monotone : bool; True uses exp(ε (u_r - u*)/Δ), valid only for monotone scores.
    size : None for one candidate, or an int for independent draws.

    Returns
    -------
    One candidate, or a numpy array of ``size`` candidates.

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb; here a far-behind candidate's acceptance
    probability can underflow to exactly 0 on one data set and not on its neighbour, Ilvento 2020)
    for add/remove-one neighbours when ``sensitivity`` bounds the
    score sensitivity; its expected score is never below the exponential
    mechanism's (McKenna & Sheldon 2020).

    Defined in: chapters/04_exponential_mechanism.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> permute_and_flip(["a", "b", "c"], [3, 2, 0], 1.0, 1.0, rng=make_rng(2024))
    'a'
    """
    u, cands = _check_selection(candidates, scores)
    q = np.exp(_shifted_logits(u, _rate(sensitivity, epsilon, monotone)))  # exactly 1 at the best score
    n = _n_draws(size)
    rng = check_rng(rng)
    order = np.argsort(rng.random((n, u.size)), axis=1)  # a uniform random permutation per draw
    heads = rng.random((n, u.size)) < q[order]  # always True at a best candidate (q = 1)
    first = np.argmax(heads, axis=1)
    return _pick(cands, order[np.arange(n), first], size)


def permute_and_flip_probabilities(scores: ArrayLike, sensitivity: float, epsilon: float,
                                   monotone: bool = False) -> np.ndarray:
    """Exact output distribution of permute-and-flip.

    With q_j = exp(ε (u_j - u*)/(2Δ)), flip every coin in advance: r is
    returned iff its coin shows heads and r comes first among the heads in the
    random order. Hence Pr[r] = q_r E[1/(1 + K_r)] with K_r the number of other
    heads, and E[1/(1+K)] = ∫₀¹ E[s^K] ds gives

        Pr[r] = q_r ∫₀¹ ∏_{j≠r} (1 - q_j + q_j s) ds,

    the integral of a polynomial of degree < |R|, which Gauss–Legendre
    quadrature with ⌊|R|/2⌋ + 1 nodes evaluates exactly (up to rounding).

    Privacy: none (a formula); describes ``permute_and_flip``'s output.

    Defined in: chapters/04_exponential_mechanism.ipynb

    Examples
    --------
    >>> permute_and_flip_probabilities([2.0, 0.0], sensitivity=1.0, epsilon=1.0).round(4)
    array([0.8161, 0.1839])
    """
    u = _check_scores(scores)
    q = np.exp(_shifted_logits(u, _rate(sensitivity, epsilon, monotone)))
    live = np.flatnonzero(q > 0)  # q_j = 0 contributes a factor 1 and has probability 0
    qs = q[live]
    from scipy.special import roots_legendre  # imported here: `import dp_lib` stays free of scipy

    nodes, weights = roots_legendre(qs.size // 2 + 1)
    s, w = (nodes + 1) / 2, weights / 2  # on [0, 1]; every node s < 1, so every factor > 0
    p = np.zeros(u.size)
    chunk = max(1, 2**20 // qs.size)  # bound the memory of the (candidates x nodes) array
    for start in range(0, s.size, chunk):
        log_factor = np.log1p(-np.outer(qs, 1 - s[start:start + chunk]))
        p[live] += np.exp(log_factor.sum(axis=0) - log_factor) @ w[start:start + chunk]
    return p * q
