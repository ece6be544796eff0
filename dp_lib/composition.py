"""Composition rules and a privacy-budget accountant.

Sequential composition adds the ε (and δ) of mechanisms run on the same
data; parallel composition over a partition of the rows costs only the
largest ε; advanced composition (Dwork, Rothblum & Vadhan 2010) trades a
small extra δ' for a total ε that grows like √k instead of k when the
per-query ε is small; optimal composition (Kairouz, Oh & Viswanath 2015)
gives the exact (ε', δ') trade-off of k pure ε-DP mechanisms, the best any
theorem can state. ``PrivacyAccountant`` enforces a budget by refusing
a charge *before* recording it.
"""

from __future__ import annotations

import math
from collections.abc import Hashable

import numpy as np
import pandas as pd

from .mechanisms import laplace_mech, laplace_scale
from .noise import check_noise_range, sample_laplace
from .random import check_rng
from .validation import (check_delta, check_domain, check_epsilon, check_finite_array, check_int, check_nonnegative,
                         check_positive, check_size, refuse_overflow, scalar_or_array)

__all__ = [
    "sequential_epsilon",
    "sequential_delta",
    "parallel_epsilon",
    "advanced_composition",
    "advanced_epsilon",
    "optimal_composition_delta",
    "optimal_composition_epsilon",
    "BudgetExceededError",
    "PrivacyAccountant",
    "parallel_histogram",
]

_MAX_ADVANCED_EPSILON = 700.0  # e^ε overflows float64 past ≈ 709.8


def _check_values(values, name: str, *, upper_open: float | None = None) -> np.ndarray:
    """A 1-d array of finite numbers >= 0 (and < ``upper_open`` if given); may be empty."""
    arr = check_finite_array(values, name, ndim=1)
    if np.any(arr < 0) or (upper_open is not None and np.any(arr >= upper_open)):
        interval = "[0, inf)" if upper_open is None else f"[0, {upper_open:g})"
        raise ValueError(f"{name} must contain only finite numbers in {interval}")
    return arr


def _total(values, name: str) -> float:
    """math.fsum, refusing a sum beyond float64 with a ValueError naming ``name``."""
    try:
        total = math.fsum(values)
    except OverflowError:
        total = math.inf
    if not math.isfinite(total):
        raise ValueError(f"{name} must have a finite sum (below 1.8e308)")
    return total


def sequential_epsilon(epsilons):
    """Total ε of mechanisms run one after another on the same data: Σ ε_i.

    Parameters
    ----------
    epsilons : sequence of finite floats >= 0 (an empty sequence costs 0).

    Returns
    -------
    float, the exact-as-possible sum (``math.fsum``).

    Privacy: if mechanism i is ε_i-DP (any neighbouring relation), running all
    of them, even adaptively, is (Σ ε_i)-DP (Dwork & Roth 2014, Thm 3.16).

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> sequential_epsilon([0.5, 0.25, 0.25])
    1.0
    """
    return _total(_check_values(epsilons, "epsilons"), "epsilons")


def sequential_delta(deltas):
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


def parallel_epsilon(epsilons):
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


def _advanced_epsilon(epsilon, k, delta_prime):
    """Thm 3.20 total ε, vectorised over ``k`` and ``epsilon`` (no validation; inf where it overflows)."""
    k = np.asarray(k, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.sqrt(2 * k * -math.log(delta_prime)) * epsilon + k * epsilon * np.expm1(epsilon)


def advanced_epsilon(epsilon, k, delta_prime):
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
    ks = check_finite_array(k, "k")
    if np.any(ks < 1) or np.any(ks != np.round(ks)):
        raise ValueError("k must contain integers >= 1")
    total = _advanced_epsilon(eps, ks, check_delta(delta_prime, "delta_prime"))
    if not np.all(np.isfinite(total)):
        raise ValueError(f"epsilon and k give a total epsilon beyond float64 (epsilon={epsilon!r}); use smaller values")
    return scalar_or_array(total)


@refuse_overflow("epsilon", "k", "delta_prime")
def advanced_composition(epsilon, delta, k, delta_prime):
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


def _check_optimal_args(epsilon, k):
    eps = check_epsilon(epsilon)
    k = check_int(k, "k", minimum=1, maximum=_MAX_OPTIMAL_K)
    if not math.isfinite(k * eps):
        raise ValueError(f"epsilon * k must be finite, got epsilon={epsilon!r}, k={k!r}")
    return eps, k


def _optimal_log_delta(eps, k, epsilon_prime, log_binom):
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


def _log_binomials(k):
    """ln C(k, j) for j = 0..k."""
    from scipy.special import gammaln  # imported here: `import dp_lib` stays free of scipy

    j = np.arange(k + 1, dtype=float)
    return gammaln(k + 1.0) - gammaln(j + 1) - gammaln(k - j + 1)


def optimal_composition_delta(epsilon, k, epsilon_prime):
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


def optimal_composition_epsilon(epsilon, k, delta):
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


class BudgetExceededError(ValueError):
    """Raised by ``PrivacyAccountant.spend`` when a charge would exceed the budget.

    Nothing is recorded for the refused charge.

    Privacy: a refusal; raising it spends nothing.

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> issubclass(BudgetExceededError, ValueError)
    True
    """


class PrivacyAccountant:
    """Track (ε, δ) spent on one data set under basic sequential composition.

    A charge is accepted when the new totals, summed exactly with
    ``math.fsum``, stay within the budgets up to a relative tolerance of
    ``REL_TOL = 1e-9``: ``spent + charge <= budget * (1 + 1e-9)``. The
    tolerance keeps float round-off from refusing, say, ten charges of 0.1
    against a budget of 1.0 or three of 0.1 against 0.3; the most it can let
    through is a billionth of the budget. A refused charge raises
    ``BudgetExceededError`` before anything is recorded.

    Parameters
    ----------
    epsilon_budget : float > 0.
    delta_budget : float in [0, 1); with 0, any charge with δ > 0 is refused.

    Privacy: the accountant itself releases nothing; if every release it
    charges is (ε_i, δ_i)-DP on the same data (any neighbouring relation),
    the accepted charges together are (Σ ε_i, Σ δ_i)-DP with Σ within budget.

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> acct = PrivacyAccountant(1.0)
    >>> for _ in range(10):
    ...     acct.spend(0.1, label="count")
    >>> acct.spent
    (1.0, 0.0)
    >>> try:
    ...     acct.spend(0.01)
    ... except BudgetExceededError:
    ...     print("refused")
    refused
    >>> len(acct.history)
    10
    """

    REL_TOL = 1e-9
    _COLUMNS = ["label", "epsilon", "delta", "epsilon_spent", "delta_spent"]

    def __init__(self, epsilon_budget, delta_budget=0.0):
        self.epsilon_budget = check_positive(epsilon_budget, "epsilon_budget")
        self.delta_budget = check_delta(delta_budget, "delta_budget", allow_zero=True)
        self._rows: list[tuple] = []

    def _totals(self, epsilons=(), deltas=()):
        eps = _total([row[1] for row in self._rows] + list(epsilons), "epsilon")
        dlt = _total([row[2] for row in self._rows] + list(deltas), "delta")
        return eps, dlt

    @property
    def spent(self):
        """(ε, δ) spent so far (exact sums)."""
        return self._totals()

    @property
    def remaining(self):
        """(ε, δ) still available, never below 0."""
        eps, dlt = self._totals()
        return max(0.0, self.epsilon_budget - eps), max(0.0, self.delta_budget - dlt)

    @property
    def history(self) -> pd.DataFrame:
        """A new DataFrame with one row per accepted charge and the running totals."""
        return pd.DataFrame(self._rows, columns=self._COLUMNS)

    def spend(self, epsilon, delta=0.0, label=None):
        """Record a charge of (``epsilon``, ``delta``), or raise ``BudgetExceededError`` and record nothing.

        Parameters
        ----------
        epsilon : float >= 0.
        delta : float in [0, 1).
        label : str, optional; defaults to ``"charge <n>"``.
        """
        self.spend_many([(epsilon, delta, label)])

    def check_room(self, charges, what=None):
        """Check a list of charges (epsilon, delta[, label]) against the remaining budget, recording nothing.

        Returns the checked charges as (label, epsilon, delta) triples; raises
        ``ValueError`` for a bad charge or ``BudgetExceededError`` when their sum
        would exceed the budget. ``what`` names the caller in that message.

        Examples
        --------
        >>> PrivacyAccountant(1.0).check_room([(0.5, 0.0), (0.25, 0.0, "b")])
        [('charge 1', 0.5, 0.0), ('b', 0.25, 0.0)]
        """
        if isinstance(charges, (str, bytes)) or not hasattr(charges, "__iter__"):
            raise ValueError(f"charges must be a list of (epsilon, delta[, label]) tuples, got {charges!r:.60}")
        checked = []
        for n, charge in enumerate(charges, start=len(self._rows) + 1):
            if not isinstance(charge, (tuple, list)) or len(charge) not in (2, 3):
                raise ValueError(f"charges must contain (epsilon, delta[, label]) tuples, got {charge!r:.60}")
            label = charge[2] if len(charge) == 3 and charge[2] is not None else f"charge {n}"
            if not isinstance(label, str):
                raise ValueError(f"label must be a string or None, got {label!r}")
            checked.append((label, check_nonnegative(charge[0], "epsilon"), check_delta(charge[1], allow_zero=True)))
        new_eps, new_dlt = self._totals([c[1] for c in checked], [c[2] for c in checked])
        over = []
        if new_eps > self.epsilon_budget * (1 + self.REL_TOL):
            over.append(f"epsilon {new_eps:.6g} > budget {self.epsilon_budget:.6g}")
        if new_dlt > self.delta_budget * (1 + self.REL_TOL):
            over.append(f"delta {new_dlt:.6g} > budget {self.delta_budget:.6g}")
        if over and what is not None:
            need_eps, need_dlt = _total([c[1] for c in checked], "epsilon"), _total([c[2] for c in checked], "delta")
            raise BudgetExceededError(
                f"{what} needs (epsilon={need_eps:g}, delta={need_dlt:g}) but the accountant has (epsilon, delta) = "
                "({:.6g}, {:.6g}) left; nothing was recorded".format(*self.remaining))
        if over:
            what = (f"charge {checked[0][0]!r} of (epsilon={checked[0][1]:g}, delta={checked[0][2]:g})"
                    if len(checked) == 1 else f"{len(checked)} charges")
            raise BudgetExceededError(f"{what} refused: it would bring the total to " + " and ".join(over)
                                      + "; nothing was recorded")
        return checked

    def spend_many(self, charges):
        """Record several charges (epsilon, delta[, label]) at once: all of them, or none.

        The whole list is checked first (``check_room``); if it fits, every
        charge is recorded in order, with its running totals.

        Examples
        --------
        >>> acct = PrivacyAccountant(1.0)
        >>> acct.spend_many([(0.5, 0.0, "count"), (0.5, 0.0, "mean")])
        >>> try:
        ...     acct.spend_many([(0.0, 0.0), (0.1, 0.0)])
        ... except BudgetExceededError:
        ...     print("refused; charges recorded:", len(acct.history))
        refused; charges recorded: 2
        """
        for label, eps, dlt in self.check_room(charges):
            total_eps, total_dlt = self._totals([eps], [dlt])
            self._rows.append((label, eps, dlt, total_eps, total_dlt))

    def laplace_mech(self, value, sensitivity, epsilon, *, rng, label=None):
        """Charge ε, then release ``value`` + Lap(``sensitivity``/ε) (see ``dp_lib.laplace_mech``).

        The arguments are checked first and the budget second, so neither a bad
        argument nor a refused charge spends anything or draws noise.

        Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/09_exact_noise.ipynb; discrete_laplace_mech / snapping_mech are)
        for the neighbouring relation ``sensitivity`` was computed for.

        Examples
        --------
        >>> from dp_lib import make_rng
        >>> acct = PrivacyAccountant(1.0)
        >>> noisy = acct.laplace_mech(100.0, 1.0, 0.5, rng=make_rng(2024), label="count")
        >>> acct.remaining
        (0.5, 0.0)
        """
        true_answer = check_finite_array(value, "value")
        scale = laplace_scale(sensitivity, epsilon)  # refuses a scale beyond float64
        check_noise_range(scale, float(np.max(np.abs(true_answer), initial=0.0)), name="sensitivity / epsilon")
        check_rng(rng)
        self.check_room([(epsilon, 0.0, label)])
        self.spend(epsilon, 0.0, label)
        return laplace_mech(value, sensitivity, epsilon, rng=rng)

    def __repr__(self):
        eps, dlt = self.spent
        return (f"PrivacyAccountant(epsilon_budget={self.epsilon_budget:g}, delta_budget={self.delta_budget:g}, "
                f"spent=({eps:.6g}, {dlt:.6g}), charges={len(self._rows)})")


def parallel_histogram(data, column, epsilon, *, rng, domain, size=None):
    """A Laplace-noised count of ``data[column]`` for every category of a public ``domain``.

    Parameters
    ----------
    data : pandas DataFrame.
    column : str, a column of ``data``.
    epsilon : float > 0, spent once for the whole histogram.
    rng : numpy.random.Generator (keyword-only, required).
    domain : sequence of categories (keyword-only, required). The public list
        of bins, fixed without looking at the data (e.g. a codebook such as
        ``EDUCATION_LEVELS``). There is no default: bins read off the data are
        not differentially private for any ε, because the set of bins itself
        changes when the only record of a category is added or removed. Rows
        whose value is not in ``domain`` are not counted; a bin nobody falls
        into gets a noisy count of 0.
    size : None, int or tuple; that many independent histograms (default one).

    Returns
    -------
    pandas Series of floats indexed by category, in ``domain`` order; with
    ``size``, a DataFrame with one column per category and one row per run
    (a tuple ``size`` gives a numpy array of shape ``size + (bins,)``).

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/09_exact_noise.ipynb)
    for add/remove-one neighbours, given a public ``domain``: the released bins
    are the same for every data set, and a record changes at most one count by
    1 (L1 sensitivity 1), so by parallel composition each bin's Lap(1/ε) noise
    costs ε in total. Under replace-one neighbours two counts change (L1
    sensitivity 2): the same release is only 2ε-DP.

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> df = pd.DataFrame({"colour": ["red", "red", "blue"]})
    >>> noisy = parallel_histogram(df, "colour", 1.0, rng=make_rng(2024), domain=["red", "blue", "green"])
    >>> list(noisy.index)
    ['red', 'blue', 'green']
    """
    if domain is None:
        raise TypeError("domain is required: pass the public list of bins (e.g. a codebook); bins read off the "
                        "data are not differentially private")
    bins = list(check_domain(domain))
    if not isinstance(data, pd.DataFrame):
        raise ValueError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if not isinstance(column, Hashable) or column not in data.columns:
        raise ValueError(f"column must be a column of data, got {column!r}")
    eps = check_epsilon(epsilon)
    rng = check_rng(rng)
    shape = check_size(size)
    counts = data[column].value_counts(dropna=True)
    true_counts = counts.reindex(bins, fill_value=0).to_numpy(dtype=float)
    if shape is None:
        noisy = laplace_mech(true_counts, 1.0, eps, rng=rng)
        return pd.Series(noisy, index=pd.Index(bins, name=column), name="noisy count")
    check_noise_range(laplace_scale(1.0, eps), len(data), name="epsilon")
    noisy = true_counts + sample_laplace(laplace_scale(1.0, eps), size=(*shape, len(bins)), rng=rng)
    if len(shape) != 1:
        return noisy
    return pd.DataFrame(noisy, columns=pd.Index(bins, name=column))
