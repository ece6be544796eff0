"""Privacy events: what a step of an analysis did, as small immutable values every accountant reads.

An event says which mechanism ran with which parameters (in the spirit of
dp-accounting's ``DpEvent``), not what it costs: each accountant turns the same
event into its own bookkeeping (an (ε, δ) charge, an RDP curve, a privacy loss
distribution). Every event is a frozen dataclass, validated when it is made
(``TypeError`` for a wrong type, ``ValueError`` for a wrong value, both naming the
field), and carries the neighbouring relation its guarantee is stated for:
``"add_remove"`` (the default) or ``"replace_one"``. Composite events
(``PoissonSampled``, ``Composed``, ``Repeated``) require all their parts to use
the relation they state.

See: chapters/03_composition.ipynb (the accountant section)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from numbers import Integral, Real

import numpy as np

__all__ = [
    "DpEvent", "EpsilonDeltaEvent", "LaplaceEvent", "GaussianEvent", "RandomizedResponseEvent", "ZcdpEvent",
    "PoissonSampled", "Composed", "Repeated", "NEIGHBOURS",
]  # check_event and check_label are for accountants: import them from dp_lib.events

#: The neighbouring relations an event can be stated for.
NEIGHBOURS = ("add_remove", "replace_one")
_MAX_COUNT = 2**53  # counts stay exact integers in float64 arithmetic


def _real(event, name: str, *, low: float, low_open: bool, high: float = math.inf, high_open: bool = True) -> None:
    """Check the field ``name`` is a finite real in the interval and store it as a float."""
    value = getattr(event, name)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.integer, np.floating)):
        raise TypeError(f"{type(event).__name__}.{name} must be a real number, got {value!r}")
    try:
        x = float(value)
    except OverflowError:
        x = math.inf
    inside = (x > low if low_open else x >= low) and (x < high if high_open else x <= high)
    if not (math.isfinite(x) and inside):
        interval = ("(" if low_open else "[") + f"{low:g}, {high:g}" + (")" if high_open else "]")
        raise ValueError(f"{type(event).__name__}.{name} must be a finite number in {interval}, got {value!r}")
    object.__setattr__(event, name, x)


def _neighbours(event) -> None:
    """Check the ``neighbours`` field is one of ``NEIGHBOURS``."""
    value = event.neighbours
    if not isinstance(value, str):
        raise TypeError(f"{type(event).__name__}.neighbours must be a string, got {value!r}")
    if value not in NEIGHBOURS:
        raise ValueError(f"{type(event).__name__}.neighbours must be one of {NEIGHBOURS}, got {value!r}")


def _part(event, name: str, part) -> None:
    """Check that ``part`` is an event stated for the same neighbouring relation as ``event``."""
    if not isinstance(part, DpEvent):
        raise TypeError(f"{type(event).__name__}.{name} must be a DpEvent, got {part!r}")
    if part.neighbours != event.neighbours:
        raise ValueError(f"{type(event).__name__}.{name} is stated for neighbours={part.neighbours!r} but the "
                         f"{type(event).__name__} for neighbours={event.neighbours!r}: all parts must agree")


class DpEvent:
    """Base class of every privacy event (``isinstance(x, DpEvent)`` tells an event).

    Its repr is the call that makes the event, without ``neighbours`` when that is the default "add_remove".

    Parameters
    ----------
    none: the base class is not made directly; its subclasses are the events.

    Returns
    -------
    An event (of a subclass).

    Privacy: none by itself: an event describes a step; accountants compute what it costs.

    See: chapters/03_composition.ipynb (the accountant section)

    Examples
    --------
    >>> isinstance(LaplaceEvent(1.0), DpEvent), isinstance("gaussian", DpEvent)
    (True, False)
    """

    __slots__ = ()
    neighbours: str

    def __repr__(self) -> str:
        shown = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                 if not (f.name == "neighbours" and self.neighbours == "add_remove")]
        return f"{type(self).__name__}({', '.join(shown)})"


@dataclass(frozen=True, repr=False)
class EpsilonDeltaEvent(DpEvent):
    """A step known only by its guarantee: it is (ε, δ)-DP.

    Parameters
    ----------
    epsilon : float >= 0.  delta : float in [0, 1).  neighbours : "add_remove" or "replace_one".

    Returns
    -------
    The event (frozen; fields stored as floats).

    Privacy: (epsilon, delta)-DP for ``neighbours``.

    See: chapters/03_composition.ipynb (``PrivacyAccountant.spend`` composes it)

    Examples
    --------
    >>> EpsilonDeltaEvent(0.5, 1e-6), EpsilonDeltaEvent(1.0, neighbours='replace_one')
    (EpsilonDeltaEvent(epsilon=0.5, delta=1e-06), EpsilonDeltaEvent(epsilon=1.0, delta=0.0, neighbours='replace_one'))
    """

    epsilon: float
    delta: float = 0.0
    neighbours: str = "add_remove"

    def __post_init__(self) -> None:
        _real(self, "epsilon", low=0.0, low_open=False)
        _real(self, "delta", low=0.0, low_open=False, high=1.0, high_open=True)
        _neighbours(self)


@dataclass(frozen=True, repr=False)
class LaplaceEvent(DpEvent):
    """Laplace noise of scale b on a query of L1 sensitivity Δ: ε = Δ/b.

    Parameters
    ----------
    scale : float > 0, b.  sensitivity : float > 0, Δ (Δ/b must be finite).
    neighbours : "add_remove" or "replace_one".

    Returns
    -------
    The event; ``event.epsilon`` is Δ/b.

    See: chapters/03_composition.ipynb (the accountant's first event)

    Privacy: (Δ/b)-DP for ``neighbours`` when Δ bounds the L1 sensitivity under them (in exact arithmetic).

    Examples
    --------
    >>> event = LaplaceEvent(scale=2.0)
    >>> event, event.epsilon
    (LaplaceEvent(scale=2.0, sensitivity=1.0), 0.5)
    """

    scale: float
    sensitivity: float = 1.0
    neighbours: str = "add_remove"

    def __post_init__(self) -> None:
        _real(self, "scale", low=0.0, low_open=True)
        _real(self, "sensitivity", low=0.0, low_open=True)
        _neighbours(self)
        if not math.isfinite(self.sensitivity / self.scale):
            raise ValueError(f"LaplaceEvent: sensitivity/scale must be finite, got {self.sensitivity!r}/{self.scale!r}")

    @property
    def epsilon(self) -> float:
        """ε = Δ/b."""
        return self.sensitivity / self.scale


@dataclass(frozen=True, repr=False)
class GaussianEvent(DpEvent):
    """Gaussian noise of standard deviation σ on a query of L2 sensitivity Δ: ρ = Δ²/(2σ²) zCDP.

    Parameters
    ----------
    sigma : float > 0.  sensitivity : float > 0, Δ (Δ/σ in (1e-150, 1e150), so ρ is a finite float > 0).
    neighbours : "add_remove" or "replace_one".

    Returns
    -------
    The event; ``event.rho`` is Δ²/(2σ²).

    See: chapters/10_accounting.ipynb (composed by ``RdpAccountant``)

    Privacy: (Δ²/(2σ²))-zCDP for ``neighbours`` when Δ bounds the L2 sensitivity under them.

    Examples
    --------
    >>> GaussianEvent(sigma=4.0).rho
    0.03125
    """

    sigma: float
    sensitivity: float = 1.0
    neighbours: str = "add_remove"

    def __post_init__(self) -> None:
        _real(self, "sigma", low=0.0, low_open=True)
        _real(self, "sensitivity", low=0.0, low_open=True)
        _neighbours(self)
        ratio = self.sensitivity / self.sigma
        if not 1e-150 < ratio < 1e150:  # rho = ratio**2 / 2 would overflow or underflow to 0
            raise ValueError(f"GaussianEvent: sensitivity/sigma must lie in (1e-150, 1e150), "
                             f"got sensitivity={self.sensitivity!r}, sigma={self.sigma!r}")

    @property
    def rho(self) -> float:
        """ρ = Δ²/(2σ²)."""
        return (self.sensitivity / self.sigma) ** 2 / 2.0


@dataclass(frozen=True, repr=False)
class RandomizedResponseEvent(DpEvent):
    """Binary randomized response that tells the truth with probability e^ε/(1 + e^ε).

    Parameters
    ----------
    epsilon : float > 0.  neighbours : "add_remove" or "replace_one".

    Returns
    -------
    The event.

    See: chapters/03_composition.ipynb (any accountant composes it)

    Privacy: ε-DP when one respondent's bit changes, which is ``neighbours="replace_one"``; under add/remove
    the number of reports changes too, so state add/remove only when that number is public (dp-accounting
    accounts randomized response for replace-one neighbours only).

    Examples
    --------
    >>> RandomizedResponseEvent(1.0)
    RandomizedResponseEvent(epsilon=1.0)
    """

    epsilon: float
    neighbours: str = "add_remove"

    def __post_init__(self) -> None:
        _real(self, "epsilon", low=0.0, low_open=True)
        _neighbours(self)


@dataclass(frozen=True, repr=False)
class ZcdpEvent(DpEvent):
    """Any step known to be ρ-zCDP.

    Parameters
    ----------
    rho : float >= 0.  neighbours : "add_remove" or "replace_one".

    Returns
    -------
    The event.

    See: chapters/10_accounting.ipynb (composed by ``RdpAccountant``)

    Privacy: ρ-zCDP for ``neighbours``.

    Examples
    --------
    >>> ZcdpEvent(0.5)
    ZcdpEvent(rho=0.5)
    """

    rho: float
    neighbours: str = "add_remove"

    def __post_init__(self) -> None:
        _real(self, "rho", low=0.0, low_open=False)
        _neighbours(self)


@dataclass(frozen=True, repr=False)
class PoissonSampled(DpEvent):
    """``event`` applied to a Poisson sample: each record is kept independently with probability q.

    Parameters
    ----------
    q : float in [0, 1], the sampling rate.  event : DpEvent, stated for the same ``neighbours``.
    neighbours : "add_remove" or "replace_one".

    Returns
    -------
    The event.

    See: chapters/11_private_learning.ipynb (one DP-SGD step)

    Privacy: amplified by subsampling; the accountant computes by how much.

    Examples
    --------
    >>> PoissonSampled(0.01, GaussianEvent(4.0))
    PoissonSampled(q=0.01, event=GaussianEvent(sigma=4.0, sensitivity=1.0))
    """

    q: float
    event: DpEvent
    neighbours: str = "add_remove"

    def __post_init__(self) -> None:
        _real(self, "q", low=0.0, low_open=False, high=1.0, high_open=False)
        _neighbours(self)
        _part(self, "event", self.event)


@dataclass(frozen=True, repr=False)
class Composed(DpEvent):
    """The events of a non-empty sequence, applied one after the other (any list or tuple; stored as a tuple).

    Parameters
    ----------
    events : non-empty list or tuple of DpEvent, all stated for ``neighbours``.
    neighbours : "add_remove" or "replace_one".

    Returns
    -------
    The event; ``events`` is a tuple.

    See: chapters/03_composition.ipynb (sequential composition)

    Privacy: sequential composition of the parts, for ``neighbours``.

    Examples
    --------
    >>> Composed([LaplaceEvent(1.0), RandomizedResponseEvent(0.5)]).events[1]
    RandomizedResponseEvent(epsilon=0.5)
    """

    events: tuple
    neighbours: str = "add_remove"

    def __post_init__(self) -> None:
        if isinstance(self.events, (str, bytes, DpEvent)) or not isinstance(self.events, (list, tuple)):
            raise TypeError(f"Composed.events must be a list or tuple of DpEvent, got {self.events!r}")
        object.__setattr__(self, "events", tuple(self.events))
        if not self.events:
            raise ValueError("Composed.events must hold at least one event, got an empty sequence")
        _neighbours(self)
        for i, part in enumerate(self.events):
            _part(self, f"events[{i}]", part)


@dataclass(frozen=True, repr=False)
class Repeated(DpEvent):
    """``event`` run ``count`` times (count-fold self-composition).

    Parameters
    ----------
    event : DpEvent, stated for ``neighbours``.  count : int in [1, 2**53].
    neighbours : "add_remove" or "replace_one".

    Returns
    -------
    The event.

    See: chapters/03_composition.ipynb (k-fold composition)

    Privacy: sequential composition of ``count`` copies, for ``neighbours``.

    Examples
    --------
    >>> Repeated(GaussianEvent(10.0), 100).count
    100
    """

    event: DpEvent
    count: int
    neighbours: str = "add_remove"

    def __post_init__(self) -> None:
        if isinstance(self.count, (bool, np.bool_)) or not isinstance(self.count, (Integral, np.integer)):
            raise TypeError(f"Repeated.count must be an integer, got {self.count!r}")
        if not 1 <= int(self.count) <= _MAX_COUNT:
            raise ValueError(f"Repeated.count must be an integer in [1, 2**53], got {self.count!r}")
        object.__setattr__(self, "count", int(self.count))
        _neighbours(self)
        _part(self, "event", self.event)


def check_event(event: object, neighbours: str | None = None, *, accountant: str = "the accountant") -> DpEvent:
    """Require a ``DpEvent`` stated for ``neighbours`` (any relation when None); return it.

    Accountants call it first in ``compose``: a string (the 0.2 ``compose(kind, **parameters)`` form) or
    any other object is a TypeError; an event for another neighbouring relation than the events already
    composed is a ValueError (an add/remove ε-DP step is 2ε-DP under replace-one, by group privacy:
    state the event for the accountant's relation instead).

    Parameters
    ----------
    event : the object to check.  neighbours : "add_remove", "replace_one" or None.
    accountant : the caller's name, for the message.

    Returns
    -------
    The event.

    Privacy: none: a check of public parameters.

    See: chapters/03_composition.ipynb (``PrivacyAccountant.compose`` calls it)

    Examples
    --------
    >>> check_event(LaplaceEvent(1.0), "add_remove").epsilon
    1.0
    """
    if not isinstance(event, DpEvent):
        hint = " (compose(kind, **parameters) was removed in dp_lib 0.3)" if isinstance(event, str) else ""
        raise TypeError(f"event must be a DpEvent from dp_lib.events, e.g. GaussianEvent(sigma=1.0), "
                        f"got {event!r:.80}{hint}")
    if neighbours is not None and event.neighbours != neighbours:
        raise ValueError(f"event is stated for neighbours={event.neighbours!r}, but {accountant} already holds events "
                         f"for neighbours={neighbours!r}; one accountant composes one neighbouring relation")
    return event


def check_label(label: object, n: int) -> str:
    """A history label: a string, or ``"charge <n>"`` for None; anything else is a TypeError.

    Parameters
    ----------
    label : str or None.  n : the number of the charge (1 for the first).

    Returns
    -------
    str.

    Privacy: none: bookkeeping.

    See: chapters/03_composition.ipynb (the accountants' ``history``)

    Examples
    --------
    >>> check_label(None, 3), check_label("count", 4)
    ('charge 3', 'count')
    """
    if label is None:
        return f"charge {n}"
    if not isinstance(label, str):
        raise TypeError(f"label must be a string or None, got {label!r:.80}")
    return label
