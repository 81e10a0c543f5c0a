"""Resolve a user-facing ``hypotheses=`` / ``queries=`` parameter to a class."""

from ._axis import Boxes, Stumps, Thresholds
from ._base import ConceptClass, FiniteConcepts
from ._discrete import Conjunctions, Marginals, Parities
from ._halfspaces import Halfspaces

__all__ = ["check_concept_class", "user_code_notes"]

_NAMES = {
    "thresholds": Thresholds,
    "stumps": Stumps,
    "boxes": Boxes,
    "halfspaces": Halfspaces,
    "halfspaces_origin": lambda: Halfspaces(fit_intercept=False),
    "marginals": Marginals,
    "conjunctions": Conjunctions,
    "parities": Parities,
}


def check_concept_class(value, name="hypotheses"):
    """Return a :class:`ConceptClass` or :class:`FiniteConcepts` for ``value``.

    Parameters
    ----------
    value : str, ConceptClass or FiniteConcepts
        A name in ``{'thresholds', 'stumps', 'boxes', 'halfspaces',
        'halfspaces_origin', 'marginals', 'conjunctions', 'parities'}``
        (default parameters), a concept-class instance, or a ready finite
        instance (a cover, a workload or a :class:`FiniteClass`), returned
        as is. Estimators call this in ``fit`` (never in ``__init__``).
    name : str
        Parameter name used in error messages.

    Returns
    -------
    ConceptClass or FiniteConcepts
        Call ``.cover(bounds=..., gamma=..., max_size=..., random_state=...)``
        on a ``ConceptClass``; a ``FiniteConcepts`` is used directly.
    """
    if isinstance(value, (ConceptClass, FiniteConcepts)):
        return value
    if isinstance(value, str) and value in _NAMES:
        return _NAMES[value]()
    raise ValueError(
        f"{name} must be one of {sorted(_NAMES)}, a sksmooth.classes concept class "
        f"(e.g. Stumps()) or a finite instance (e.g. FiniteClass(matrix=...)); got {value!r}.")


def user_code_notes(value, name):
    """What a privacy claim cannot certify about a class or workload ``value``.

    A name, a matrix, a sksmooth class (its type defined in sksmooth) or a
    matrix-defined :class:`~sksmooth.classes.FiniteClass` gives each row a
    value that depends on that row alone, so counts over rows have
    sensitivity 1. A callable, a ``FiniteClass`` of functions or an object
    of a user type is user code: the code cannot check that. Returns a list
    of not-certified notes (empty when nothing is user code).
    """
    import numpy as np

    from ._finite import FiniteClass

    if value is None or isinstance(value, (str, np.ndarray, list, tuple)):
        return []
    user = not type(value).__module__.startswith("sksmooth.")  # a user type (or subclass)
    if isinstance(value, FiniteClass) and not user:
        user = value.functions is not None
    if not user:
        return []
    return [f"{name} is user code ({type(value).__name__}): the claim needs each row's "
            "value to depend on that row alone (counts of sensitivity 1), which the code "
            "cannot check"]
