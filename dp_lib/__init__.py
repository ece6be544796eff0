"""dp_lib: the small, tested library behind *Differential Privacy by Experiment*.

Modules are split by topic, and every public name is re-exported here:

- ``random``: ``make_rng`` and the generator check (the only place a seed enters)
- ``noise``: densities, CDFs and inverse-CDF samplers
- ``mechanisms``: the Laplace and Gaussian mechanisms and their calibrations
- ``composition``: sequential, parallel and advanced composition; the budget accountant
- ``data``: ``load_adult``, the Adult census data with fake identifiers
- ``selection``: private selection: exponential mechanism, report noisy max, permute-and-flip
- ``local``: local DP: randomized response, k-ary RR, unary encoding (SUE/OUE)
- ``sensitivity``: local sensitivity, propose-test-release, smooth sensitivity
- ``aggregate``: sample-and-aggregate over a per-record hash partition
- ``learning``: logistic regression by noisy gradient descent: clipping, per-iteration noise, composition
- ``audit``: empirical auditing: a certified lower bound on ε from neighbouring inputs (Clopper–Pearson)
- ``validation``: shared argument checks (``ValueError`` naming the parameter)
- ``plotting``: the book's figures, in one colour-blind-safe style
- ``widgets``: ``interact_figure``, the chapters' sliders (one PNG per move), and ``setup_figures``

Every function that draws noise takes a keyword-only ``rng`` (a
``numpy.random.Generator``).
"""

from .aggregate import *  # noqa: F401,F403
from .audit import *  # noqa: F401,F403
from .composition import *  # noqa: F401,F403
from .data import *  # noqa: F401,F403
from .learning import *  # noqa: F401,F403
from .local import *  # noqa: F401,F403
from .mechanisms import *  # noqa: F401,F403
from .noise import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from .selection import *  # noqa: F401,F403
from .sensitivity import *  # noqa: F401,F403
from .widgets import *  # noqa: F401,F403
from . import (aggregate, audit, composition, data, learning, local, mechanisms, noise, plotting,  # noqa: E402
               random, selection, sensitivity, validation, widgets)

__all__ = [*aggregate.__all__, *audit.__all__, *composition.__all__, *data.__all__, *learning.__all__, *local.__all__, *mechanisms.__all__, *noise.__all__,
           *random.__all__, *selection.__all__, *sensitivity.__all__, *widgets.__all__]

__version__ = "0.1.0"
