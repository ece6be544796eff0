"""Exercise specifications of the book's chapters (teacher material; see ``exercises/_core.py``)."""

from exercises._core import (Condition, ExamQuestion, Exercise, Mistake, Part, Probe,  # noqa: F401
                             RubricItem)
