"""dp_lib: the small, tested library behind *Differential Privacy by Experiment*.

Modules are split by topic, and every public name is re-exported here:

- ``random``: ``make_rng`` and the generator check (the only place a seed enters)
- ``noise``: densities, CDFs and inverse-CDF samplers
- ``mechanisms``: the Laplace and Gaussian mechanisms and their calibrations
- ``events``: the accounting events (LaplaceEvent, GaussianEvent, PoissonSampled, ...) every accountant composes
- ``composition``: the budget accountant (PrivacyAccountant) and the parallel histogram
- ``composition_rules``: sequential, parallel, advanced and optimal composition
- ``rdp``: zCDP and Rényi DP curves, amplification by subsampling, the conversion to (ε, δ), DP-SGD's σ
- ``accounting``: the RDP accountant (RdpAccountant)
- ``data``: ``load_adult``, the Adult census data with fake identifiers
- ``selection``: private selection: exponential mechanism, report noisy max, permute-and-flip
- ``quantiles``: private quantiles by the exponential mechanism on a continuous range
- ``local``: local DP: randomized response, k-ary RR
- ``unary``: local DP by unary encoding (SUE/OUE), streamed surveys, and the shared debiasing estimator
- ``sensitivity``: local sensitivity, propose-test-release, smooth sensitivity
- ``aggregate``: sample-and-aggregate over a per-record hash partition
- ``features``: the Adult features of the learning chapter (per-record maps with public bounds)
- ``logistic``: the logistic model: loss, per-example gradients, clipping, accuracy
- ``learning``: logistic regression by noisy gradient descent: per-iteration noise, composition
- ``dp_sgd``: minibatch DP-SGD: Poisson sampling, per-example clipping, Gaussian noise, RDP accounting
- ``svt``: the sparse vector technique: AboveThreshold, c positives, numeric SVT (the broken published variants: ``svt_broken``, not re-exported)
- ``audit``: empirical auditing: a certified lower bound on ε from neighbouring inputs (Clopper–Pearson)
- ``audit_records``: what an audit returns (``ThresholdEvent``, ``AuditResult``) and ``audit_table``
- ``validation``: shared argument checks (``TypeError`` for a wrong type, ``ValueError`` for a wrong value,
  both naming the parameter); ``shaping``: how results are handed back
- ``attacks``: linkage, k-anonymity classes, reconstruction and membership-inference attacks
- ``exact``: exact discrete Laplace/Gaussian samplers and mechanisms, snapping; ``floating``: the floating-point attack
- ``plotting``: the book's figures, in one colour-blind-safe style (imported on first use)
- ``local``: local DP: randomized response, k-ary RR, unary encoding (SUE/OUE)
- ``visits``: the user-level chapter's shop log (generator and loader)
- ``contributions``: user-level privacy: contribution bounding, partition selection
- ``pipelinedp_release``: the PipelineDP pipeline, checked and with numpy's global state restored
- ``tuning``: private hyperparameter tuning: best of k, random stopping, Papernot–Steinke's random number of runs
- ``membership``: membership inference (loss threshold, LiRA) and TPR at low FPR; ``canary``: the canary audit of DP-SGD
- ``widgets``: ``interact_figure``, the chapters' sliders (one PNG per move), and ``setup_figures``

Every function that draws noise takes a keyword-only ``rng`` (a
``numpy.random.Generator``).
"""

from . import (accounting, aggregate, attacks, audit, audit_records, composition, composition_rules, consistency, contributions, data, dp_sgd, events, exact, fdp, features, floating, hypothesis, intervals, learning, local, logistic, mechanisms, noise, pipelinedp_release, pld, quantiles, query_release, random, rdp, selection, sensitivity, shuffling, snapping, statistics, svt, synthetic, tuning, unary, visits, widgets)  # noqa: F401  (each module's __all__ is re-exported below)
from .accounting import *  # noqa: F401,F403
from .aggregate import *  # noqa: F401,F403
from .attacks import *  # noqa: F401,F403
from .audit import *  # noqa: F401,F403
from .audit_records import *  # noqa: F401,F403
from .composition import *  # noqa: F401,F403
from .composition_rules import *  # noqa: F401,F403
from .consistency import *  # noqa: F401,F403
from .contributions import *  # noqa: F401,F403
from .data import *  # noqa: F401,F403
from .dp_sgd import *  # noqa: F401,F403
from .events import *  # noqa: F401,F403
from .exact import *  # noqa: F401,F403
from .fdp import *  # noqa: F401,F403
from .features import *  # noqa: F401,F403
from .floating import *  # noqa: F401,F403
from .hypothesis import *  # noqa: F401,F403
from .intervals import *  # noqa: F401,F403
from .learning import *  # noqa: F401,F403
from .local import *  # noqa: F401,F403
from .logistic import *  # noqa: F401,F403
from .mechanisms import *  # noqa: F401,F403
from .noise import *  # noqa: F401,F403
from .pipelinedp_release import *  # noqa: F401,F403
from .pld import *  # noqa: F401,F403
from .quantiles import *  # noqa: F401,F403
from .query_release import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from .rdp import *  # noqa: F401,F403
from .selection import *  # noqa: F401,F403
from .sensitivity import *  # noqa: F401,F403
from .shuffling import *  # noqa: F401,F403
from .snapping import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403
from .svt import *  # noqa: F401,F403
from .synthetic import *  # noqa: F401,F403
from .tuning import *  # noqa: F401,F403
from .unary import *  # noqa: F401,F403
from .visits import *  # noqa: F401,F403
from .widgets import *  # noqa: F401,F403

__all__ = [name for module in (accounting, aggregate, attacks, audit, audit_records, composition, composition_rules, consistency, contributions, data, dp_sgd, events, exact, fdp, features, floating, hypothesis, intervals, learning, local, logistic, mechanisms, noise, pipelinedp_release, pld, quantiles, query_release, random, rdp, selection, sensitivity, shuffling, snapping, statistics, svt, synthetic, tuning, unary, visits, widgets) for name in module.__all__]

# the chapter 'Attacking and tuning models': membership inference and the canary audit of DP-SGD
from . import canary, membership  # noqa: E402,F401
from .canary import *  # noqa: E402,F401,F403
from .membership import *  # noqa: E402,F401,F403
__all__ += [*membership.__all__, *canary.__all__]

__version__ = "0.3.0"

def __getattr__(name):
    """Import ``dp_lib.plotting`` (and with it matplotlib) on first use, so that ``import dp_lib`` stays fast."""
    if name == "plotting":
        import importlib

        return importlib.import_module(".plotting", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
