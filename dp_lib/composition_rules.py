"""The composition rules: sequential, parallel, advanced and optimal composition.

Sequential composition adds the ε (and δ) of mechanisms run on the same
data; parallel composition over a partition of the rows costs only the
largest ε. Advanced composition (Dwork, Rothblum & Vadhan 2010) trades a small extra δ'
for a total ε that grows like √k instead of k when the per-query ε is small;
optimal composition (Kairouz, Oh & Viswanath 2015) gives the exact (ε', δ')
trade-off of k pure ε-DP mechanisms, the best any theorem can state. The
budget accountant that applies the sequential rule is ``dp_lib.composition``'s.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .shaping import refuse_overflow, scalar_or_array
from .validation import check_delta, check_epsilon, check_finite_array, check_int, check_nonnegative

__all__ = [
    "sequential_epsilon",
    "sequential_delta",
    "parallel_epsilon",
    "advanced_composition",
    "advanced_epsilon",
    "optimal_composition_delta",
    "optimal_composition_epsilon",
]

_MAX_ADVANCED_EPSILON = 700.0  # e^ε overflows float64 past ≈ 709.8


def _check_values(values: ArrayLike, name: str, *, upper_open: float | None = None) -> np.ndarray:
    """A 1-d array of finite numbers >= 0 (and < ``upper_open`` if given); may be empty."""
    arr = check_finite_array(values, name, ndim=1)
    if np.any(arr < 0) or (upper_open is not None and np.any(arr >= upper_open)):
        interval = "[0, inf)" if upper_open is None else f"[0, {upper_open:g})"
        raise ValueError(f"{name} must contain only finite numbers in {interval}")
    return arr


def _total(values: ArrayLike, name: str) -> float:
    """math.fsum, refusing a sum beyond float64 with a ValueError naming ``name``."""
    try:
        total = math.fsum(values)
    except OverflowError:
        total = math.inf
    if not math.isfinite(total):
        raise ValueError(f"{name} must have a finite sum (below 1.8e308)")
    return total


def sequential_epsilon(epsilons: ArrayLike) -> float:
    """Total ε of mechanisms run one after another on the same data: Σ ε_i.

    Parameters
    ----------
    epsilons : sequence of finite floats >= 0 (an empty sequence costs 0).

    Returns
    -------
    float, the exact-as-possible sum (``math.fsum``).

    Privacy: if mechanism i is ε_i-DP (any neighbouring relation), running all
    of them, even adaptively, is (Σ ε_i)-DP (Dwork & Roth 2014, Thm 3.14 and
    Cor. 3.15; Thm 3.16 is the (ε, δ) version, see ``sequential_delta``).

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> sequential_epsilon([0.5, 0.25, 0.25])
    1.0
    """
    return _total(_check_values(epsilons, "epsilons"), "epsilons")


def sequential_delta(deltas: ArrayLike) -> float:
    """Total δ of (ε_i, δ_i)-DP mechanisms run on the same data: Σ δ_i.

    Parameters
    ----------
    deltas : sequence of floats in [0, 1).

    Returns
    -------
    float; a total >= 1 is a vacuous guarantee.

    Privacy: the δ part of basic composition, (Σ ε_i, Σ δ_i)-DP (Dwork & Roth 2014, Thm 3.16).

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> sequential_delta([1e-6, 2e-6])
    3e-06
    """
    return _total(_check_values(deltas, "deltas", upper_open=1.0), "deltas")


def parallel_epsilon(epsilons: ArrayLike) -> float:
    """Total ε of mechanisms each run on its own part of a partition: max ε_i.

    The parts must partition the data domain: their union is the whole domain
    and they are pairwise disjoint, with the partition fixed independently of
    the data (e.g. by the value of a column).

    Parameters
    ----------
    epsilons : sequence of finite floats >= 0 (an empty sequence costs 0).

    Returns
    -------
    float, max ε_i.

    Privacy: under add/remove-one neighbours a record lands in exactly one
    part, so only one mechanism sees a change: (max ε_i)-DP (McSherry 2009).

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> parallel_epsilon([0.5, 1.0, 0.25])
    1.0
    """
    arr = _check_values(epsilons, "epsilons")
    return float(arr.max()) if arr.size else 0.0


def _advanced_epsilon(epsilon: float, k: ArrayLike, delta_prime: float) -> np.ndarray:
    """Thm 3.20 total ε, vectorised over ``k`` and ``epsilon`` (no validation; inf where it overflows)."""
    k = np.asarray(k, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.sqrt(2 * k * -math.log(delta_prime)) * epsilon + k * epsilon * np.expm1(epsilon)


def advanced_epsilon(epsilon: float, k: ArrayLike, delta_prime: float) -> float | np.ndarray:
    """Total ε' = sqrt(2 k ln(1/δ')) ε + k ε (e^ε - 1) of k ε-DP mechanisms, for one k or an array of k.

    The ε part of ``advanced_composition`` (Dwork & Roth 2014, Thm 3.20),
    vectorised over ``k`` for curves against the number of mechanisms.

    Parameters
    ----------
    epsilon : float > 0, the ε of each mechanism.
    k : int >= 1 or array of them.
    delta_prime : float in (0, 1).

    Returns
    -------
    float, or an array shaped like ``k``.

    Privacy: the k-fold adaptive composition of ε-DP mechanisms is (ε', kδ + δ')-DP.

    Used in: chapters/03_composition.ipynb, through ``plot_advanced_composition``

    Examples
    --------
    >>> advanced_epsilon(0.1, [1, 100], 1e-5).round(4).tolist()
    [0.4904, 5.8502]
    """
    eps = check_epsilon(epsilon)
    kind = np.asarray(k).dtype.kind if not isinstance(k, (bool, np.bool_)) else "b"
    if kind not in "iuf":
        raise TypeError(f"k must be an integer or an array of integers, got {k!r:.60}")
    ks = check_finite_array(k, "k")
    if kind == "f":  # 2.5 or 3.0: a float is the wrong type for a count, as in check_int
        raise TypeError(f"k must be an integer or an array of integers (not floats), got {k!r:.60}")
    if np.any(ks < 1):
        raise ValueError("k must contain integers >= 1")
    total = _advanced_epsilon(eps, ks, check_delta(delta_prime, "delta_prime"))
    if not np.all(np.isfinite(total)):
        raise ValueError(f"epsilon and k give a total epsilon beyond float64 (epsilon={epsilon!r}); use smaller values")
    return scalar_or_array(total)


@refuse_overflow("epsilon", "k", "delta_prime")
def advanced_composition(epsilon: float, delta: float, k: int, delta_prime: float) -> tuple[float, float]:
    """Total (ε', δ') of k adaptive (ε, δ)-DP mechanisms by advanced composition.

    ε' = sqrt(2 k ln(1/δ')) ε + k ε (e^ε - 1) and δ_total = k δ + δ'
    (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Thm 3.20). This is
    the theorem itself, not the simplified Corollary 3.21. The bound beats
    plain composition (k ε) only when ε < ln 2 and k is large enough; report
    min(k ε, ε') with the matching δ.

    Parameters
    ----------
    epsilon : float in (0, 700], the ε of each mechanism.
    delta : float in [0, 1), the δ of each mechanism (0 for pure ε-DP ones).
    k : int >= 1, the number of mechanisms.
    delta_prime : float in (0, 1), the extra failure probability.

    Returns
    -------
    (epsilon_total, delta_total) : tuple of floats.

    Privacy: the k-fold adaptive composition is (epsilon_total, delta_total)-DP,
    for whatever neighbouring relation each mechanism was private under.

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> eps_total, delta_total = advanced_composition(0.1, 0.0, 100, 1e-5)
    >>> round(eps_total, 4), delta_total
    (5.8502, 1e-05)
    """
    eps = check_epsilon(epsilon)
    if eps > _MAX_ADVANCED_EPSILON:
        raise ValueError(f"epsilon must be in (0, {_MAX_ADVANCED_EPSILON:g}] for advanced composition, got {epsilon!r}")
    dlt = check_delta(delta, allow_zero=True)
    k = check_int(k, "k", minimum=1)
    dp = check_delta(delta_prime, "delta_prime")
    total = float(_advanced_epsilon(eps, k, dp))
    if not math.isfinite(total):
        raise ValueError(f"k must be small enough for a finite total epsilon, got k={k!r} at epsilon={epsilon!r}")
    return total, k * dlt + dp


_MAX_OPTIMAL_K = 10**6  # the exact sum has k + 1 terms; beyond this, use a PLD or RDP accountant


def _check_optimal_args(epsilon: float, k: int) -> tuple[float, int]:
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", minimum=1, maximum=_MAX_OPTIMAL_K)
    if not math.isfinite(k * eps):
        raise ValueError(f"epsilon * k must be finite, got epsilon={epsilon!r}, k={k!r}")
    return eps, k


def _optimal_log_delta(eps: float, k: int, epsilon_prime: float, log_binom: np.ndarray) -> float:
    """ln δ(ε') of the k-fold ε-DP randomized response (no validation); -inf when δ(ε') = 0.

    Term j (j of the k answers go the "wrong" way) is
    C(k, j) (e^{(k-j)ε} - e^{ε' + jε}) / (1 + e^ε)^k when its loss (k - 2j)ε exceeds ε', else 0.
    In logs: ln C(k, j) - jε - k ln(1 + e^{-ε}) + ln(1 - e^{ε' - (k - 2j)ε}).
    """
    from scipy.special import logsumexp  # imported here: `import dp_lib` stays free of scipy

    j = np.arange(k + 1, dtype=float)
    gap = epsilon_prime - (k - 2 * j) * eps  # ε' minus the privacy loss of term j
    keep = gap < 0
    if not keep.any():
        return -math.inf
    j, gap = j[keep], gap[keep]
    near = gap > -math.log(2)  # ln(1 - e^gap): expm1 near 0, log1p further out (each accurate on its side)
    log1mexp = np.empty_like(gap)
    log1mexp[near] = np.log(-np.expm1(gap[near]))
    log1mexp[~near] = np.log1p(-np.exp(gap[~near]))
    log_terms = log_binom[keep] - j * eps - k * math.log1p(math.exp(-eps)) + log1mexp
    return float(min(logsumexp(log_terms), 0.0))


def _log_binomials(k: int) -> np.ndarray:
    """ln C(k, j) for j = 0..k."""
    from scipy.special import gammaln  # imported here: `import dp_lib` stays free of scipy

    j = np.arange(k + 1, dtype=float)
    return gammaln(k + 1.0) - gammaln(j + 1) - gammaln(k - j + 1)


def optimal_composition_delta(epsilon: float, k: int, epsilon_prime: float) -> float:
    """The smallest δ for which k adaptive ε-DP mechanisms are (ε', δ)-DP: the exact trade-off.

    Kairouz, Oh & Viswanath (2015) show that k-fold randomized response is the
    worst case among ε-DP mechanisms: its privacy loss is (k - 2j)ε with
    probability C(k, j) e^{(k-j)ε} / (1 + e^ε)^k, and

    δ(ε') = Σ_j C(k, j) / (1 + e^ε)^k · max(0, e^{(k-j)ε} - e^{ε' + jε}).

    The sum is taken in log space, so it neither overflows nor returns NaN
    (k up to 10**6).

    Parameters
    ----------
    epsilon : float > 0, the ε of each mechanism.
    k : int in [1, 10**6], the number of mechanisms.
    epsilon_prime : float >= 0, the total ε' asked about.

    Returns
    -------
    float in [0, 1]; 0 for ε' >= kε.

    Privacy: the k-fold adaptive composition of ε-DP mechanisms (any
    neighbouring relation, the same for all of them) is (ε', δ(ε'))-DP, and no
    smaller δ holds for every such composition (Kairouz, Oh & Viswanath 2015,
    Thm 3.3).

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> optimal_composition_delta(1.0, 1, 1.0)
    0.0
    >>> f"{optimal_composition_delta(1.0, 1000, 577.83):.2e}"
    '1.00e-05'
    """
    eps, k = _check_optimal_args(epsilon, k)
    eps_prime = check_nonnegative(epsilon_prime, "epsilon_prime")
    return math.exp(_optimal_log_delta(eps, k, eps_prime, _log_binomials(k)))


def optimal_composition_epsilon(epsilon: float, k: int, delta: float) -> float:
    """The smallest total ε' >= 0 with k adaptive ε-DP mechanisms (ε', δ)-DP: optimal composition.

    Solves ``optimal_composition_delta(epsilon, k, ε') <= delta`` for the
    smallest ε' by bisection on [0, kε] to a relative precision of 1e-9,
    returning the upper end of the final bracket (so the answer is never below
    the exact one by more than that, and the δ it names really holds). The
    answer is never above kε (basic composition) nor above the bound of
    Dwork & Roth's Thm 3.20 (``advanced_epsilon``).

    Parameters
    ----------
    epsilon : float > 0, the ε of each mechanism.
    k : int in [1, 10**6], the number of mechanisms.
    delta : float in [0, 1), the total δ accepted (0 gives kε).

    Returns
    -------
    float in [0, kε].

    Privacy: the k-fold adaptive composition of ε-DP mechanisms (any
    neighbouring relation, the same for all of them) is (ε', δ)-DP, and this
    ε' is the smallest for which that holds for every such composition
    (Kairouz, Oh & Viswanath 2015, Thm 3.3).

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> round(optimal_composition_epsilon(1.0, 1000, 1e-5), 2)
    577.83
    >>> round(optimal_composition_epsilon(0.1, 100, 1e-5), 2)
    4.31
    """
    eps, k = _check_optimal_args(epsilon, k)
    dlt = check_delta(delta, allow_zero=True)
    if dlt == 0.0:
        return k * eps
    log_binom, log_target = _log_binomials(k), math.log(dlt)
    lo, hi = 0.0, k * eps
    if _optimal_log_delta(eps, k, lo, log_binom) <= log_target:
        return 0.0
    while hi - lo > 1e-9 * hi:
        mid = 0.5 * (lo + hi)
        if _optimal_log_delta(eps, k, mid, log_binom) <= log_target:
            hi = mid
        else:
            lo = mid
    return hi
