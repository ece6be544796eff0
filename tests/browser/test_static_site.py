r"""The rendered book as readers see it: every page of ``_build/html`` in headless Chromium.

The site is served from 127.0.0.1 by a ThreadingHTTPServer in a thread and must work with no
network: MathJax is served by the book itself (``vendor/mathjax`` is copied to ``_static/mathjax``;
``mathjax_path`` in _config.yml)
and no page needs require.js or a widget manager. For every page (found from the built files, and
every ``_toc.yml`` entry must have one):

* no request leaves the machine: any request to another host fails the test (it is aborted and
  recorded, never silently ignored); the count per page goes to
  ``artifacts/offline_requests.json``; the HTML of every page names no off-machine script,
  stylesheet, font, image or frame either;
* the math is rendered: once MathJax has finished, every math element holds MathJax output
  (``mjx-container``, no ``mjx-merror``, no undefined control sequence) and the visible text has no
  raw TeX left (``\(``, ``\[``, ``$$``, ``\begin{``, control words); a page whose source has math
  has math elements;
* every local resource the page loads answers (no 404 for CSS, scripts, fonts or images);
* every image has loaded (lazy images are forced to load first) and comes from this site;
* every internal link resolves, and every ``#fragment`` names an id of its target page; links to
  non-HTML files (the notebook downloads) are checked with a HEAD request;
* no JavaScript error.

Chapter pages built from notebooks are also checked for their figures (at least as many loaded
images in cell outputs as the notebook has PNG outputs; each slider has a static figure and its
pre-rendered frames, which test_static_sliders.py moves) and for the launch, download and
repository buttons. A full-page screenshot of every page, taken after MathJax and its fonts have
finished, goes to ``artifacts/screenshots/site_<page>.png``.

Needs a built site: ``jupyter-book build .`` first (``.ci/run`` does). Skipped without one (under
``CI=true``: failed).
"""

from __future__ import annotations

import functools
import json
import os
import re
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.error import HTTPError
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

import ci_strict  # tests/browser/ci_strict.py: under CI=true, no site fails instead of skipping
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
# The site to test: _build/html, or another build named by DP_BOOK_HTML (e.g. a build in a copy).
SITE = Path(os.environ.get("DP_BOOK_HTML", ROOT / "_build" / "html")).resolve()
# The edition's language: "en", or "zh-CN" for the Chinese edition (DP_BOOK_HTML=_build/zh/_build/html).
LANG = os.environ.get("DP_BOOK_LANG", "en")
CJK = re.compile(r"[\u4e00-\u9fff]")
CHAPTERS = ROOT / "chapters"
SKIP_DIRS = {"_static", "_sources", "_images", "_downloads"}
# Jupyter Book 1.0.4 + sphinx-thebe 0.3.1 put the inline thebe configuration script into every page
# twice (reproduced with a one-page book and the default configuration), so the second copy throws.
# Harmless here: this book does not use thebe. Any other JavaScript error fails the test.
KNOWN_UPSTREAM_JS_ERRORS = {"Identifier 'THEBE_JS_URL' has already been declared"}
TEX_OUTSIDE_MATH = re.compile(r"\$[^$\n]*\\[A-Za-z]+[^$\n]*\$")
# Raw TeX in the visible text once MathJax is done: math delimiters, environments, control words.
RAW_TEX = re.compile(r"\\[()\[\]]|\$\$|\\(?:begin|end)\{|\\[A-Za-z]{2,}")
# Markup that should have been parsed: bold markers, MyST roles (e.g. a translation that broke emphasis).
RAW_MARKUP = re.compile(r".{0,20}(?:\*\*|\{(?:ref|cite|cite:[pt]|prf:ref|doc|numref)\}`).{0,20}")
ARTIFACTS = ROOT / "artifacts"
OFF_MACHINE_COUNTS: dict[str, int] = {}

if not (SITE / "index.html").is_file():
    ci_strict.skip_or_fail("no built site in _build/html: run `jupyter-book build .` first (.ci/run builds it "
                           "before the browser tests)", module=True)


def _pages() -> list[str]:
    pages = []
    for path in sorted(SITE.rglob("*.html")):
        rel = path.relative_to(SITE)
        if not (set(rel.parts[:-1]) & SKIP_DIRS):
            pages.append(rel.as_posix())
    return pages


PAGES = _pages()


def _notebook_for(page: str) -> Path | None:
    if page.startswith("chapters/"):
        nb = CHAPTERS / (Path(page).stem + ".ipynb")
        return nb if nb.is_file() else None
    return None


def _source_for(page: str) -> Path | None:
    """The notebook or Markdown file a page was built from, if any."""
    stem = Path(page).with_suffix("")
    for suffix in (".ipynb", ".md"):
        if (ROOT / stem).with_suffix(suffix).is_file():
            return (ROOT / stem).with_suffix(suffix)
    return None


def _toc_files() -> list[str]:
    """Every document named in _toc.yml (root, chapters, parts, sections), without suffix."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    found = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                found.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk({k: v for k, v in toc.items() if k != "root"})
    return [str(Path(f).with_suffix("")) if Path(f).suffix in (".md", ".ipynb") else f for f in found]


# ----------------------------------------------------------------------------------------------
# Static helpers: redirects, ids of a page, HEAD requests
# ----------------------------------------------------------------------------------------------

class _Scan(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.refresh: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name"):
            if attrs.get(key):
                self.ids.add(attrs[key])
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "refresh":
            match = re.search(r"url=(.+)", attrs.get("content") or "", re.I)
            self.refresh = match.group(1).strip().strip("'\"") if match else None


@functools.lru_cache(maxsize=None)
def _scan(rel: str) -> _Scan:
    scan = _Scan()
    scan.feed((SITE / rel).read_text(encoding="utf-8", errors="replace"))
    return scan


@functools.lru_cache(maxsize=None)
def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=10) as resp:
            return resp.status
    except HTTPError as err:
        return err.code


def _site_file(base: str, url: str) -> str | None:
    """The path of ``url`` relative to the site root (a directory maps to its index.html)."""
    path = unquote(urlsplit(url).path)[len(urlsplit(base).path):]
    if path == "" or path.endswith("/"):
        path += "index.html"
    return path


# ----------------------------------------------------------------------------------------------
# The page checks
# ----------------------------------------------------------------------------------------------

LOAD_IMAGES = """async () => {
  const imgs = Array.from(document.images);
  for (const img of imgs) { img.loading = 'eager'; }
  await Promise.all(imgs.map(img => img.decode().catch(() => null)));
  return imgs.map(img => ({src: img.currentSrc || img.src, ok: img.complete && img.naturalWidth > 0,
                           alt: img.getAttribute('alt'), output: !!img.closest('.cell_output'),
                           frames: !!img.closest('.slider-frames')}));
}"""

LINKS = """() => Array.from(document.querySelectorAll(
  'a[href], link[href][rel=prev], link[href][rel=next], link[href][rel=index], link[href][rel=search]'))
  .map(a => a.href)"""

TEXT_OUTSIDE_MATH = """() => {
  const main = document.querySelector('main') || document.body;
  const copy = main.cloneNode(true);
  copy.querySelectorAll('.math, pre, code, script, style, .highlight, .cell_input, .cell_output')
      .forEach(e => e.remove());
  return copy.innerText;
}"""



def _check_links(page, base, rel):
    problems = []
    for href in sorted(set(page.evaluate(LINKS))):
        parts = urlsplit(href)
        if parts.scheme not in ("http", "https") or not href.startswith(base):
            continue  # external links are not fetched (no network here)
        url, fragment = urldefrag(href)
        target = _site_file(base, url)
        if target.endswith(".html"):
            if not (SITE / target).is_file():
                problems.append(f"{href}: no such page")
            elif fragment and unquote(fragment) not in _scan(target).ids:
                problems.append(f"{href}: no id {unquote(fragment)!r} in {target}")
        elif _status(url) != 200:
            problems.append(f"{href}: HTTP {_status(url)}")
    assert not problems, f"{rel}: broken internal links:\n" + "\n".join(problems[:20])


def _expected_figures(nb_path: Path) -> tuple[int, int, int]:
    """(PNG outputs, slider cells, slider cells with pre-rendered frames) of a committed notebook."""
    cells = json.loads(nb_path.read_text(encoding="utf-8"))["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    pngs = sum("image/png" in out.get("data", {}) for c in code for out in c.get("outputs", []))
    sliders = [i for i, c in enumerate(code) if re.search(r"\binteract(_figure)?\(", "".join(c["source"]))]
    for i in sliders:  # the static figure sits in the cell just before the slider cell
        assert i > 0 and any("image/png" in out.get("data", {}) for out in code[i - 1].get("outputs", [])), \
            f"{nb_path.name}: the cell before slider cell #{i} shows no static figure"
    framed = sum(bool(code[i].get("metadata", {}).get("slider_frames")) for i in sliders)
    return pngs, len(sliders), framed


def _has_math(source: Path) -> bool:
    if source.suffix == ".ipynb":
        cells = json.loads(source.read_text(encoding="utf-8"))["cells"]
        markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        markdown = source.read_text(encoding="utf-8")
    return bool(re.search(r"\$[^$\n]+\$|\{math\}|\\begin\{", markdown))


# Waits for MathJax (when the page loads it) and its web fonts, then describes the math of the page.
RENDER_MATH = """async () => {
  const maths = Array.from(document.querySelectorAll('.math'));
  let mathjax = 'absent';
  if (window.MathJax && window.MathJax.startup && window.MathJax.startup.promise) {
    await window.MathJax.startup.promise;
    mathjax = window.MathJax.version;
  } else if (document.querySelector('script[src*="mathjax"], script[src*="MathJax"]')) {
    mathjax = 'not started';
  }
  await document.fonts.ready;
  const raw = maths.filter(m => !m.querySelector('mjx-container')).map(m => m.textContent.trim().slice(0, 80));
  const errors = Array.from(document.querySelectorAll('mjx-merror'))
      .map(e => (e.getAttribute('data-mjx-error') || e.textContent).slice(0, 80));
  // MathJax's noundefined extension shows an unknown \\macro as red text; the assistive MathML has it as text
  const undefinedMacros = Array.from(document.querySelectorAll('mjx-container mtext, mjx-container mjx-mtext'))
      .map(e => e.textContent).filter(t => /^\\\\[A-Za-z]+$/.test(t));
  return {mathjax, elements: maths.length, rendered: document.querySelectorAll('mjx-container').length,
          raw, errors, undefinedMacros};
}"""

VISIBLE_TEXT = """() => {
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll('pre, code, script, style, textarea, .highlight, mjx-assistive-mml')
      .forEach(e => e.remove());
  return copy.innerText;
}"""

OFF_MACHINE_TAGS = {"script": "src", "img": "src", "iframe": "src", "source": "src", "video": "src",
                    "audio": "src", "embed": "src", "object": "data"}
LINK_RELS_LOADED = {"stylesheet", "preload", "modulepreload", "prefetch", "icon", "manifest", "preconnect",
                    "dns-prefetch"}


class _Resources(HTMLParser):
    """Absolute off-machine URLs that a page would load (not the links a reader may follow)."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and set((attrs.get("rel") or "").lower().split()) & LINK_RELS_LOADED:
            url = attrs.get("href") or ""
        elif tag in OFF_MACHINE_TAGS:
            url = attrs.get(OFF_MACHINE_TAGS[tag]) or ""
        else:
            url = ""
        if re.match(r"(https?:)?//", url):
            self.urls.append(url)


def _check_buttons(page, rel):
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    repo = config["repository"]["url"].rstrip("/")
    launch = config.get("launch_buttons", {})
    hrefs = page.evaluate(LINKS)
    wanted = {"repository button": repo, "download button (.ipynb)": ".ipynb"}
    for key, label in (("binderhub_url", "Binder"), ("colab_url", "Colab"), ("jupyterhub_url", "JupyterHub")):
        if launch.get(key):
            wanted[f"{label} launch button"] = launch[key].rstrip("/")
    missing = [name for name, needle in wanted.items() if not any(needle in h for h in hrefs)]
    assert not missing, f"{rel}: missing {missing}"


def _check_language(page, rel, images):
    """Every page declares the edition's language; a translated page reads in that language."""
    lang = page.evaluate("document.documentElement.lang")
    assert lang == LANG, f"{rel}: <html lang={lang!r}>, expected {LANG!r}"
    if LANG == "en" or _source_for(rel) is None:
        return
    if rel.endswith("bibliography.html"):  # the works' own titles and authors: only the heading is translated
        heading = page.locator("h1").first.inner_text()
        assert CJK.search(heading), f"{rel}: the heading {heading!r} is not translated"
        return
    prose = page.evaluate(TEXT_OUTSIDE_MATH)
    letters = re.findall(r"[A-Za-z]", prose)
    cjk = CJK.findall(prose)
    # Names, library calls and the English figure labels stay Latin; the prose must be Chinese.
    assert len(cjk) > len(letters), f"{rel}: {len(cjk)} Chinese characters and {len(letters)} Latin letters"
    english_alts = [i["alt"] for i in images if i["output"] and i["alt"] and not CJK.search(i["alt"])]
    assert not english_alts, f"{rel}: figures whose alt text is not translated: {english_alts[:3]}"


@pytest.mark.parametrize("rel", PAGES)
def test_page(new_context, site, screenshots, rel):
    redirect = _scan(rel).refresh
    if redirect:  # index.html is a meta-refresh redirect: check where it points, do not open it
        target = urljoin(site + rel, redirect)
        assert (SITE / _site_file(site, target)).is_file(), f"{rel} redirects to a missing page {redirect}"
        return

    context, guard = new_context()
    page = context.new_page()
    page.set_default_timeout(30_000)
    js_errors, failed = [], []
    page.on("pageerror", lambda exc: js_errors.append(str(exc)))
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    try:
        page.goto(site + rel, wait_until="load")
        math = page.evaluate(RENDER_MATH)
        guard.assert_offline()  # first: a blocked CDN script is the likeliest cause of any failure below
        images = page.evaluate(LOAD_IMAGES)
        not_local = [i["src"] for i in images if not i["src"].startswith(site) and not i["src"].startswith("data:")]
        assert not not_local, f"{rel}: images from other hosts: {not_local[:5]}"
        broken = [i["src"] for i in images if not i["ok"]]
        assert not broken, f"{rel}: images that did not load: {broken[:5]}"
        _check_links(page, site, rel)

        nb_path = _notebook_for(rel)
        if nb_path is not None:
            pngs, sliders, framed = _expected_figures(nb_path)
            shown = sum(1 for i in images if i["output"] and i["ok"] and not i["frames"])
            assert shown >= pngs, f"{rel}: {shown} figures shown, the notebook has {pngs}"
            frames = page.locator(".slider-frames").count()
            assert frames >= framed, f"{rel}: {framed} sliders have frames in the notebook, {frames} on the page"
            # (moving the pre-rendered frames is tested in test_static_sliders.py)
            _check_buttons(page, rel)
        _check_language(page, rel, images)
        edition = "" if LANG == "en" else f"{LANG}_"
        page.screenshot(path=screenshots / f"site_{edition}{rel[:-5].replace('/', '_')}.png", full_page=True)
        source = _source_for(rel)
        if source is not None and _has_math(source):
            assert math["elements"] > 0, f"{rel}: {source.name} has math but the page has no math markup"
        if math["elements"]:
            assert math["mathjax"] not in ("absent", "not started"), \
                f"{rel}: {math['elements']} math elements but MathJax did not run ({math['mathjax']})"
        assert not math["raw"], f"{rel}: math elements MathJax did not render: {math['raw'][:5]}"
        assert not math["errors"], f"{rel}: MathJax errors: {math['errors'][:5]}"
        assert not math["undefinedMacros"], f"{rel}: undefined TeX macros: {math['undefinedMacros'][:5]}"
        raw_tex = sorted(set(RAW_TEX.findall(page.evaluate(VISIBLE_TEXT))))
        assert not raw_tex, f"{rel}: raw TeX in the visible text after MathJax: {raw_tex[:10]}"
        prose = page.evaluate(TEXT_OUTSIDE_MATH)
        leftover = TEX_OUTSIDE_MATH.findall(prose)
        assert not leftover, f"{rel}: TeX outside math markup (a dollar-math that did not parse): {leftover[:3]}"
        markup = RAW_MARKUP.findall(prose)
        assert not markup, f"{rel}: Markdown or MyST markup left in the text (did not parse): {markup[:3]}"

        local_failures = [f for f in failed if f.split(" ", 1)[1].startswith(site)]
        assert not local_failures, f"{rel}: local requests failed: {local_failures[:10]}"
        real_errors = [e for e in js_errors if e not in KNOWN_UPSTREAM_JS_ERRORS]
        assert not real_errors, f"{rel}: JavaScript errors: {real_errors[:5]}"
    finally:
        context.close()
        OFF_MACHINE_COUNTS[rel] = len(guard.blocked)
        _write_counts()
    guard.assert_offline()


def _write_counts():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "offline_requests.json").write_text(json.dumps(OFF_MACHINE_COUNTS, indent=1, sort_keys=True))


def test_every_toc_entry_is_a_page():
    """The pages checked above are the built files; each _toc.yml entry must be one of them."""
    missing = [f for f in _toc_files() if f"{f}.html" not in PAGES]
    assert not missing, f"_toc.yml entries with no built page: {missing}"


def test_pages_name_no_off_machine_resources():
    """No page's HTML (including the redirect page) loads anything from another host, even
    something a reader's action would trigger later; links a reader may follow are fine."""
    problems = {}
    for rel in PAGES:
        scan = _Resources()
        scan.feed((SITE / rel).read_text(encoding="utf-8", errors="replace"))
        if scan.urls:
            problems[rel] = sorted(set(scan.urls))[:5]
    assert not problems, f"pages that load off-machine resources: {problems}"


def test_stylesheets_import_nothing_from_other_hosts():
    problems = []
    for css in sorted((SITE / "_static").rglob("*.css")):
        text = css.read_text(encoding="utf-8", errors="replace")
        found = re.findall(r"(?:@import\s+(?:url\()?|url\()\s*['\"]?((?:https?:)?//[^'\")\s]+)", text)
        problems += [f"{css.relative_to(SITE)}: {u}" for u in found]
    assert not problems, f"stylesheets that load from other hosts: {problems[:10]}"


def test_mathjax_is_served_by_the_book():
    """The vendored MathJax (one combined component, its fonts and its licence) is in the build."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    path = config["sphinx"]["config"]["mathjax_path"]
    assert "//" not in path, f"mathjax_path points off the machine: {path}"
    assert (SITE / "_static" / path).is_file(), f"_static/{path} is missing from the build"
    fonts = list((SITE / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))
    assert fonts, "the CHTML fonts of MathJax are missing from the build"
    assert (SITE / "_static" / "mathjax" / "LICENSE").is_file(), "the vendored MathJax lacks its LICENSE"
    twice = [rel for rel in PAGES
             if len(re.findall(r"<script[^>]+src=\"[^\"]*mathjax", (SITE / rel).read_text(encoding="utf-8"))) > 1]
    assert not twice, (f"pages that load MathJax twice (a root _static/ folder makes Jupyter Book add each of its "
                       f".js files to every page): {twice[:5]}")
