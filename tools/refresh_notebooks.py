"""Re-execute chapter notebooks in place so their committed outputs match a fresh run.

Usage (from the repository root):

    python tools/refresh_notebooks.py                 # every chapters/*.ipynb
    python tools/refresh_notebooks.py chapters/02_laplace.ipynb

Each notebook runs top to bottom in a fresh kernel, in its own folder, with no
timing metadata. Outputs that only exist with a live kernel are dropped so the
files stay small and byte-stable: the outputs of slider cells (widget views,
which nbval cannot compare anyway) and ``metadata.widgets``. Figures made by a
``dp_lib.plotting`` function get its docstring summary as alt text. Running it twice
gives identical files. Maintainer tooling, not part of ``dp_lib``.
"""

from __future__ import annotations

import ast
import inspect
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _holds_widget(cell) -> bool:
    return any(WIDGET_VIEW in out.get("data", {}) for out in cell.get("outputs", []))


def _figure_alt_text(cell) -> str | None:
    """Alt text for a cell that ends by calling a ``dp_lib.plotting`` function: its docstring summary."""
    import dp_lib.plotting

    try:
        last = ast.parse(cell.source).body[-1]
    except (SyntaxError, IndexError):
        return None
    if not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and isinstance(last.value.func, ast.Name)):
        return None
    func = getattr(dp_lib.plotting, last.value.func.id, None)
    doc = inspect.getdoc(func) if func is not None else None
    return doc.split("\n\n")[0].replace("\n", " ").replace("``", "") if doc else None


def _set_alt_text(cell) -> None:
    """myst-nb takes a figure's alt text from ``metadata.mystnb.image.alt``; without it, the file name."""
    has_image = any("image/png" in out.get("data", {}) for out in cell.get("outputs", []))
    alt = _figure_alt_text(cell) if has_image else None
    if alt:  # alt text written by hand for a reader (cell metadata) wins over the docstring fallback
        cell.metadata.setdefault("mystnb", {}).setdefault("image", {}).setdefault("alt", alt)


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
        if cell.cell_type == "code":
            _set_alt_text(cell)
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
