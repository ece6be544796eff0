"""A canary audit of DP-SGD: insert one crafted example or not, train many times, certify a lower bound on ε.

Jagielski, Ullman & Oprea (NeurIPS 2020) and Nasr, Song, Thakurta, Papernot & Carlini (S&P 2021) audit DP-SGD by
training on D and on D' = D ∪ {canary} many times and testing which world a trained model came from. Any event
S of the final model gives P[θ ∈ S | D'] <= e^ε P[θ ∈ S | D] + δ, so the book's auditor (``search_events``:
an event chosen on a pilot batch, Clopper–Pearson on a fresh one) turns the runs into a certified lower bound
on ε, to hold against the ε the accountants state for the same σ, q and T (``accountant_epsilons``).

The canary here is a "Dirac canary": a new feature that every real row has at 0 and the canary has at
``scale`` = M, with label 1. Only the canary moves the weight θ_j of that feature, so the 1-d output is θ_j.
Its per-example gradient is r·M e_j with r = σ(M θ_j) - 1, of norm M σ(-M θ_j); while that is >= C, i.e. while
θ_j <= ln(M/C - 1)/M ((ln 3)/4 ≈ 0.27 for M = 4, C = 1), it is clipped to exactly C = ``clip_norm``, the most any
record may move the sum. Then with q = 1 (full batch) θ_j·B/(ηC) is
N(0, Tσ²) without the canary and N(T, Tσ²) with it: exactly the T-fold Gaussian mechanism the accountant
charges, so the audit tests the accountant's own worst case.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .accounting import RdpAccountant
from .audit import search_events
from .audit_records import AuditResult
from .events import GaussianEvent, PoissonSampled, Repeated
from .fdp import gdp_epsilon
from .pld import PldAccountant
from .random import check_rng
from .validation import (check_delta, check_features_labels, check_finite_array, check_int, check_positive,
                         check_probability, check_real)

__all__ = ["canary_datasets", "canary_mechanism", "replay_mechanism", "audit_canary", "accountant_epsilons"]


def canary_datasets(X: ArrayLike, y: ArrayLike, *, scale: float = 4.0) -> tuple[tuple, tuple]:
    """The neighbouring pair of a canary audit: D = the rows with a new all-zero feature, D' = D ∪ {canary}.

    The canary is (0, ..., 0, M) with label 1: it uses only the new feature, which no real row uses.

    Parameters
    ----------
    X : n × d features; y : n labels in {0, 1}.  scale : float > 0, M, the canary's value of the new feature
        (its gradient is clipped to exactly C while M σ(-M θ_j) >= C, i.e. θ_j <= ln(M/C - 1)/M, which needs
        M > C; for M = 4, C = 1, θ_j <= (ln 3)/4 ≈ 0.27; see the module docstring).

    Returns
    -------
    ((X0, y0), (X1, y1)): n × (d + 1) and (n + 1) × (d + 1) features with their labels.

    Privacy: none: an attack/measurement (D and D' are add/remove neighbours).

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> (X0, y0), (X1, y1) = canary_datasets([[1.0, 0.5]], [0.0])
    >>> X1.tolist(), y1.tolist()
    ([[1.0, 0.5, 0.0], [0.0, 0.0, 4.0]], [0.0, 1.0])
    """
    X, y = check_features_labels(X, y)
    m = check_positive(scale, "scale")
    X0 = np.hstack([X, np.zeros((len(y), 1))])
    canary = np.zeros((1, X0.shape[1]))
    canary[0, -1] = m
    return (X0, y.copy()), (np.vstack([X0, canary]), np.append(y, 1.0))


def canary_mechanism(trainer: Callable[..., Any]) -> Callable[..., np.ndarray]:
    """The audited mechanism: train on ``data`` = (X, y) ``size`` times and output the canary's weight θ_j.

    Parameters
    ----------
    trainer : callable ``trainer(X, y, rng=rng)`` returning θ, or (θ, history) like ``minibatch_dp_sgd``.

    Returns
    -------
    callable ``mechanism(data, size, rng)`` in the auditor's convention: ``size`` outputs θ_j (the last
    coordinate of each final θ), one training per output, all driven by ``rng``.

    Privacy: none: an attack/measurement (each run has the trainer's guarantee).

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng, minibatch_dp_sgd
    >>> (X0, y0), (X1, y1) = canary_datasets([[1.0, 0.5], [1.0, -0.5]] * 50, [1.0, 0.0] * 50)
    >>> train = lambda X, y, rng: minibatch_dp_sgd(X, y, 2.0, 1e-5, 10, 1.0, q=1.0, public_n=100, rng=rng)
    >>> canary_mechanism(train)((X1, y1), size=3, rng=make_rng(7)).round(2).tolist()
    [0.48, 0.53, 0.07]
    """
    if not callable(trainer):
        raise TypeError(f"trainer must be a callable trainer(X, y, rng=rng), got {trainer!r:.60}")

    def mechanism(data, size, rng):
        n, rng = check_int(size, "size", minimum=1), check_rng(rng)
        X, y = data
        outputs = np.empty(n)
        for i in range(n):  # one training per run: each run is the trainer's own loop
            out = trainer(X, y, rng=rng)
            outputs[i] = np.asarray(out[0] if isinstance(out, tuple) else out, dtype=float)[-1]
        return outputs

    mechanism.__name__ = f"canary_weight({getattr(trainer, '__name__', 'trainer')})"
    return mechanism


def replay_mechanism(outputs: ArrayLike, outputs_prime: ArrayLike) -> Callable[..., np.ndarray]:
    """A mechanism that hands back stored outputs in order: audit shipped runs with the same auditor.

    ``mechanism("x", size, rng)`` returns the next ``size`` values of ``outputs`` (the runs without the
    canary) and ``mechanism("x_prime", size, rng)`` the next of ``outputs_prime``; ``rng`` is not used. Pass
    ``x="x", x_prime="x_prime"`` to ``search_events``: it takes its pilot batch first, then the certifying batch,
    so store the runs in that order.

    Parameters
    ----------
    outputs, outputs_prime : 1-d arrays of stored outputs on x and on x'.

    Returns
    -------
    callable ``mechanism(data, size, rng)``; asking for more outputs than stored is a ValueError.

    Privacy: none: an attack/measurement.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> mech = replay_mechanism([1.0, 2.0, 3.0], [4.0, 5.0])
    >>> mech("x", 2, make_rng(0)).tolist(), mech("x_prime", 1, make_rng(0)).tolist(), mech("x", 1, make_rng(0)).tolist()
    ([1.0, 2.0], [4.0], [3.0])
    """
    stored = {"x": check_finite_array(outputs, "outputs", ndim=1),
              "x_prime": check_finite_array(outputs_prime, "outputs_prime", ndim=1)}
    used = {"x": 0, "x_prime": 0}

    def mechanism(data, size, rng):
        if data not in stored:
            raise ValueError(f"data must be 'x' or 'x_prime' for a replay, got {data!r:.40}")
        n, start = check_int(size, "size", minimum=1), used[data]
        if start + n > len(stored[data]):
            raise ValueError(f"size: {n} more outputs on {data} asked for, only {len(stored[data]) - start} left")
        used[data] = start + n
        return stored[data][start:start + n].copy()

    return mechanism


def audit_canary(trainer: Callable[..., Any], X: ArrayLike, y: ArrayLike, trials: int, *, rng: np.random.Generator,
                 pilot_trials: int | None = None, delta: float = 1e-5, claimed_epsilon: float | None = None,
                 scale: float = 4.0, confidence: float = 0.95) -> AuditResult:
    """Audit a trainer with a Dirac canary: ``search_events`` on θ_j, without the canary (x) and with it (x').

    Parameters
    ----------
    trainer : callable ``trainer(X, y, rng=rng)`` returning θ or (θ, history).  X, y : the real rows.
    trials : int >= 1, certifying runs per world.  rng : numpy.random.Generator (keyword-only, required).
    pilot_trials : int >= 1, runs per world that choose the event (default trials // 4); never reused.
    delta : float in [0, 1), the δ of the claim.  claimed_epsilon : float > 0 or None, sets ``flagged``.
    scale : float > 0, the canary's feature value M.  confidence : float in (0, 1).

    Returns
    -------
    AuditResult (``epsilon_lb``: the certified lower bound on ε at the given δ).

    Privacy: none: an attack/measurement. It can refute a claim, never prove one.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng, minibatch_dp_sgd
    >>> X, y = [[1.0, 0.5], [1.0, -0.5]] * 50, [1.0, 0.0] * 50
    >>> train = lambda X, y, rng: minibatch_dp_sgd(X, y, 2.0, 1e-5, 10, 1.0, q=1.0, public_n=100, rng=rng,
    ...                                            learning_rate=0.2)
    >>> result = audit_canary(train, X, y, 200, rng=make_rng(1), claimed_epsilon=2.0)
    >>> result.epsilon_lb < 2.0, result.flagged
    (True, False)
    """
    check_int(trials, "trials", minimum=1, maximum=10**7)
    if pilot_trials is not None:
        check_int(pilot_trials, "pilot_trials", minimum=1, maximum=10**7)
    without, with_canary = canary_datasets(X, y, scale=scale)
    mechanism = canary_mechanism(trainer)
    return search_events(mechanism, without, with_canary, trials, confidence, rng=rng, pilot_trials=pilot_trials,
                         delta=delta, claimed_epsilon=claimed_epsilon)


def accountant_epsilons(noise_multiplier: float, q: float, steps: int, delta: float) -> dict[str, float]:
    """The ε that the book's accountants state for T steps of DP-SGD with noise multiplier σ and sampling rate q.

    "rdp": ``RdpAccountant`` (what ``minibatch_dp_sgd`` calibrates σ with); "pld": ``PldAccountant`` (tighter,
    a valid upper bound too); for q = 1 also "exact": T full-batch steps are the Gaussian mechanism with
    sensitivity C, noise σC, composed T times, i.e. μ-GDP with μ = √T/σ, whose exact ε is ``gdp_epsilon``.

    Parameters
    ----------
    noise_multiplier : float in [0.3, 1e4], σ (below 0.3 the PLD grid of the loss grows too large to be quick).
    q : float in (0, 1].  steps : int in [1, 10**4], T.  delta : float in (0, 1).

    Returns
    -------
    dict with keys "rdp", "pld" (and "exact" when q = 1).

    Privacy: none: bookkeeping of a guarantee (add/remove-one neighbours).

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> {k: round(v, 2) for k, v in accountant_epsilons(6.8, 1.0, 10, 1e-5).items()}
    {'rdp': 2.0, 'pld': 1.84, 'exact': 1.84}
    """
    s = check_real(noise_multiplier, "noise_multiplier", minimum=0.3, maximum=1e4)
    rate = check_probability(q, "q", low_open=True)
    t, dlt = check_int(steps, "steps", minimum=1, maximum=10**4), check_delta(delta)
    event = Repeated(PoissonSampled(rate, GaussianEvent(s)), t)
    try:
        pld = PldAccountant().compose(event).epsilon(dlt)
    except ValueError as err:  # a composition too wide for the PLD grid
        raise ValueError(f"noise_multiplier, q, steps: the PLD accountant cannot hold this composition ({err})") from err
    result = {"rdp": RdpAccountant().compose(event).epsilon(dlt), "pld": pld}
    if rate == 1.0:
        result["exact"] = gdp_epsilon(dlt, math.sqrt(t) / s)
    return result
