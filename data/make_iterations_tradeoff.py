"""Build data/iterations_tradeoff.csv: the noisy-GD runs of Chapter 8's iterations-vs-noise figure.

Run from the repository root: ``python data/make_iterations_tradeoff.py``. One row per
training of ``dp_lib.plotting.plot_iterations_tradeoff`` at its defaults (ε ∈ {0.03, 0.1, 1},
k ∈ {1, 2, 5, 10, 20, 50, 100}, C = 1.5, seeds 0-4: 105 runs of noisy gradient descent,
2-3 s), with its test accuracy written exactly (repr). The figure reads the file instead of
training in the chapter; ``tests/test_learning.py`` retrains a sample of rows and compares.
"""

import csv

from dp_lib.plotting.learning import TRADEOFF_COLUMNS, TRADEOFF_TABLE, _tradeoff_rows


def main():
    rows = _tradeoff_rows()
    with open(TRADEOFF_TABLE, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(TRADEOFF_COLUMNS)
        writer.writerows([repr(e), k, repr(c), s, repr(a)] for e, k, c, s, a in rows)
    print(f"wrote {TRADEOFF_TABLE} ({len(rows)} runs)")


if __name__ == "__main__":
    main()
