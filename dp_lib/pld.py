"""The PLD accountant: privacy loss distributions, composed by convolution, read out by the hockey-stick formula.

``PldAccountant`` takes the events of ``dp_lib.events`` (the interface every accountant shares), turns each into
the discretised PLDs of its two orderings (removing a record, adding one; ``dp_lib.pld_mechanisms``), convolves
them into the running totals (``dp_lib.pld_math``) and answers ``epsilon(delta)`` with the larger of the two.
The discretisation is pessimistic, so the answers are upper bounds; with grid step h and k steps the certified ε
is less than k·h above the exact one (rounding up), and far closer with the default splitting.

See: chapters/10_accounting.ipynb (the chapter this module belongs to)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .events import (Composed, DpEvent, EpsilonDeltaEvent, GaussianEvent, LaplaceEvent, PoissonSampled,
                     RandomizedResponseEvent, Repeated, check_event)
from .pld_math import Pld, pld_from_loss_cdf
from .pld_mechanisms import (epsilon_delta_pld, gaussian_pld, laplace_pld, randomized_response_pld,
                             subsampled_gaussian_pld)
from .validation import check_positive

__all__ = ["PldAccountant", "Pld", "pld_from_loss_cdf", "laplace_pld", "gaussian_pld", "randomized_response_pld",
           "epsilon_delta_pld", "subsampled_gaussian_pld"]


class PldAccountant:
    """Composes privacy events exactly up to a pessimistic discretisation of the privacy loss (grid step ``step``).

    ``compose(event, label=None)`` records an event (a refused event records nothing); ``epsilon(delta)`` and
    ``delta(epsilon)`` read the composition out; ``history`` has one row per compose call. Events with a PLD:
    Laplace, Gaussian, randomized response, (ε, δ) steps (their worst case), Poisson-sampled Gaussians, and
    Composed/Repeated of those. zCDP steps have no PLD (use ``RdpAccountant``).

    Parameters
    ----------
    step : float > 0, the grid spacing h of the privacy loss (default 1e-4, dp-accounting's default).

    Returns
    -------
    An accountant.

    Privacy: bookkeeping only; it takes the worse of the two orderings of each pair, and the answers are upper
    bounds (pessimistic discretisation) for the neighbouring relation of the events, which must all share one
    relation (``neighbours``, set by the first event; a mixed one is refused, as ``RdpAccountant`` does).

    Defined in: chapters/10_accounting.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> from dp_lib.events import GaussianEvent, PoissonSampled, Repeated
    >>> rng = make_rng(0)  # the accountant draws nothing
    >>> acc = PldAccountant().compose(Repeated(PoissonSampled(0.01, GaussianEvent(4.0)), 10_000))
    >>> round(acc.epsilon(1e-5), 3)
    0.947
    """

    def __init__(self, step: float = 1e-4):
        self.step = check_positive(step, "step")
        self.plds: tuple[Pld, Pld] | None = None  # (remove ordering, add ordering)
        self.neighbours: str | None = None  # the relation of the events composed so far
        self._rows: list[dict] = []

    def _pair(self, event) -> tuple[Pld, Pld]:
        """The PLDs of ``event`` for removing and for adding a record (raises for an event without a PLD)."""
        h = self.step
        if isinstance(event, LaplaceEvent):
            one = laplace_pld(event.scale, event.sensitivity, step=h)
        elif isinstance(event, GaussianEvent):
            one = gaussian_pld(event.sigma, event.sensitivity, step=h)
        elif isinstance(event, RandomizedResponseEvent):
            one = randomized_response_pld(event.epsilon, step=h)
        elif isinstance(event, EpsilonDeltaEvent):
            one = epsilon_delta_pld(event.epsilon, event.delta, step=h)
        elif isinstance(event, PoissonSampled):
            return self._sampled(event)
        elif isinstance(event, Repeated):
            remove, add = self._pair(event.event)
            return remove.self_compose(event.count), add.self_compose(event.count)
        elif isinstance(event, Composed):
            pairs = [self._pair(part) for part in event.events]
            return _fold([p[0] for p in pairs]), _fold([p[1] for p in pairs])
        elif isinstance(event, DpEvent):
            raise ValueError(f"{type(event).__name__} has no privacy loss distribution: use RdpAccountant")
        else:
            raise TypeError(f"event must be a DpEvent, got {event!r:.80}")
        return one, one

    def _sampled(self, event: PoissonSampled) -> tuple[Pld, Pld]:
        inner = event.event
        if not isinstance(inner, GaussianEvent) or event.neighbours != "add_remove":
            raise ValueError("PldAccountant takes PoissonSampled(q, GaussianEvent(...)) for add/remove neighbours "
                             f"only, got {event!r:.100}")
        if event.q == 0.0:  # the record is never used: no privacy loss
            nothing = Pld(self.step, 0, np.array([1.0]))
            return nothing, nothing
        z = inner.sigma / inner.sensitivity  # the noise multiplier
        return tuple(subsampled_gaussian_pld(event.q, z, ordering=o, step=self.step) for o in ("remove", "add"))

    def compose(self, event: DpEvent, *, label: str | None = None) -> "PldAccountant":
        """Record ``event``; returns the accountant, so calls chain.

        A wrong type is a TypeError; an event without a PLD, or for another neighbouring relation than the events
        already composed, a ValueError; either way nothing is recorded.
        """
        check_event(event, self.neighbours, accountant="this PldAccountant")
        remove, add = self._pair(event)  # raises before anything is recorded
        self.plds = (remove, add) if self.plds is None else (self.plds[0].compose(remove), self.plds[1].compose(add))
        self.neighbours = event.neighbours
        self._rows.append({"label": label, "event": repr(event)})
        return self

    def epsilon(self, delta: float) -> float:
        """Smallest ε this accountant certifies at ``delta`` for everything composed (0 before any event)."""
        if self.plds is None:
            return 0.0
        return max(pld.epsilon(delta) for pld in self.plds)

    def delta(self, epsilon: float) -> float:
        """δ(ε) of everything composed: the larger hockey-stick value of the two orderings."""
        if self.plds is None:
            return 0.0
        return max(pld.delta(epsilon) for pld in self.plds)

    @property
    def history(self) -> pd.DataFrame:
        """One row per compose call: its label and the event."""
        return pd.DataFrame(self._rows, columns=["label", "event"])

    def __repr__(self) -> str:
        return f"PldAccountant(step={self.step:g}, events={len(self._rows)})"


def _fold(plds: list[Pld]) -> Pld:
    """The composition of a list of PLDs, left to right."""
    total = plds[0]
    for pld in plds[1:]:
        total = total.compose(pld)
    return total

