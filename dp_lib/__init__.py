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
- ``widgets``: ``interact_figure``, the chapters' sliders (one PNG per move), and ``setup_figures``

Every function that draws noise takes a keyword-only ``rng`` (a
``numpy.random.Generator``).
"""

from .accounting import *  # noqa: F401,F403
from .aggregate import *  # noqa: F401,F403
from .attacks import *  # noqa: F401,F403
from .audit import *  # noqa: F401,F403
from .composition import *  # noqa: F401,F403
from .composition_rules import *  # noqa: F401,F403
from .contributions import *  # noqa: F401,F403
from .data import *  # noqa: F401,F403
from .dp_sgd import *  # noqa: F401,F403
from .exact import *  # noqa: F401,F403
from .floating import *  # noqa: F401,F403
from .learning import *  # noqa: F401,F403
from .local import *  # noqa: F401,F403
from .mechanisms import *  # noqa: F401,F403
from .noise import *  # noqa: F401,F403
from .quantiles import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from .rdp import *  # noqa: F401,F403
from .selection import *  # noqa: F401,F403
from .sensitivity import *  # noqa: F401,F403
from .svt import *  # noqa: F401,F403
from .unary import *  # noqa: F401,F403
from .widgets import *  # noqa: F401,F403
from . import (accounting, aggregate, attacks, audit, composition, composition_rules, contributions, data, dp_sgd, events, exact, floating, learning, local, mechanisms, noise, quantiles, random, rdp, selection, sensitivity, svt, unary, validation, widgets)  # noqa: E402

__all__ = [*accounting.__all__, *aggregate.__all__, *attacks.__all__, *audit.__all__, *composition.__all__, *composition_rules.__all__, *contributions.__all__, *data.__all__, *dp_sgd.__all__, *exact.__all__, *floating.__all__, *learning.__all__, *local.__all__, *mechanisms.__all__, *noise.__all__, *quantiles.__all__, *random.__all__, *rdp.__all__, *selection.__all__, *sensitivity.__all__, *svt.__all__, *unary.__all__, *widgets.__all__]
from .snapping import *  # noqa: E402,F401,F403  (snapping_mech, beside floating)
__all__ += snapping.__all__
from .features import *  # noqa: E402,F401,F403  (Adult feature engineering, split from learning: L-C)
from .logistic import *  # noqa: E402,F401,F403  (the logistic model: loss, gradients, clipping: L-C)
from .visits import *  # noqa: E402,F401,F403  (the shop log, split from contributions: L-C)
from .pipelinedp_release import *  # noqa: E402,F401,F403  (the PipelineDP wrapper: L-C)
from .audit_records import *  # noqa: E402,F401,F403  (ThresholdEvent, AuditResult, audit_table: L-C)
__all__ += features.__all__ + logistic.__all__ + visits.__all__ + pipelinedp_release.__all__ + audit_records.__all__
from .fdp import *  # noqa: E402,F401,F403  (f-DP and Gaussian DP)
from .pld import *  # noqa: E402,F401,F403  (the PLD accountant)
from .shuffling import *  # noqa: E402,F401,F403  (shuffled batches, a small exact case)
__all__ += fdp.__all__ + pld.__all__ + shuffling.__all__

from .query_release import *  # noqa: E402,F401,F403  (workloads, per-query noise, MWEM)
from .synthetic import *  # noqa: E402,F401,F403  (marginal-based synthetic data)
from .consistency import *  # noqa: E402,F401,F403  (least-squares consistency)
__all__ += query_release.__all__ + synthetic.__all__ + consistency.__all__

from .statistics import *  # noqa: E402,F401,F403  (private mean, proportion and range)
from .intervals import *  # noqa: E402,F401,F403  (confidence intervals and their coverage)
from .hypothesis import *  # noqa: E402,F401,F403  (a private 2x2 independence test)
__all__ += statistics.__all__ + intervals.__all__ + hypothesis.__all__
from .events import *  # noqa: E402,F401,F403  (the accounting events: L-B)
__all__ += events.__all__

__version__ = "0.3.0.dev0"

def __getattr__(name):
    """Import ``dp_lib.plotting`` (and with it matplotlib) on first use, so that ``import dp_lib`` stays fast."""
    if name == "plotting":
        import importlib

        return importlib.import_module(".plotting", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
