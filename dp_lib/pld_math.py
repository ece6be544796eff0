"""Discretised privacy loss distributions: rounding up, composition by FFT, and δ(ε) by the hockey-stick formula.

A privacy loss distribution (PLD) is the distribution of the privacy loss L = ln(p(Y)/q(Y)) with Y ~ P, for a
pair (P, Q) of output distributions on neighbouring inputs. It answers every (ε, δ) question at once:
δ(ε) = E[(1 - e^{ε - L})₊] + P[L = ∞] (the hockey-stick divergence), and the PLD of two independent mechanisms is
the distribution of the sum of their losses: the convolution of their PLDs (Sommer, Meiser & Mohammadi 2019;
Koskela et al. 2020). ``Pld`` keeps L on the grid {i·h}: each loss is rounded UP to the next grid point
(``pld_from_loss_cdf``), so every δ it reports is an upper bound, and since k rounded-up losses exceed the true
ones by less than k·h, the certified ε is at most k·h above the exact one (a bound the chapter shows).

See: chapters/10_accounting.ipynb (the chapter this module belongs to)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from .validation import check_delta, check_int, check_nonnegative, check_positive

__all__ = ["Pld", "pld_from_loss_cdf", "TAIL_MASS"]

TAIL_MASS = 1e-15  # mass cut from either tail at a truncation; the upper tail's is added to δ
MAX_POINTS = 5e7  # the largest grid a PLD may use (400 MB of float64)


def _fast_len(n: int) -> int:
    """The smallest 2^a 3^b 5^c >= n: an FFT length numpy transforms fast."""
    best, five = 1 << max(n - 1, 0).bit_length(), 1
    while five < best:
        three = five
        while three < best:
            size = three
            while size < n:
                size *= 2
            best, three = min(best, size), three * 3
        five *= 5
    return best


def _logsumexp(x: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(top, axis=axis) + np.log(np.sum(np.exp(x - top), axis=axis))


def _interval_masses(cdf, sf, grid):
    """P[g_{i-1} < L <= g_i] for each grid point (all mass below the first for i = 0), and P[L > g_last].

    From the CDF in the lower half and from the survival function in the upper half, so tail masses keep digits."""
    below, above = np.asarray(cdf(grid), dtype=float), np.asarray(sf(grid), dtype=float)
    above_prev = np.concatenate(([1.0], above[:-1]))
    masses = np.where(above_prev < 0.5, above_prev - above, np.diff(below, prepend=0.0))
    return np.clip(masses, 0.0, None), float(above[-1])


def pld_from_loss_cdf(cdf: Callable, sf: Callable, low: float, high: float, step: float, *,
                      q_cdf: Callable | None = None, q_sf: Callable | None = None) -> "Pld":
    """The PLD of a loss with CDF ``cdf`` (and survival function ``sf``) under P, discretised pessimistically.

    Rounding up (the default): grid point g_i = i·h receives P[g_{i-1} < L <= g_i]; the first point also receives
    all mass below it, and P[L > g_last] becomes the mass at +∞ (counted in δ). Every loss moves up by less than h.
    Splitting (when ``q_cdf``/``q_sf``, the same functions under Q, are given): the mass p of an interval, whose
    Q-mass is r = E_P[e^{-L}; interval], is split between its two ends a < b so that p and r are kept:
    w_a e^{-a} + w_b e^{-b} = r. Because (1 - e^{ε-l})₊ is convex in e^{-l}, this spread can only raise δ(ε), also
    after composition (Jensen), and it keeps the PLD a valid pair; its error is far below rounding up's.

    Parameters
    ----------
    cdf, sf : callables on arrays of loss values, P[L <= t] and P[L > t].  low, high : floats, the loss range kept.
    step : float > 0, the grid spacing h.  q_cdf, q_sf : optional, Q[L <= t] and Q[L > t].

    Returns
    -------
    Pld.

    Privacy: accounting only; the PLD is pessimistic (every δ(ε) it gives is an upper bound on the true one).

    Used in: chapters/10_accounting.ipynb, through ``laplace_pld``

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> rr = pld_from_loss_cdf(lambda t: (t >= -1) / (1 + math.e) + (t >= 1) * math.e / (1 + math.e),
    ...                        lambda t: 1.0 - (t >= -1) / (1 + math.e) - (t >= 1) * math.e / (1 + math.e), -1, 1, 0.5)
    >>> [round(float(x), 4) for x in rr.masses], round(rr.epsilon(0.0), 4)
    ([0.2689, 0.0, 0.0, 0.0, 0.7311], 1.0)
    """
    h = check_positive(step, "step")
    if not 1e-9 <= h <= 1.0:
        raise ValueError(f"step must lie in [1e-9, 1], got {step!r}")
    if not (math.isfinite(low) and math.isfinite(high)) or (high - low) / h > MAX_POINTS:
        raise ValueError(f"step={step!r} would put the loss range [{low:.3g}, {high:.3g}] on more than {MAX_POINTS:.0e} "
                         "grid points: choose a larger step (or a less extreme mechanism)")
    first, last = math.floor(low / h), math.ceil(high / h)
    grid = np.arange(first, last + 1) * h
    p, inf_mass = _interval_masses(cdf, sf, grid)
    if q_cdf is None:
        return Pld(h, first, p, inf_mass)
    r, _ = _interval_masses(q_cdf, q_sf, grid)
    r[0] = p[0] * math.exp(-grid[0])  # below the grid: rounded up to the first point
    e_a, e_b = np.exp(-(grid[1:] - h)), np.exp(-grid[1:])
    to_a = np.clip((r[1:] - p[1:] * e_b) / (e_a - e_b), 0.0, p[1:])  # weight moved down to a = g_{i-1}
    masses = p.copy()
    masses[1:] -= to_a
    masses[:-1] += to_a
    return Pld(h, first, np.clip(masses, 0.0, None), inf_mass)


@dataclass(frozen=True)
class Pld:
    """A privacy loss distribution on the grid i·h: ``masses[j]`` at loss (start + j)·h, plus ``inf_mass`` at +∞.

    Built by ``pld_from_loss_cdf`` and the mechanism functions (which validate); composed with ``compose`` and
    ``self_compose``; read out with ``delta(epsilon)`` and ``epsilon(delta)``.

    Parameters
    ----------
    step : float > 0, h.  start : int, the grid index of ``masses[0]``.  masses : array of probabilities.
    inf_mass : float, P[L = ∞].

    Returns
    -------
    The PLD (frozen).

    Privacy: accounting only; δ(ε) is the hockey-stick divergence of the pair this PLD describes.

    See: chapters/10_accounting.ipynb (``PldAccountant.plds`` holds two)

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> rng = make_rng(0)  # nothing random here
    >>> rr = Pld(1.0, -1, np.array([0.25, 0.0, 0.75]))
    >>> round(rr.delta(0.0), 4), round(rr.self_compose(2).epsilon(0.0), 4)
    (0.4741, 2.0)
    """

    step: float
    start: int
    masses: np.ndarray
    inf_mass: float = 0.0

    @property
    def losses(self) -> np.ndarray:
        """The grid values of the loss, one per mass."""
        return (self.start + np.arange(len(self.masses))) * self.step

    def delta(self, epsilon: float) -> float:
        """δ(ε) = Σ_{l > ε} P[L = l](1 - e^{ε - l}) + P[L = ∞], the hockey-stick formula."""
        eps = check_nonnegative(epsilon, "epsilon")
        above = self.losses > eps
        return float(np.sum(self.masses[above] * -np.expm1(eps - self.losses[above])) + self.inf_mass)

    def epsilon(self, delta: float) -> float:
        """Smallest ε >= 0 with δ(ε) <= ``delta`` (exact for this discrete PLD; ∞ if P[L = ∞] > δ)."""
        target = check_delta(delta, allow_zero=True)
        if self.inf_mass > target:
            return math.inf
        if self.delta(0.0) <= target:
            return 0.0
        loss, m = self.losses, self.masses
        lo, hi = int(np.searchsorted(loss, 0.0, side="right")), len(m) - 1  # grid points > 0; δ(loss[hi]) <= target
        while lo < hi:  # bisection: the first grid point > 0 at which δ <= target
            mid = (lo + hi) // 2
            lo, hi = (mid + 1, hi) if self.delta(loss[mid]) > target else (lo, mid)
        base = max(loss[hi - 1], 0.0) if hi > 0 else 0.0  # on [base, loss[hi]], δ(ε) = inf_mass + A - e^{ε-base} B
        a, b = float(m[hi:].sum()), float(np.sum(m[hi:] * np.exp(base - loss[hi:])))
        return float(min(loss[hi], max(base, base + math.log((self.inf_mass + a - target) / b))))

    def compose(self, other: "Pld") -> "Pld":
        """The PLD of both mechanisms run independently: the convolution of the masses (numpy FFT)."""
        if not isinstance(other, Pld):
            raise TypeError(f"other must be a Pld, got {type(other).__name__}")
        if other.step != self.step:
            raise ValueError(f"both PLDs need the same grid step, got {self.step} and {other.step}")
        size = len(self.masses) + len(other.masses) - 1
        n = _fast_len(size)
        masses = np.fft.irfft(np.fft.rfft(self.masses, n) * np.fft.rfft(other.masses, n), n)[:size]
        inf_mass = 1.0 - (1.0 - self.inf_mass) * (1.0 - other.inf_mass)
        return _truncated(Pld(self.step, self.start + other.start, np.clip(masses, 0.0, None), inf_mass))

    def self_compose(self, count: int) -> "Pld":
        """The PLD of ``count`` independent runs: one FFT, raised to the power ``count``, on a window that the
        Chernoff bound P[S >= u] <= E[e^{λS}] e^{-λu} shows holds all but ``TAIL_MASS`` of each tail; the upper
        tail's bound is added to the mass at +∞; lower-tail mass either wraps around onto higher losses (which can only
        raise δ) or, when the FFT length exceeds the window, is dropped: mass at losses below ε adds nothing to δ(ε),
        so neither lowers δ(ε) for any ε above the window's lower end (pessimistic)."""
        k = check_int(count, "count", minimum=1)
        lo, hi = self._window(k)
        if hi - lo > MAX_POINTS:
            raise ValueError(f"count={count!r} compositions span more than {MAX_POINTS:.0e} grid points of step "
                             f"{self.step:g}: use a larger step")
        n = _fast_len(max(hi - lo + 1, len(self.masses)))
        powered = np.fft.irfft(np.fft.rfft(self.masses, n) ** k, n)
        masses = powered[(np.arange(lo, hi + 1) - k * self.start) % n]
        inf_mass = 1.0 - (1.0 - self.inf_mass) ** k + (TAIL_MASS if hi < k * (self.start + len(self.masses) - 1)
                                                        else 0.0)
        return Pld(self.step, lo, np.clip(masses, 0.0, None), min(inf_mass, 1.0))

    def _window(self, k: int) -> tuple[int, int]:
        """Grid indices [lo, hi] outside which the k-fold sum has at most TAIL_MASS per tail (Chernoff)."""
        lam = np.geomspace(0.01, 100.0, 17)[:, None]  # a coarse grid of λ only widens the window a little
        keep = self.masses > 0
        loss = self.losses[keep][None, :]
        log_mass = np.log(self.masses[keep])[None, :]
        up = np.min((k * _logsumexp(lam * loss + log_mass, axis=1) - math.log(TAIL_MASS)) / lam[:, 0])
        down = np.max((math.log(TAIL_MASS) - k * _logsumexp(-lam * loss + log_mass, axis=1)) / lam[:, 0])
        first, last = k * self.start, k * (self.start + len(self.masses) - 1)
        return max(first, math.floor(down / self.step)), min(last, math.ceil(up / self.step))


def _truncated(pld: Pld) -> Pld:
    """Cut at most TAIL_MASS from each end: the low tail moves up to the first kept point, the high tail to +∞."""
    cum_low, cum_high = np.cumsum(pld.masses), np.cumsum(pld.masses[::-1])[::-1]
    first = int(np.searchsorted(cum_low, TAIL_MASS, side="right"))
    last = len(pld.masses) - 1 - int(np.searchsorted(cum_high[::-1], TAIL_MASS, side="right"))
    if last < first:
        return pld
    masses = pld.masses[first:last + 1].copy()
    masses[0] += cum_low[first - 1] if first > 0 else 0.0
    moved_up = cum_high[last + 1] if last + 1 < len(pld.masses) else 0.0
    return Pld(pld.step, pld.start + first, masses, min(1.0, pld.inf_mass + float(moved_up)))
