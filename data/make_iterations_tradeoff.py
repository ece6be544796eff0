"""Build dp_lib/datasets/iterations_tradeoff.csv: the noisy-GD runs of Chapter 11's iterations-vs-noise figure.

Run from the repository root: ``python data/make_iterations_tradeoff.py``. One row per
training of ``dp_lib.plotting.plot_iterations_tradeoff`` at its defaults (ε ∈ {0.03, 0.1, 1},
k ∈ {1, 2, 5, 10, 20, 50, 100}, C = 1.5, seeds 0-4: 105 runs of noisy gradient descent,
2-3 s), with its test accuracy written exactly (repr). The figure reads the file
(``dp_lib.plotting.learning.TRADEOFF_TABLE``) instead of training in the chapter;
``tests/test_data.py`` re-runs ``render`` and requires the shipped bytes.
"""

import csv
import io
from pathlib import Path

from dp_lib.plotting.learning import TRADEOFF_COLUMNS, _tradeoff_rows

OUT = Path(__file__).resolve().parents[1] / "dp_lib" / "datasets" / "iterations_tradeoff.csv"  # dp_lib's package data


def render() -> str:
    """The table's text: a header, then (ε, k, C, seed, test accuracy) per run, floats as repr."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(TRADEOFF_COLUMNS)
    writer.writerows([repr(e), k, repr(c), s, repr(a)] for e, k, c, s, a in _tradeoff_rows())
    return buf.getvalue()


def main():
    text = render()
    OUT.write_text(text, encoding="utf-8", newline="")
    print(f"wrote {OUT} ({text.count(chr(10)) - 1} runs)")


if __name__ == "__main__":
    main()
