"""``python -m benchmarks.membership_table``: the tables of chapters/12_attacking_models.ipynb (about 1 minute).

1. ``dp_lib/datasets/membership_inference.csv``: membership inference against logistic regression on a pool
   of 200 Adult training rows. 512 models per setting, each trained on a random half of the pool (every
   (model, row) membership bit a fair coin, so about 100 training rows per model); each model in turn is the
   target and the other 511 its shadows (``leave_one_out_scores``): 512 × 200 scored pairs, about 51,200 of
   them non-members, so the threshold at FPR 0.1 % rests on about 51 false positives. Settings: plain gradient
   descent (300 iterations, η = 4), and minibatch DP-SGD (q = 0.2, T = 100, C = 1, η = 2, public_n = 100) at
   ε = 0.5, 1, 2, 8 (σ calibrated by RDP, δ = 1e-5). "epsilon_pld" is the PLD accountant's ε at δ = 1e-5 for
   the same σ, q and T; the ceiling columns are the trade-off curve that accountant certifies, the minimum over
   ε of the (ε, δ(ε)) ceilings (``pld_max_tpr``), lower than the ceiling of the single pair (epsilon_pld, 1e-5).
   Why 200 rows: with the full 26,101 rows the 12-parameter model barely depends on any one row; at about
   100 rows per model the non-private model's membership signal is visible (AUC ≈ 0.56) yet the training still
   takes milliseconds (measured: 6 ms for plain GD, 6 ms for DP-SGD).
2. ``dp_lib/datasets/canary_audit.csv``: 2 × 6,000 full-batch DP-SGD trainings (q = 1, T = 10, C = 1, η = 1,
   ε = 2 by RDP, δ = 1e-5) on 1,000 Adult rows, without (x) and with (x_prime) a Dirac canary (scale 4); the
   output of each is the canary's weight θ_j. Run i of world w is seeded ``make_rng([CANARY_SEED, w, i])``, so
   a chapter can re-run any run bit for bit. The first 1,000 runs of each world are the auditor's pilot batch,
   the other 5,000 the certifying batch (``replay_mechanism`` hands them to ``search_events`` in this order).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from dp_lib import (PldAccountant, accuracy, adult_features, canary_datasets, canary_mechanism, dp_sgd_sigma,
                    gradient_descent, leave_one_out_scores, make_rng, minibatch_dp_sgd, pld_max_tpr, roc_auc,
                    tpr_at_fpr, train_on_random_halves, true_label_logit)
from dp_lib.events import GaussianEvent, PoissonSampled, Repeated

DATASETS = Path(__file__).resolve().parents[1] / "dp_lib" / "datasets"
MIA_RESULTS, CANARY_RESULTS = DATASETS / "membership_inference.csv", DATASETS / "canary_audit.csv"
SEED, POOL, MODELS, DELTA, FPRS = 34, 200, 512, 1e-5, (0.001, 0.01)
SETTINGS = [("non-private", math.inf), ("DP-SGD", 0.5), ("DP-SGD", 1.0), ("DP-SGD", 2.0), ("DP-SGD", 8.0)]
SGD = {"steps": 100, "clip_norm": 1.0, "q": 0.2, "public_n": POOL // 2, "learning_rate": 2.0}
GD = {"iterations": 300, "learning_rate": 4.0}
ATTACKS = ("loss", "offline", "online")
CANARY_SEED, CANARY_ROWS, PILOT, TRIALS = 3420, 1000, 1000, 5000
CANARY = {"epsilon": 2.0, "delta": DELTA, "steps": 10, "clip_norm": 1.0, "q": 1.0, "public_n": CANARY_ROWS,
          "learning_rate": 1.0}


def pool(data=None):
    """The 200 pool rows (features, labels): a fixed random choice from the Adult training set."""
    data = data or adult_features()
    rows = make_rng(SEED).choice(len(data.y_train), POOL, replace=False)
    return data.X_train[rows], data.y_train[rows]


def trainer(epsilon):
    """The training of one setting, as ``trainer(X, y, rng=rng)``."""
    if math.isinf(epsilon):
        return lambda X, y, rng: gradient_descent(X, y, GD["iterations"], learning_rate=GD["learning_rate"])
    kw = dict(SGD)
    steps, clip = kw.pop("steps"), kw.pop("clip_norm")
    return lambda X, y, rng: minibatch_dp_sgd(X, y, epsilon, DELTA, steps, clip, rng=rng, **kw)


def sgd_accountant(sigma):
    """The PLD accountant of one DP-SGD training of the table: T steps, each Poisson-sampled at q, noise σ."""
    return PldAccountant().compose(Repeated(PoissonSampled(SGD["q"], GaussianEvent(sigma)), SGD["steps"]))


def setting_rows(index, data=None):
    """The table rows (one per attack) of setting ``SETTINGS[index]``; seeded by (SEED, index) alone."""
    data = data or adult_features()
    X, y = pool(data)
    model, eps = SETTINGS[index]
    thetas, keep = train_on_random_halves(X, y, MODELS, trainer(eps), rng=make_rng([SEED, index]))
    logits = true_label_logit(thetas, X, y)
    if math.isinf(eps):
        sigma, eps_pld, ceilings = math.nan, math.inf, {f: 1.0 for f in FPRS}
    else:
        sigma = dp_sgd_sigma(eps, DELTA, SGD["q"], SGD["steps"])
        pld = sgd_accountant(sigma)
        eps_pld = pld.epsilon(DELTA)
        ceilings = {f: round(pld_max_tpr(f, pld), 5) for f in FPRS}
    rows = []
    for attack in ATTACKS:
        scores = leave_one_out_scores(logits, keep, attack=attack)
        row = {"model": model, "epsilon": eps, "epsilon_pld": round(eps_pld, 4), "sigma": round(sigma, 4),
               "test_accuracy": round(float(np.mean(accuracy(thetas, data.X_test, data.y_test))), 4),
               "attack": attack, "auc": round(roc_auc(scores, keep), 4)}
        for f in FPRS:
            point = tpr_at_fpr(scores, keep, f)
            row[f"tpr_at_{f:g}"] = round(point.tpr, 5)
            row[f"true_positives_at_{f:g}"], row[f"false_positives_at_{f:g}"] = point.true_positives, point.false_positives
            row[f"ceiling_at_{f:g}"] = ceilings[f]
        row["in_scores"], row["out_scores"] = point.in_scores, point.out_scores
        rows.append(row)
    return rows


def membership_table(settings=range(len(SETTINGS))):
    data = adult_features()
    return pd.DataFrame([row for i in settings for row in setting_rows(i, data)])


def canary_trainer():
    kw = dict(CANARY)
    eps, dlt, steps, clip = kw.pop("epsilon"), kw.pop("delta"), kw.pop("steps"), kw.pop("clip_norm")
    return lambda X, y, rng: minibatch_dp_sgd(X, y, eps, dlt, steps, clip, rng=rng, **kw)


def canary_worlds(data=None):
    """(without, with_canary): the audit's two datasets on the first 1,000 rows of a fixed random order."""
    data = data or adult_features()
    rows = make_rng(CANARY_SEED).permutation(len(data.y_train))[:CANARY_ROWS]
    return canary_datasets(data.X_train[rows], data.y_train[rows])


def canary_run(world, i, worlds=None):
    """Run i of world 0 (without the canary) or 1 (with it): the canary's weight θ_j, seeded by (world, i)."""
    worlds = worlds or canary_worlds()
    mechanism = canary_mechanism(canary_trainer())
    return float(mechanism(worlds[world], size=1, rng=make_rng([CANARY_SEED, world, i]))[0])


def canary_table():
    worlds = canary_worlds()
    rows = [{"world": ("x", "x_prime")[w], "run": i, "batch": "pilot" if i < PILOT else "certify",
             "canary_weight": canary_run(w, i, worlds)} for w in (0, 1) for i in range(PILOT + TRIALS)]
    return pd.DataFrame(rows)


if __name__ == "__main__":
    mia = membership_table()
    mia.to_csv(MIA_RESULTS, index=False)
    print(mia.to_string(index=False))
    canary_table().to_csv(CANARY_RESULTS, index=False, float_format="%.17g")
