"""The ``'littlestone'`` strategy: PolyPriPropLearn for a finite class on a finite domain.

Binary only: the class is a ``{-1, +1}`` matrix over the public domain.
Rows of ``X`` off the domain (or with non-finite entries) are mapped to the
nearest domain point, a fixed row-wise rule (so no error depends on private
rows); labels outside ``classes_`` map to ``classes_[0]``.

Privacy (substitution neighbours, public ``n``): a data-independent
permutation splits the sample into ``n_chunks`` users of sparse selection,
``(epsilon, delta)``-DP, and a disjoint part for GenericLearner, an
exponential mechanism, ``(epsilon, 0)``-DP. One example lies in exactly one
part, so the release is ``(epsilon, delta)``-DP (parallel composition); the
minimax set between them is post-processing.

References
----------
Ghazi, Golowich, Kumar, Manurangsi, "Sample-efficient proper PAC learning
with approximate differential privacy", STOC 2021, arXiv:2012.03893:
Alg. 1 (ReduceTree), Alg. 2 (PolyPriLearn), §5.2 (sparse selection,
Prop. 5.6), Lemma 6.2 (minimax set), Lemma 6.3 (GenericLearner), Alg. 3
(PolyPriPropLearn), Thm 6.4 (sample size).
"""

import warnings
from dataclasses import dataclass, field

import numpy as np

from .._guarantee import spent_as_set
from ..classes import user_code_notes
from ..exceptions import PrivacyWarning, user_stacklevel
from ..mechanisms import FLOAT_SELECTION_NOTE
from .littlestone._ldim import LittlestoneOracle, as_class_matrix
from .littlestone._polypri import (
    poly_pri_prop_learn,
    resolve_parameters,
    theoretical_sample_size,
)
from ._hypothesis import (DomainRule, SelectedHypothesis, TwoLabelRule, nearest_domain_index,
                          row_blocks)

__all__ = ["LittlestoneStrategy", "DomainSample", "LittlestoneDetails"]

LITTLESTONE_SOURCE = (
    "Ghazi, Golowich, Kumar, Manurangsi, 'Sample-efficient proper PAC learning with "
    "approximate differential privacy', STOC 2021, arXiv:2012.03893, Alg. 3 "
    "PolyPriPropLearn, Thm 6.4 (PolyPriLearn (eps, delta) and GenericLearner (eps, 0) "
    "on disjoint parts)"
)


@dataclass(frozen=True)
class DomainSample:
    """Private running statistics: the sample as domain indices and ``{-1, +1}`` labels."""

    x_idx: np.ndarray
    y_pm1: np.ndarray

    @property
    def n(self):
        return len(self.x_idx)


@dataclass(frozen=True)
class LittlestoneDetails:
    """Public by-products of one Littlestone release (functions of private outputs)."""

    parameters: dict
    theoretical_sample_size: object
    soa_values: np.ndarray
    candidate_indices: np.ndarray
    from_fallback: bool
    game_value: float = field(default=float("nan"))


@dataclass(frozen=True)
class LittlestoneStrategy:
    """PolyPriPropLearn (public structure only: domain, class, Ldim)."""

    domain: np.ndarray
    oracle: LittlestoneOracle
    descriptions: tuple
    ldim: int

    name = "littlestone"
    bounds_inferred = False  # the domain is the public box

    @classmethod
    def build(cls, params, X, n_classes, public_rng):
        """Domain and class from the public parameters (``X``: its width only)."""
        n_features = X.shape[1]
        cls.check_public_params(params)
        if n_classes != 2:
            raise ValueError(
                "method='littlestone' is binary (a {-1, +1} class on a finite domain); "
                f"classes_ has {n_classes} labels. Use method='exponential', which "
                "selects a multiclass hypothesis natively (e.g. hypotheses='stumps')."
            )
        domain, matrix, descriptions = _finite_class(params, n_features)
        oracle = LittlestoneOracle(matrix)
        return cls(domain, oracle, tuple(descriptions), int(oracle.ldim()))

    @staticmethod
    def check_public_params(params):
        """The checks of the parameters alone, before any data is read."""
        if isinstance(params["hypotheses"], (np.ndarray, list, tuple)):
            as_class_matrix(params["hypotheses"], name="hypotheses")
        if params["delta"] == 0:
            raise ValueError(
                "method='littlestone' is (epsilon, delta)-DP with delta > 0 (sparse "
                "selection, Ghazi et al. 2021 §5.2); pass e.g. delta=1e-6."
            )
        if params["neighbouring"] == "add_remove":
            raise ValueError(
                "method='littlestone' is private under substitution only (its disjoint "
                "splits need a public n); pass neighbouring='substitution'."
            )

    @property
    def n_hypotheses(self):
        return self.oracle.n_hypotheses

    def empty_statistics(self):
        return DomainSample(np.empty(0, np.int64), np.empty(0))

    def accumulate(self, statistics, X, y_codes):
        # by blocks: the exact-match lookup sorts its rows (n log n on the whole X)
        idx = np.concatenate([nearest_domain_index(self.domain, X[rows])
                              for rows in row_blocks(X.shape[0])] or [np.empty(0, np.int64)])
        y_pm1 = np.where(np.asarray(y_codes) == 1, 1.0, -1.0)
        return DomainSample(np.concatenate([statistics.x_idx, idx]),
                            np.concatenate([statistics.y_pm1, y_pm1]))

    def resolved_parameters(self, params, n):
        names = ("n_generic", "n_chunks", "alpha_delta", "k_prime", "max_set_size", "h_size")
        resolved = resolve_parameters(
            n, d=self.ldim, n_hypotheses=self.oracle.n_hypotheses,
            n_points=self.oracle.n_points, epsilon=params["epsilon"],
            delta=params["delta"], alpha=params["alpha"], beta=params["beta"],
            **{name: params[name] for name in names},
        )
        if resolved["n_generic"] > n:
            # n is public under substitution: this message reveals nothing private
            raise ValueError(
                f"n_generic={resolved['n_generic']} exceeds the number of samples {n}; "
                "pass n_generic='auto' or a smaller value."
            )
        return resolved

    def select(self, statistics, params, randomness):
        """``(index, LittlestoneDetails)``: split from the public stream, noise from the noise stream."""
        n = statistics.n
        resolved = self.resolved_parameters(params, n)
        n_theory = theoretical_sample_size(
            self.ldim, self.ldim, params["epsilon"], params["delta"], params["alpha"],
            params["beta"],
        )
        if n < n_theory:
            warnings.warn(
                f"n={n} is below the sample size n={n_theory} of Thm 6.4 (Ghazi et al. "
                "2021, constant C=1): the accuracy guarantee does not apply (privacy "
                "does).",
                PrivacyWarning,
                stacklevel=user_stacklevel(),
            )
        perm = randomness.public.permutation(n)  # data-independent split
        index, details = poly_pri_prop_learn(
            self.oracle, statistics.x_idx[perm], statistics.y_pm1[perm],
            epsilon=params["epsilon"], delta=params["delta"], rng=randomness.noise, d=self.ldim,
            **resolved,
        )
        return index, LittlestoneDetails(
            resolved, n_theory, details["soa_values"], details["candidate_indices"],
            bool(details["from_fallback"]), float(details["game_value"]),
        )

    def release(self, index, classes, feature_names):
        rule = DomainRule(self.domain, self.oracle.matrix[index].astype(bool).copy(),
                          self.descriptions[index])
        return SelectedHypothesis(index, TwoLabelRule(rule, 1, 0), classes, feature_names)

    @staticmethod
    def substitution_epsilon(add_remove, epsilon, delta=0.0):
        return epsilon  # substitution only (build refuses add/remove)

    def epsilon_under_substitution(self, epsilon, delta=0.0):
        return epsilon

    def with_neighbouring(self, neighbouring):
        """Substitution only (checked in :meth:`build`)."""
        if neighbouring == "add_remove":
            raise ValueError(
                "method='littlestone' is private under substitution only; pass "
                "neighbouring='substitution'."
            )
        return self

    def public_attributes(self, details, params, n):
        """Fitted attributes published with a release (functions of private outputs)."""
        return {
            "littlestone_dimension_": self.ldim,
            "parameters_": dict(details.parameters),
            "theoretical_sample_size_": details.theoretical_sample_size,
            "soa_values_": details.soa_values,
            "candidate_indices_": details.candidate_indices,
            "soa_from_fallback_": details.from_fallback,
        }

    def guarantee_facts(self, params, n, details):
        notes = [
            "accuracy (realizable, error <= alpha w.p. 1 - beta) needs n >= "
            f"{details.theoretical_sample_size} (Thm 6.4 with C=1); n={n}",
            "rows off the public domain are mapped to the nearest domain point",
        ]
        certified = ["splits and internal parameters depend on public inputs only",
                     "GenericLearner's exponential mechanism sampled exactly (integer "
                     "error counts)"]
        not_certified = [f"sparse selection (Lemma 6.3's choice of a candidate set): "
                         f"{FLOAT_SELECTION_NOTE}"]
        return (LITTLESTONE_SOURCE, certified,
                user_code_notes(params["hypotheses"], "hypotheses") + not_certified, notes)

    spent = staticmethod(spent_as_set)


def _check_domain(domain, n_features):
    domain = np.asarray(domain, dtype=np.float64)
    if domain.ndim == 1:
        domain = domain[:, None]
    if domain.shape[1] != n_features:
        raise ValueError(f"domain has {domain.shape[1]} features but X has {n_features}.")
    if len(np.unique(domain, axis=0)) != len(domain):
        raise ValueError("domain must not contain duplicate points.")
    return domain


def _finite_class(params, n_features):
    """``(domain, bool matrix (n_hypotheses, n_points), descriptions)``."""
    if params["domain"] is None:
        raise ValueError(
            "method='littlestone' needs the finite domain: pass domain= (an array of "
            "shape (n_domain_points, n_features))."
        )
    domain = _check_domain(params["domain"], n_features)
    hyp = params["hypotheses"]
    if isinstance(hyp, str):
        if hyp != "thresholds":
            raise ValueError(
                f"hypotheses={hyp!r} is not supported by method='littlestone'; pass "
                "'thresholds' (1-D domain), a {-1,+1} matrix of shape (n_hypotheses, "
                "n_domain_points) or a finite instance."
            )
        if n_features != 1:
            raise ValueError("hypotheses='thresholds' needs a 1-D domain.")
        values = np.sort(domain[:, 0])
        cuts = np.append(values, np.inf)
        matrix = domain[:, 0][None, :] >= cuts[:, None]
        descriptions = [f"x[0] >= {c:.6g}" for c in values] + ["always -1"]
    elif hasattr(hyp, "evaluate") and hasattr(hyp, "n_concepts"):
        matrix = np.asarray(hyp.evaluate(domain)).T.astype(bool)
        descriptions = [hyp.describe(j) for j in range(hyp.n_concepts)]
    else:
        matrix = as_class_matrix(hyp, name="hypotheses")
        if matrix.shape[1] != len(domain):
            raise ValueError(
                f"hypotheses has {matrix.shape[1]} columns but domain has {len(domain)} "
                "points; the matrix must be (n_hypotheses, n_domain_points)."
            )
        descriptions = [f"hypothesis #{j}" for j in range(matrix.shape[0])]
    return domain, matrix, descriptions
