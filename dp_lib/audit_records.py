"""The records an audit returns, and the verdict table: ``ThresholdEvent``, ``AuditResult``, ``audit_table``.

Split from ``dp_lib.audit`` (which runs the audits): an ``AuditResult`` holds
the counts, the Clopper–Pearson intervals and the certified lower bound of one
audit; ``audit_table`` lays several of them side by side with their verdicts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .validation import check_bool, check_epsilon, check_real

__all__ = ["ThresholdEvent", "AuditResult", "audit_table"]


@dataclass(frozen=True)
class ThresholdEvent:
    """The event {output > threshold} (``above=True``) or {output < threshold}.

    A callable predicate on an array of outputs; NaN outputs (e.g. ⊥) are in neither event.

    Privacy: none; an event fixed before sampling, for ``epsilon_lower_bound``.

    Defined in: chapters/05_auditing.ipynb

    Examples
    --------
    >>> event = ThresholdEvent(0.5)
    >>> event(np.array([0.0, 1.0])).tolist(), str(event)
    ([False, True], 'output > 0.5')
    """

    threshold: float
    above: bool = True

    def __post_init__(self):
        object.__setattr__(self, "threshold", check_real(self.threshold, "threshold"))
        object.__setattr__(self, "above", check_bool(self.above, "above"))

    def __call__(self, outputs):
        y = np.asarray(outputs)
        return y > self.threshold if self.above else y < self.threshold

    def __str__(self):
        return f"output {'>' if self.above else '<'} {self.threshold:.6g}"


@dataclass(frozen=True)
class AuditResult:
    """What one audit measured: counts, frequencies, Clopper–Pearson intervals and the bound.

    Attributes
    ----------
    event : the event S, a callable predicate (a ``ThresholdEvent`` from ``search_events``).
    trials : int, runs of the mechanism on each input.
    count, count_prime : int, runs whose output fell in S, on x and on x'.
    frequency, frequency_prime : float, count / trials and count_prime / trials.
    interval, interval_prime : (lower, upper) Clopper–Pearson bounds on
        P[M(x) ∈ S] and P[M(x') ∈ S], each one-sided bound at level α/4.
    confidence : float, 1 - α: the probability that all four bounds hold.
    delta : float, the δ subtracted in the (ε, δ) form.
    epsilon_lb : float >= 0, the certified lower bound on ε.
    larger : "x" or "x_prime", the input that makes S more likely (the order that gave ``epsilon_lb``).
    claimed_epsilon : float or None, the ε the mechanism claims.
    flagged : bool or None, ``epsilon_lb > claimed_epsilon`` (None without a claim).

    Privacy: none; a report. Defined in: chapters/05_auditing.ipynb

    Examples
    --------
    >>> AuditResult.__dataclass_fields__['epsilon_lb'].type
    'float'
    """

    event: object
    trials: int
    count: int
    count_prime: int
    frequency: float
    frequency_prime: float
    interval: tuple
    interval_prime: tuple
    confidence: float
    delta: float
    epsilon_lb: float
    larger: str
    claimed_epsilon: float | None = None
    flagged: bool | None = None

    def exceeds(self, claimed_epsilon: float) -> bool:
        """True when the certified bound refutes ``claimed_epsilon`` (ε_lb > claimed ε)."""
        return self.epsilon_lb > check_epsilon(claimed_epsilon, "claimed_epsilon")


def _describe(event) -> str:
    if isinstance(event, ThresholdEvent):
        return str(event)
    return getattr(event, "__name__", None) or repr(event)


def audit_table(results: dict[str, AuditResult]) -> pd.DataFrame:
    """One row per audit: claimed ε, certified lower bound, verdict, event and frequencies.

    Parameters
    ----------
    results : dict mapping a mechanism's name to its ``AuditResult`` (each with a claimed ε).

    Returns
    -------
    pandas DataFrame indexed by mechanism, with columns "claimed ε",
    "certified lower bound", "verdict" ("refuted" or "not refuted"), "event",
    "freq on x", "freq on x'" and "trials".

    Privacy: none (a report).

    Defined in: chapters/05_auditing.ipynb

    Examples
    --------
    >>> r = AuditResult(ThresholdEvent(0.0), 100, 60, 20, 0.6, 0.2, (0.45, 0.73), (0.12, 0.31), 0.95, 0.0,
    ...                 0.37, "x", 1.0, False)
    >>> audit_table({"demo": r})["verdict"].tolist()
    ['not refuted']
    """
    if not isinstance(results, dict):
        raise TypeError(f"results must be a non-empty dict of name -> AuditResult, got {type(results).__name__}")
    if not results:
        raise ValueError("results must be a non-empty dict of name -> AuditResult")
    rows = {}
    for name, r in results.items():
        if not isinstance(r, AuditResult):
            raise TypeError(f"results[{name!r}] must be an AuditResult, got {type(r).__name__}")
        if r.claimed_epsilon is None:
            raise ValueError(f"results[{name!r}] must be an AuditResult with a claimed_epsilon")
        bounds = (r.claimed_epsilon, r.epsilon_lb, r.frequency, r.frequency_prime)
        if any(isinstance(b, float) and math.isnan(b) for b in bounds):
            raise ValueError(f"results[{name!r}] holds NaN (claimed_epsilon, epsilon_lb or a frequency): "
                             "a table of verdicts cannot print it")
        rows[name] = {"claimed ε": r.claimed_epsilon, "certified lower bound": r.epsilon_lb,
                      "verdict": "refuted" if r.flagged else "not refuted", "event": _describe(r.event),
                      "freq on x": r.frequency, "freq on x'": r.frequency_prime, "trials": r.trials}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "mechanism"
    return table
