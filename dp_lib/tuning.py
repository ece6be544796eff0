"""Private hyperparameter tuning: best of k runs, random stopping, a random number of runs (Papernot–Steinke).

Each tuner takes ``run(config, rng=rng) -> (score, model)``, a training run that is
private by the caller's claim, and releases only the best (score, config, model) it saw:

- ``best_of_k``: every candidate once (grid search). Costs k runs by composition, and the
  loss really can reach kε (``tuning_output_pmf`` computes it exactly on a small case).
- ``random_stopping``: after each ε-DP run stop with probability γ (Liu & Talwar, STOC 2019):
  3ε-DP, however many runs it made.
- ``tnb_tuning``: K runs with K drawn from the truncated negative binomial D_{η,γ}
  (Papernot & Steinke, ICLR 2022, Definition 1; η = 1 is random stopping, η = 0 the logarithmic
  distribution), charged by their Theorem 2 (RDP), converted to (ε, δ).

The statements, as implemented here (Papernot & Steinke, "Hyperparameter tuning with Rényi
differential privacy", arXiv 2110.03620):

- Definition 1: for η > -1 and γ ∈ (0, 1), P[K = k] = (1-γ)^k/(γ^{-η} - 1) ∏_{ℓ<k} (ℓ+η)/(ℓ+1), k >= 1;
  E[K] = η(1-γ)/(γ(1-γ^η)) (η ≠ 0), (1/γ - 1)/ln(1/γ) (η = 0).
- Theorem 2: if one run Q is (λ, ε)-RDP and (λ̂, ε̂)-RDP (λ > 1, λ̂ >= 1, η > -1, γ ∈ (0, 1)), its outputs
  are totally ordered, and the K runs are i.i.d. (each drawing its candidate from one fixed, non-adaptive
  distribution), releasing the best of K ~ D_{η,γ} runs is (λ, ε')-RDP with
  ε' = ε + (1+η)(1 - 1/λ̂) ε̂ + (1+η) ln(1/γ)/λ̂ + ln(E[K])/(λ - 1).
- Corollary 3 (pure DP): Q ε-DP ⇒ the best of K ~ D_{η,γ} is (2+η)ε-DP; η = 1 (geometric K, i.e.
  stop after each run with probability γ) is Liu & Talwar's 3ε.
- Theorem 6: K ~ Poisson(μ) (K = 0 releases nothing); Q (λ, ε)-RDP and (ε̂, δ̂)-DP with
  e^ε̂ <= 1 + 1/(λ-1) ⇒ (λ, ε + μδ̂ + ln(μ)/(λ-1))-RDP.
- Hypotheses (§3): K is random and independent of the data; every run draws its candidate the same
  way (here uniformly at random from a public list) with one privacy bound for all candidates; only the
  best output is released. **The number of runs K is not part of the released output**: (K, best) together
  is only Kε-DP (``tuning_output_pmf`` shows it). The tuners return K for teaching; never publish it.

The RDP bounds (Theorems 2 and 6, and the mean of D_{η,γ}) match autodp's independent implementation, which cites
the theorems (``RDP_selection_TNB`` and ``RDP_selection_poisson``); they were not checked against the PDF itself.
OpenDP's ``make_select_private_candidate`` is a related but different result (Liu & Talwar's threshold
variant, 2ε-DP), not these theorems. All the privacy statements hold in exact arithmetic: K is drawn with
numpy's floating-point samplers (``sample_tnb``), so its law is D_{η,γ} only up to floating point, the caveat of
chapters/14_exact_noise.ipynb.
Liu & Talwar's (ε, δ) and T-bounded variants are not implemented (their statements were not verified).

``adult_tuning_run`` builds the chapter's realistic run: DP-SGD on Adult (``minibatch_dp_sgd``) scored by a
Laplace-noised count of correct predictions on a validation split (the validation rows are people too).

Size: about 190 code lines, one module on purpose: the tuners, the exact output law they are tested
against, the bounds they are charged by and the chapter's run are read together, as one section.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .accounting import RdpAccountant
from .data import load_adult
from .dp_sgd import minibatch_dp_sgd
from .events import Composed, DpEvent, EpsilonDeltaEvent, GaussianEvent, LaplaceEvent, PoissonSampled, Repeated
from .features import adult_features, holdout_mask
from .mechanisms import laplace_mech
from .random import check_rng
from .rdp import DEFAULT_ORDERS, dp_sgd_sigma, rdp_to_epsilon
from .validation import (check_delta, check_domain, check_epsilon, check_finite_array, check_int,
                         check_nonnegative, check_positive, check_probability, check_real)

__all__ = ["TuningResult", "best_of_k_epsilon", "random_stopping_epsilon", "tnb_mean", "tnb_tuning_rdp",
           "poisson_tuning_rdp", "tnb_tuning_epsilon", "tuning_output_pmf", "sample_tnb", "best_of_k",
           "random_stopping", "tnb_tuning", "adult_tuning_run"]

MIN_GAMMA = 1e-4  # at most ~10,000 runs expected: a smaller γ is refused rather than run for hours


class TuningResult(NamedTuple):
    """What a tuner returns: the best run's ``config``, ``model`` and ``score``, and the number of ``runs``.

    Parameters
    ----------
    config, model, score : the best run's candidate, model and score (all None after zero runs).
    runs : int, the number of runs made.

    Returns
    -------
    The record.

    Privacy: config, model and score are the released output; ``runs`` is NOT covered by any tuner's
    guarantee (with it, the output is only Kε-DP): keep it secret.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> TuningResult("a", None, 0.5, 3).runs
    3
    """

    config: Any
    model: Any
    score: Any
    runs: int


def best_of_k_epsilon(epsilon: float, k: int) -> float:
    """kε: what reporting the best of k ε-DP runs costs by basic composition (and can really lose).

    Parameters
    ----------
    epsilon : float > 0, one run's ε.  k : int >= 1, the number of runs.

    Returns
    -------
    float, kε.

    Privacy: none: arithmetic on public parameters.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> best_of_k_epsilon(0.5, 8)
    4.0
    """
    return _finite(check_epsilon(epsilon) * check_int(k, "k", minimum=1, maximum=10**9), "epsilon")


def random_stopping_epsilon(epsilon: float, eta: float = 1.0) -> float:
    """(2 + η)ε: the pure-DP cost of the best of K ~ D_{η,γ} ε-DP runs (Papernot–Steinke Cor. 3; η = 1: 3ε).

    Parameters
    ----------
    epsilon : float > 0, one run's ε.  eta : float > -1 (1: stop after each run with probability γ).

    Returns
    -------
    float, (2 + η)ε, whatever γ.

    Privacy: none: arithmetic on public parameters.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> random_stopping_epsilon(0.5), random_stopping_epsilon(0.5, eta=0.0)
    (1.5, 1.0)
    """
    return _finite((2.0 + _eta(eta)) * check_epsilon(epsilon), "epsilon")


def _finite(value: Any, name: str) -> Any:
    if not np.all(np.isfinite(value)):
        raise ValueError(f"{name}: the result is beyond float64; use a smaller {name}")
    return value


def _eta(eta: Any) -> float:
    x = check_real(eta, "eta")
    if not (-1.0 < x <= 100.0 and (x == 0 or abs(x) >= 1e-6)):
        raise ValueError(f"eta must be 0 or a number in (-1, 100] at least 1e-6 away from 0, got {eta!r}")
    return x


def _gamma(gamma: Any, *, allow_one: bool = False) -> float:
    g = check_probability(gamma, "gamma", low_open=True, high_open=not allow_one)
    if g < MIN_GAMMA:
        raise ValueError(f"gamma must be at least {MIN_GAMMA:g} (about 1/gamma runs are expected), got {gamma!r}")
    return g


def tnb_mean(eta: float, gamma: float) -> float:
    """E[K] for K ~ D_{η,γ}: η(1-γ)/(γ(1-γ^η)), or (1/γ - 1)/ln(1/γ) for η = 0 (Papernot–Steinke Def. 1).

    Parameters
    ----------
    eta : float in (-1, 100].  gamma : float in [1e-4, 1).

    Returns
    -------
    float, the expected number of runs.

    Privacy: none: arithmetic on public parameters.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> round(tnb_mean(1.0, 0.1), 4), round(tnb_mean(0.0, 0.1), 4)
    (10.0, 3.9087)
    """
    e, g = _eta(eta), _gamma(gamma)
    if e == 0.0:
        return (1.0 / g - 1.0) / math.log(1.0 / g)
    return e * (1.0 - g) / (g * -math.expm1(e * math.log(g)))


def tnb_tuning_rdp(order: ArrayLike, rdp: ArrayLike, order_hat: float, rdp_hat: float, eta: float,
                   gamma: float) -> float | np.ndarray:
    """Theorem 2 of Papernot–Steinke: ε + (1+η)(1 - 1/λ̂)ε̂ + (1+η)ln(1/γ)/λ̂ + ln(E[K])/(λ-1).

    Parameters
    ----------
    order : λ > 1 (or an array).  rdp : ε >= 0, one run's RDP at λ (same shape).
    order_hat : λ̂ >= 1.  rdp_hat : ε̂ >= 0, one run's RDP at λ̂.  eta : float in (-1, 100].
    gamma : float in [1e-4, 1).

    Returns
    -------
    float (or array), the RDP at λ of the best of K ~ D_{η,γ} runs.

    Privacy: none: arithmetic; the result is (λ, ε')-RDP when the run is (λ, ε)- and (λ̂, ε̂)-RDP.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> round(tnb_tuning_rdp(2.0, 0.1, 4.0, 0.2, 1.0, 0.1), 4)
    3.8539
    """
    lam = check_finite_array(order, "order")
    eps = check_finite_array(rdp, "rdp")
    if lam.shape != eps.shape or np.any(lam <= 1) or np.any(eps < 0):
        raise ValueError("order must be > 1 and rdp >= 0, with the same shape")
    lam_hat, eps_hat = check_real(order_hat, "order_hat", minimum=1.0), check_nonnegative(rdp_hat, "rdp_hat")
    e, g = _eta(eta), _gamma(gamma)
    out = (eps + (1 + e) * (1 - 1 / lam_hat) * eps_hat + (1 + e) * math.log(1 / g) / lam_hat
           + math.log(tnb_mean(e, g)) / (lam - 1))
    _finite(out, "rdp (or rdp_hat)")
    return float(out) if out.ndim == 0 else out


def poisson_tuning_rdp(order: float, rdp: float, epsilon_hat: float, delta_hat: float, mu: float) -> float:
    """Theorem 6 of Papernot–Steinke: ε + μδ̂ + ln(μ)/(λ-1) for K ~ Poisson(μ), if e^ε̂ <= 1 + 1/(λ-1).

    Parameters
    ----------
    order : λ > 1.  rdp : ε >= 0, one run's RDP at λ.  epsilon_hat, delta_hat : one run is (ε̂, δ̂)-DP,
        with ε̂ <= ln(λ/(λ-1)) (else ValueError) and δ̂ in [0, 1).  mu : float > 0, E[K].

    Returns
    -------
    float, the RDP at λ of the best of K ~ Poisson(μ) runs (nothing released when K = 0).

    Privacy: none: arithmetic; the result is (λ, ε')-RDP under the theorem's conditions.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> round(poisson_tuning_rdp(3.0, 0.2, 0.4, 1e-6, 10.0), 4)
    1.3513
    """
    lam, eps = check_real(order, "order"), check_nonnegative(rdp, "rdp")
    if not lam > 1:
        raise ValueError(f"order must be > 1, got {order!r}")
    eps_hat, dlt = check_nonnegative(epsilon_hat, "epsilon_hat"), check_delta(delta_hat, "delta_hat", allow_zero=True)
    m = check_positive(mu, "mu")
    if eps_hat > math.log(lam / (lam - 1)):
        raise ValueError(f"epsilon_hat must be <= ln(order/(order-1)) = {math.log(lam / (lam - 1)):.6g}, "
                         f"got {epsilon_hat!r}")
    return eps + m * dlt + math.log(m) / (lam - 1)


def tnb_tuning_epsilon(run_event: DpEvent, delta: float, eta: float, gamma: float) -> float:
    """(ε, δ) of the best of K ~ D_{η,γ} runs: Theorem 2 at every order λ, best λ̂, then ``rdp_to_epsilon``.

    One run's RDP curve is ``RdpAccountant().event_rdp(run_event)`` at the orders 2..256; λ̂ is
    chosen among them to minimise the λ̂ terms (the theorem holds for every λ̂).

    Parameters
    ----------
    run_event : DpEvent, one run (e.g. the DP-SGD event and a LaplaceEvent, ``Composed``).
    delta : float in (0, 1).  eta : float in (-1, 100].  gamma : float in [1e-4, 1).

    Returns
    -------
    float, ε at ``delta``.

    Privacy: none: accounting; the tuning is (ε, δ)-DP when every run is as private as ``run_event``.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> round(tnb_tuning_epsilon(EpsilonDeltaEvent(0.1), 1e-5, 1.0, 0.1), 3)
    0.338
    """
    orders = np.asarray(DEFAULT_ORDERS, dtype=float)
    curve = RdpAccountant().event_rdp(run_event)
    dlt, e, g = check_delta(delta), _eta(eta), _gamma(gamma)
    hat_terms = (1 + e) * (1 - 1 / orders) * curve + (1 + e) * math.log(1 / g) / orders
    best = int(np.argmin(hat_terms))
    rdp = tnb_tuning_rdp(orders, curve, orders[best], curve[best], e, g)
    return rdp_to_epsilon(orders, rdp, dlt)[0]


def tuning_output_pmf(pmf: ArrayLike, *, k: int | None = None, gamma: float | None = None,
                      eta: float = 1.0) -> np.ndarray:
    """Exact law of the best of k (or of K ~ D_{η,γ}) independent outputs of a finite mechanism.

    Outputs are ranked by position (the last is the best; equal outputs are one output). With
    F the CDF of one run, P(best <= o) = E[F(o)^K]: F^k for a fixed k, γF/(1 - (1-γ)F) for the
    geometric K (η = 1), ((1 - (1-γ)F)^{-η} - 1)/(γ^{-η} - 1) for η > 0 and ln(1 - (1-γ)F)/ln γ for η = 0.

    Parameters
    ----------
    pmf : 1-d probabilities of one run's outputs, worst first (sum 1).
    k : int >= 1, a fixed number of runs; or gamma : float in [1e-4, 1) with eta in (-1, 100].

    Returns
    -------
    numpy array, the probability that each output is the released best.

    Privacy: none: exact computation for small examples (compare the law on D and D').

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> tuning_output_pmf([0.5, 0.5], k=3).tolist(), tuning_output_pmf([0.5, 0.5], gamma=0.5).round(4).tolist()
    ([0.125, 0.875], [0.3333, 0.6667])
    """
    p = check_finite_array(pmf, "pmf", ndim=1, allow_empty=False)
    if np.any((p < 0) | (p > 1)) or not math.isclose(p.sum(), 1.0, abs_tol=1e-9):
        raise ValueError("pmf must hold probabilities >= 0 that sum to 1")
    if (k is None) == (gamma is None):
        raise TypeError("give exactly one of k (a fixed number of runs) and gamma (a random number)")
    cdf = np.minimum(np.cumsum(p), 1.0)
    cdf[-1] = 1.0
    if k is not None:
        best = cdf ** check_int(k, "k", minimum=1, maximum=10**6)
    else:
        e, g = _eta(eta), _gamma(gamma)
        log_rest = np.log1p(-(1 - g) * cdf)  # ln(1 - (1-γ)F)
        best = log_rest / math.log(g) if e == 0 else np.expm1(-e * log_rest) / math.expm1(-e * math.log(g))
    return np.diff(best, prepend=0.0)


def sample_tnb(eta: float, gamma: float, *, rng: np.random.Generator) -> int:
    """One draw of K ~ D_{η,γ}: a negative binomial (η, γ) conditioned on K >= 1 (η = 1: geometric).

    Parameters
    ----------
    eta : float in [0, 100].  gamma : float in [1e-4, 1] (1 only for η = 1: one run).
    rng : numpy.random.Generator (keyword-only, required).

    Returns
    -------
    int >= 1.

    Privacy: none: a draw independent of the data (as the theorems require).

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> sample_tnb(1.0, 0.2, rng=make_rng(1))
    5
    """
    e = _eta(eta)
    if e < 0:
        raise ValueError(f"eta must be >= 0 to be sampled here, got {eta!r}")
    g, rng = _gamma(gamma, allow_one=e == 1.0), check_rng(rng)
    if e == 1.0:
        return int(rng.geometric(g))
    if e == 0.0:
        return int(rng.logseries(1.0 - g))
    accept = -math.expm1(e * math.log(g))  # P[NB >= 1] = 1 - γ^η
    if accept < 1e-3:
        raise ValueError(f"gamma: gamma**eta = {1 - accept:.6g} leaves too few draws >= 1; use a smaller gamma")
    while True:  # rejection: data-independent, about 1/accept draws
        draws = rng.negative_binomial(e, g, size=math.ceil(20 / accept))
        if np.any(draws >= 1):
            return int(draws[draws >= 1][0])


def _checked_tuning(run: Any, candidates: Any, accountant: Any, event: DpEvent, label: str) -> list:
    """Check the tuner's arguments and that ``accountant`` would accept ``event``, recording nothing."""
    if not callable(run):
        raise TypeError(f"run must be a callable run(config, rng=rng) -> (score, model), got {run!r:.60}")
    configs = list(check_domain(candidates, "candidates", as_index=False))
    if accountant is not None:
        if not callable(getattr(accountant, "compose", None)):
            raise TypeError(f"accountant must be an accountant with compose(event), or None, got {accountant!r:.60}")
        if callable(getattr(accountant, "check_room", None)):
            accountant.check_room([(event, label)], what=label)
        elif callable(getattr(accountant, "event_rdp", None)):
            accountant.event_rdp(event)
    return configs


def _best_of(run: Callable, configs: Sequence, k: int, rng: np.random.Generator, grid: bool) -> TuningResult:
    """k runs, each on a candidate drawn uniformly (or the grid in order); the best by (score, earlier position)."""
    best, best_key = (None, None, None), None
    for i in range(k):
        position = i if grid else int(rng.integers(len(configs)))
        out = run(configs[position], rng=rng)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError(f"run must return a (score, model) pair, got {out!r:.60}")
        score = check_real(out[0], "score (the first value run returned)")
        if best_key is None or (score, -position) > best_key:
            best, best_key = (configs[position], out[1], score), (score, -position)
    return TuningResult(*best, runs=k)


def best_of_k(run: Callable, candidates: Sequence, run_event: DpEvent, *, rng: np.random.Generator,
              accountant: Any = None) -> TuningResult:
    """Grid search: run every candidate once and report the best; charged ``Repeated(run_event, k)``.

    Parameters
    ----------
    run : callable, run(config, rng=rng) -> (score, model), as private as ``run_event`` for every config.
    candidates : public list of k distinct configurations.  run_event : DpEvent of one run.
    rng : numpy.random.Generator (keyword-only, required).  accountant : optional, charged once after the
        runs (checked before them: a refused charge raises first and records nothing).

    Returns
    -------
    TuningResult(config, model, score, runs=k); ties go to the earlier candidate.

    Privacy: k-fold composition of ``run_event`` (kε for ε-DP runs); the loss can really reach kε.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> def run(c, *, rng): return c + int(rng.integers(0, 3)), None
    >>> best_of_k(run, [1.0, 2.0, 3.0], EpsilonDeltaEvent(1.0), rng=make_rng(0)).config
    3.0
    """
    if not isinstance(run_event, DpEvent):
        raise TypeError(f"run_event must be a DpEvent from dp_lib.events, got {run_event!r:.60}")
    check_domain(candidates, "candidates", as_index=False)
    configs = _checked_tuning(run, candidates, accountant, Repeated(run_event, len(candidates)), "best_of_k")
    result = _best_of(run, configs, len(configs), check_rng(rng), grid=True)
    if accountant is not None:
        accountant.compose(Repeated(run_event, len(configs)), label="best_of_k")
    return result


def random_stopping(run: Callable, candidates: Sequence, epsilon: float, gamma: float, *,
                    rng: np.random.Generator, accountant: Any = None) -> TuningResult:
    """Liu–Talwar random stopping: run a random candidate, stop with probability γ, repeat; release the best.

    Parameters
    ----------
    run : callable, run(config, rng=rng) -> (score, model), ε-DP for every config (the caller's claim).
    candidates : public list of distinct configurations (one drawn uniformly per run).
    epsilon : float > 0, one run's ε.  gamma : float in [1e-4, 1], the stopping probability (E[K] = 1/γ).
    rng : numpy.random.Generator (keyword-only, required).  accountant : optional, charged
        ``EpsilonDeltaEvent(3ε)`` once after the runs (checked before them; a refusal records nothing).

    Returns
    -------
    TuningResult(config, model, score, runs); ties go to the earlier candidate in the list.

    Privacy: 3ε-DP (Papernot–Steinke Cor. 3 with η = 1; Liu & Talwar) for config, model and score,
    for the relation the runs' ε is stated for, in exact arithmetic (K is drawn by a floating-point sampler:
    chapters/14_exact_noise.ipynb); ``runs`` is not covered: keep it secret.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> def run(c, *, rng): return c + int(rng.integers(0, 3)), None
    >>> random_stopping(run, [1.0, 2.0, 3.0], 1.0, 0.25, rng=make_rng(0)).runs
    3
    """
    event = EpsilonDeltaEvent(random_stopping_epsilon(epsilon))
    configs = _checked_tuning(run, candidates, accountant, event, "random_stopping")
    k = sample_tnb(1.0, _gamma(gamma, allow_one=True), rng=check_rng(rng))
    result = _best_of(run, configs, k, rng, grid=False)
    if accountant is not None:
        accountant.compose(event, label="random_stopping")
    return result


def tnb_tuning(run: Callable, candidates: Sequence, run_event: DpEvent, delta: float, *, eta: float,
               gamma: float, rng: np.random.Generator, accountant: Any = None) -> TuningResult:
    """Papernot–Steinke: K ~ D_{η,γ} runs on random candidates, the best released; charged by Theorem 2.

    Parameters
    ----------
    run : callable, run(config, rng=rng) -> (score, model), as private as ``run_event`` for every config.
    candidates : public list of distinct configurations (one drawn uniformly per run).
    run_event : DpEvent of one run (its RDP curve enters Theorem 2).  delta : float in (0, 1).
    eta : float in [0, 100] (keyword-only; 1 = random stopping).  gamma : float in [1e-4, 1).
    rng : numpy.random.Generator (keyword-only, required).  accountant : optional, charged
        ``EpsilonDeltaEvent(tnb_tuning_epsilon(...), delta)`` once after the runs (no event of the book
        holds an RDP curve of its own, so the (ε, δ) conversion is recorded; an ``RdpAccountant`` refuses it).

    Returns
    -------
    TuningResult(config, model, score, runs); ties go to the earlier candidate in the list.

    Privacy: (ε, δ)-DP with ε = ``tnb_tuning_epsilon(run_event, delta, eta, gamma)`` for config, model and
    score, in exact arithmetic (K is drawn by a floating-point sampler: chapters/14_exact_noise.ipynb);
    ``runs`` is not covered: keep it secret.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> def run(c, *, rng): return c + int(rng.integers(0, 3)), None
    >>> tnb_tuning(run, [1.0, 2.0], EpsilonDeltaEvent(0.1), 1e-5, eta=0.0, gamma=0.1, rng=make_rng(0)).runs
    1
    """
    if not isinstance(run_event, DpEvent):
        raise TypeError(f"run_event must be a DpEvent from dp_lib.events, got {run_event!r:.60}")
    event = EpsilonDeltaEvent(tnb_tuning_epsilon(run_event, delta, eta, gamma), delta)
    configs = _checked_tuning(run, candidates, accountant, event, "tnb_tuning")
    result = _best_of(run, configs, sample_tnb(eta, gamma, rng=check_rng(rng)), rng, grid=False)
    if accountant is not None:
        accountant.compose(event, label="tnb_tuning")
    return result


def adult_tuning_run(epsilon: float = 0.5, delta: float = 1e-5, validation_epsilon: float | None = 0.1, *,
                     steps: int = 200, q: float = 0.01) -> tuple[Callable, DpEvent]:
    """The chapter's run on Adult: DP-SGD with config = (learning_rate, clip_norm), scored on a validation split.

    The training rows of ``adult_features()`` are split by a per-record rule (``holdout_mask`` of the SSN's
    digits rearranged; about 20 % validation). A run trains ``minibatch_dp_sgd`` at (ε, δ) on the rest (its
    size taken as public, as in the learning chapter) and scores the model by the number of correct validation
    predictions plus Lap(1/``validation_epsilon``), divided by the validation size, which is likewise taken as
    public (a fixed number, like ``public_n``; dividing the noisy count by it changes no ranking); it returns
    (score, θ).

    Parameters
    ----------
    epsilon : float > 0, DP-SGD's ε.  delta : float in (0, 1).  validation_epsilon : float > 0, or None for
        the exact validation accuracy (NOT private: the non-private baseline).  steps : int >= 1, T.
    q : float in (0, 1], the sampling rate.

    Returns
    -------
    (run, run_event): ``run(config, rng=rng) -> (score, theta)`` and the DpEvent of one run (DP-SGD's
    subsampled Gaussian, composed with ``LaplaceEvent(1/validation_epsilon)`` unless None).

    Privacy: one run is as private as ``run_event`` in exact arithmetic (the float implementation is not: see
    chapters/14_exact_noise.ipynb); conservative: the validation and training rows are disjoint, so parallel
    composition would allow the larger part alone. With None, the score is not private.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> from dp_lib import make_rng
    >>> run, event = adult_tuning_run(steps=20)
    >>> score, theta = run((2.0, 1.5), rng=make_rng(0))
    >>> 0.5 < score < 1.0, theta.shape
    (True, (12,))
    """
    eps, dlt = check_epsilon(epsilon), check_delta(delta)
    eps_val = None if validation_epsilon is None else check_epsilon(validation_epsilon, "validation_epsilon")
    t, rate = check_int(steps, "steps", minimum=1, maximum=10_000), check_probability(q, "q", low_open=True)
    data, ssn = adult_features(), load_adult()["SSN"]
    ssn = ssn[~holdout_mask(ssn)]  # the training rows of adult_features, in order
    val = holdout_mask(ssn.str[8:11] + "-" + ssn.str[4:6] + "-" + ssn.str[0:3] + ssn.str[7])
    X_fit, y_fit, X_val, y_val = data.X_train[~val], data.y_train[~val], data.X_train[val], data.y_train[val]
    public_fit_n, public_val_n = len(y_fit), len(y_val)  # taken as public: fixed numbers, not recomputed per data set
    sgd = Repeated(PoissonSampled(rate, GaussianEvent(dp_sgd_sigma(eps, dlt, rate, t))), t)
    event = sgd if eps_val is None else Composed([sgd, LaplaceEvent(1.0 / eps_val)])

    def run(config: tuple, *, rng: np.random.Generator) -> tuple[float, np.ndarray]:
        learning_rate, clip_norm = config
        theta, _ = minibatch_dp_sgd(X_fit, y_fit, eps, dlt, t, clip_norm, q=rate, public_n=public_fit_n, rng=rng,
                                    learning_rate=learning_rate)
        correct = float(np.sum(((X_val @ theta) > 0) == y_val))
        noisy = correct if eps_val is None else laplace_mech(correct, 1.0, eps_val, rng=rng)
        return noisy / public_val_n, theta

    return run, event
