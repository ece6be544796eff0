r"""A site everyone can read (issue 36): axe-core, reflow and the keyboard, on every page, in Debian's Chromium.

For every page of the built site (``_build/html``, or the Chinese edition with ``DP_BOOK_HTML`` and
``DP_BOOK_LANG=zh-CN``, as in test_static_site.py), in one page load:

* **axe-core** (vendored: ``vendor/axe-core/axe.min.js``, 4.14.1, MPL-2.0, its hash checked) runs on the
  whole page once MathJax and the fonts are done, with every rule axe enables by default (WCAG 2.x A/AA
  and best practices). Any *serious* or *critical* violation fails the test; every violation of any impact
  is written to ``artifacts/axe_<lang>.json`` (page -> rule -> impact, nodes, the first targets), which
  is what the issue's before/after tables are made from. There is no exclusion: no rule is disabled and
  no part of any page is left out.
* **Reflow** (WCAG 1.4.10): at 320 CSS px wide, and at 200 % zoom of a 1280 x 900 window (the same
  layout as a 640 x 450 CSS px viewport: zoom scales CSS pixels, and the device pixel ratio does not
  change layout), the page does not scroll horizontally. Code blocks, tables and display math that are
  wider than the column may scroll inside their own box (``overflow-x: auto``) and nothing else may
  stick out; a box that holds more than it shows must be scrollable, never clipped.

One chapter page is also driven by the keyboard alone (Tab from the top of the page, arrow keys, Enter):
its static slider moves (the frame and its alt text change, and the alt text is written into the
slider's polite live region, which is how a screen reader announces it), a "Going deeper" dropdown and a
solution dropdown open, and each focused control shows a visible focus ring. Screenshots (a narrow page,
a zoomed page, the focus rings) go to ``artifacts/screenshots/a11y_*.png``.

Needs a built site; skipped without one (under ``CI=true``: failed).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
from pathlib import Path

import ci_strict  # tests/browser/ci_strict.py: under CI=true, no site fails instead of skipping
import pytest
from PIL import Image, ImageChops  # Pillow: a matplotlib dependency

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("DP_BOOK_HTML", ROOT / "_build" / "html")).resolve()
LANG = os.environ.get("DP_BOOK_LANG", "en")
SKIP_DIRS = {"_static", "_sources", "_images", "_downloads"}
ARTIFACTS = ROOT / "artifacts"

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
AXE_VERSION = "4.14.1"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"
FAILING_IMPACTS = {"serious", "critical"}

DESKTOP = {"width": 1280, "height": 900}
NARROW = {"width": 320, "height": 640}     # WCAG 1.4.10: 320 CSS px
ZOOMED = {"width": 640, "height": 450}     # a 1280 x 900 window at 200 % zoom, in CSS px
# The page driven by the keyboard: a static slider, a "Going deeper" dropdown and solutions.
KEYBOARD_PAGE = "chapters/02_laplace.html"
# Pages whose narrow and zoomed views are also saved as screenshots (the look is checked by a person).
SCREENSHOT_PAGES = {"chapters/00_preface.html", "chapters/02_laplace.html", "chapters/11_private_learning.html"}
MAX_TABS = 1500  # bound on Tab presses while looking for a control

if not (SITE / "index.html").is_file():
    ci_strict.skip_or_fail("no built site in _build/html: run `jupyter-book build .` first (.ci/run builds it "
                           "before the browser tests)", module=True)


def _is_redirect(path: Path) -> bool:
    return bool(re.search(r'<meta\s+http-equiv="refresh"', path.read_text(encoding="utf-8")[:4000], re.I))


def _pages() -> list[str]:
    pages = []
    for path in sorted(SITE.rglob("*.html")):
        rel = path.relative_to(SITE)
        if not (set(rel.parts[:-1]) & SKIP_DIRS) and not _is_redirect(path):
            pages.append(rel.as_posix())
    return pages


PAGES = _pages()
RESULTS: dict[str, dict] = {}


@pytest.fixture(scope="module")
def axe_source():
    data = AXE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == AXE_SHA256, f"{AXE} is not axe-core {AXE_VERSION} as vendored"
    return data.decode("utf-8")


def _open(new_context, site, rel, **context_args):
    """A fresh context and page showing ``rel`` with MathJax and the fonts done."""
    context, guard = new_context(**context_args)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(site + rel, wait_until="load")
    page.evaluate("""async () => {
      if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
      await document.fonts.ready;
    }""")
    return context, guard, page


AXE_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return {version: axe.version, violations: result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length,
    targets: v.nodes.slice(0, 5).map(n => n.target.join(' ')),
    summary: (v.nodes[0] && v.nodes[0].failureSummary || '').slice(0, 300)}))};
}"""

# What makes the page wider than the window: visible elements sticking out on the right or the left that
# are not inside a scroll container (overflow-x auto/scroll) which itself fits; and boxes that cut off
# content (overflow-x hidden/clip with more content than width) although they show text, not decoration.
REFLOW = """() => {
  const doc = document.documentElement;
  const width = doc.clientWidth;
  const scrolls = el => /auto|scroll/.test(getComputedStyle(el).overflowX);
  const describe = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
      (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).slice(0, 3).join('.') : '');
  const sticking = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (!el.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || (r.right <= width + 1 && r.left >= -1)) continue;
    let p = el, contained = false;
    for (; p && p !== document.body; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (p !== el && (scrolls(p) || s.overflowX === 'hidden' || s.overflowX === 'clip')) { contained = true; break; }
      if (s.position === 'fixed') { contained = true; break; }  // off-canvas drawers (the closed sidebars)
    }
    if (!contained) sticking.push(describe(el) + ` (${Math.round(r.left)}..${Math.round(r.right)})`);
  }
  // boxes that hold more than they show and cannot be scrolled: cut-off content (not a visually hidden one)
  const clipped = [];
  for (const el of document.querySelectorAll('main pre, main table, main .math, main .highlight, main .cell_output, main .output')) {
    if (!el.checkVisibility() || getComputedStyle(el).display.startsWith('inline')) continue;  // (no box width)
    if (el.scrollWidth > el.clientWidth + 1) {
      let p = el, ok = false;
      for (; p && p !== document.body; p = p.parentElement) {
        if (scrolls(p)) { ok = true; break; }
        if (p !== el && p.getBoundingClientRect().right > width + 1) break;
      }
      if (!ok && !/hidden|clip/.test(getComputedStyle(el).overflowX)) continue;  // it sticks out: caught above
      if (!ok) clipped.push(describe(el));
    }
  }
  return {width, scrollWidth: doc.scrollWidth, bodyOverflow: getComputedStyle(document.body).overflowX,
          htmlOverflow: getComputedStyle(doc).overflowX, sticking: sticking.slice(0, 10), clipped: clipped.slice(0, 10)};
}"""


# After a resize: the next frames are laid out and the theme's transitions (the sidebars sliding off) are over.
SETTLE = """async () => {
  for (let i = 0; i < 2; i++) await new Promise(r => requestAnimationFrame(r));
  await Promise.all(document.getAnimations().map(a => a.finished.catch(() => null)));
}"""


def _reflow_problems(page, size: dict, label: str) -> list[str]:
    page.set_viewport_size(size)
    page.evaluate(SETTLE)
    found = page.evaluate(REFLOW)
    problems = []
    if found["scrollWidth"] > found["width"]:
        problems.append(f"{label}: the page scrolls horizontally ({found['scrollWidth']} px of content in "
                        f"{found['width']} px): {found['sticking']}")
    elif found["sticking"]:
        problems.append(f"{label}: elements stick out of the window (cut off: the page's overflow-x is "
                        f"{found['htmlOverflow']}/{found['bodyOverflow']}): {found['sticking']}")
    if found["clipped"]:
        problems.append(f"{label}: boxes that cut off their content instead of scrolling: {found['clipped']}")
    return problems


def _shot_name(rel: str, what: str) -> str:
    edition = "" if LANG == "en" else f"{LANG}_"
    return f"a11y_{edition}{what}_{rel[:-5].replace('/', '_')}.png"


@pytest.mark.parametrize("rel", PAGES)
def test_page_is_accessible(new_context, site, axe_source, screenshots, rel):
    """axe-core finds no serious or critical violation, and the page reflows at 320 px and at 200 %."""
    context, guard, page = _open(new_context, site, rel, viewport=DESKTOP)
    try:
        page.add_script_tag(content=axe_source)
        found = page.evaluate(AXE_RUN)
        assert found["version"] == AXE_VERSION
        RESULTS[rel] = {v["id"]: {k: v[k] for k in ("impact", "nodes", "targets", "summary")}
                        for v in found["violations"]}
        _write_results()
        problems = [f"axe {v['impact']} {v['id']} ({v['nodes']} nodes: {v['help']}): {v['targets']}\n"
                    f"    {v['summary']}" for v in found["violations"] if v["impact"] in FAILING_IMPACTS]
        problems += _reflow_problems(page, NARROW, "320 CSS px")
        if rel in SCREENSHOT_PAGES:  # the top of the page, its first slider and its first table at 320 px
            page.screenshot(path=screenshots / _shot_name(rel, "narrow320"))
            for selector, what in ((".slider-frames", "narrow320_slider"), ("main table", "narrow320_table")):
                if page.locator(selector).count():
                    page.locator(selector).first.scroll_into_view_if_needed()
                    page.screenshot(path=screenshots / _shot_name(rel, what))
        problems += _reflow_problems(page, ZOOMED, "200 % zoom (640 CSS px)")
        assert not problems, f"{rel}:\n" + "\n".join(problems)
    finally:
        context.close()
    guard.assert_offline()


def _write_results():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    edition = "en" if LANG == "en" else LANG
    path = ARTIFACTS / f"axe_{edition}.json"
    path.write_text(json.dumps({"axe": AXE_VERSION, "pages": RESULTS}, indent=1, sort_keys=True), encoding="utf-8")


@pytest.mark.parametrize("rel", sorted(SCREENSHOT_PAGES & set(PAGES)))
def test_zoomed_page(new_context, site, screenshots, rel):
    """200 % zoom as Chromium renders it (device pixel ratio 2 on a 640 x 450 CSS px window): no
    horizontal scrolling either; the screenshot is what a zoomed reader sees."""
    context, guard, page = _open(new_context, site, rel, viewport=ZOOMED, device_scale_factor=2)
    try:
        problems = _reflow_problems(page, ZOOMED, "200 % zoom, device pixel ratio 2")
        page.screenshot(path=screenshots / _shot_name(rel, "zoom200"))
        assert not problems, f"{rel}:\n" + "\n".join(problems)
    finally:
        context.close()
    guard.assert_offline()


# ----------------------------------------------------------------------------------------------
# Keyboard only
# ----------------------------------------------------------------------------------------------

FOCUS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const s = getComputedStyle(el);
  const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2) ||
               (s.boxShadow && s.boxShadow !== 'none');
  return {tag: el.tagName.toLowerCase(), cls: String(el.className || ''), ring,
          outline: `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}`, boxShadow: s.boxShadow,
          focusVisible: el.matches(':focus-visible')};
}"""


def _tab_to(page, selector: str) -> dict:
    """Press Tab (from where the focus is) until the focused element matches ``selector``; its focus state."""
    for presses in range(1, MAX_TABS + 1):
        page.keyboard.press("Tab")
        if page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector):
            state = page.evaluate(FOCUS)
            state["presses"] = presses
            return state
    raise AssertionError(f"{MAX_TABS} Tab presses did not reach {selector!r}: not in the tab order")


def _focus_ring_shows(page, what: str) -> None:
    """The focused element looks different focused and unfocused (a ring clipped by an ``overflow: hidden``
    parent would pass a computed-style check, not this one); focus is then restored from the keyboard."""
    el = page.evaluate_handle("document.activeElement")
    state = page.evaluate(FOCUS)
    assert state["focusVisible"] and state["ring"], f"the {what} has no focus ring: {state}"

    def shot():
        box = el.bounding_box()
        return page.screenshot(clip={"x": max(box["x"] - 8, 0), "y": max(box["y"] - 8, 0),
                                     "width": box["width"] + 16, "height": box["height"] + 16})

    el.scroll_into_view_if_needed()
    focused = Image.open(io.BytesIO(shot())).convert("RGB")
    page.evaluate("el => el.blur()", el)
    unfocused = Image.open(io.BytesIO(shot())).convert("RGB")
    # a ring: a line of pixels that change strongly (not a faint tint), at least as long as the box's
    # width plus height (a 3 px ring around the whole box has about six times as many)
    diff = ImageChops.difference(focused, unfocused).convert("L").point(lambda v: 255 if v > 60 else 0)
    changed = diff.histogram()[255]
    box = el.bounding_box()
    assert changed >= box["width"] + box["height"], \
        f"the {what}'s focus ring cannot be seen (clipped or hidden): {changed} pixels change; {state}"
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("el => document.activeElement === el", el), f"Shift+Tab, Tab did not return to the {what}"


def _shot_around(page, locator, path, margin=16):
    """A screenshot of ``locator`` with a margin: a focus ring drawn outside the element shows."""
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    page.screenshot(path=str(path), clip={"x": max(box["x"] - margin, 0), "y": max(box["y"] - margin, 0),
                                          "width": box["width"] + 2 * margin, "height": box["height"] + 2 * margin})


SLIDER_STATE = """box => ({src: box.querySelector('img.slider-frames-image').getAttribute('src'),
                           alt: box.querySelector('img.slider-frames-image').getAttribute('alt'),
                           status: box.querySelector('[role=status]').textContent,
                           live: box.querySelector('[role=status]').getAttribute('aria-live'),
                           value: box.querySelector('input[type=range]').value})"""


def test_keyboard_only(new_context, site, screenshots):
    """Tab reaches the static slider, a "Going deeper" dropdown and a solution; arrow keys and Enter
    operate them; each shows a focus ring; the slider's new alt text goes into its live region."""
    if KEYBOARD_PAGE not in PAGES:
        ci_strict.skip_or_fail(f"{KEYBOARD_PAGE} is not in the built site")
    context, guard, page = _open(new_context, site, KEYBOARD_PAGE, viewport=DESKTOP)
    try:
        # the slider: from the top of the page, Tab only
        _tab_to(page, ".slider-frames input[type=range]")
        _focus_ring_shows(page, "slider")
        box = page.locator(".slider-frames").first
        before = box.evaluate(SLIDER_STATE)
        assert before["live"] == "polite" and before["status"] == "", before
        _shot_around(page, box, screenshots / _shot_name(KEYBOARD_PAGE, "focus_slider"))
        page.keyboard.press("ArrowRight")
        after = box.evaluate(SLIDER_STATE)
        assert after["value"] != before["value"], "ArrowRight did not move the slider"
        assert after["src"] != before["src"], "the frame did not change"
        assert after["alt"] != before["alt"], "the frame's alt text did not change"
        assert after["status"] == after["alt"], f"the live region does not say the new alt text: {after}"
        page.wait_for_function(
            "b => { const i = b.querySelector('img.slider-frames-image'); return i.complete && i.naturalWidth > 0; }",
            arg=box.element_handle(), timeout=10_000)

        # a "Going deeper" dropdown (sphinx-design <details>): Tab on from the slider, Enter opens it
        summary = "details.sd-dropdown > summary"
        _tab_to(page, summary)
        _focus_ring_shows(page, "dropdown")
        details = page.locator(f"{summary}:focus").locator("xpath=..")
        assert not details.evaluate("d => d.open")
        _shot_around(page, details, screenshots / _shot_name(KEYBOARD_PAGE, "focus_dropdown"))
        page.keyboard.press("Enter")
        assert details.evaluate("d => d.open"), "Enter did not open the dropdown"
        assert details.locator(".sd-summary-content").first.is_visible()

        # a solution (sphinx-exercise + sphinx-togglebutton: a button in the admonition's title)
        button = ".solution.dropdown .toggle-button"
        _tab_to(page, button)
        _focus_ring_shows(page, "solution's button")
        solution = page.locator(f"{button}:focus").locator("xpath=ancestor::div[contains(@class, 'solution')][1]")
        assert solution.evaluate("s => s.classList.contains('toggle-hidden')"), "the solution starts open"
        assert page.locator(f"{button}:focus").get_attribute("aria-expanded") == "false"
        _shot_around(page, solution, screenshots / _shot_name(KEYBOARD_PAGE, "focus_solution"))
        page.keyboard.press("Enter")
        assert not solution.evaluate("s => s.classList.contains('toggle-hidden')"), "Enter did not open the solution"
        assert page.locator(f"{button}:focus").get_attribute("aria-expanded") == "true"
    finally:
        context.close()
    guard.assert_offline()
