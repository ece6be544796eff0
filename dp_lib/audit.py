"""Empirical privacy auditing: a certified lower bound on ε from neighbouring inputs.

If M is (ε, δ)-DP, then for neighbours x ~ x' and any event S fixed before
sampling, P[M(x) ∈ S] <= e^ε P[M(x') ∈ S] + δ, in both orders. Run M many
times on each input, bound both probabilities with exact Clopper–Pearson
intervals, and the inequality turns into a lower bound on ε that holds with
the stated confidence. A bound above the claimed ε refutes the claim; a bound
below it proves nothing (the audit may have used weak inputs or a weak event).

Mechanism calling convention: an audited mechanism is a callable
``mechanism(data, size=n, rng=rng)`` that returns ``n`` independent outputs on
``data`` along the first axis of an array (most ``dp_lib`` functions do this
after a ``lambda`` fixes their other arguments). ``repeat_mechanism`` wraps a
mechanism that only produces one output per call, by a slow Python loop.

The records (``ThresholdEvent``, ``AuditResult``) and ``audit_table`` live in
``dp_lib.audit_records``; they stay importable from here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .audit_records import AuditResult, ThresholdEvent, audit_table  # noqa: F401  (audit_table: the old path)
from .random import check_rng
from .validation import (check_delta, check_epsilon, check_finite_array, check_int, check_probability,
                         refuse_overflow)

__all__ = ["clopper_pearson", "epsilon_lower_bound", "search_events", "repeat_mechanism"]


@refuse_overflow("count", "trials", "alpha")
def clopper_pearson(count: ArrayLike, trials: int, alpha: float) -> tuple[float | np.ndarray, float | np.ndarray]:
    """One-sided Clopper–Pearson bounds (lower, upper) on a binomial probability.

    lower = Beta⁻¹(alpha; k, n - k + 1) (0 when k = 0) and
    upper = Beta⁻¹(1 - alpha; k + 1, n - k) (1 when k = n). Each bound on its
    own fails with probability at most ``alpha``, for every n and every true
    probability: the intervals are exact, not asymptotic.

    Parameters
    ----------
    count : int or array of ints in [0, trials], the number of successes k.
    trials : int >= 1, the number of independent trials n.
    alpha : float in (0, 1), the error probability of each one-sided bound.

    Returns
    -------
    (lower, upper) : floats, or arrays shaped like ``count``.

    Privacy: none (a statistical formula).

    Defined in: chapters/05_auditing.ipynb

    Examples
    --------
    >>> low, high = clopper_pearson(50, 100, 0.025)
    >>> round(low, 4), round(high, 4)
    (0.3983, 0.6017)
    >>> clopper_pearson(0, 100, 0.05)[0], round(clopper_pearson(0, 100, 0.05)[1], 4)
    (0.0, 0.0295)
    """
    n = check_int(trials, "trials", minimum=1)
    a = check_probability(alpha, "alpha", low_open=True, high_open=True)
    k = check_finite_array(count, "count")
    if np.any(k != np.round(k)):
        raise TypeError(f"count must contain integers (numbers of successes), got {count!r:.40}")
    if np.any((k < 0) | (k > n)):
        raise ValueError(f"count must contain integers in [0, trials] = [0, {n}]")
    from scipy.special import betaincinv  # imported here: `import dp_lib` stays free of scipy

    with np.errstate(invalid="ignore", divide="ignore"):  # k = 0 or k = n: replaced below
        low = np.where(k > 0, betaincinv(np.maximum(k, 1), n - k + 1, a), 0.0)
        high = np.where(k < n, betaincinv(k + 1, np.maximum(n - k, 1), 1 - a), 1.0)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def _bound(low_a, high_b, delta):
    """ln(low_a - δ) - ln(high_b), -inf when low_a <= δ (elementwise)."""
    gap = np.asarray(low_a - delta, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(gap > 0, np.log(np.maximum(gap, 1e-300)) - np.log(high_b), -np.inf)


def _epsilon_lb(k0, k1, n, alpha_each, delta):
    """max over both orders of ln(CP_low(k_a) - δ) - ln(CP_up(k_b)), floored at 0; also which order won."""
    low0, high0 = clopper_pearson(k0, n, alpha_each)
    low1, high1 = clopper_pearson(k1, n, alpha_each)
    forward, backward = _bound(low0, high1, delta), _bound(low1, high0, delta)
    return np.maximum(np.maximum(forward, backward), 0.0), forward >= backward


def _check_mechanism(mechanism):
    if not callable(mechanism):
        raise TypeError(f"mechanism must be a callable mechanism(data, size=n, rng=rng), got {mechanism!r}")
    return mechanism


def _run(mechanism, data, trials, rng, name):
    """``trials`` outputs of the mechanism on ``data``, first axis checked."""
    out = np.asarray(mechanism(data, size=trials, rng=rng))
    if out.ndim == 0 or out.shape[0] != trials:
        raise ValueError(f"mechanism must return an array of trials = {trials} outputs along its first axis "
                         f"(on {name}), got shape {out.shape}")
    return out


def _hits(event, outputs, trials) -> int:
    inside = np.asarray(event(outputs))
    if inside.dtype != bool or inside.shape != (trials,):
        raise ValueError(f"event must return a boolean array of shape ({trials},), one entry per output, "
                         f"got dtype {inside.dtype} and shape {inside.shape}")
    return int(inside.sum())


def _common(trials, confidence, delta, claimed_epsilon, rng):
    n = check_int(trials, "trials", minimum=1, maximum=10**9)
    conf = check_probability(confidence, "confidence", low_open=True, high_open=True)
    dlt = check_delta(delta, allow_zero=True)
    claim = None if claimed_epsilon is None else check_epsilon(claimed_epsilon, "claimed_epsilon")
    return n, conf, dlt, claim, check_rng(rng)


def _result(event, n, k0, k1, conf, dlt, claim):
    alpha_each = (1 - conf) / 4
    lb, forward = _epsilon_lb(k0, k1, n, alpha_each, dlt)
    lb = float(lb)
    return AuditResult(
        event=event, trials=n, count=k0, count_prime=k1, frequency=k0 / n, frequency_prime=k1 / n,
        interval=clopper_pearson(k0, n, alpha_each), interval_prime=clopper_pearson(k1, n, alpha_each),
        confidence=conf, delta=dlt, epsilon_lb=lb, larger="x" if bool(forward) else "x_prime",
        claimed_epsilon=claim, flagged=None if claim is None else lb > claim,
    )


def epsilon_lower_bound(mechanism: Callable[..., Any], x: ArrayLike, x_prime: ArrayLike,
                        event: Callable[[np.ndarray], np.ndarray], trials: int, confidence: float = 0.95, *,
                        rng: np.random.Generator, delta: float = 0.0,
                        claimed_epsilon: float | None = None) -> AuditResult:
    """Certified lower bound on the ε of ``mechanism`` from the neighbours x, x' and the event S.

    Runs the mechanism ``trials`` times on each input, counts k0 and k1 outputs
    in S, and with α = 1 - confidence returns

        ε_lb = max over both orders of ln(CP_low(k_a) - δ) - ln(CP_up(k_b)), floored at 0,

    each Clopper–Pearson bound one-sided at level α/4. By the union bound, all
    four bounds hold with probability >= 1 - α, and then (ε, δ)-DP implies
    ε >= ε_lb. So a truly (ε, δ)-DP mechanism is flagged (ε_lb > ε) with
    probability at most α, for any number of trials.

    Parameters
    ----------
    mechanism : callable, called as ``mechanism(data, size=trials, rng=rng)``;
        returns ``trials`` outputs along the first axis (see ``repeat_mechanism``).
    x, x_prime : the two neighbouring inputs, passed to ``mechanism`` as they are.
    event : callable predicate, maps the array of outputs to a boolean array of
        shape (trials,); e.g. ``ThresholdEvent(0.5)`` or ``lambda y: y == 0``.
        It must be chosen before seeing these outputs (see ``search_events``).
    trials : int >= 1, runs on each input.
    confidence : float in (0, 1), 1 - α.
    rng : numpy.random.Generator (keyword-only, required), drives every run.
    delta : float in [0, 1), the δ of an (ε, δ) claim (0 for pure ε-DP).
    claimed_epsilon : float > 0 or None; sets ``flagged`` in the result.

    Returns
    -------
    AuditResult

    Privacy: none; a statistical test of a privacy claim. It can refute a
    claim, never prove one.

    Defined in: chapters/05_auditing.ipynb

    Examples
    --------
    >>> from dp_lib import laplace_mech, make_rng
    >>> def count_plus_noise(data, size, rng):  # a count (sensitivity 1) with Lap(1/ε), ε = 1
    ...     return laplace_mech(np.full(size, float(len(data))), 1.0, 1.0, rng=rng)
    >>> result = epsilon_lower_bound(count_plus_noise, [0] * 10, [0] * 11, ThresholdEvent(11.0),
    ...                              200_000, rng=make_rng(2024), claimed_epsilon=1.0)
    >>> round(result.epsilon_lb, 3), result.larger, result.flagged
    (0.989, 'x_prime', False)
    """
    mechanism = _check_mechanism(mechanism)
    if not callable(event):
        raise TypeError(f"event must be a callable predicate on the outputs, got {event!r}")
    n, conf, dlt, claim, rng = _common(trials, confidence, delta, claimed_epsilon, rng)
    k0 = _hits(event, _run(mechanism, x, n, rng, "x"), n)
    k1 = _hits(event, _run(mechanism, x_prime, n, rng, "x_prime"), n)
    return _result(event, n, k0, k1, conf, dlt, claim)


def _numeric_1d(outputs, name):
    y = np.asarray(outputs)
    if y.ndim != 1 or y.dtype.kind not in "biuf":
        raise ValueError(f"mechanism must return one number per run for search_events (on {name}), got dtype "
                         f"{y.dtype} and shape {y.shape}; post-process vector outputs to a number first")
    return np.sort(y[~np.isnan(y)] if y.dtype.kind == "f" else y.astype(float))


def _candidate_thresholds(pooled, n_thresholds, pilot):
    """Finite thresholds between the pilot outputs; ±inf outputs get a cut just beyond the finite ones."""
    values = np.unique(pooled)
    finite = values[np.isfinite(values)]
    if finite.size < values.size:  # outputs of ±inf: cut between them and the finite outputs
        big = np.finfo(float).max
        cuts = [] if finite.size == 0 else [max(finite[0] - 1 - abs(finite[0]), -big),
                                            min(finite[-1] + 1 + abs(finite[-1]), big)]
        inner = _candidate_thresholds(finite, n_thresholds, pilot) if finite.size else np.array([0.0])
        return np.unique(np.concatenate([inner, cuts]))
    if values.size <= 1:
        return values
    if values.size <= n_thresholds:  # discrete outputs: cut between neighbouring values
        return (values[:-1] + values[1:]) / 2
    tail = np.geomspace(min(0.25, 10 / pilot), 0.25, max(2, n_thresholds // 4))
    levels = np.unique(np.concatenate([np.linspace(0, 1, n_thresholds + 2)[1:-1], tail, 1 - tail]))
    return np.unique(np.quantile(pooled, levels))


def search_events(mechanism: Callable[..., Any], x: ArrayLike, x_prime: ArrayLike, trials: int,
                  confidence: float = 0.95, *, rng: np.random.Generator, pilot_trials: int | None = None,
                  n_thresholds: int = 64, delta: float = 0.0, claimed_epsilon: float | None = None) -> AuditResult:
    """Choose a threshold event on a pilot batch, then certify it on a fresh batch.

    The family is {output > t} and {output < t} for thresholds t between the
    distinct pilot outputs (discrete outputs) or at quantiles of the pooled
    pilot outputs, including far-tail quantiles. Each candidate is scored by its
    ε_lb on the pilot batch; the best one is then audited by
    ``epsilon_lower_bound`` on ``trials`` new runs per input. The pilot samples
    are never reused, so choosing the event does not bias the certified bound.

    Parameters
    ----------
    mechanism, x, x_prime, confidence, rng, delta, claimed_epsilon : as for
        ``epsilon_lower_bound``. The mechanism must return one number per run
        (a 1-d numeric array; NaN outputs belong to no threshold event).
    trials : int >= 1, runs per input in the certifying batch.
    pilot_trials : int >= 1, runs per input in the pilot batch (default trials // 4).
    n_thresholds : int >= 2, the number of quantile levels tried for continuous outputs.

    Returns
    -------
    AuditResult of the certifying batch; its ``event`` is the chosen ``ThresholdEvent``.

    Privacy: none; a statistical test of a privacy claim.

    Defined in: chapters/05_auditing.ipynb

    Examples
    --------
    >>> from dp_lib import laplace_mech, make_rng
    >>> def count_plus_noise(data, size, rng):
    ...     return laplace_mech(np.full(size, float(len(data))), 1.0, 1.0, rng=rng)
    >>> result = search_events(count_plus_noise, [0] * 10, [0] * 11, 200_000, rng=make_rng(2024),
    ...                        claimed_epsilon=1.0)
    >>> str(result.event), round(result.epsilon_lb, 3), result.flagged
    ('output > 11.2563', 0.976, False)
    """
    mechanism = _check_mechanism(mechanism)
    n, conf, dlt, claim, rng = _common(trials, confidence, delta, claimed_epsilon, rng)
    pilot = max(1, n // 4) if pilot_trials is None else check_int(pilot_trials, "pilot_trials", minimum=1)
    m = check_int(n_thresholds, "n_thresholds", minimum=2)
    y0 = _numeric_1d(_run(mechanism, x, pilot, rng, "x"), "x")
    y1 = _numeric_1d(_run(mechanism, x_prime, pilot, rng, "x_prime"), "x_prime")
    t = _candidate_thresholds(np.concatenate([y0, y1]), m, pilot)
    if t.size == 0:  # every pilot output was NaN
        t = np.array([0.0])
    above0, above1 = y0.size - np.searchsorted(y0, t, "right"), y1.size - np.searchsorted(y1, t, "right")
    below0, below1 = np.searchsorted(y0, t, "left"), np.searchsorted(y1, t, "left")
    scores = np.concatenate([_epsilon_lb(above0, above1, pilot, (1 - conf) / 4, dlt)[0],
                             _epsilon_lb(below0, below1, pilot, (1 - conf) / 4, dlt)[0]])
    best = int(np.argmax(scores))  # ties: the first, so the choice is deterministic
    event = ThresholdEvent(float(t[best % t.size]), above=best < t.size)
    return epsilon_lower_bound(mechanism, x, x_prime, event, n, conf, rng=rng, delta=dlt, claimed_epsilon=claim)


def repeat_mechanism(single_run: Callable[..., Any]) -> Callable[..., np.ndarray]:
    """Wrap a one-output mechanism ``single_run(data, rng=rng)`` into the audit convention.

    The wrapper calls ``single_run`` ``size`` times in a Python loop and stacks
    the outputs: correct but slow, a fallback for mechanisms without a ``size``
    argument. Prefer a vectorized mechanism for large audits.

    Returns
    -------
    callable ``mechanism(data, size=n, rng=rng)``.

    Privacy: none; each call is one independent run of the wrapped mechanism.

    See: chapters/05_auditing.ipynb (the auditor that runs such mechanisms)

    Examples
    --------
    >>> from dp_lib import laplace_mech, make_rng
    >>> mech = repeat_mechanism(lambda data, rng: laplace_mech(float(sum(data)), 1.0, 1.0, rng=rng))
    >>> mech([1, 2], size=3, rng=make_rng(0)).shape
    (3,)
    """
    if not callable(single_run):
        raise TypeError(f"single_run must be a callable single_run(data, rng=rng), got {single_run!r}")

    def mechanism(data, size, rng):
        size = check_int(size, "size", minimum=1)
        rng = check_rng(rng)
        return np.stack([np.asarray(single_run(data, rng=rng)) for _ in range(size)])

    mechanism.__name__ = f"repeat({getattr(single_run, '__name__', 'mechanism')})"
    return mechanism


