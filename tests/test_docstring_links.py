"""The library's docstrings: honest privacy claims for float noise, and links to chapters that exist.

- Every public function that draws continuous float noise (Laplace, Gaussian, Cauchy, Gumbel,
  exponential), directly or through another function, and claims a guarantee in its ``Privacy:``
  paragraph says that the guarantee holds in exact arithmetic only (the floating-point attack of
  chapters/09_exact_noise.ipynb).
"""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

MODULES = ["accounting", "aggregate", "attacks", "audit", "composition", "contributions", "data", "dp_sgd", "exact",
           "floating", "learning", "local", "mechanisms", "noise", "quantiles", "random", "selection", "sensitivity",
           "svt", "svt_broken", "unary", "validation", "widgets"]

# Calls that draw continuous float noise: the book's samplers and mechanisms, numpy's continuous
# samplers, and open_uniform (the book transforms it into Cauchy, Gumbel and exponential noise).
NOISE_CALL = re.compile(r"\b(sample_laplace|laplace_mech|gaussian_mech|open_uniform)\(|"
                        r"\.(normal|laplace|standard_normal|gumbel|exponential|standard_cauchy)\(")
QUALIFIER = "in exact arithmetic (the float implementation is not: see chapters/09_exact_noise.ipynb"

# Public functions that draw float noise but need no qualifier, with the reason.
NO_QUALIFIER = {
    "pipeline_dp_release": "PipelineDP draws its noise from Google's secure library, not from dp_lib's float samplers",
}


def _functions():
    """Every function and method defined in dp_lib's modules: {qualified name: (function, public?)}."""
    found = {}
    for name in MODULES:
        module = importlib.import_module(f"dp_lib.{name}")
        public = set(getattr(module, "__all__", ()))
        for attr, obj in vars(module).items():
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj):
                found[f"{name}.{attr}"] = (obj, attr in public)
            elif inspect.isclass(obj):
                for meth, fn in vars(obj).items():
                    if inspect.isfunction(fn):
                        found[f"{name}.{attr}.{meth}"] = (fn, attr in public and not meth.startswith("_"))
    return found


def _source(fn) -> str:
    """The code of ``fn`` without its docstring (a docstring's example may call a mechanism)."""
    try:
        src = inspect.getsource(fn)
    except OSError:  # generated code (a NamedTuple's methods): not dp_lib's
        return ""
    doc = fn.__doc__
    if doc:
        src = src.replace(doc, "")
    return src


def _privacy_paragraph(fn) -> str:
    doc = inspect.getdoc(fn) or ""
    paragraphs = [p for p in doc.split("\n\n") if p.lstrip().startswith("Privacy:")]
    return " ".join(paragraphs[0].split()) if paragraphs else ""


def float_noise_functions():
    """Names (qualified) of the functions that draw float noise, directly or through dp_lib functions that do."""
    funcs = _functions()
    sources = {name: _source(fn) for name, (fn, _) in funcs.items()}
    drawing = {name for name, src in sources.items() if NOISE_CALL.search(src)}
    changed = True
    while changed:
        changed = False
        callees = {name.rsplit(".", 1)[-1] for name in drawing}
        for name, src in sources.items():
            if name not in drawing and any(re.search(rf"\b{re.escape(c)}\(", src) for c in callees):
                drawing.add(name)
                changed = True
    return sorted(name for name in drawing if funcs[name][1])


FLOAT_NOISE = float_noise_functions()


def test_the_detector_finds_the_mechanisms():
    for name in ("mechanisms.laplace_mech", "mechanisms.gaussian_mech", "composition.parallel_histogram",
                 "composition.PrivacyAccountant.laplace_mech", "sensitivity.smooth_mean", "selection.report_noisy_max",
                 "svt.above_threshold", "dp_sgd.minibatch_dp_sgd", "learning.noisy_gradient_descent",
                 "aggregate.sample_and_aggregate", "contributions.user_level_count"):
        assert name in FLOAT_NOISE, name
    for name in ("exact.discrete_laplace_mech", "exact.snapping_mech", "local.randomized_response"):
        assert name not in FLOAT_NOISE, name


@pytest.mark.parametrize("name", FLOAT_NOISE)
def test_float_noise_privacy_claims_say_exact_arithmetic(name):
    module, *rest = name.split(".")
    obj = importlib.import_module(f"dp_lib.{module}")
    for part in rest:
        obj = getattr(obj, part)
    privacy = _privacy_paragraph(obj)
    assert privacy, f"{name} has no Privacy: paragraph"
    if privacy.startswith(("Privacy: none", "Privacy: NOT")) or rest[-1] in NO_QUALIFIER:
        return  # a helper that releases nothing, a broken variant that claims nothing, or noise not dp_lib's
    assert QUALIFIER in privacy, (
        f"{name} draws continuous float noise; its Privacy: paragraph must say the guarantee holds "
        f"{QUALIFIER}...): {privacy[:200]}")
