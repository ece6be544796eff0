"""Import time: ``import dp_lib`` beside ``import numpy, pandas``, each in fresh processes.

``dp_lib`` needs numpy and pandas, so their import is the floor; scipy and
matplotlib are imported only when a function that needs them runs (plotting is
a lazy attribute). Process CPU time (``time.process_time``) of the import
statement alone, the median over ``repeats`` fresh interpreters; target
dp_lib / floor <= 1.3.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 1.3
STATEMENTS = {"floor": "import numpy, pandas", "dp_lib": "import dp_lib"}
_PROBE = ("import time, sys; t = time.process_time(); {stmt}; t = time.process_time() - t; "
          "print(t, int(any(m.split('.')[0] in ('scipy', 'matplotlib') for m in sys.modules)))")

__all__ = ["run_imports", "imports_md"]


def _one(stmt: str) -> tuple[float, bool]:
    out = subprocess.run([sys.executable, "-c", _PROBE.format(stmt=stmt)], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.split()
    return float(out[0]), out[1] == "1"


def run_imports(repeats: int = 7, log=print) -> dict:
    """Median CPU seconds of each import statement, the ratio, and whether scipy/matplotlib got imported."""
    times = {name: [] for name in STATEMENTS}
    heavy = False
    for _ in range(repeats):  # interleaved, so a burst of load hits both
        for name, stmt in STATEMENTS.items():
            seconds, loaded = _one(stmt)
            times[name].append(seconds)
            heavy |= loaded and name == "dp_lib"
    row = {name: statistics.median(v) for name, v in times.items()}
    row["ratio"] = row["dp_lib"] / row["floor"]
    row["heavy_imported"] = heavy
    row["status"] = "pass" if row["ratio"] <= TARGET and not heavy else "MISS"
    log(f"  import numpy, pandas {row['floor'] * 1e3:6.0f} ms   import dp_lib {row['dp_lib'] * 1e3:6.0f} ms   "
        f"ratio {row['ratio']:.2f}  {row['status']}")
    return row


def imports_md(row) -> list[str]:
    return ["", "## Import time", "",
            f"Process CPU time, median of fresh interpreters; target dp_lib / (numpy + pandas) <= {TARGET}.", "",
            "| `import numpy, pandas` | `import dp_lib` | ratio | scipy or matplotlib imported | status |",
            "|---:|---:|---:|:---:|:---:|",
            f"| {row['floor'] * 1e3:.0f} ms | {row['dp_lib'] * 1e3:.0f} ms | {row['ratio']:.2f} | "
            f"{'yes' if row['heavy_imported'] else 'no'} | {row['status']} |"]
