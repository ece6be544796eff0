"""Re-execute chapter notebooks in place so their committed outputs match a fresh run.

Usage (from the repository root):

    python tools/refresh_notebooks.py                 # every chapters/*.ipynb
    python tools/refresh_notebooks.py chapters/01_laplace.ipynb

Each notebook runs top to bottom in a fresh kernel, in its own folder, with no
timing metadata. Outputs that only exist with a live kernel are dropped so the
files stay small and byte-stable: the outputs of slider cells (widget views,
which nbval cannot compare anyway) and ``metadata.widgets``. Running it twice
gives identical files. Maintainer tooling, not part of ``dp_lib``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _holds_widget(cell) -> bool:
    return any(WIDGET_VIEW in out.get("data", {}) for out in cell.get("outputs", []))


def refresh(path: Path) -> float:
    """Execute ``path`` in place and return the seconds it took."""
    nb = nbformat.read(path, as_version=4)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    start = time.perf_counter()
    NotebookClient(nb, timeout=180, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell in nb.cells:
        if cell.cell_type == "code" and _holds_widget(cell):
            cell.outputs = []
        cell.metadata.pop("execution", None)
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(argv: list[str]) -> None:
    paths = [Path(p).resolve() for p in argv] or sorted((ROOT / "chapters").glob("*.ipynb"))
    for path in paths:
        print(f"{path.relative_to(ROOT)}: {refresh(path):.1f} s", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
