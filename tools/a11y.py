"""Sphinx extension: the fixes that make every page pass axe-core (issue 36, "A site everyone can read").

The browser test ``tests/browser/test_accessibility.py`` runs axe-core on every page of both editions and
fails on any serious or critical violation. The pages come from three places, and each is fixed where
it can be:

* **The book's own style**: ``tools/a11y_static/a11y.css`` (added to every page): link colours with a
  contrast of at least 4.5:1 on the tinted admonition backgrounds too (sphinx-book-theme's ``#176de8`` has
  4.2:1 on a note's ``#e6f2ff``, its orange hover 2.2:1), and reflow at 320 CSS px (long words and math
  wrap or scroll inside their own box, not the page).
* **Markup that Sphinx, docutils, MyST-NB, pandas and the theme write**: :data:`FIXES`, exact substitutions
  applied to every HTML page once the build has finished, each with the rule it fixes and why. They
  match only the markup they are written for (an upgrade of a package that changes it makes the axe test
  fail, not this file silently succeed).
* **The static sliders**: ``tools/slider_frames.py`` writes their live region and labels itself.

Nothing here adds a script to the pages.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

_HERE = Path(__file__).resolve().parent / "a11y_static"
CSS_FILE = "a11y.css"
SKIP_DIRS = {"_static", "_sources", "_images", "_downloads"}

# (axe rule, pattern, replacement, why). Each is idempotent: a page rewritten twice is unchanged.
FIXES: list[tuple[str, re.Pattern, str, str]] = [
    (
        "aria-required-children, aria-allowed-role, aria-deprecated-role",
        re.compile(r'(<div class="citation" id="[^"]*") role="doc-biblioentry"'),
        r'\1 role="listitem"',
        "docutils marks each reference of a `role=list` citation list `doc-biblioentry`, a role DPUB-ARIA "
        "deprecated, which may not be a list's child: the list then has no items and its backlinks become "
        "its children (critical). A list item is what the entry is.",
    ),
    (
        "label-content-name-mismatch",
        re.compile(r'<summary aria-label="Toggle hidden content">'),
        "<summary>",
        "MyST-NB names the summary of a hidden code cell 'Toggle hidden content' while it shows 'Show code "
        "cell source': a speech-input user says what is shown. Without the label the name is the visible "
        "text (only the current one of 'Show ...'/'Hide ...' is displayed), translated in the Chinese edition.",
    ),
    (
        "label-content-name-mismatch",
        re.compile(r'(<button class="btn search-button-field search-button__button pst-js-only" title="[^"]*")'
                   r' aria-label="[^"]*"'),
        r"\1",
        "The theme's search field is labelled 'Search' but shows 'Search Ctrl+K': its visible text is a "
        "good name.",
    ),
    (
        "label-content-name-mismatch",
        re.compile(r'(<i class="theme-switch fa-solid fa-[a-z-]+ +fa-lg" data-mode="[a-z]+") +title="[^"]*">'),
        r'\1 aria-hidden="true">',
        "The colour-mode button is labelled 'Color mode'; Font Awesome's script turns the title of each of its "
        "three icons ('Light', 'Dark', 'System Settings') into an SVG <title>, which counts as the button's "
        "text. The icons are decoration (the button's own tooltip and label name it): no titles.",
    ),
    (
        "region",
        re.compile(r'<div class="sidebar-primary-item">(\s*<a class="navbar-brand logo")'),
        r'<div class="sidebar-primary-item" role="navigation">\1',
        "The book's title in the primary sidebar (a link to the first page) is outside every landmark, so "
        "landmark navigation skips it; the link is navigation.",
    ),
    (
        "empty-table-header",
        re.compile(r"<th([^>]*)>(?:<p></p>)?</th>"),
        r"<td\1></td>",
        "An empty header cell (the corner of a pandas DataFrame, whose index has no name; the corner of a "
        "comparison table) names nothing: it is a data cell.",
    ),
]


def fix_html(text: str) -> str:
    """The page with every substitution of :data:`FIXES` applied."""
    for _rule, pattern, replacement, _why in FIXES:
        text = pattern.sub(replacement, text)
    return text


def _pages(outdir: Path):
    for path in sorted(outdir.rglob("*.html")):
        if not set(path.relative_to(outdir).parts[:-1]) & SKIP_DIRS:
            yield path


def _finish(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    for path in _pages(outdir):
        text = path.read_text(encoding="utf-8")
        fixed = fix_html(text)
        if fixed != text:
            path.write_text(fixed, encoding="utf-8")
    target = outdir / "_static"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_HERE / CSS_FILE, target / CSS_FILE)


def setup(app):
    app.add_css_file(CSS_FILE, priority=900)  # after the theme's stylesheets
    app.connect("build-finished", _finish)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
