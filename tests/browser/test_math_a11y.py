"""Math for screen-reader users, offline: MathJax's accessibility extensions from the vendored copy.

Run after the book build (``jupyter-book build .``), like the other browser tests:

    pytest tests/browser/test_math_a11y.py -p no:cacheprovider

The site is served from 127.0.0.1 and every request that would leave the machine is aborted and fails
the test. On a chapter page, once MathJax is done, every formula has
* its assistive MathML (``mjx-assistive-mml`` holding a ``<math>`` copy; part of tex-mml-chtml.js),
* speech text as its ``aria-label`` (nearly every one; the explorer, ``_config.yml``: ``mathjax3_config``, and the Speech
  Rule Engine with its English rules, all from ``vendor/mathjax``),
* a place in the keyboard order; Enter starts the explorer and the arrow keys walk the formula, each
  step spoken into MathJax's live region.
Every MathJax file comes from ``_static/mathjax/`` with status 200: a missing component would be a 404.
``DP_BOOK_HTML`` names another build (e.g. the Chinese site, which speaks the same English rules).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import ci_strict  # tests/browser/ci_strict.py: under CI=true, no site fails instead of skipping
import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("DP_BOOK_HTML", ROOT / "_build" / "html")).resolve()
PAGE = "chapters/02_laplace.html"  # a chapter with inline and display math
# What the explorer needs beyond the combined component: MathJax's loader asks for these on its own.
EXPLORER_FILES = ("a11y/explorer.js", "a11y/semantic-enrich.js", "a11y/sre.js", "sre/mathmaps/en.json")
SPEECH_S = 120  # semantic enrichment of a whole chapter on a loaded 2-core machine
# Jupyter Book 1.0.4 puts sphinx-thebe's inline script into every page twice (see test_static_site.py)
KNOWN_UPSTREAM_JS_ERRORS = {"Identifier 'THEBE_JS_URL' has already been declared"}

if not (SITE / PAGE).is_file():
    ci_strict.skip_or_fail(f"no {PAGE} in {SITE}: run `jupyter-book build .` first (.ci/run builds it "
                           "before the browser tests)", module=True)


def test_math_is_spoken_and_explorable_offline(new_context, site):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # here: the fixture skips without it

    context, guard = new_context()
    page = context.new_page()
    page.set_default_timeout(60_000)
    errors, responses = [], []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("response", lambda response: responses.append((response.status, response.url)))
    try:
        page.goto(site + PAGE)
        version = page.evaluate("async () => { await MathJax.startup.promise; return MathJax.version; }")
        assert version == "3.2.2"
        # the speech is added after the first typesetting, once the rules have loaded: wait until the
        # explorer is attached to every formula and each has its speech
        try:
            page.wait_for_function("""() => {
                const maths = Array.from(document.querySelectorAll('mjx-container'));
                return maths.length > 0 && maths.every(m => m.hasAttribute('sre-explorer-id')
                    && (m.getAttribute('aria-label') || m.querySelector('[data-semantic-speech]')));
            }""", timeout=SPEECH_S * 1000)
        except PlaywrightTimeout:
            counts = page.evaluate("""() => [document.querySelectorAll('mjx-container').length,
                document.querySelectorAll('mjx-container[sre-explorer-id]').length,
                document.querySelectorAll('mjx-container[aria-label]').length]""")
            pytest.fail(f"after {SPEECH_S} s, of {counts[0]} formulas {counts[1]} have the explorer and {counts[2]} "
                        "speech text: is a11y/explorer loaded (mathjax3_config in _config.yml)?")
        maths = page.evaluate("""() => Array.from(document.querySelectorAll('mjx-container')).map(m => ({
            display: m.getAttribute('display') === 'true',
            mathml: !!m.querySelector('mjx-assistive-mml > math'),
            label: m.getAttribute('aria-label'),
            tabindex: m.getAttribute('tabindex'),
        }))""")
        assert any(m["display"] for m in maths) and not all(m["display"] for m in maths), \
            "expected inline and display math on the page"
        assert all(m["mathml"] for m in maths), "a formula without its assistive MathML"
        assert all(m["tabindex"] == "0" for m in maths), "a formula the keyboard cannot reach"
        labels = [m["label"] for m in maths if m["label"]]
        # MathJax 3.2 leaves the label off a formula whose speech sits below a spacing wrapper (`\,b`);
        # its speech is still in the MathML (data-semantic-speech, waited for above)
        assert len(labels) >= 0.9 * len(maths), f"only {len(labels)} of {len(maths)} formulas have speech text"
        assert not [label for label in labels if "\\" in label or "$" in label], "TeX in the speech text"
        assert any(re.search(r"\bepsilon\b", label) for label in labels), f"no spoken ε: {labels[:5]}"

        # the keyboard explorer: on the first formula, Enter starts it and the arrows walk the formula
        first = page.locator("mjx-container").first
        first.focus()
        page.keyboard.press("Enter")
        page.keyboard.press("ArrowDown")
        page.wait_for_function("""() => Array.from(document.querySelectorAll('.MJX_LiveRegion'))
            .some(r => r.textContent.trim())""", timeout=10_000)
        spoken = page.evaluate("""() => Array.from(document.querySelectorAll('.MJX_LiveRegion'))
            .map(r => r.textContent.trim()).filter(t => t)""")
        assert spoken, "the explorer spoke nothing"
    finally:
        context.close()

    guard.assert_offline()
    errors = [error for error in errors if not any(known in error for known in KNOWN_UPSTREAM_JS_ERRORS)]
    assert not errors, f"JavaScript errors: {errors[:3]}"
    mathjax = [(status, url) for status, url in responses if "/_static/mathjax/" in url]
    assert [item for item in mathjax if item[0] != 200] == [], "a MathJax file is missing from the site"
    loaded = {url.split("/_static/mathjax/")[1].split("?")[0] for _, url in mathjax}
    assert set(EXPLORER_FILES) <= loaded, f"the explorer's files were not loaded: {sorted(loaded)}"
