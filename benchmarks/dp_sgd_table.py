"""``python -m benchmarks.dp_sgd_table``: the learning chapter's accuracy table (11_private_learning), full-batch noisy GD vs DP-SGD, 10 seeds.

Thirty private trainings per method are too slow for the chapter's 10-second budget,
so they run here and the chapter reads ``dp_lib/datasets/dp_sgd_accuracy.csv`` (and
recomputes one row in front of the reader to show the file is what the code gives).
All hyper-parameters are fixed public constants below; δ = 1e-5 < 1/n.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from dp_lib import accuracy, adult_features, make_rng, minibatch_dp_sgd, noisy_gradient_descent

RESULTS = Path(__file__).resolve().parents[1] / "dp_lib" / "datasets" / "dp_sgd_accuracy.csv"  # read by 11_private_learning
EPSILONS, DELTA, SEEDS, CLIP = (0.1, 1.0, 10.0), 1e-5, range(10), 1.5
METHODS = {  # name: (trainer, keyword arguments besides ε, δ, rng)
    "full-batch noisy GD (k = 20, sequential)": ("gd", {"iterations": 20, "learning_rate": 4.0}),
    "full-batch noisy GD (k = 20, RDP)": ("sgd", {"steps": 20, "q": 1.0, "learning_rate": 4.0}),
    "DP-SGD (q = 0.01, T = 200, RDP)": ("sgd", {"steps": 200, "q": 0.01, "learning_rate": 2.0}),
}


def run(method, epsilon, seed, data=None):
    """Test accuracy and noise multiplier σ (noise std / C) of one private training."""
    data = data or adult_features()
    X, y, n = data.X_train, data.y_train, len(data.y_train)
    kind, kw = METHODS[method]
    if kind == "gd":
        theta, hist = noisy_gradient_descent(X, y, epsilon, DELTA, kw["iterations"], CLIP, rng=make_rng(seed),
                                             learning_rate=kw["learning_rate"], public_n=n)
        sigma = float(hist["sigma"].iloc[-1]) / CLIP
    else:
        theta, hist = minibatch_dp_sgd(X, y, epsilon, DELTA, kw["steps"], CLIP, q=kw["q"], public_n=n,
                                       rng=make_rng(seed), learning_rate=kw["learning_rate"])
        sigma = float(hist["sigma"].iloc[-1])
    return accuracy(theta, data.X_test, data.y_test), sigma


def table(methods=METHODS, epsilons=EPSILONS, seeds=SEEDS):
    """One row per (method, ε): the noise multiplier and the mean and sd of test accuracy over the seeds."""
    data, rows = adult_features(), []
    for method in methods:
        for eps in epsilons:
            runs = np.array([run(method, eps, s, data) for s in seeds])
            rows.append({"method": method, "epsilon": eps, "noise multiplier": round(runs[0, 1], 4),
                         "mean accuracy": round(runs[:, 0].mean(), 4), "sd": round(runs[:, 0].std(), 4)})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    result = table()
    result.to_csv(RESULTS, index=False)
    print(result.to_string(index=False))
