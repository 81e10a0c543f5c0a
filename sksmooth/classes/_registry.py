"""Resolve a user-facing ``hypotheses=`` / ``queries=`` parameter to a class."""

from ._axis import Boxes, Stumps, Thresholds
from ._base import ConceptClass, FiniteConcepts
from ._discrete import Conjunctions, Marginals, Parities
from ._halfspaces import Halfspaces

__all__ = ["check_concept_class"]

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
