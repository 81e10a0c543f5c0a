"""Concept classes and data-independent covers.

Unlike the estimators, nothing here sees data: a class builds finite covers
and query workloads from *public* inputs only (bounds, γ, a public random
stream), which :mod:`sksmooth.online` and :mod:`sksmooth.proper` use as
hypothesis sets and :mod:`sksmooth.release` as query workloads.

A *concept class* (``Thresholds``, ``Stumps``, ``Boxes``, ``Halfspaces``,
``Marginals``/``Conjunctions``, ``Parities``) builds a finite instance with::

    cover = Stumps().cover(bounds=(lower, upper), gamma=0.01, max_size=100_000)

A *finite instance* (subclass of :class:`FiniteConcepts`: a cover or a
workload; :class:`FiniteClass` is one directly) has ``n_concepts``,
``evaluate(X, chunk_size=None) -> bool (n_points, n_concepts)``,
``evaluate_sign(X) -> int8 ±1``, ``describe(j)``, ``subset(indices)``,
``cover_info()``, and the cover metadata ``gamma``, ``gamma_certified``,
``vc_dim``, ``is_bracketing``, ``bracket_width``, ``bounds``, plus
structured parameters for fast paths (``StumpConcepts.feature/threshold/
sign``, ``BoxConcepts.lower/upper``, ...). Hypotheses read True as +1.

References
----------
N. Haghtalab, T. Roughgarden and A. Shetty, "Smoothed Analysis of Online and
Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129, Def. 2.1,
§3.2, Thm 3.3, App. C.1.
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
