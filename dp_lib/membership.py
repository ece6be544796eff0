"""Membership inference against trained models: the loss-threshold attack, LiRA, and how to score an attack.

An attacker holds a released model θ and a target example (x, y) and guesses "x was in the training set".
Two attacks:

- the loss-threshold attack (Yeom, Giacomelli, Fredrikson & Jha, CSF 2018): score = -loss(θ; x, y); one
  threshold for every example;
- the likelihood-ratio attack LiRA (Carlini, Chien, Nasr, Song, Terzis & Tramèr, "Membership inference attacks
  from first principles", S&P 2022, Algorithm 1): shadow models trained on random halves of a data pool give,
  for each example, the logit-scaled confidence φ = ln(p/(1 - p)) of its true label under models that saw it
  (IN) and models that did not (OUT); fit a Gaussian to each and score the target model's φ by the likelihood
  ratio (online), or by how far it lies above the OUT Gaussian (offline, OUT shadows only).

An attack is scored as the paper asks: the true-positive rate at a small false-positive rate (the paper asks
for FPR <= 0.1 %; the chapter also reports 1 %) and the AUC, over many (target example, model) pairs. Under
(ε, δ)-DP no test can beat TPR <= min(1, e^ε FPR + δ, 1 - e^(-ε)(1 - δ - FPR)) (``dp_lib.attacks.max_tpr``); a
PLD accountant certifies (ε, δ(ε)) for EVERY ε at once, and the minimum of these ceilings over ε
(``pld_max_tpr``) is the tighter ceiling the accountant proves.

Size: about 160 code lines, one module on purpose: the attacks, the rates they are scored by and the ceiling they
are held against are read together, as one section of the chapter.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .logistic import logistic_loss
from .random import check_rng
from .validation import (check_bool, check_bool_array, check_features_labels, check_finite_array, check_int,
                         check_probability)

__all__ = ["true_label_logit", "loss_scores", "train_on_random_halves", "lira_scores", "leave_one_out_scores",
           "OperatingPoint", "tpr_at_fpr", "roc_curve", "roc_auc", "pld_max_tpr"]


def _thetas(theta: Any, d: int) -> np.ndarray:
    t = check_finite_array(theta, "theta")
    if t.ndim not in (1, 2) or t.shape[-1] != d:
        raise ValueError(f"theta must have shape ({d},) or (m, {d}) to match X, got {t.shape}")
    return t


def true_label_logit(theta: ArrayLike, X: ArrayLike, y: ArrayLike) -> np.ndarray:
    """φ = ln(p/(1 - p)) for p = the model's probability of the TRUE label: (2y - 1)·θ·x for logistic regression.

    The model says P(label 1) = σ(θ·x), so p = σ(θ·x) when y = 1 and 1 - σ(θ·x) = σ(-θ·x) when y = 0; the
    logit of σ(z) is z. LiRA fits Gaussians to φ because the raw p piles up near 1 (Carlini et al. 2022, §IV-B);
    here φ is exact, with no p to round to 1.

    Parameters
    ----------
    theta : d parameters, or an m × d array of m models.  X : n × d features.  y : n labels in {0, 1}.

    Returns
    -------
    array of n values (m × n for m models).

    Privacy: none: an attack/measurement.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> true_label_logit([1.0, -2.0], [[1.0, 1.0], [2.0, 0.5]], [1.0, 0.0]).tolist()
    [-1.0, -1.0]
    """
    X, y = check_features_labels(X, y)
    with np.errstate(over="ignore", invalid="ignore"):
        phi = (_thetas(theta, X.shape[1]) @ X.T) * (2 * y - 1)
    if not np.all(np.isfinite(phi)):
        raise ValueError("theta and X give scores theta·x beyond float64")
    return phi


def loss_scores(theta: ArrayLike, X: ArrayLike, y: ArrayLike) -> np.ndarray:
    """The loss-threshold attack's scores (Yeom et al. 2018): -loss(θ; x, y), higher = "more likely a member".

    Training lowers the loss of the rows it saw, so a small loss points to a member. The attacker thresholds the
    score with ONE threshold for all examples. For logistic regression -loss = -ln(1 + e^(-φ)), increasing in
    φ = ``true_label_logit``: the attack is a global threshold on φ.

    Parameters
    ----------
    theta : d parameters, or an m × d array of m models.  X : n × d features.  y : n labels in {0, 1}.

    Returns
    -------
    array of n scores (m × n for m models).

    Privacy: none: an attack/measurement.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> loss_scores([0.0, 0.0], [[1.0, 2.0]], [1.0]).round(4).tolist()
    [-0.6931]
    """
    X, y = check_features_labels(X, y)
    t = _thetas(theta, X.shape[1])
    return -logistic_loss(t, X, y) if t.ndim == 1 else np.array([-logistic_loss(row, X, y) for row in t])


def train_on_random_halves(X: ArrayLike, y: ArrayLike, models: int, trainer: Callable[..., Any], *,
                           rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Train ``models`` models, each on a random half of the pool (X, y): every row is IN by a fair coin.

    Each (model, row) membership bit is an independent fair coin, so for a target row the rest of the training
    set has the same law whether the row is IN or OUT: IN runs train on R ∪ {row}, OUT runs on R, add/remove
    neighbours with a common random R. (Halves of exactly n/2 rows would give R one row more when OUT.)

    Parameters
    ----------
    X : n × d pool; y : n labels in {0, 1}.  models : int in [1, 10**5].
    trainer : callable ``trainer(X, y, rng=rng)`` returning θ, or (θ, history) like the book's trainers.
    rng : numpy.random.Generator (keyword-only, required): draws the halves and drives the trainer.

    Returns
    -------
    (thetas, keep): the models × d parameters and the models × n boolean membership matrix.

    Privacy: none: an attack/measurement (the trainer's own guarantee applies to each model).

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> from dp_lib import gradient_descent, make_rng
    >>> X, y = [[1.0, 0.5], [1.0, -0.5], [1.0, 1.0], [1.0, -1.0]] * 5, [1.0, 0.0, 0.0, 1.0] * 5
    >>> train = lambda X, y, rng: gradient_descent(X, y, 20)
    >>> thetas, keep = train_on_random_halves(X, y, 3, train, rng=make_rng(1))
    >>> thetas.shape, keep.sum(axis=1).tolist()
    ((3, 2), [12, 8, 6])
    """
    X, y = check_features_labels(X, y)
    m = check_int(models, "models", minimum=1, maximum=10**5)
    if not callable(trainer):
        raise TypeError(f"trainer must be a callable trainer(X, y, rng=rng), got {trainer!r:.60}")
    rng = check_rng(rng)
    keep = rng.random((m, len(y))) < 0.5
    thetas = []
    for row in keep:  # one training per model: the models are independent, each is the trainer's own loop
        out = trainer(X[row], y[row], rng=rng)
        thetas.append(np.asarray(out[0] if isinstance(out, tuple) else out, dtype=float))
    return np.array(thetas), keep


def _gauss_logpdf(x, mean, sd):
    return -0.5 * ((x - mean) / sd) ** 2 - np.log(sd) - 0.5 * math.log(2 * math.pi)


def lira_scores(target_logits: ArrayLike, shadow_logits: ArrayLike, shadow_keep: ArrayLike, *, online: bool = True,
                global_variance: bool = False) -> np.ndarray:
    """LiRA (Carlini et al. 2022, Algorithm 1): score each target example's φ against its IN and OUT shadows.

    For example i, μ_in, σ_in are the mean and standard deviation of φ_i over the shadows that trained on it,
    μ_out, σ_out over those that did not. Online: score = ln N(φ_i; μ_in, σ_in²) - ln N(φ_i; μ_out, σ_out²),
    the log-likelihood ratio. Offline (OUT shadows only): the paper's one-sided test Pr[Z <= φ_i] for
    Z ~ N(μ_out, σ_out²), returned as the z-score (φ_i - μ_out)/σ_out, which orders the examples the same way
    without rounding tiny tail probabilities to 1. ``global_variance``: one σ_in and one σ_out for all examples
    (the pooled within-example variances), as the paper advises with few shadows.

    Parameters
    ----------
    target_logits : n values φ_i under the attacked model (``true_label_logit``).
    shadow_logits : S × n values under S shadow models; shadow_keep : S × n booleans, True = IN.
    online : bool.  global_variance : bool.

    Returns
    -------
    array of n scores, higher = "more likely a member"; NaN where an example lacks IN (online) or OUT shadows,
    or its shadows all gave the same φ.

    Privacy: none: an attack/measurement.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> shadows = [[2.0, 0.0], [2.2, 0.2], [0.0, 2.0], [0.2, 2.2]]
    >>> keep = [[True, False], [True, False], [False, True], [False, True]]
    >>> lira_scores([2.1, 0.1], shadows, keep).round(1).tolist()
    [200.0, -200.0]
    """
    c = check_finite_array(target_logits, "target_logits", ndim=1)
    phi = check_finite_array(shadow_logits, "shadow_logits", ndim=2)
    keep = check_bool_array(shadow_keep, "shadow_keep", 2)
    if phi.shape[1] != len(c) or keep.shape != phi.shape:
        raise ValueError(f"shadow_logits and shadow_keep must both have shape (S, {len(c)}), got {phi.shape} "
                         f"and {keep.shape}")
    online, pooled = check_bool(online, "online"), check_bool(global_variance, "global_variance")
    out_mean, out_sd = _gaussian_fit(phi, ~keep, pooled)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if not online:
            return (c - out_mean) / out_sd
        in_mean, in_sd = _gaussian_fit(phi, keep, pooled)
        return _gauss_logpdf(c, in_mean, in_sd) - _gauss_logpdf(c, out_mean, out_sd)


def _gaussian_fit(phi, mask, pooled):
    """Per-column mean and standard deviation of phi over the rows where mask is True (NaN for no rows)."""
    count = mask.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(mask, phi, 0.0).sum(axis=0) / count
        var = np.where(mask, (phi - mean) ** 2, 0.0).sum(axis=0) / count
    sd = np.sqrt(np.nanmean(var)) * np.ones_like(var) if pooled else np.sqrt(var)
    return mean, np.where(sd > 0, sd, np.nan)


def leave_one_out_scores(logits: ArrayLike, keep: ArrayLike, *, attack: str = "online",
                         global_variance: bool = False) -> np.ndarray:
    """Scores of every (model, example) pair: each model in turn is the target, the other models its shadows.

    Row m holds ``lira_scores`` of model m's φ against the remaining models (attack "online" or "offline"),
    or for attack "loss" the global-threshold score φ itself (``loss_scores`` orders pairs the same way).
    With ``keep`` from ``train_on_random_halves`` this is the paper's evaluation: every example is IN for about
    half of the models, and ``keep`` says which pairs are members.

    Parameters
    ----------
    logits : M × n values φ (``true_label_logit`` of M models); keep : M × n booleans, True = IN.
    attack : "online", "offline" or "loss".  global_variance : bool, as for ``lira_scores``.

    Returns
    -------
    M × n array of scores.

    Privacy: none: an attack/measurement.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> phi = [[2.0, 0.0], [2.2, 0.2], [0.0, 2.0], [0.2, 2.2], [2.1, 2.1]]
    >>> keep = [[True, False], [True, False], [False, True], [False, True], [True, True]]
    >>> leave_one_out_scores(phi, keep, attack="offline").round(1)[4].tolist()
    [20.0, 20.0]
    """
    phi = check_finite_array(logits, "logits", ndim=2)
    kind = attack if isinstance(attack, str) else None
    if kind not in ("online", "offline", "loss"):
        raise (TypeError if kind is None else ValueError)(f"attack must be 'online', 'offline' or 'loss', "
                                                          f"got {attack!r:.40}")
    mask = check_bool_array(keep, "keep", 2)
    if mask.shape != phi.shape or len(phi) < 2:
        raise ValueError(f"keep must have the shape of logits, with at least 2 models, got {mask.shape}, {phi.shape}")
    check_bool(global_variance, "global_variance")
    if kind == "loss":
        return phi.copy()
    others = ~np.eye(len(phi), dtype=bool)
    return np.array([lira_scores(phi[m], phi[others[m]], mask[others[m]], online=kind == "online",
                                 global_variance=global_variance) for m in range(len(phi))])


def _scores_members(scores, members):
    s = check_finite_array(scores, "scores")
    if s.shape != np.shape(members):
        raise ValueError(f"scores and members must have the same shape, got {s.shape} and {np.shape(members)}")
    m = check_bool_array(members, "members", s.ndim)
    s, m = s.ravel(), m.ravel()
    if m.all() or not m.any():
        raise ValueError("members must hold both members (True) and non-members (False)")
    return s[m], s[~m]


class OperatingPoint(NamedTuple):
    """One threshold of an attack: its TPR, its FPR and the counts they rest on (``tpr_at_fpr``).

    Parameters
    ----------
    tpr, fpr : float, the rates achieved.  threshold : float, guess "member" when score > threshold.
    true_positives, in_scores : int, members above the threshold and all member scores.
    false_positives, out_scores : int, non-members above the threshold and all non-member scores.

    Returns
    -------
    A named tuple with these fields.

    Privacy: none: an attack/measurement.

    Used in: chapters/12_attacking_models.ipynb, through ``tpr_at_fpr``

    Examples
    --------
    >>> OperatingPoint._fields[:3]
    ('tpr', 'fpr', 'threshold')
    """

    tpr: float
    fpr: float
    threshold: float
    true_positives: int
    in_scores: int
    false_positives: int
    out_scores: int


def tpr_at_fpr(scores: ArrayLike, members: ArrayLike, fpr: float) -> OperatingPoint:
    """The attack's true-positive rate at false-positive rate at most ``fpr``: the paper's TPR @ 0.1 % FPR.

    With n_out non-member scores, k = ⌊fpr·n_out⌋ of them may lie above the threshold, so the threshold is
    the (k + 1)-th largest non-member score and "member" means score > threshold. The TPR rests on these k
    false positives: at fpr = 0.1 % with 1,000 non-member scores it rests on ONE, so report ``out_scores``
    (and prefer many more than 1/fpr). Ties at the threshold count as "not member" (the achieved FPR <= fpr).

    Parameters
    ----------
    scores : array of attack scores, higher = "more likely a member".  members : booleans of the same shape.
    fpr : float in [0, 1).

    Returns
    -------
    OperatingPoint(tpr, fpr, threshold, true_positives, in_scores, false_positives, out_scores).

    Privacy: none: an attack/measurement.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> tpr_at_fpr([0.9, 0.8, 0.7, 0.6, 0.5, 0.1], [True, False, True, True, False, False], 0.34)
    OperatingPoint(tpr=1.0, fpr=0.3333333333333333, threshold=0.5, true_positives=3, in_scores=3, \
false_positives=1, out_scores=3)
    """
    s_in, s_out = _scores_members(scores, members)
    f = check_probability(fpr, "fpr", high_open=True)
    k = math.floor(f * len(s_out))
    threshold = float(np.sort(s_out)[::-1][k])  # the (k + 1)-th largest non-member score
    tp, fp = int(np.sum(s_in > threshold)), int(np.sum(s_out > threshold))
    return OperatingPoint(tp / len(s_in), fp / len(s_out), threshold, tp, len(s_in), fp, len(s_out))


def roc_curve(scores: ArrayLike, members: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The ROC curve: (FPR, TPR) of "member when score >= t" at every distinct score t, from (0, 0) to (1, 1).

    Parameters
    ----------
    scores : array of attack scores, higher = "more likely a member".  members : booleans of the same shape.

    Returns
    -------
    (fpr, tpr): two increasing arrays.

    Privacy: none: an attack/measurement.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> fpr, tpr = roc_curve([0.9, 0.8, 0.7, 0.1], [True, False, True, False])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    s_in, s_out = _scores_members(scores, members)
    t = np.unique(np.concatenate([s_in, s_out]))[::-1]  # thresholds, largest first
    tpr = len(s_in) - np.searchsorted(np.sort(s_in), t, side="left")
    fpr = len(s_out) - np.searchsorted(np.sort(s_out), t, side="left")
    return np.concatenate([[0.0], fpr / len(s_out)]), np.concatenate([[0.0], tpr / len(s_in)])


def roc_auc(scores: ArrayLike, members: ArrayLike) -> float:
    """Area under the ROC curve = P(a member's score > a non-member's) + ½ P(tie) (Mann–Whitney).

    Computed from average ranks: AUC = (sum of the members' ranks - n_in(n_in + 1)/2) / (n_in n_out).
    0.5 is guessing; the AUC averages over all thresholds, so it says little about the confident guesses at
    small FPR that matter for privacy (Carlini et al. 2022, §III).

    Parameters
    ----------
    scores : array of attack scores, higher = "more likely a member".  members : booleans of the same shape.

    Returns
    -------
    float in [0, 1].

    Privacy: none: an attack/measurement.

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> roc_auc([0.9, 0.8, 0.7, 0.1], [True, False, True, False])
    0.75
    """
    s_in, s_out = _scores_members(scores, members)
    pooled = np.sort(np.concatenate([s_in, s_out]))
    ranks = (np.searchsorted(pooled, s_in, "left") + np.searchsorted(pooled, s_in, "right") + 1) / 2
    return float((ranks.sum() - len(s_in) * (len(s_in) + 1) / 2) / (len(s_in) * len(s_out)))


def _discounted_tail(m: np.ndarray, r: float) -> np.ndarray:
    """W_k = Σ_{j>=k} m_j r^(j-k) for 0 < r < 1, every k at once: cumulative sums over blocks short enough that
    r^j and r^-j stay within float64 (r^size >= e^-600), each block carrying the next block's W."""
    out = np.empty(len(m))
    size = max(1, int(600 / -math.log(r)))
    carry = 0.0
    for start in range(((len(m) - 1) // size) * size, -1, -size):
        block = m[start:start + size]
        power = r ** np.arange(len(block))
        out[start:start + size] = np.cumsum((block * power)[::-1])[::-1] / power + carry * r ** len(block) / power
        carry = out[start]
    return out


def _delta_curve(pld: Any, epsilons: np.ndarray) -> np.ndarray:
    """δ(ε) of one discretised PLD at every ε of ``epsilons`` (>= 0) at once: ``Pld.delta``, vectorised.

    With k the first grid point above ε, δ(ε) = P[L = ∞] + Σ_{j>=k} m_j - e^(ε - l_k) W_k, where
    W_k = Σ_{j>=k} m_j e^(-(l_j - l_k)) (``_discounted_tail``: all terms positive, no e^(+l) overflows).
    """
    loss, m = pld.losses, pld.masses
    k = np.searchsorted(loss, epsilons, side="right")
    tail = np.append(np.cumsum(m[::-1])[::-1], 0.0)
    w = np.append(_discounted_tail(m, math.exp(-pld.step)), 0.0)
    first = np.append(loss, np.inf)[k]
    shifted = np.where(k < len(m), np.exp(np.minimum(epsilons - first, 0.0)) * w[k], 0.0)
    return np.clip(pld.inf_mass + tail[k] - shifted, 0.0, 1.0)


def pld_max_tpr(fpr: ArrayLike, accountant: Any, *, epsilons: ArrayLike | None = None) -> float | np.ndarray:
    """The ceiling a PLD accountant proves on any attack's TPR: min over ε of the (ε, δ(ε)) ceilings.

    The accountant certifies (ε, δ(ε))-DP for every ε >= 0 at once (``PldAccountant.delta``), so every test of
    "trained with the record or without" obeys TPR <= min(1, e^ε FPR + δ(ε), 1 - e^(-ε)(1 - δ(ε) - FPR)) for
    every ε; the minimum over ε is the trade-off curve the accountant certifies (Dong, Roth & Su 2022, Prop. 2.12),
    lower than the ceiling of any single (ε, δ) pair (``dp_lib.attacks.max_tpr``). The minimum is taken over a grid
    of ε: a minimum over fewer ε is still a valid upper bound, only a little less tight. For the discretised PLD
    both terms are monotone in ε between its grid points, so its own loss grid would give the exact minimum; the
    default grid, every 0.001 from 0 to the largest finite loss, is within a hair of it.

    Parameters
    ----------
    fpr : float or array in [0, 1].
    accountant : a ``PldAccountant`` that has composed the training's events (both orderings are used).
    epsilons : optional array of ε >= 0 to minimise over (default: the grid above, at most 50,001 points).

    Returns
    -------
    float or array, like ``fpr``.

    Privacy: none: a bound on attacks, read off a guarantee (the accountant's neighbouring relation).

    Defined in: chapters/12_attacking_models.ipynb

    Examples
    --------
    >>> from dp_lib import PldAccountant, max_tpr
    >>> from dp_lib.events import GaussianEvent
    >>> acc = PldAccountant().compose(GaussianEvent(2.0))
    >>> round(pld_max_tpr(0.01, acc), 4), round(float(max_tpr(0.01, acc.epsilon(1e-5), 1e-5)), 4)
    (0.0339, 0.0734)
    """
    from .pld import PldAccountant  # imported here: membership does not need the accountant otherwise

    if not isinstance(accountant, PldAccountant):
        raise TypeError(f"accountant must be a PldAccountant, got {accountant!r:.60}")
    if accountant.plds is None:
        raise ValueError("accountant has composed no event: nothing to bound")
    x = check_finite_array(fpr, "fpr")
    if np.any((x < 0) | (x > 1)):
        raise ValueError("fpr must lie in [0, 1]")
    if epsilons is None:
        top = max(float(p.losses[-1]) for p in accountant.plds)
        eps = np.linspace(0.0, max(top, 0.0), min(50_001, max(2, math.ceil(max(top, 0.0) / 1e-3) + 1)))
    else:
        eps = check_finite_array(np.atleast_1d(epsilons), "epsilons", ndim=1, allow_empty=False)
        if np.any(eps < 0):
            raise ValueError("epsilons must be >= 0")
    delta = np.maximum.reduce([_delta_curve(p, eps) for p in accountant.plds])
    grow, shrink = np.exp(np.minimum(eps, 700.0)), np.exp(-eps)
    flat = x.ravel()
    bound = np.ones_like(flat)
    for start in range(0, len(flat), 64):  # chunks of 64 FPRs keep the ε × FPR table small
        a = flat[start:start + 64][None, :]
        first = np.min(grow[:, None] * a + delta[:, None], axis=0)
        second = np.min(1.0 - shrink[:, None] * (1.0 - delta[:, None] - a), axis=0)
        bound[start:start + 64] = np.minimum.reduce([bound[start:start + 64], first, second])
    bound = bound.reshape(x.shape)
    return float(bound) if bound.ndim == 0 else bound
