"""tools/a11y.py: each markup fix matches the markup it is written for, changes nothing else and is idempotent.

(Whether the fixed pages pass axe-core is tested in the browser: tests/browser/test_accessibility.py.)
"""

from __future__ import annotations

import pytest

from tools.a11y import FIXES, fix_html

# Markup as the pinned Sphinx/docutils, MyST-NB, pydata-sphinx-theme and pandas write it, and as fixed.
CASES = [
    ('<div class="citation" id="id14" role="doc-biblioentry">', '<div class="citation" id="id14" role="listitem">'),
    ('<summary aria-label="Toggle hidden content">', "<summary>"),
    ('<button class="btn search-button-field search-button__button pst-js-only" title="Search" aria-label="Search" '
     'data-bs-placement="bottom">',
     '<button class="btn search-button-field search-button__button pst-js-only" title="Search" '
     'data-bs-placement="bottom">'),
    ('<i class="theme-switch fa-solid fa-moon               fa-lg" data-mode="dark"  title="Dark"></i>',
     '<i class="theme-switch fa-solid fa-moon               fa-lg" data-mode="dark" aria-hidden="true"></i>'),
    ('<div class="sidebar-primary-item">\n\n  \n<a class="navbar-brand logo" href="#">',
     '<div class="sidebar-primary-item" role="navigation">\n\n  \n<a class="navbar-brand logo" href="#">'),
    ("<tr>\n      <th></th>\n      <th>epsilon</th>", "<tr>\n      <td></td>\n      <th>epsilon</th>"),
    ('<tr class="row-odd"><th class="head"><p></p></th>', '<tr class="row-odd"><td class="head"></td>'),
]


@pytest.mark.parametrize(("before", "after"), CASES)
def test_fix(before, after):
    assert fix_html(before) == after
    assert fix_html(after) == after  # idempotent: a page rewritten twice is unchanged


def test_every_fix_has_a_case():
    for rule, pattern, _replacement, why in FIXES:
        assert why and rule
        assert any(pattern.search(before) for before, _ in CASES), f"no test case for the fix of {rule}"


@pytest.mark.parametrize("markup", [
    '<div class="citation" id="x">', "<summary>", '<button class="btn search-button" aria-label="Search">',
    "<th>name</th>", '<th class="head"><p>Laplace</p></th>', '<div class="sidebar-primary-item"><nav>',
    '<p>role="doc-biblioentry" is shown as text</p>',
])
def test_other_markup_is_left_alone(markup):
    assert fix_html(markup) == markup
