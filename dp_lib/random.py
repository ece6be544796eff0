"""Where randomness enters ``dp_lib``: one seeded generator, passed explicitly.

Every function in ``dp_lib`` that draws noise takes a keyword-only
``rng: numpy.random.Generator``. Ints and ``None`` are refused: re-seeding
on every call makes the noise of separate calls identical or correlated,
which silently breaks composition.
"""

from __future__ import annotations

import numpy as np

__all__ = ["make_rng", "check_rng"]


def make_rng(seed: int | list[int] | np.random.SeedSequence | None = None) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` (PCG64) seeded with ``seed``.

    This is the only place in ``dp_lib`` where a seed enters. Chapters call it
    once in their setup cell so that every figure is reproducible; a real
    deployment must use fresh, unpredictable randomness instead (``seed=None``
    here, or better a cryptographically secure source).

    Privacy: none by itself; reproducibility only.

    Defined in: chapters/01_why_privacy.ipynb

    Examples
    --------
    >>> rng = make_rng(2024)
    >>> round(float(rng.random()), 6) == round(float(make_rng(2024).random()), 6)
    True
    """
    if isinstance(seed, np.random.Generator):
        raise TypeError("seed must be an int, a SeedSequence or None; you passed a Generator, use it directly as rng")
    def natural(x):
        return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) and x >= 0

    def integer(x):
        return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))

    items = seed if isinstance(seed, (list, tuple)) else [seed]
    if not (seed is None or isinstance(seed, np.random.SeedSequence) or all(integer(x) for x in items)):
        raise TypeError("seed must be an int >= 0, a list of them, a numpy.random.SeedSequence or None, "
                        f"got {seed!r:.40}")
    ok = seed is None or isinstance(seed, np.random.SeedSequence) or (len(items) > 0 and all(natural(x) for x in items))
    if not ok:
        raise ValueError("seed must be an int >= 0, a list of them, a numpy.random.SeedSequence or None, "
                         f"got {seed!r:.40}")
    return np.random.default_rng(seed)


def check_rng(rng: np.random.Generator) -> np.random.Generator:
    """Require a ``numpy.random.Generator`` and return it.

    Parameters
    ----------
    rng : the object to check.

    Returns
    -------
    the same ``numpy.random.Generator``.

    Privacy: refusing ints and ``None`` keeps noise of separate calls independent.

    Used in: chapters/02_laplace.ipynb, through every function that draws noise (``make_rng`` makes the generator)

    Examples
    --------
    >>> check_rng(make_rng(1)) is not None
    True
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        why = "rng is required"
    elif isinstance(rng, (int, np.integer)):
        why = "rng must not be an int seed"
    else:
        why = f"rng must be a numpy.random.Generator, got {type(rng).__name__}"
    raise TypeError(
        f"{why}: pass a numpy.random.Generator made once with dp_lib.make_rng(seed). "
        "Re-seeding per call makes the noise of separate releases identical or correlated, "
        "which silently breaks composition."
    )
