"""Figures for the book, in one colour-blind-safe style.

``style`` holds the shared style; each topic module holds the figures of one
chapter. Every figure function returns a ``matplotlib.figure.Figure``.
"""

from . import (accounting, attacks, audit, composition, contributions, exact, laplace, learning, lecture, local, pld, query_release, selection, sensitivity, sparse_vector, statistics, style, tuning)  # noqa: F401
from .accounting import *  # noqa: F401,F403
from .attacks import *  # noqa: F401,F403
from .audit import *  # noqa: F401,F403
from .composition import *  # noqa: F401,F403
from .contributions import *  # noqa: F401,F403
from .exact import *  # noqa: F401,F403
from .laplace import *  # noqa: F401,F403
from .learning import *  # noqa: F401,F403
from .lecture import *  # noqa: F401,F403
from .local import *  # noqa: F401,F403
from .pld import *  # noqa: F401,F403
from .query_release import *  # noqa: F401,F403
from .selection import *  # noqa: F401,F403
from .sensitivity import *  # noqa: F401,F403
from .sparse_vector import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403
from .style import *  # noqa: F401,F403
from .tuning import *  # noqa: F401,F403

__all__ = [name for module in (accounting, attacks, audit, composition, contributions, exact, laplace, learning, lecture, local, pld, query_release, selection, sensitivity, sparse_vector, statistics, style, tuning) for name in module.__all__]

from . import models  # noqa: E402,F401  (chapters/12: membership-inference ROC curves)
from .models import *  # noqa: E402,F401,F403
__all__ += models.__all__
