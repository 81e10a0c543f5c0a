"""Concept classes and their data-independent covers and query workloads.

A class (``Thresholds``, ``Stumps``, ``Boxes``, ``Halfspaces``, ``Marginals``,
``Conjunctions``, ``Parities``) builds a :class:`FiniteConcepts` instance from
public inputs only, e.g. ``Stumps().cover(bounds=(lower, upper), gamma=0.01)``.
Theory: Haghtalab, Roughgarden, Shetty, NeurIPS 2020, arXiv:2006.10129, Def. 2.1, App. C.1.
"""

from ._axis import BoxConcepts, Boxes, StumpConcepts, Stumps, Thresholds
from ._base import ConceptClass, FiniteConcepts
from ._discrete import Conjunctions, MarginalConcepts, Marginals, ParityConcepts, Parities
from ._finite import FiniteClass
from ._halfspaces import HalfspaceConcepts, Halfspaces, estimate_cover_radius
from ._registry import check_concept_class, user_code_notes

__all__ = [
    "BoxConcepts",
    "Boxes",
    "ConceptClass",
    "Conjunctions",
    "FiniteClass",
    "FiniteConcepts",
    "HalfspaceConcepts",
    "Halfspaces",
    "MarginalConcepts",
    "Marginals",
    "ParityConcepts",
    "Parities",
    "StumpConcepts",
    "Stumps",
    "Thresholds",
    "check_concept_class",
    "user_code_notes",
    "estimate_cover_radius",
]
