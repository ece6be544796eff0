"""Figures for the book, in one colour-blind-safe style.

``style`` holds the shared style; each topic module holds the figures of one
chapter. Every figure function returns a ``matplotlib.figure.Figure``.
"""

from .audit import *  # noqa: F401,F403
from .audit import __all__ as _audit_all
from .composition import *  # noqa: F401,F403
from .composition import __all__ as _composition_all
from .contributions import *  # noqa: F401,F403
from .contributions import __all__ as _contributions_all
from .laplace import *  # noqa: F401,F403
from .laplace import __all__ as _laplace_all
from .learning import *  # noqa: F401,F403
from .learning import __all__ as _learning_all
from .local import *  # noqa: F401,F403
from .local import __all__ as _local_all
from .selection import *  # noqa: F401,F403
from .selection import __all__ as _selection_all
from .sensitivity import *  # noqa: F401,F403
from .sensitivity import __all__ as _sensitivity_all
from .style import *  # noqa: F401,F403
from .style import __all__ as _style_all

__all__ = [*_style_all, *_audit_all, *_composition_all, *_contributions_all, *_laplace_all, *_learning_all, *_local_all, *_selection_all, *_sensitivity_all]
