"""Figures for the book, in one colour-blind-safe style.

``style`` holds the shared style; each topic module holds the figures of one
chapter. Every figure function returns a ``matplotlib.figure.Figure``.
"""

from .accounting import *  # noqa: F401,F403
from .accounting import __all__ as _accounting_all
from .attacks import *  # noqa: F401,F403
from .attacks import __all__ as _attacks_all
from .audit import *  # noqa: F401,F403
from .audit import __all__ as _audit_all
from .composition import *  # noqa: F401,F403
from .composition import __all__ as _composition_all
from .contributions import *  # noqa: F401,F403
from .contributions import __all__ as _contributions_all
from .exact import *  # noqa: F401,F403
from .exact import __all__ as _exact_all
from .laplace import *  # noqa: F401,F403
from .laplace import __all__ as _laplace_all
from .learning import *  # noqa: F401,F403
from .learning import __all__ as _learning_all
from .local import *  # noqa: F401,F403
from .local import __all__ as _local_all
from .selection import *  # noqa: F401,F403
from .selection import __all__ as _selection_all
from .query_release import *  # noqa: F401,F403
from .query_release import __all__ as _query_release_all
from .sensitivity import *  # noqa: F401,F403
from .sensitivity import __all__ as _sensitivity_all
from .sparse_vector import *  # noqa: F401,F403
from .sparse_vector import __all__ as _sparse_vector_all
from .statistics import *  # noqa: F401,F403
from .statistics import __all__ as _statistics_all
from .style import *  # noqa: F401,F403
from .style import __all__ as _style_all

__all__ = [*_accounting_all, *_attacks_all, *_audit_all, *_composition_all, *_contributions_all, *_exact_all, *_laplace_all, *_learning_all, *_local_all, *_selection_all, *_sensitivity_all, *_sparse_vector_all, *_statistics_all, *_style_all]
from .pld import *  # noqa: E402,F401,F403  (chapters/12_accounting.ipynb)
from .pld import __all__ as _pld_all  # noqa: E402
__all__ += _pld_all
__all__ += _query_release_all
