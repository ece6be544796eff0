"""The library's conventions, checked generically over ``dp_lib.__all__`` and the package's files.

New modules are covered automatically: every public name needs a docstring with
the sections below, no module may import another module's ``_private`` name,
``import dp_lib`` must not import scipy or matplotlib, and every public callable
needs ONE entry in ``EDGE_CALLS`` (the extreme-value sweep fails loudly, naming
the function, when an entry is missing).
"""

import ast
import inspect
import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dp_lib as dp
from dp_lib import make_rng
from dp_lib.events import GaussianEvent, PoissonSampled, Repeated  # L-B: the RdpAccountant entry

ROOT = Path(dp.__file__).resolve().parents[1]
PACKAGE = ROOT / "dp_lib"
PUBLIC_CALLABLES = [n for n in dp.__all__ if callable(getattr(dp, n))]

# Names still without numpydoc Parameters/Returns sections (a one-line summary says it all for most of them).
# This list may only shrink: a name listed here that gains both sections makes the test below fail, so it is removed.
PARAMETERS_PENDING = {
    "hash_chunks", "contiguous_chunk_count", "AuditResult", "ThresholdEvent", "repeat_mechanism",
    "occupation_counts", "marital_status_counts", "AdultFeatures", "holdout_mask", "clip_rows",
    "logistic_loss", "logistic_gradients", "accuracy", "accuracy_curve", "gradient_descent", "iteration_budget",
    "rr_epsilon", "rr_estimate_count", "rr_variance", "krr_params", "krr_estimate", "krr_variance", "unary_encode",
    "unary_epsilon", "unary_aggregate", "sue_params", "oue_params", "unary_variance", "debias_counts", "laplace_scale",
    "gaussian_sigma", "analytic_gaussian_sigma", "gaussian_delta", "gaussian_mech", "pct_error", "laplace_cdf",
    "laplace_inverse_cdf", "laplace_variance", "open_uniform", "make_rng", "exponential_error_bound",
    "noisy_max_scale", "laplace_noisy_max_win_probability", "permute_and_flip_probabilities", "ptr_threshold",
    "ptr_bottom_probability", "smooth_beta", "log_smooth_sensitivity_terms", "count_older_than_40",
}


# --- docstrings ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", PUBLIC_CALLABLES)
def test_public_docstring_has_summary_privacy_backlink_and_example(name):
    doc = inspect.getdoc(getattr(dp, name)) or ""
    lines = doc.splitlines()
    assert lines and lines[0].strip(), f"{name}: no one-line summary"
    assert "Privacy:" in doc, f"{name}: its docstring needs a 'Privacy:' line (the guarantee, or 'none: ...')"
    # "Defined in:" when the notebook calls it; "Used in: <path>, through ``f``" or "See: <path> (...)" otherwise
    # (tests/test_docstring_links.py checks that a "Defined in" notebook really calls the function)
    match = re.search(r"(?:Defined in|Used in|See): (chapters/\S+\.ipynb)", doc)
    assert match, f"{name}: its docstring needs a 'Defined in: chapters/<file>.ipynb' back-link"
    assert (ROOT / match.group(1)).is_file(), f"{name}: 'Defined in' names a missing chapter {match.group(1)}"
    assert ">>>" in doc, f"{name}: its docstring needs an Examples doctest"


@pytest.mark.parametrize("name", PUBLIC_CALLABLES)
def test_public_docstring_has_parameters_and_returns(name):
    doc = inspect.getdoc(getattr(dp, name)) or ""
    complete = "Parameters\n---" in doc and "Returns\n---" in doc
    if name in PARAMETERS_PENDING:
        assert not complete, f"{name} now has Parameters and Returns: remove it from PARAMETERS_PENDING"
    else:
        assert complete, f"{name}: its docstring needs numpydoc 'Parameters' and 'Returns' sections"


# --- imports ------------------------------------------------------------------------------------------

def _package_files():
    return sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", _package_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_another_modules_private_name(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("dp_lib")):
            bad += [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if isinstance(node.value, ast.Name) and node.value.id in {"dp", "dp_lib"}:
                bad.append(node.attr)
    assert not bad, f"{path.relative_to(ROOT)} imports private names of other modules: {bad}"


def test_import_dp_lib_does_not_import_scipy_or_matplotlib():
    code = ("import sys, dp_lib; heavy = sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'matplotlib'}); "
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "", f"import dp_lib imported {out.stdout.strip()}"


def test_plotting_is_still_reachable_as_an_attribute():
    assert dp.plotting.__name__ == "dp_lib.plotting"
    with pytest.raises(AttributeError):
        dp.no_such_name  # noqa: B018


def test_version():
    assert dp.__version__ == "0.3.0"


# --- extreme values: a result or a ValueError/TypeError naming the parameter -----------------------------

_X, _Y = [[1.0, 0.5], [1.0, -2.0], [1.0, 3.0]], [1.0, 0.0, 1.0]
_DF = pd.DataFrame({"c": ["a", "b", "a"]})
_HIST = pd.DataFrame({"theta_0": [0.0, 1.0], "theta_1": [0.0, 0.5]})
_RELEASED = pd.DataFrame({"Zip": ["02138", "02138", "10001"], "Income": [">50K", "<=50K", ">50K"]})
_ROSTER = pd.DataFrame({"Name": ["Ann", "Bob"], "Zip": ["10001", "02138"]})


def _noisy_count(data, size, rng):
    return dp.laplace_mech(np.full(size, float(len(data))), 1.0, 1.0, rng=rng)


def _audit(**kw):
    return dp.epsilon_lower_bound(_noisy_count, [0], [0, 0], dp.ThresholdEvent(1.5), 200, rng=make_rng(0), **kw)


# name -> (function, {argument: valid value}). The sweep replaces one argument at a time by an extreme
# value. Adding a public function means adding ONE line here. ``None`` marks a name with no sweep (say why).
_LOG = pd.DataFrame({"user": [1, 1, 2], "page": ["a", "b", "a"], "spend": [5.0, 50.0, 1.0]})
_SHADOWS, _KEEP = [[2.0, 0.0], [2.2, 0.2], [0.0, 2.0], [0.2, 2.2]], [[True, False], [True, False], [False, True],
                                                                          [False, True]]


def _FAKE_TRAINER(X, y, rng):  # a stand-in training for the sweeps: a random θ of the right length
    return rng.normal(size=np.shape(X)[1])


EDGE_CALLS = {
    "hash_chunks": (dp.hash_chunks, dict(keys=[1, 2, 3], k=2)),
    "contiguous_chunk_count": (dp.contiguous_chunk_count, dict(n=100, k=7)),
    "chunk_answers": (dp.chunk_answers, dict(values=[1.0, 2.0, 3.0], f="mean", k=2, lower=0.0, upper=5.0)),
    "sample_and_aggregate": (dp.sample_and_aggregate, dict(values=[1.0, 2.0, 3.0], f="mean", k=2, lower=0.0, upper=5.0,
                                                           epsilon=1.0, rng=make_rng(0))),
    "AuditResult": None,  # a record built by the auditors, not called by users
    "ThresholdEvent": (dp.ThresholdEvent, dict(threshold=0.5, above=True)),
    "clopper_pearson": (dp.clopper_pearson, dict(count=5, trials=10, alpha=0.05)),
    "epsilon_lower_bound": (lambda trials, confidence, delta: _audit(trials=trials, confidence=confidence, delta=delta)
                            if False else dp.epsilon_lower_bound(_noisy_count, [0], [0, 0], dp.ThresholdEvent(1.5),
                                                                 trials, confidence, rng=make_rng(0), delta=delta),
                            dict(trials=200, confidence=0.95, delta=0.0)),
    "search_events": (lambda trials, confidence: dp.search_events(_noisy_count, [0], [0, 0], trials, confidence,
                                                                  rng=make_rng(0)), dict(trials=400, confidence=0.9)),
    "repeat_mechanism": None,  # a decorator: its argument is a callable, there is no number to push to extremes
    "audit_table": None,  # takes AuditResult records only
    "sequential_epsilon": (dp.sequential_epsilon, dict(epsilons=[0.5, 0.25])),
    "sequential_delta": (dp.sequential_delta, dict(deltas=[1e-6, 1e-6])),
    "parallel_epsilon": (dp.parallel_epsilon, dict(epsilons=[0.5, 0.25])),
    "advanced_composition": (dp.advanced_composition, dict(epsilon=0.1, delta=0.0, k=10, delta_prime=1e-5)),
    "advanced_epsilon": (dp.advanced_epsilon, dict(epsilon=0.1, k=10, delta_prime=1e-5)),
    "optimal_composition_delta": (dp.optimal_composition_delta, dict(epsilon=0.1, k=10, epsilon_prime=0.5)),
    "optimal_composition_epsilon": (dp.optimal_composition_epsilon, dict(epsilon=0.1, k=10, delta=1e-5)),
    "BudgetExceededError": None,  # an exception class
    "PrivacyAccountant": (lambda epsilon_budget, delta_budget, epsilon, value, sensitivity:
                          dp.PrivacyAccountant(epsilon_budget, delta_budget).laplace_mech(value, sensitivity, epsilon,
                                                                                          rng=make_rng(0)),
                          dict(epsilon_budget=1.0, delta_budget=0.0, epsilon=0.5, value=3.0, sensitivity=1.0)),
    "parallel_histogram": (lambda epsilon, domain, size: dp.parallel_histogram(_DF, "c", epsilon, rng=make_rng(0),
                                                                             domain=domain, size=size),
                           dict(epsilon=1.0, domain=["a", "b"], size=None)),
    "load_adult": (dp.load_adult, dict(path=None)),
    "ssn_numbers": (dp.ssn_numbers, dict(ssn=["161-03-5439"])),
    "occupation_counts": None,  # no arguments
    "marital_status_counts": None,  # no arguments
    "count_older_than_40": None,  # no arguments
    "AdultFeatures": None,  # a NamedTuple of arrays
    "holdout_mask": (dp.holdout_mask, dict(ssn=["161-03-5439"])),
    "adult_features": None,  # takes a DataFrame; covered in test_learning
    "clip_rows": (dp.clip_rows, dict(X=[[3.0, 4.0]], max_norm=1.0)),
    "logistic_loss": (dp.logistic_loss, dict(theta=[0.5, 0.5], X=_X, y=_Y)),
    "logistic_gradients": (dp.logistic_gradients, dict(theta=[0.5, 0.5], X=_X, y=_Y)),
    "accuracy": (dp.accuracy, dict(theta=[0.5, 0.5], X=_X, y=_Y)),
    "accuracy_curve": (lambda X, y: dp.accuracy_curve(_HIST, X, y), dict(X=_X, y=_Y)),
    "gradient_descent": (dp.gradient_descent, dict(X=_X, y=_Y, iterations=3, learning_rate=1.0, clip_norm=1.0)),
    "clipped_gradient_sum": (dp.clipped_gradient_sum, dict(theta=[0.5, 0.5], X=_X, y=_Y, clip_norm=1.0)),
    "iteration_budget": (dp.iteration_budget, dict(epsilon=1.0, delta=1e-5, iterations=10, composition="advanced")),
    "noisy_gradient_descent": (dp.noisy_gradient_descent, dict(X=_X, y=_Y, epsilon=1.0, delta=1e-5, iterations=3,
                                                               clip_norm=1.0, rng=make_rng(0), learning_rate=1.0,
                                                               count_share=0.1)),
    "randomized_response": (dp.randomized_response, dict(truth=[True, False], p=0.75, rng=make_rng(0))),
    "rr_epsilon": (dp.rr_epsilon, dict(p=0.75)),
    "rr_estimate_count": (dp.rr_estimate_count, dict(responses=[True, False], p=0.75)),
    "rr_variance": (dp.rr_variance, dict(n=100, p=0.75)),
    "krr_params": (dp.krr_params, dict(epsilon=1.0, k=3)),
    "krr_perturb": (dp.krr_perturb, dict(values=["a", "b"], domain=["a", "b", "c"], epsilon=1.0, rng=make_rng(0))),
    "krr_perturb_counts": (dp.krr_perturb_counts, dict(counts=[5, 3], epsilon=1.0, rng=make_rng(0), size=None)),
    "krr_estimate": (dp.krr_estimate, dict(reports=["a", "b"], domain=["a", "b"], epsilon=1.0)),
    "krr_variance": (dp.krr_variance, dict(n=100, k=3, epsilon=1.0, count=10)),
    "unary_encode": (dp.unary_encode, dict(values=["a"], domain=["a", "b"])),
    "unary_perturb": (dp.unary_perturb, dict(bits=[[True, False]], p=0.75, q=0.25, rng=make_rng(0))),
    "unary_reported_counts": (dp.unary_reported_counts, dict(values=["a", "b"], domain=["a", "b"], p=0.75, q=0.25,
                                                             rng=make_rng(0), chunk_size=1)),
    "unary_perturb_counts": (dp.unary_perturb_counts, dict(counts=[5, 3], p=0.75, q=0.25, rng=make_rng(0), size=None)),
    "unary_epsilon": (dp.unary_epsilon, dict(p=0.75, q=0.25)),
    "unary_aggregate": (dp.unary_aggregate, dict(reports=[[1, 0], [1, 1]], p=0.75, q=0.25)),
    "sue_params": (dp.sue_params, dict(epsilon=1.0)),
    "oue_params": (dp.oue_params, dict(epsilon=1.0)),
    "unary_variance": (dp.unary_variance, dict(n=100, p=0.75, q=0.25, count=10)),
    "debias_counts": (dp.debias_counts, dict(reported_counts=[30, 70], n=100, p=0.5, q=0.1)),
    "laplace_scale": (dp.laplace_scale, dict(sensitivity=1.0, epsilon=1.0)),
    "laplace_mech": (dp.laplace_mech, dict(value=[1.0, 2.0], sensitivity=1.0, epsilon=1.0, rng=make_rng(0))),
    "gaussian_sigma": (dp.gaussian_sigma, dict(sensitivity=1.0, epsilon=0.5, delta=1e-5)),
    "analytic_gaussian_sigma": (dp.analytic_gaussian_sigma, dict(sensitivity=1.0, epsilon=1.0, delta=1e-5)),
    "gaussian_delta": (dp.gaussian_delta, dict(sigma=2.0, sensitivity=1.0, epsilon=1.0)),
    "gaussian_mech": (dp.gaussian_mech, dict(value=[1.0], sensitivity=1.0, epsilon=0.5, delta=1e-5, rng=make_rng(0),
                                             calibration="classic")),
    "pct_error": (dp.pct_error, dict(true=200.0, private=210.0)),
    "laplace_pdf": (dp.laplace_pdf, dict(x=0.5, loc=0.0, scale=1.0)),
    "laplace_cdf": (dp.laplace_cdf, dict(x=0.5, loc=0.0, scale=1.0)),
    "laplace_inverse_cdf": (dp.laplace_inverse_cdf, dict(u=0.3, loc=0.0, scale=1.0)),
    "laplace_variance": (dp.laplace_variance, dict(scale=2.0)),
    "open_uniform": (dp.open_uniform, dict(size=3, rng=make_rng(0))),
    "sample_laplace": (dp.sample_laplace, dict(scale=1.0, size=3, loc=0.0, rng=make_rng(0))),
    "check_noise_range": (dp.check_noise_range, dict(scale=1.0, loc=0.0)),
    "make_rng": (dp.make_rng, dict(seed=1)),
    "check_rng": None,  # its one argument is the generator; tested in test_validation
    "exponential_probabilities": (dp.exponential_probabilities, dict(scores=[3.0, 1.0], sensitivity=1.0, epsilon=1.0,
                                                                     monotone=False)),
    "exponential_mech": (dp.exponential_mech, dict(candidates=["a", "b"], scores=[3.0, 1.0], sensitivity=1.0,
                                                   epsilon=1.0, rng=make_rng(0), monotone=False, size=None)),
    "exponential_error_bound": (dp.exponential_error_bound, dict(n_candidates=10, sensitivity=1.0, epsilon=1.0, t=2.0)),
    "noisy_max_scale": (dp.noisy_max_scale, dict(sensitivity=1.0, epsilon=1.0, monotone=False)),
    "laplace_noisy_max_win_probability": (dp.laplace_noisy_max_win_probability, dict(gap=0.5, scale=1.0)),
    "report_noisy_max": (dp.report_noisy_max, dict(candidates=["a", "b"], scores=[3.0, 1.0], sensitivity=1.0,
                                                   epsilon=1.0, rng=make_rng(0), noise="laplace", size=None)),
    "permute_and_flip": (dp.permute_and_flip, dict(candidates=["a", "b"], scores=[3.0, 1.0], sensitivity=1.0,
                                                   epsilon=1.0, rng=make_rng(0), size=None)),
    "permute_and_flip_probabilities": (dp.permute_and_flip_probabilities, dict(scores=[3.0, 1.0], sensitivity=1.0,
                                                                               epsilon=1.0)),
    "mean_local_sensitivity": (dp.mean_local_sensitivity, dict(n=100, upper=100.0)),
    "mean_local_sensitivity_at": (dp.mean_local_sensitivity_at, dict(values=[1.0, 50.0], upper=100.0)),
    "distance_to_high_sensitivity": (dp.distance_to_high_sensitivity, dict(n=1000, upper=100.0, bound=0.5)),
    "ptr_threshold": (dp.ptr_threshold, dict(epsilon=1.0, delta=1e-5)),
    "ptr_bottom_probability": (dp.ptr_bottom_probability, dict(distance=3.0, epsilon=1.0, delta=1e-5)),
    "gs_mean": (dp.gs_mean, dict(values=[1.0, 50.0], upper=100.0, epsilon=1.0, rng=make_rng(0), size=None)),
    "ptr_mean": (dp.ptr_mean, dict(values=[1.0, 50.0] * 50, upper=100.0, bound=10.0, epsilon=1.0, delta=1e-5,
                                   rng=make_rng(0), size=None)),
    "smooth_beta": (dp.smooth_beta, dict(epsilon=1.0, delta=1e-5)),
    "log_smooth_sensitivity_terms": (dp.log_smooth_sensitivity_terms, dict(n=100, upper=100.0, beta=0.1, k=[0, 1, 2])),
    "smooth_sensitivity_mean": (dp.smooth_sensitivity_mean, dict(n=100, upper=100.0, epsilon=1.0, delta=1e-5)),
    "smooth_mean": (dp.smooth_mean, dict(values=[1.0, 50.0], upper=100.0, epsilon=1.0, delta=1e-5, rng=make_rng(0))),
    "gaussian_rdp": (dp.gaussian_rdp, dict(alpha=[2.0, 4.0], sigma=2.0, sensitivity=1.0)),
    "gaussian_zcdp": (dp.gaussian_zcdp, dict(sigma=2.0, sensitivity=1.0)),
    "laplace_rdp": (dp.laplace_rdp, dict(alpha=[2.0, 4.0], scale=1.0, sensitivity=1.0)),
    "zcdp_to_epsilon": (dp.zcdp_to_epsilon, dict(rho=0.5, delta=1e-5)),
    "rdp_to_epsilon": (dp.rdp_to_epsilon, dict(orders=[2.0, 4.0], rdp=[0.5, 1.0], delta=1e-5)),
    "subsampled_gaussian_rdp": (dp.subsampled_gaussian_rdp, dict(alpha=[2, 4], q=0.01, sigma=1.1)),
    "RdpAccountant": (lambda orders, q, sigma, count, delta: dp.RdpAccountant(orders).compose(  # L-B's entry
        Repeated(PoissonSampled(q, GaussianEvent(sigma)), count)).epsilon(delta),
                      dict(orders=(2, 4, 8), q=0.01, sigma=1.1, count=10, delta=1e-5)),
    "dp_sgd_sigma": (dp.dp_sgd_sigma, dict(epsilon=1.0, delta=1e-5, q=0.1, steps=10, orders=(2, 4, 8, 16, 32),
                                           rel_tol=1e-3)),
    "link_records": (lambda quasi_identifiers: dp.link_records(_RELEASED, _ROSTER, quasi_identifiers),
                     dict(quasi_identifiers=["Zip"])),
    "equivalence_classes": (lambda quasi_identifiers, sensitive: dp.equivalence_classes(_RELEASED, quasi_identifiers,
                                                                                        sensitive),
                            dict(quasi_identifiers=["Zip"], sensitive="Income")),
    "subset_queries": (dp.subset_queries, dict(n=4, m=3, rng=make_rng(0))),
    "subset_sum_answers": (dp.subset_sum_answers, dict(secret=[1, 0, 1], queries=[[1, 1, 1], [1, 0, 0]], noise=0.5,
                                                       rng=make_rng(0))),
    "reconstruct_bits": (dp.reconstruct_bits, dict(queries=[[1, 1, 0], [0, 1, 1], [1, 0, 1]],
                                                   noisy_answers=[1.1, 1.9, 1.0])),
    "membership_attack": (dp.membership_attack, dict(count=10.0, epsilon=1.0, trials=50, rng=make_rng(0),
                                                     threshold=None)),
    "max_tpr": (dp.max_tpr, dict(fpr=0.1, epsilon=1.0, delta=1e-5)),
    "guess_success_bound": (dp.guess_success_bound, dict(epsilon=1.0)),
    "hockey_stick_delta": (dp.hockey_stick_delta, dict(p=[0.5, 0.5], q=[0.1, 0.9], epsilon=1.0)),
    "poisson_batches": (dp.poisson_batches, dict(n=20, q=0.1, steps=3, rng=make_rng(0))),
    "dp_sgd_step": (dp.dp_sgd_step, dict(theta=[0.5, 0.5], X=_X, y=_Y, clip_norm=1.0, noise_multiplier=1.0,
                                         expected_batch_size=2.0, rng=make_rng(0), learning_rate=1.0)),
    "minibatch_dp_sgd": (dp.minibatch_dp_sgd, dict(X=_X, y=_Y, epsilon=1.0, delta=1e-5, steps=3, clip_norm=1.0,
                                                   q=0.5, public_n=3, rng=make_rng(0), learning_rate=1.0,
                                                   accountant=None)),
    "sample_discrete_laplace": (dp.sample_discrete_laplace, dict(scale=2.0, size=3, rng=make_rng(0))),
    "sample_discrete_gaussian": (dp.sample_discrete_gaussian, dict(sigma=2.0, size=3, rng=make_rng(0))),
    "sample_discrete_laplace_vectorised": (dp.sample_discrete_laplace_vectorised, dict(scale=2.0, size=3,
                                                                                   rng=make_rng(0))),
    "sample_discrete_gaussian_vectorised": (dp.sample_discrete_gaussian_vectorised, dict(sigma=2.0, size=3,
                                                                                     rng=make_rng(0))),
    "discrete_laplace_pmf": (dp.discrete_laplace_pmf, dict(k=1, scale=1.0)),
    "discrete_gaussian_pmf": (dp.discrete_gaussian_pmf, dict(k=1, sigma=1.0)),
    "discrete_laplace_variance": (dp.discrete_laplace_variance, dict(scale=1.0)),
    "discrete_gaussian_variance": (dp.discrete_gaussian_variance, dict(sigma=1.0)),
    "discrete_laplace_mech": (dp.discrete_laplace_mech, dict(value=[10, 20], sensitivity=1, epsilon=0.5,
                                                             rng=make_rng(0))),
    "discrete_gaussian_mech": (dp.discrete_gaussian_mech, dict(value=[10, 20], sensitivity=1, rho=0.5,
                                                               rng=make_rng(0))),
    "snapping_mech": (dp.snapping_mech, dict(value=3.3, sensitivity=1.0, epsilon=1.0, bound=100.0, rng=make_rng(0))),
    "laplace_output_at": (dp.laplace_output_at, dict(k=2**51, true_answer=0.0, scale=1.0, sampler="dp_lib")),
    "laplace_reachable": (dp.laplace_reachable, dict(released=[0.5, -1.0], true_answer=0.0, scale=1.0,
                                                     sampler="dp_lib")),
    "distinguishing_share": (dp.distinguishing_share, dict(released=[0.5, -1.0], true_answer=0.0, scale=1.0,
                                                           sampler="dp_lib")),
    "quantile_intervals": (dp.quantile_intervals, dict(values=[1.0, 2.0, 3.0], quantile=0.5, epsilon=1.0, lower=0.0,
                                                       upper=4.0)),
    "private_quantile": (dp.private_quantile, dict(values=[1.0, 2.0, 3.0], quantile=0.5, epsilon=1.0, lower=0.0,
                                                   upper=4.0, rng=make_rng(0))),
    "svt_budget_split": (dp.svt_budget_split, dict(epsilon=1.0, c=2, monotone=False, split=None)),
    "svt_noise_scales": (dp.svt_noise_scales, dict(epsilon=1.0, c=2, sensitivity=1.0, monotone=False, split=0.5)),
    "svt_transcript": (dp.svt_transcript, dict(values=[0.0, 9.0, 9.0], threshold=5.0, threshold_scale=1.0,
                                               query_scale=1.0, rng=make_rng(0), c=1, size=None)),
    "above_threshold": (dp.above_threshold, dict(values=[1.0, 50.0], threshold=30.0, epsilon=1.0, rng=make_rng(0),
                                                 sensitivity=1.0, monotone=False, size=None)),
    "sparse_vector": (dp.sparse_vector, dict(values=[0.0, 80.0, 5.0], threshold=40.0, epsilon=1.0, c=2,
                                             rng=make_rng(0), sensitivity=1.0, monotone=False, split=None, size=None)),
    "numeric_sparse_vector": (dp.numeric_sparse_vector, dict(values=[0.0, 80.0, 5.0], threshold=40.0, epsilon=1.0,
                                                             epsilon_values=1.0, c=2, rng=make_rng(0),
                                                             sensitivity=1.0, monotone=False, split=None, size=None)),
    "svt_pattern_probability": (dp.svt_pattern_probability, dict(values=[1.0], threshold=0.0, positives=[True],
                                                                 threshold_scale=2.0, query_scale=4.0, c=None)),
    "above_threshold_probabilities": (dp.above_threshold_probabilities, dict(values=[1.0], threshold=0.0, epsilon=1.0,
                                                                             sensitivity=1.0, monotone=False)),
    # dp_lib.contributions (Chapter 15): numeric parameters swept on a small fixed log
    "VISITS_PATH": None,  # a path constant
    "CATEGORIES": None,  # the public list of partitions
    "simulate_visits": (lambda user_ids: dp.simulate_visits(user_ids, rng=make_rng(0)), dict(user_ids=[1, 2, 3])),
    "load_visits": (dp.load_visits, dict(path=None)),
    "bound_contributions": (lambda max_partitions, max_per_partition: dp.bound_contributions(
        _LOG, "user", "page", max_partitions=max_partitions, max_per_partition=max_per_partition, rng=make_rng(0)),
        dict(max_partitions=1, max_per_partition=2)),
    "contribution_sensitivity": (dp.contribution_sensitivity, dict(max_partitions=2, max_per_partition=3, max_value=1.0)),
    "contribution_envelope": (lambda max_partitions, max_per_partition, min_value, max_value, failure:
                              dp.contribution_envelope(_LOG, "user", "page", "spend", partitions=["a", "b"],
                                                       max_partitions=max_partitions,
                                                       max_per_partition=max_per_partition, min_value=min_value,
                                                       max_value=max_value, failure=failure),
                              dict(max_partitions=1, max_per_partition=1, min_value=0.0, max_value=10.0,
                                   failure=1e-6)),
    "user_level_count": (lambda max_partitions, max_per_partition, epsilon: dp.user_level_count(
        _LOG, "user", "page", partitions=["a", "b"], max_partitions=max_partitions,
        max_per_partition=max_per_partition, epsilon=epsilon, rng=make_rng(0)),
        dict(max_partitions=1, max_per_partition=1, epsilon=1.0)),
    "user_level_sum": (lambda max_partitions, max_per_partition, min_value, max_value, epsilon: dp.user_level_sum(
        _LOG, "user", "page", "spend", partitions=["a", "b"], max_partitions=max_partitions,
        max_per_partition=max_per_partition, min_value=min_value, max_value=max_value, epsilon=epsilon,
        rng=make_rng(0)), dict(max_partitions=1, max_per_partition=1, min_value=0.0, max_value=10.0, epsilon=1.0)),
    "partition_selection_threshold": (dp.partition_selection_threshold, dict(epsilon=1.0, delta=1e-6, max_partitions=2)),
    "select_partitions": (lambda counts_of_distinct_users, epsilon, delta, max_partitions: dp.select_partitions(
        counts_of_distinct_users, epsilon, delta, max_partitions, rng=make_rng(0)),
        dict(counts_of_distinct_users=[1, 50, 3], epsilon=1.0, delta=1e-6, max_partitions=1)),
    "pipeline_dp_release": None,  # builds a PipelineDP pipeline on a backend object; covered in test_contributions
    # dp_lib.widgets: helpers that take a plotting function or a Figure, not numbers
    "PNG_SETTINGS": None,  # a dict constant
    "figure_png": None,  # takes a matplotlib Figure
    "default_layout": None,  # takes a plotting function
    "slider_figure": None,  # takes a plotting function and its keyword arguments
    "setup_figures": None,  # no arguments
    "interact_figure": None,  # takes a plotting function and ipywidgets controls
    # chapters/10_accounting.ipynb (privacy loss distributions, f-DP, shuffling)
    "PldAccountant": (dp.PldAccountant, dict(step=0.01)),
    "Pld": None,  # a frozen value type, built and validated by the pld functions below
    "pld_from_loss_cdf": None,  # takes two callables (the loss's CDF and survival function)
    "laplace_pld": (dp.laplace_pld, dict(scale=1.0, sensitivity=1.0, step=0.01)),
    "gaussian_pld": (dp.gaussian_pld, dict(sigma=1.0, sensitivity=1.0, step=0.01)),
    "randomized_response_pld": (dp.randomized_response_pld, dict(epsilon=1.0, step=0.01)),
    "epsilon_delta_pld": (dp.epsilon_delta_pld, dict(epsilon=1.0, delta=1e-6, step=0.01)),
    "subsampled_gaussian_pld": (dp.subsampled_gaussian_pld, dict(q=0.01, sigma=1.0, step=0.01)),
    "gaussian_tradeoff": (dp.gaussian_tradeoff, dict(alpha=[0.1, 0.5], mu=1.0)),
    "epsilon_delta_tradeoff": (dp.epsilon_delta_tradeoff, dict(alpha=[0.1, 0.5], epsilon=1.0, delta=1e-5)),
    "gdp_delta": (dp.gdp_delta, dict(epsilon=1.0, mu=1.0)),
    "gdp_epsilon": (dp.gdp_epsilon, dict(delta=1e-5, mu=1.0)),
    "gdp_compose": (dp.gdp_compose, dict(mus=[0.3, 0.4])),
    "clt_mu": (dp.clt_mu, dict(q=0.01, sigma=1.1, steps=100)),
    "two_batch_shuffle_delta": (dp.two_batch_shuffle_delta, dict(epsilon=0.5, sigma=0.5)),
    # chapters/13_query_release.ipynb (query release, synthetic data, consistency)
    "adult_histogram": (dp.adult_histogram, dict(adult=dp.load_adult().head(50))),
    "marginal_workload": (dp.marginal_workload, dict(shape=(2, 3, 2), k=2)),
    "workload_sensitivity": (dp.workload_sensitivity, dict(workload=np.eye(3), norm=1)),
    "laplace_workload": (dp.laplace_workload, dict(x=[5.0, 0.0, 3.0], workload=np.eye(3), epsilon=1.0, rng=make_rng(0))),
    "gaussian_workload": (dp.gaussian_workload, dict(x=[5.0, 0.0, 3.0], workload=np.eye(3), rho=0.5, rng=make_rng(0))),
    "mwem": (dp.mwem, dict(x=[5.0, 0.0, 3.0], workload=np.eye(3), epsilon=1.0, rounds=2, rng=make_rng(0), total=8.0)),
    "measure_marginals": (dp.measure_marginals, dict(counts=np.ones((2, 2)), marginals=[(0,), (1,)], rho=1.0,
                                                     rng=make_rng(0))),
    "fit_marginals": (dp.fit_marginals, dict(shape=(2, 2), measurements={(0,): np.array([3.0, 1.0])}, total=4.0)),
    "sample_records": (dp.sample_records, dict(table=np.ones((2, 2)), n=3, domain={"a": (0, 1), "b": (0, 1)},
                                               rng=make_rng(0))),
    "hierarchy_matrix": (dp.hierarchy_matrix, dict(group_sizes=[2, 1])),
    "split_residual": (dp.split_residual, dict(parent=10.0, children=[3.0, 4.0])),
    "least_squares_consistent": (dp.least_squares_consistent, dict(hierarchy=np.eye(2), noisy=[1.0, 2.0])),
    "nonnegative_consistent": (dp.nonnegative_consistent, dict(hierarchy=np.eye(2), noisy=[1.0, -2.0])),
    # chapters/08_private_statistics.ipynb (private mean/proportion/range, intervals and coverage, a private test)
    "MeanRelease": None,  # a frozen record built by private_mean / mean_from_sums (their sweeps cover its values)
    "ProportionRelease": None,  # a frozen record built by private_proportion / proportion_from_counts
    "TableRelease": None,  # a frozen record built by private_table / table_from_counts
    "private_mean": (dp.private_mean, dict(values=[1.0, 2.0], lower=0.0, upper=10.0, epsilon=1.0, rng=make_rng(0))),
    "mean_from_sums": (dp.mean_from_sums, dict(count=[10.0], centred_sum=[1.0], centred_squares=[5.0], lower=0.0,
                                               upper=10.0, epsilon=1.0, rng=make_rng(0))),
    "mean_noise_sd": (dp.mean_noise_sd, dict(n=100.0, lower=0.0, upper=10.0, epsilon=1.0, mean=None)),
    "private_proportion": (dp.private_proportion, dict(flags=[True, False], epsilon=1.0, rng=make_rng(0))),
    "proportion_from_counts": (dp.proportion_from_counts, dict(ones=[3.0], zeros=[7.0], epsilon=1.0, rng=make_rng(0))),
    "private_range": (lambda values, epsilon, lower, upper, quantiles: dp.private_range(
        values, epsilon, lower, upper, rng=make_rng(0), accountant=dp.PrivacyAccountant(10.0), quantiles=quantiles),
        dict(values=[1.0, 5.0, 9.0], epsilon=1.0, lower=0.0, upper=10.0, quantiles=(0.05, 0.95))),
    "sampling_variance": None,  # takes a release record only; covered in test_statistics
    "noise_variance": None,  # takes a release record only; covered in test_statistics
    "naive_interval": (lambda confidence: dp.naive_interval(dp.MeanRelease(40.0, 100.0, 1000.0, 17.0, 90.0, 1.0),
                                                            confidence), dict(confidence=0.95)),
    "noise_aware_interval": (lambda confidence: dp.noise_aware_interval(dp.ProportionRelease(0.3, 100.0, 1.0),
                                                                        confidence), dict(confidence=0.95)),
    "bootstrap_interval": (lambda confidence, draws: dp.bootstrap_interval(
        dp.MeanRelease(40.0, 100.0, 1000.0, 17.0, 90.0, 1.0), confidence, rng=make_rng(0), draws=draws),
        dict(confidence=0.95, draws=50)),
    "coverage_interval": (dp.coverage_interval, dict(hits=95, trials=100, confidence=0.95)),
    "simulate_coverage": (lambda population, n, epsilon, trials, lower, upper, confidence, draws: dp.simulate_coverage(
        population, n, epsilon, trials, rng=make_rng(0), lower=lower, upper=upper, confidence=confidence, draws=draws),
        dict(population=[20.0, 40.0, 60.0], n=50, epsilon=1.0, trials=20, lower=17.0, upper=90.0, confidence=0.95,
             draws=20)),
    "private_table": (dp.private_table, dict(groups=[True, False], outcomes=[True, True], epsilon=1.0,
                                             rng=make_rng(0))),
    "table_from_counts": (dp.table_from_counts, dict(counts=[[1.0, 2.0], [3.0, 4.0]], epsilon=1.0, rng=make_rng(0))),
    "chi_square_statistic": (dp.chi_square_statistic, dict(table=[[1.0, 2.0], [3.0, 4.0]])),
    "classical_p_value": (dp.classical_p_value, dict(statistic=3.0)),
    "independence_test": (lambda draws: dp.independence_test(dp.TableRelease(np.array([[5.0, 5.0], [5.0, 5.0]]), 1.0),
                                                              rng=make_rng(0), draws=draws), dict(draws=20)),
    "rejection_rate": (lambda cell_probabilities, n, epsilon, trials, alpha, draws: dp.rejection_rate(
        cell_probabilities, n, epsilon, trials, rng=make_rng(0), alpha=alpha, draws=draws),
        dict(cell_probabilities=[[0.25, 0.25], [0.25, 0.25]], n=50, epsilon=1.0, trials=10, alpha=0.05, draws=20)),
    # chapters/12_attacking_models.ipynb: private hyperparameter tuning (dp_lib.tuning)
    "TuningResult": None,  # a record returned by the tuners
    "best_of_k_epsilon": (dp.best_of_k_epsilon, dict(epsilon=0.5, k=8)),
    "random_stopping_epsilon": (dp.random_stopping_epsilon, dict(epsilon=0.5, eta=1.0)),
    "tnb_mean": (dp.tnb_mean, dict(eta=1.0, gamma=0.1)),
    "tnb_tuning_rdp": (dp.tnb_tuning_rdp, dict(order=2.0, rdp=0.1, order_hat=4.0, rdp_hat=0.2, eta=1.0, gamma=0.1)),
    "poisson_tuning_rdp": (dp.poisson_tuning_rdp, dict(order=3.0, rdp=0.2, epsilon_hat=0.4, delta_hat=1e-6, mu=10.0)),
    "tnb_tuning_epsilon": (lambda delta, eta, gamma: dp.tnb_tuning_epsilon(dp.EpsilonDeltaEvent(0.1), delta, eta, gamma),
                           dict(delta=1e-5, eta=1.0, gamma=0.1)),
    "tuning_output_pmf": (lambda pmf, k: dp.tuning_output_pmf(pmf, k=k), dict(pmf=[0.5, 0.5], k=3)),
    "sample_tnb": (dp.sample_tnb, dict(eta=2.0, gamma=0.3, rng=make_rng(0))),
    "best_of_k": (lambda candidates: dp.best_of_k(lambda c, *, rng: (float(rng.integers(3)), c), candidates,
                                                  dp.EpsilonDeltaEvent(1.0), rng=make_rng(0)),
                  dict(candidates=[1.0, 2.0])),
    "random_stopping": (lambda epsilon, gamma: dp.random_stopping(lambda c, *, rng: (float(rng.integers(3)), c),
                                                                  ["a", "b"], epsilon, gamma, rng=make_rng(0)),
                        dict(epsilon=1.0, gamma=0.5)),
    "tnb_tuning": (lambda delta, eta, gamma: dp.tnb_tuning(lambda c, *, rng: (float(rng.integers(3)), c), ["a", "b"],
                                                           dp.EpsilonDeltaEvent(0.1), delta, eta=eta, gamma=gamma,
                                                           rng=make_rng(0)), dict(delta=1e-5, eta=1.0, gamma=0.5)),
    "adult_tuning_run": None,  # loads the Adult data and trains DP-SGD (seconds per sweep value); tests/test_tuning.py
    # chapters/12_attacking_models.ipynb: membership inference (dp_lib.membership) and the canary audit (dp_lib.canary)
    "true_label_logit": (dp.true_label_logit, dict(theta=[0.5, 0.5], X=_X, y=_Y)),
    "loss_scores": (dp.loss_scores, dict(theta=[0.5, 0.5], X=_X, y=_Y)),
    "train_on_random_halves": (lambda X, y, models: dp.train_on_random_halves(X, y, models, _FAKE_TRAINER,
                                                                              rng=make_rng(0)),
                               dict(X=_X, y=_Y, models=3)),
    "lira_scores": (dp.lira_scores, dict(target_logits=[0.1, 0.2], shadow_logits=_SHADOWS, shadow_keep=_KEEP,
                                         online=True, global_variance=False)),
    "leave_one_out_scores": (lambda logits, global_variance: dp.leave_one_out_scores(
        logits, np.vstack([_KEEP, [True, True]]), global_variance=global_variance),
        dict(logits=[[2.0, 0.0], [2.2, 0.2], [0.0, 2.0], [0.2, 2.2], [2.1, 2.1]], global_variance=False)),
    "OperatingPoint": None,  # a NamedTuple record returned by tpr_at_fpr
    "tpr_at_fpr": (lambda scores, fpr: dp.tpr_at_fpr(scores, [True, False, True, False], fpr),
                   dict(scores=[0.9, 0.8, 0.7, 0.1], fpr=0.25)),
    "roc_curve": (lambda scores: dp.roc_curve(scores, [True, False, True, False]), dict(scores=[0.9, 0.8, 0.7, 0.1])),
    "roc_auc": (lambda scores: dp.roc_auc(scores, [True, False, True, False]), dict(scores=[0.9, 0.8, 0.7, 0.1])),
    "pld_max_tpr": (lambda fpr: dp.pld_max_tpr(fpr, dp.PldAccountant().compose(dp.GaussianEvent(2.0))),
                    dict(fpr=0.01)),
    "canary_datasets": (dp.canary_datasets, dict(X=_X, y=_Y, scale=4.0)),
    "canary_mechanism": None,  # takes a trainer (a callable) and returns one; its runs are swept through audit_canary
    "replay_mechanism": (dp.replay_mechanism, dict(outputs=[1.0, 2.0], outputs_prime=[3.0])),
    "audit_canary": (lambda delta, claimed_epsilon, scale, confidence: dp.audit_canary(
        _FAKE_TRAINER, _X, _Y, 40, rng=make_rng(0), pilot_trials=10, delta=delta, claimed_epsilon=claimed_epsilon,
        scale=scale, confidence=confidence), dict(delta=1e-5, claimed_epsilon=2.0, scale=4.0, confidence=0.95)),
    "accountant_epsilons": (dp.accountant_epsilons, dict(noise_multiplier=2.0, q=0.5, steps=3, delta=1e-5)),
    # L-B: the accounting events of dp_lib.events
    "DpEvent": None,  # the abstract base class: it takes no arguments (its subclasses are swept below)
    "EpsilonDeltaEvent": (dp.EpsilonDeltaEvent, dict(epsilon=1.0, delta=1e-6)),
    "LaplaceEvent": (dp.LaplaceEvent, dict(scale=2.0, sensitivity=1.0)),
    "GaussianEvent": (dp.GaussianEvent, dict(sigma=4.0, sensitivity=1.0)),
    "RandomizedResponseEvent": (dp.RandomizedResponseEvent, dict(epsilon=1.0)),
    "ZcdpEvent": (dp.ZcdpEvent, dict(rho=0.5)),
    "PoissonSampled": (dp.PoissonSampled, dict(q=0.01, event=dp.GaussianEvent(1.1))),
    "Composed": (dp.Composed, dict(events=[dp.LaplaceEvent(1.0), dp.GaussianEvent(2.0)])),
    "Repeated": (dp.Repeated, dict(event=dp.ZcdpEvent(0.1), count=3)),
}

EXTREMES = [0.0, -0.0, 5e-324, -5e-324, 2.2e-308, 1e-300, 1e308, -1e308, 1.7976931348623157e308, math.inf, -math.inf,
            math.nan, 10**400, -(10**400), 2**63, 2**64 + 1, True, False, "1.0", "abc", None, [], [1e308, 1e308],
            np.arange(6, dtype=np.uint64), np.array([2**64 - 1], dtype=np.uint64), np.float32(1e-45), (3, 4)]


def test_every_public_callable_has_an_edge_entry():
    missing = [n for n in PUBLIC_CALLABLES if n not in EDGE_CALLS]
    assert not missing, (f"public functions without an EDGE_CALLS entry in tests/test_conventions.py: {missing}; "
                         "add one line (function, {argument: valid value}) or None with the reason")
    stale = [n for n in EDGE_CALLS if n not in dp.__all__]
    assert not stale, f"EDGE_CALLS entries for names no longer in dp_lib.__all__: {stale}"


def _fresh(kwargs):
    return {k: make_rng(0) if isinstance(v, np.random.Generator) else v for k, v in kwargs.items()}


def _finite_numbers(out) -> bool:
    if isinstance(out, (pd.Series, pd.DataFrame)):
        return _finite_numbers(out.to_numpy())
    if isinstance(out, (tuple, list)):
        return all(_finite_numbers(o) for o in out if not isinstance(o, str))
    arr = np.asarray(out)
    return arr.dtype.kind not in "fc" or bool(np.all(np.isfinite(arr)))


def _probe(name, argument, value):
    func, kwargs = EDGE_CALLS[name]
    kwargs = _fresh(kwargs)
    kwargs[argument] = value
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            out = func(**kwargs)
        except (ValueError, TypeError) as err:
            names = {argument} | {"value", "values"}  # an array argument may be reported by what it holds
            assert any(re.search(rf"\b{re.escape(n)}\b", str(err)) for n in names) or argument in str(err) or \
                any(re.search(rf"\b{re.escape(k)}\b", str(err)) for k in kwargs), (
                f"{name}({argument}={value!r:.40}) raised {type(err).__name__} without naming a parameter: {err}")
            return
        except FileNotFoundError:
            assert argument == "path"
            return
    if isinstance(out, pd.DataFrame) and name == "load_adult":
        return
    if name in INFINITE_OK:
        return
    if not isinstance(out, (np.random.Generator, dp.ThresholdEvent)) and not hasattr(out, "epsilon_lb"):
        assert _finite_numbers(out), f"{name}({argument}={value!r:.40}) returned a non-finite result {out!r:.80}"


# documented infinite answers: the exact limits ±inf at u = 0 or 1, and "no data set is ever unsafe"
INFINITE_OK = {"laplace_inverse_cdf", "distance_to_high_sensitivity"}
# LiRA scores: NaN where an example has no IN (or OUT) shadow, and ±inf for a logit beyond float64 reach of the
# Gaussians (documented in lira_scores)
INFINITE_OK |= {"lira_scores", "leave_one_out_scores"}
SWEPT = [(n, a) for n, e in EDGE_CALLS.items() if e is not None for a in e[1] if a != "rng"]


@pytest.mark.parametrize("name,argument", SWEPT, ids=[f"{n}-{a}" for n, a in SWEPT])
def test_extreme_values_give_a_result_or_an_error_naming_a_parameter(name, argument):
    for value in EXTREMES:
        _probe(name, argument, value)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(data=st.data())
def test_random_extreme_floats(data):
    name, argument = data.draw(st.sampled_from(SWEPT))
    value = data.draw(st.one_of(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
                                st.integers(min_value=-(2**70), max_value=2**70),
                                st.lists(st.floats(width=64), min_size=0, max_size=3)))
    _probe(name, argument, value)

# --- types: a wrong TYPE raises TypeError, a wrong VALUE raises ValueError, both naming the parameter ---------------
# For every swept argument whose valid value is a number: a string, a bool (a bool is not a number) -> TypeError,
# None -> TypeError (or a result where None means "default"); NaN and a negative number -> a finite result or a
# ValueError, never a TypeError. For an integer: a float (2.5, NaN) is the wrong type too -> TypeError. For a flag (valid value True/False): 0, 1, "False", None -> TypeError (a number is
# not a flag). For an array of numbers: a string -> TypeError. Every error names the parameter.

def _kind(value):
    if isinstance(value, (bool, np.bool_)):
        return "flag"
    if isinstance(value, (int, np.integer)):
        return "integer"
    if isinstance(value, (float, np.floating)):
        return "number"
    if isinstance(value, (list, np.ndarray)) and len(value) and np.asarray(value).dtype.kind in "iuf":
        return "numbers"
    return None


WRONG_TYPES = {"number": ["1.0", True, np.bool_(False)], "integer": ["1", True, 2.5],
               "flag": [0, 1, "False", np.float64(1.0)], "numbers": ["abc"]}
TYPED = [(n, a, _kind(v)) for n, e in EDGE_CALLS.items() if e is not None for a, v in e[1].items()
         if a != "rng" and _kind(v) is not None]

# (name, argument) pairs whose owners have not yet moved to TypeError/ValueError (2026-11-25, issue 30).
# This list may only SHRINK: an entry that now passes makes test_type_contract_allow_list_only_shrinks fail.
TYPE_CONTRACT_PENDING: set[str] = set()  # every swept argument keeps the contract (2026-11-25)


def _call(name, argument, value):
    func, kwargs = EDGE_CALLS[name]
    kwargs = _fresh(kwargs)
    kwargs[argument] = value
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        return func(**kwargs)


def _names(err, argument):
    return re.search(rf"\b{re.escape(argument)}\b", str(err)) is not None


def _type_contract_problems(name, argument, kind):
    """The violations of the type contract for one argument, as strings ('' when there is none)."""
    problems = []
    for value in WRONG_TYPES[kind]:
        try:
            _call(name, argument, value)
            problems.append(f"{value!r} accepted")
        except TypeError as err:
            if not _names(err, argument):
                problems.append(f"TypeError for {value!r} does not name {argument}: {err}")
        except Exception as err:  # noqa: BLE001 - any other exception is the violation reported
            problems.append(f"{value!r} raised {type(err).__name__}, not TypeError: {err}")
    try:
        _call(name, argument, None)
    except TypeError as err:
        if not _names(err, argument):
            problems.append(f"TypeError for None does not name {argument}: {err}")
    except Exception as err:  # noqa: BLE001
        problems.append(f"None raised {type(err).__name__}, not TypeError: {err}")
    if kind in ("number", "integer"):
        for value in ((math.nan, -1.0) if kind == "number" else (-1,)):
            try:
                out = _call(name, argument, value)
            except ValueError as err:
                if not _names(err, argument):
                    problems.append(f"ValueError for {value!r} does not name {argument}: {err}")
            except Exception as err:  # noqa: BLE001
                problems.append(f"{value!r} raised {type(err).__name__}, not ValueError: {err}")
            else:
                if name not in INFINITE_OK and not _finite_numbers(out):
                    problems.append(f"{value!r} returned a non-finite result")
    return problems


@pytest.mark.parametrize("name,argument,kind", TYPED, ids=[f"{n}-{a}" for n, a, _ in TYPED])
def test_wrong_type_is_a_type_error_and_wrong_value_a_value_error(name, argument, kind):
    if f"{name}-{argument}" in TYPE_CONTRACT_PENDING:
        pytest.skip("in TYPE_CONTRACT_PENDING (its owner has not yet fixed it)")
    problems = _type_contract_problems(name, argument, kind)
    assert not problems, f"{name}({argument}=...): " + "; ".join(problems)


# --- type hints and the py.typed marker ---------------------------------------------------------------------------

# Public names whose owners have not yet added type hints (2026-11-25, issue 30). This list may only SHRINK.
HINTS_PENDING: set[str] = set()  # every public callable has them (2026-11-25)


def _unhinted(obj):
    """Parameters (and 'return') without an annotation, for a function or a class's own public methods."""
    if inspect.isclass(obj):
        missing = []
        for attr, member in vars(obj).items():
            if inspect.isfunction(member) and (not attr.startswith("_") or attr == "__init__"):
                missing += [f"{attr}.{m}" for m in _unhinted(member)]
        return missing
    if not inspect.isfunction(obj):
        return []
    sig = inspect.signature(obj)
    notes = getattr(obj, "__annotations__", {})
    missing = [p for p in sig.parameters if p not in notes and p not in ("self", "cls")]
    return missing + ([] if "return" in notes or obj.__name__ == "__init__" else ["return"])


@pytest.mark.parametrize("name", PUBLIC_CALLABLES)
def test_public_callables_have_type_hints(name):
    if name in HINTS_PENDING:
        pytest.skip("in HINTS_PENDING (its owner has not yet added type hints)")
    missing = _unhinted(getattr(dp, name))
    assert not missing, f"{name}: no type hint for {missing}"


def test_py_typed_marker_ships():
    assert (PACKAGE / "py.typed").is_file(), "dp_lib/py.typed is missing (PEP 561)"
    pyproject = (ROOT / "pyproject.toml").read_text()
    section = pyproject.split("[tool.setuptools.package-data]", 1)[1].split("\n[", 1)[0]
    assert "py.typed" in section, "pyproject.toml's package-data must list py.typed so that the wheel ships it"


# --- size: functions <= ~40 code lines, modules <= ~150 code lines unless the docstring gives a "Size:" reason ----

MAX_FUNCTION_LINES, MAX_MODULE_LINES = 40, 150
# Modules over the limit whose owners have not yet split them or given a reason (2026-11-25). May only SHRINK.
SIZE_PENDING: set[str] = set()  # every module is within the limits or says why (2026-11-25)


def _code_lines(source):
    """The line numbers holding code: no blank lines, comments or docstrings."""
    import io
    import tokenize

    docs = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                docs.update(range(first.lineno, first.end_lineno + 1))
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in skip:
            lines.update(n for n in range(tok.start[0], tok.end[0] + 1) if n not in docs)
    return lines


def _size_problems(path):
    source = path.read_text()
    tree = ast.parse(source)
    lines = _code_lines(source)
    problems = [f"{node.name}: {n} code lines > {MAX_FUNCTION_LINES}" for node in ast.walk(tree)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                for n in [sum(node.lineno <= k <= node.end_lineno for k in lines)] if n > MAX_FUNCTION_LINES]
    if len(lines) > MAX_MODULE_LINES and "Size:" not in (ast.get_docstring(tree) or ""):
        problems.append(f"module: {len(lines)} code lines > {MAX_MODULE_LINES} (split it by topic, or give the "
                        "reason in a 'Size:' line of its docstring)")
    return problems


@pytest.mark.parametrize("path", _package_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_functions_and_modules_stay_small(path):
    if str(path.relative_to(ROOT)) in SIZE_PENDING:
        pytest.skip("in SIZE_PENDING (its owner has not yet split it)")
    problems = _size_problems(path)
    assert not problems, f"{path.relative_to(ROOT)}: " + "; ".join(problems)


def test_pending_lists_only_shrink():
    """Each allow-list entry must still be needed: an entry that now passes must be deleted, so the lists shrink."""
    typed = {f"{n}-{a}": k for n, a, k in TYPED}
    stale = [f"TYPE_CONTRACT_PENDING: {key}" for key in sorted(TYPE_CONTRACT_PENDING)
             if key not in typed or not _type_contract_problems(*key.rsplit("-", 1), typed[key])]
    stale += [f"HINTS_PENDING: {n}" for n in sorted(HINTS_PENDING) if n not in dp.__all__ or not _unhinted(getattr(dp, n))]
    stale += [f"SIZE_PENDING: {p}" for p in sorted(SIZE_PENDING)
              if not (ROOT / p).is_file() or not _size_problems(ROOT / p)]
    assert not stale, "entries that now pass (delete them from the list): " + ", ".join(stale)
