"""The privacy-budget accountant, and the parallel histogram.

``PrivacyAccountant`` composes events of ``dp_lib.events`` by sequential
composition (the ε and δ of steps run on the same data add up) and enforces
a budget by refusing a charge *before* recording it. ``parallel_histogram``
releases a whole histogram at one ε by parallel composition. The rules
themselves (sequential, parallel, advanced, optimal) are in
``dp_lib.composition_rules``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .composition_rules import advanced_epsilon  # noqa: F401  (kept importable: tests/test_learning.py)
from .events import (Composed, DpEvent, EpsilonDeltaEvent, LaplaceEvent, RandomizedResponseEvent, Repeated,
                     check_event, check_label)
from .mechanisms import laplace_mech, laplace_scale
from .noise import check_noise_range, sample_laplace
from .random import check_rng
from .validation import (check_dataframe, check_delta, check_domain, check_epsilon, check_finite_array, check_positive,
                         check_size)

__all__ = [
    "BudgetExceededError",
    "PrivacyAccountant",
    "parallel_histogram",
]


def _total(values: ArrayLike, name: str) -> float:
    """math.fsum, refusing a sum beyond float64 with a ValueError naming ``name``."""
    try:
        total = math.fsum(values)
    except OverflowError:
        total = math.inf
    if not math.isfinite(total):
        raise ValueError(f"{name} must have a finite sum (below 1.8e308)")
    return total


class BudgetExceededError(ValueError):
    """Raised by ``PrivacyAccountant.compose`` (and ``spend``) when a charge would exceed the budget.

    Nothing is recorded for the refused charge.

    Parameters
    ----------
    message : str, what was refused and how much is left.

    Returns
    -------
    The exception (a ``ValueError``).

    Privacy: a refusal; raising it spends nothing.

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> issubclass(BudgetExceededError, ValueError)
    True
    """


def _pure(event: DpEvent) -> tuple[float, float]:
    """(ε, δ) of a checked event by basic composition; ValueError for an event without a pure (ε, δ) form."""
    if isinstance(event, EpsilonDeltaEvent):
        return event.epsilon, event.delta
    if isinstance(event, (LaplaceEvent, RandomizedResponseEvent)):
        return event.epsilon, 0.0
    if isinstance(event, (Composed, Repeated)):
        parts = [_pure(e) for e in event.events] if isinstance(event, Composed) else [_pure(event.event)]
        count = event.count if isinstance(event, Repeated) else 1
        eps, dlt = _total([p[0] for p in parts], "epsilon"), _total([p[1] for p in parts], "delta")
        if not math.isfinite(count * eps):
            raise ValueError(f"Repeated.count: {count} copies of epsilon={eps:g} sum beyond float64")
        return count * eps, min(1.0, count * dlt)
    raise ValueError(f"PrivacyAccountant adds pure (epsilon, delta) guarantees; a {type(event).__name__} has none "
                     "of its own: compose it with RdpAccountant (dp_lib.accounting) or the PLD accountant")


class PrivacyAccountant:
    """Track (ε, δ) spent on one data set by basic sequential composition, within a budget.

    ``compose(event, label=None)`` charges an event of ``dp_lib.events`` at its (ε, δ):
    ``EpsilonDeltaEvent``, ``LaplaceEvent`` (Δ/b), ``RandomizedResponseEvent``, and
    ``Composed``/``Repeated`` of those (the sum). Events without a pure (ε, δ) form
    (``GaussianEvent``, ``ZcdpEvent``, ``PoissonSampled``) are refused with a ValueError
    naming ``RdpAccountant``. A charge is accepted when the new totals, summed exactly with
    ``math.fsum``, stay within the budgets up to a relative tolerance of ``REL_TOL = 1e-9``
    (so ten charges of 0.1 fit a budget of 1.0); otherwise ``BudgetExceededError`` is raised
    before anything is recorded. ``spend(epsilon, delta, label)`` is short for
    ``compose(EpsilonDeltaEvent(epsilon, delta), label=label)``; ``epsilon(delta)`` is the
    ε spent, for any ``delta`` at least the δ spent.

    Parameters
    ----------
    epsilon_budget : float > 0.
    delta_budget : float in [0, 1); with 0, any charge with δ > 0 is refused.

    Returns
    -------
    An accountant with ``spent``, ``remaining``, ``neighbours`` (the relation of its events,
    None before the first) and ``history`` (a DataFrame, one row per charge).

    Privacy: the accountant itself releases nothing; if every release it charges is
    (ε_i, δ_i)-DP on the same data for the same neighbouring relation, the accepted
    charges together are (Σ ε_i, Σ δ_i)-DP with Σ within budget.

    Defined in: chapters/03_composition.ipynb

    Examples
    --------
    >>> from dp_lib.events import LaplaceEvent
    >>> acct = PrivacyAccountant(1.0).compose(LaplaceEvent(scale=2.0), label="count")
    >>> for _ in range(5):
    ...     acct.spend(0.1)
    >>> acct.epsilon(0.0), len(acct.history)
    (1.0, 6)
    >>> try:
    ...     acct.compose(LaplaceEvent(scale=100.0))
    ... except BudgetExceededError:
    ...     print("refused")
    refused
    """

    REL_TOL = 1e-9
    _COLUMNS = ["label", "epsilon", "delta", "epsilon_spent", "delta_spent", "event"]

    def __init__(self, epsilon_budget: float, delta_budget: float = 0.0) -> None:
        self.epsilon_budget = check_positive(epsilon_budget, "epsilon_budget")
        self.delta_budget = check_delta(delta_budget, "delta_budget", allow_zero=True)
        self.neighbours: str | None = None
        self._rows: list[tuple] = []

    def _totals(self, epsilons: list[float] = (), deltas: list[float] = ()) -> tuple[float, float]:
        eps = _total([row[1] for row in self._rows] + list(epsilons), "epsilon")
        dlt = _total([row[2] for row in self._rows] + list(deltas), "delta")
        return eps, dlt

    @property
    def spent(self) -> tuple[float, float]:
        """(ε, δ) spent so far (exact sums)."""
        return self._totals()

    @property
    def remaining(self) -> tuple[float, float]:
        """(ε, δ) still available, never below 0."""
        eps, dlt = self._totals()
        return max(0.0, self.epsilon_budget - eps), max(0.0, self.delta_budget - dlt)

    @property
    def history(self) -> pd.DataFrame:
        """A new DataFrame with one row per accepted charge, its running totals and its event."""
        return pd.DataFrame(self._rows, columns=self._COLUMNS)

    def epsilon(self, delta: float) -> float:
        """The ε spent: basic composition certifies (Σ ε_i, δ)-DP for every ``delta`` >= Σ δ_i (smaller: ValueError)."""
        dlt = check_delta(delta, allow_zero=True)
        eps, spent_delta = self._totals()
        if dlt < spent_delta:
            raise ValueError(f"delta must be at least the delta spent, {spent_delta:g}: basic composition certifies "
                             f"no epsilon below it, got {delta!r}")
        return eps

    def compose(self, event: DpEvent, *, label: str | None = None) -> PrivacyAccountant:
        """Charge ``event`` (a ``DpEvent``) under ``label``, or raise and record nothing; returns the accountant."""
        self.spend_many([(check_event(event, self.neighbours, accountant="this PrivacyAccountant"), label)])
        return self

    def spend(self, epsilon: float, delta: float = 0.0, label: str | None = None) -> None:
        """Charge a step known only by its guarantee: ``compose(EpsilonDeltaEvent(epsilon, delta), label=label)``.

        The event is stated for the accountant's neighbouring relation (add/remove before the first charge).
        """
        self.compose(EpsilonDeltaEvent(epsilon, delta, neighbours=self.neighbours or "add_remove"), label=label)

    def check_room(self, charges: Sequence, what: str | None = None) -> list[tuple[str, float, float]]:
        """Check charges against the remaining budget, all together, recording nothing.

        Each charge is an (event, label) pair or an (epsilon, delta[, label]) tuple, short for
        ``EpsilonDeltaEvent(epsilon, delta)``. Returns the (label, epsilon, delta) of each; raises
        TypeError/ValueError for a bad charge, ``BudgetExceededError`` when their sum would exceed
        the budget (``what`` names the caller in that message).

        Examples
        --------
        >>> PrivacyAccountant(1.0).check_room([(0.5, 0.0), (0.25, 0.0, "b")])
        [('charge 1', 0.5, 0.0), ('b', 0.25, 0.0)]
        """
        return [row[:3] for row in self._checked(charges, what)]

    def spend_many(self, charges: Sequence) -> None:
        """Record several charges (as in ``check_room``) at once: all of them, or none.

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
        for label, eps, dlt, event in self._checked(charges):
            self._rows.append((label, eps, dlt, *self._totals([eps], [dlt]), event))
            self.neighbours = event.neighbours

    def _checked(self, charges: Sequence, what: str | None = None) -> list[tuple[str, float, float, DpEvent]]:
        """(label, ε, δ, event) of every charge, all checked and fitting the budget together (else raise)."""
        if isinstance(charges, (str, bytes, DpEvent)) or not isinstance(charges, Sequence):
            raise TypeError(f"charges must be a list of (event, label) or (epsilon, delta[, label]) tuples, "
                            f"got {charges!r:.60}")
        rows = []
        for n, charge in enumerate(charges, start=len(self._rows) + 1):
            if not isinstance(charge, (tuple, list)) or len(charge) not in (2, 3):
                raise TypeError(f"charges must contain (event, label) or (epsilon, delta[, label]) tuples, "
                                f"got {charge!r:.60}")
            event, label = charge if isinstance(charge[0], DpEvent) and len(charge) == 2 else (
                EpsilonDeltaEvent(*charge[:2], neighbours=self.neighbours or "add_remove"), (*charge, None)[2])
            event = check_event(event, self.neighbours, accountant="this PrivacyAccountant")
            rows.append((check_label(label, n), *_pure(event), event))
        self._refuse_over_budget(rows, what)
        return rows

    def _refuse_over_budget(self, checked: list[tuple], what: str | None) -> None:
        """Raise BudgetExceededError if the checked charges do not fit the remaining budget."""
        new_eps, new_dlt = self._totals([c[1] for c in checked], [c[2] for c in checked])
        over = [f"{name} {new:.6g} > budget {budget:.6g}" for name, new, budget in
                (("epsilon", new_eps, self.epsilon_budget), ("delta", new_dlt, self.delta_budget))
                if new > budget * (1 + self.REL_TOL)]
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

    def laplace_mech(self, value: ArrayLike, sensitivity: float, epsilon: float, *, rng: np.random.Generator,
                     label: str | None = None) -> float | np.ndarray:
        """Charge ``LaplaceEvent(sensitivity/ε, sensitivity)``, then release ``value`` + Lap(``sensitivity``/ε).

        The arguments are checked first and the budget second, so neither a bad argument nor a
        refused charge spends anything or draws noise (see ``dp_lib.laplace_mech``).

        Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb; discrete_laplace_mech / snapping_mech are)
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
        self.compose(LaplaceEvent(scale, sensitivity, neighbours=self.neighbours or "add_remove"), label=label)
        return laplace_mech(value, sensitivity, epsilon, rng=rng)

    def __repr__(self) -> str:
        eps, dlt = self.spent
        return (f"PrivacyAccountant(epsilon_budget={self.epsilon_budget:g}, delta_budget={self.delta_budget:g}, "
                f"spent=({eps:.6g}, {dlt:.6g}), charges={len(self._rows)})")


def parallel_histogram(data: pd.DataFrame, column: Hashable, epsilon: float, *, rng: np.random.Generator,
                       domain: Sequence, size: int | tuple | None = None) -> pd.Series | pd.DataFrame | np.ndarray:
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

    Privacy: ε-DP in exact arithmetic (the float implementation is not: see chapters/14_exact_noise.ipynb)
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
    data = check_dataframe(data, "data")
    if not isinstance(column, Hashable):
        raise TypeError(f"column must be a column label (hashable), got {column!r}")
    if column not in data.columns:
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
