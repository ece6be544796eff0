"""``python -m benchmarks.tuning_table``: the tuning table of 12_attacking_models, four ways to pick DP-SGD's (η, C).

Each method tunes the learning rate and clip norm of DP-SGD on Adult over a public grid of 12
configurations, 10 seeds each; a run is ``adult_tuning_run()`` (DP-SGD at ε = 0.5, δ = 1e-5, plus a
Laplace-noised validation count at ε = 0.1). About 500 trainings, ~10 s: too slow for the chapter's
budget, so the chapter reads ``dp_lib/datasets/tuning.csv`` and re-runs one row (tests/test_tuning.py
re-runs one row too). Every parameter is a public constant below.

- non-private selection: every configuration once, the best by the EXACT validation accuracy (not private);
- best of k: every configuration once, the best by the noisy score; basic composition, k·(ε_run, δ);
- random stopping: K ~ Geometric(γ = 1/12) runs on random configurations (E[K] = 12), Theorem 2 with η = 1;
- Papernot–Steinke: K ~ D_{0, γ = 0.02} (the logarithmic distribution, E[K] ≈ 12.5), Theorem 2 with η = 0.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from dp_lib import accuracy, adult_features, adult_tuning_run, best_of_k, make_rng, tnb_tuning, tnb_tuning_epsilon

RESULTS = Path(__file__).resolve().parents[1] / "dp_lib" / "datasets" / "tuning.csv"  # read by 12_attacking_models
EPSILON, VALIDATION_EPSILON, DELTA, SEEDS = 0.5, 0.1, 1e-5, range(10)
GRID = [(lr, c) for lr in (0.5, 2.0, 8.0) for c in (0.1, 0.5, 1.5, 5.0)]  # (learning_rate, clip_norm), public
METHODS = {  # name: (eta, gamma) of the number of runs, None for the whole grid once
    "non-private selection": None, "best of k": None, "random stopping": (1.0, 1 / 12),
    "Papernot-Steinke": (0.0, 0.02),
}


def row(method, seed, runs=None):
    """One tuning: the method's total (ε, δ), the chosen configuration, its scores and the number of runs."""
    run, event = runs or adult_tuning_run(EPSILON, DELTA, VALIDATION_EPSILON)
    if method == "non-private selection":
        run, event = adult_tuning_run(EPSILON, DELTA, None)
        result, eps, dlt = best_of_k(run, GRID, event, rng=make_rng(seed)), float("inf"), DELTA * len(GRID)
    elif method == "best of k":
        result = best_of_k(run, GRID, event, rng=make_rng(seed))
        eps, dlt = len(GRID) * (EPSILON + VALIDATION_EPSILON), len(GRID) * DELTA  # basic composition
    else:
        eta, gamma = METHODS[method]
        result = tnb_tuning(run, GRID, event, DELTA, eta=eta, gamma=gamma, rng=make_rng(seed))
        eps, dlt = tnb_tuning_epsilon(event, DELTA, eta, gamma), DELTA
    data = adult_features()
    return {"method": method, "seed": seed, "epsilon": round(eps, 4), "delta": dlt, "runs": result.runs,
            "learning_rate": result.config[0], "clip_norm": result.config[1],
            "validation_score": round(result.score, 4),
            "test_accuracy": round(accuracy(result.model, data.X_test, data.y_test), 4)}


def table(methods=METHODS, seeds=SEEDS):
    """One row per (method, seed)."""
    runs = adult_tuning_run(EPSILON, DELTA, VALIDATION_EPSILON)
    return pd.DataFrame([row(m, s, runs) for m in methods for s in seeds])


if __name__ == "__main__":
    result = table()
    result.to_csv(RESULTS, index=False)
    print(result.groupby("method", sort=False)[["epsilon", "delta", "runs", "test_accuracy"]].mean().to_string())
