"""The Rényi DP accountant: events in, RDP curves added order by order, (ε, δ) out.

``RdpAccountant.compose(event)`` turns an event of ``dp_lib.events`` into its RDP
curve at the accountant's orders (``dp_lib.rdp`` has the curves), adds it to the
running total and records a row of ``history``; ``epsilon(delta)`` converts the
total by the improved conversion, minimised over the orders. A refused event
(wrong type, no RDP curve, a total beyond float64) raises and records nothing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .events import (Composed, DpEvent, EpsilonDeltaEvent, GaussianEvent, LaplaceEvent, PoissonSampled,
                     RandomizedResponseEvent, Repeated, ZcdpEvent, check_event, check_label)
from .rdp import DEFAULT_ORDERS, check_orders, laplace_rdp, rdp_to_epsilon, subsampled_gaussian_rdp

__all__ = ["RdpAccountant"]


def _rr_rdp(orders: np.ndarray, epsilon: float) -> np.ndarray:
    """RDP of binary randomized response at ε: (1/(α-1)) ln(p^α (1-p)^(1-α) + (1-p)^α p^(1-α)), p = e^ε/(1+e^ε).

    In logs, with ln p = -ln(1 + e^-ε) and ln(1-p) = ln p - ε: ε + logaddexp(ln p, ln(1-p) - 2(α-1)ε)/(α-1),
    clipped to [0, ε] (the exact value lies there). Every ε-DP pair of output laws is a post-processing of
    randomized response's (Kairouz, Oh & Viswanath 2015), so this is also the RDP of any ε-DP step.
    """
    log_p = -np.log1p(np.exp(-epsilon))
    with np.errstate(over="ignore"):
        rdp = epsilon + np.logaddexp(log_p, log_p - epsilon - 2 * (orders - 1) * epsilon) / (orders - 1)
    return np.clip(rdp, 0.0, epsilon)


def _curve(event: DpEvent, a: np.ndarray) -> np.ndarray:
    """The RDP curve of one (checked) event at orders ``a``; ValueError for an event without one."""
    if isinstance(event, (GaussianEvent, ZcdpEvent)):
        return a * event.rho
    if isinstance(event, LaplaceEvent):
        return laplace_rdp(a, event.scale, event.sensitivity)
    if isinstance(event, RandomizedResponseEvent):
        return _rr_rdp(a, event.epsilon)
    if isinstance(event, EpsilonDeltaEvent):
        if event.delta > 0:
            raise ValueError(f"{event!r} has delta > 0, which no RDP curve bounds; account it with "
                             "PrivacyAccountant (or the PLD accountant), or state the step as a mechanism event")
        return _rr_rdp(a, event.epsilon)
    if isinstance(event, PoissonSampled):
        if not isinstance(event.event, GaussianEvent):
            raise ValueError(f"RdpAccountant takes PoissonSampled only of a GaussianEvent, got {event.event!r}")
        return subsampled_gaussian_rdp(a, event.q, event.event.sigma / event.event.sensitivity)
    if isinstance(event, Composed):
        return np.sum([_curve(part, a) for part in event.events], axis=0)
    if isinstance(event, Repeated):
        return event.count * _curve(event.event, a)
    raise TypeError(f"RdpAccountant has no RDP curve for a {type(event).__name__}")


class RdpAccountant:
    """Adds up Rényi DP order by order (orders 2..256 by default) and converts to (ε, δ) on demand.

    ``compose(event, label=None)`` records one event of ``dp_lib.events``: ``GaussianEvent``
    (α Δ²/(2σ²)), ``ZcdpEvent`` (ρ α), ``LaplaceEvent`` (Mironov's Laplace curve),
    ``RandomizedResponseEvent`` and ``EpsilonDeltaEvent`` with δ = 0 (randomized response's curve,
    the worst case of ε-DP), ``PoissonSampled`` of a ``GaussianEvent`` (the subsampled Gaussian), and
    ``Composed``/``Repeated`` of those. ``epsilon(delta)`` and ``best_order(delta)`` convert.

    Parameters
    ----------
    orders : integer orders >= 2 (default ``DEFAULT_ORDERS``, 2..256, as in the dp-accounting cross-check).

    Returns
    -------
    An accountant with ``orders``, ``rdp`` (the running totals), ``neighbours`` (the relation of its
    events, None before the first) and ``history`` (a DataFrame, one row per compose call).

    Privacy: bookkeeping only; the composed events together are (epsilon(δ), δ)-DP for the neighbouring
    relation they are stated for (PoissonSampled only for add/remove-one, where its curve is proved).

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib.events import GaussianEvent, PoissonSampled, Repeated
    >>> acct = RdpAccountant().compose(Repeated(PoissonSampled(0.01, GaussianEvent(4.0)), 10_000), label="DP-SGD")
    >>> round(acct.epsilon(1e-5), 4), acct.history["label"].tolist()
    (1.0355, ['DP-SGD'])
    """

    def __init__(self, orders: ArrayLike = DEFAULT_ORDERS) -> None:
        self.orders, _ = check_orders(orders, integer=True, name="orders")
        self.rdp = np.zeros_like(self.orders)
        self.neighbours: str | None = None
        self._rows: list[tuple[str, DpEvent]] = []

    def event_rdp(self, event: DpEvent) -> np.ndarray:
        """The RDP curve of ``event`` at the accountant's orders, recording nothing (ValueError if it has none)."""
        check_event(event)
        with np.errstate(over="ignore", invalid="ignore"):
            rdp = _curve(event, self.orders)
        if not np.all(np.isfinite(rdp)):
            raise ValueError(f"event {event!r:.100} has an RDP beyond float64 at the largest order "
                             f"{int(self.orders.max())}; nothing was recorded")
        return rdp

    def compose(self, event: DpEvent, *, label: str | None = None) -> RdpAccountant:
        """Record ``event`` (a ``DpEvent``) under ``label``; returns the accountant, so calls chain.

        A wrong type is a TypeError, an event without an RDP curve or a total beyond float64 a
        ValueError; either way nothing is recorded.
        """
        check_event(event, self.neighbours, accountant="this RdpAccountant")
        label = check_label(label, len(self._rows) + 1)
        with np.errstate(over="ignore"):
            total = self.rdp + self.event_rdp(event)
        if not np.all(np.isfinite(total)):
            raise ValueError(f"event {event!r:.100} would bring the total RDP beyond float64; nothing was recorded")
        self.rdp, self.neighbours = total, event.neighbours
        self._rows.append((label, event))
        return self

    @property
    def history(self) -> pd.DataFrame:
        """A new DataFrame, one row per compose call: its ``label`` and its ``event``."""
        return pd.DataFrame(self._rows, columns=["label", "event"])

    def epsilon(self, delta: float) -> float:
        """ε at ``delta`` (in (0, 1)) by the improved conversion, minimised over the orders."""
        return rdp_to_epsilon(self.orders, self.rdp, delta)[0]

    def best_order(self, delta: float) -> float:
        """The order α at which ``epsilon(delta)`` is attained."""
        return rdp_to_epsilon(self.orders, self.rdp, delta)[1]

    def __repr__(self) -> str:
        return f"RdpAccountant(orders {int(self.orders.min())}..{int(self.orders.max())}, events={len(self._rows)})"
