"""Shared preprocessing of the release transformers: data, bounds, universe, workload.

Every choice made here is a function of public inputs (bounds, categorical
features, classes, bin counts, n, random_state) — never of the private data —
except where a ``PrivacyLeakWarning`` says otherwise (``bounds=None``,
``classes=None`` with labels).
"""

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import (
    check_bounds,
    check_generator,
    check_positive_int,
    clip_to_bounds,
)
from ..exceptions import PrivacyLeakWarning
from ._universe import GridUniverse, SampleUniverse
from ._workload import DenseWorkload, GridWorkload

__all__ = ["ReleaseData", "ReleaseMixin"]

_QUERY_NAMES = ("auto", "marginals", "thresholds", "ranges", "halfspaces")


def _categorical_mask(categorical_features, n_features):
    if categorical_features is None:
        return np.zeros(n_features, dtype=bool)
    arr = np.asarray(categorical_features)
    if arr.dtype == bool:
        if arr.shape != (n_features,):
            raise ValueError(
                f"categorical_features as a boolean mask must have length "
                f"n_features={n_features}, got shape {arr.shape}."
            )
        return arr.copy()
    if arr.size and (not np.issubdtype(arr.dtype, np.integer) or arr.min() < -n_features
                     or arr.max() >= n_features):
        raise ValueError(
            "categorical_features must be None, a boolean mask or integer "
            f"indices in [0, {n_features}), got {categorical_features!r}."
        )
    mask = np.zeros(n_features, dtype=bool)
    mask[arr.astype(int)] = True
    return mask


class ReleaseData(BaseEstimator):
    """Data handling shared by the release estimators (universe, workload)."""

    # ----------------------------------------------------------- sklearn
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        tags.requires_fit = True
        tags.target_tags.required = False
        tags.input_tags.allow_nan = False
        return tags

    # ------------------------------------------------------------ checks
    def _validate_common(self, X, y):
        X = validate_data(self, X, reset=True, dtype=np.float64, ensure_min_samples=1)
        n, d = X.shape
        lower, upper = check_bounds(self.bounds, d, X=X)
        categorical = _categorical_mask(self.categorical_features, d)
        classes = None
        if y is not None:
            y = np.asarray(y)
            if y.ndim != 1 or len(y) != n:
                raise ValueError(
                    f"y must be 1-D with len(X)={n} entries (labels are one more "
                    f"attribute), got shape {y.shape}."
                )
            if self.classes is None:
                warnings.warn(
                    "classes=None: the label values are taken from y, which leaks "
                    "which labels occur in the private data. Pass the public label "
                    "set, e.g. classes=[0, 1].",
                    PrivacyLeakWarning,
                    stacklevel=3,
                )
                classes = np.unique(y)
            else:
                classes = np.unique(np.asarray(self.classes))
                unknown = ~np.isin(y, classes)
                if np.any(unknown):
                    raise ValueError(
                        f"y contains labels {np.unique(y[unknown]).tolist()[:10]} not "
                        f"in classes={classes.tolist()}; add them to `classes`."
                    )
        # The number of clipped rows is a data-dependent count (sensitivity 1 under
        # substitution): it is deliberately discarded, never stored or reported.
        Xc, _ = clip_to_bounds(X, lower, upper)
        return Xc, y, lower, upper, categorical, classes

    def _check_universe_params(self):
        if self.universe not in ("grid", "sample"):
            raise ValueError(
                f"universe must be 'grid' or 'sample', got {self.universe!r}."
            )
        if isinstance(self.queries, str) and self.queries not in _QUERY_NAMES:
            raise ValueError(
                f"queries must be one of {_QUERY_NAMES}, an object with an "
                f"`evaluate(X)` method, or a concept class with `cover`; got {self.queries!r}."
            )
        check_positive_int(self.marginal_width, "marginal_width")
        check_positive_int(self.max_universe_size, "max_universe_size")
        if self.n_queries is not None:
            check_positive_int(self.n_queries, "n_queries")

    def _grid_bins(self, n, sigma, n_continuous, other_levels=1):
        if isinstance(self.n_bins, str):
            if self.n_bins != "auto":
                raise ValueError(f"n_bins must be an int >= 1 or 'auto', got {self.n_bins!r}.")
            if sigma is None:
                # 16 bins per continuous feature, fewer if the grid would exceed
                # 2^16 points (public inputs only: d, categorical levels, classes)
                budget = min(self.max_universe_size, 2**16) / max(other_levels, 1)
                fit = int(np.floor(budget ** (1.0 / max(n_continuous, 1)) + 1e-9))
                return max(2, min(16, fit))
            # gamma = 1/(2 n_bins) for thresholds; theory wants gamma = sigma/(2n)
            # (000 App. E, Alg. 2), capped so that the grid fits in memory.
            want = int(np.ceil(n / sigma))
            cap = int(np.floor((self.max_universe_size / max(other_levels, 1))
                               ** (1.0 / max(n_continuous, 1)) + 1e-9))
            return max(2, min(want, cap))
        return check_positive_int(self.n_bins, "n_bins")

    def _build_universe(self, lower, upper, categorical, classes, n, sigma, rng, n_points=None):
        n_cont = int(np.sum(~categorical & (upper > lower)))
        if self.universe == "grid":
            other = float(np.prod([np.floor(hi) - np.ceil(lo) + 1 for lo, hi, c
                                   in zip(lower, upper, categorical) if c] or [1.0]))
            other *= 1 if classes is None else len(classes)
            n_bins = self._grid_bins(n, sigma, n_cont, other)
            uni = GridUniverse(lower, upper, categorical, n_bins, classes)
            if uni.size > self.max_universe_size:
                raise ValueError(
                    f"the grid universe has {uni.size:.3g} points > max_universe_size="
                    f"{self.max_universe_size}; lower n_bins (now {n_bins}), raise "
                    "max_universe_size, or use universe='sample'."
                )
            return uni
        if n_points is None:
            n_points = self.n_universe
        if n_points == "auto":
            n_points = min(self.max_universe_size, 10_000)
        n_points = check_positive_int(n_points, "n_universe")
        if n_points > self.max_universe_size:
            raise ValueError(
                f"n_universe={n_points} > max_universe_size={self.max_universe_size}."
            )
        return SampleUniverse(lower, upper, categorical, n_points, rng, classes)

    def _build_workload(self, uni, rng, n):
        queries = self.queries
        if isinstance(queries, str):
            if queries == "auto":
                queries = "marginals" if uni.kind == "grid" else "thresholds"
            if uni.kind == "grid" and queries != "halfspaces":
                if queries == "marginals":
                    wl = GridWorkload.marginals_workload(uni, self.marginal_width)
                elif queries == "thresholds":
                    wl = GridWorkload.ranges_workload(uni, 1, prefix_only=True)
                else:
                    wl = GridWorkload.ranges_workload(uni, self.marginal_width)
                if self.n_queries is not None:
                    wl = wl.subsample(self.n_queries, rng)
                return wl
            return self._dense_named_workload(queries, uni, rng, n)
        if hasattr(queries, "evaluate"):
            concepts = queries
        elif hasattr(queries, "cover"):
            concepts = queries.cover(bounds=(uni.lower, uni.upper),
                                     max_size=self.n_queries or 2000, random_state=rng)
        elif callable(queries):
            return self._wrap_concepts(uni, queries, None, "callable workload")
        else:
            raise TypeError(
                "queries must be a name in "
                f"{_QUERY_NAMES}, an object with evaluate(X), a concept class with "
                f"cover(...), or a callable X -> bool matrix; got {type(queries).__name__}."
            )
        wl = self._wrap_concepts(uni, concepts.evaluate, getattr(concepts, "n_concepts", None),
                                 type(concepts).__name__)
        wl.gamma = getattr(concepts, "gamma", None)
        wl.gamma_certified = getattr(concepts, "gamma_certified", None)
        return wl

    def _wrap_concepts(self, uni, evaluate, n_concepts, name):
        if n_concepts is None:
            X0, _ = uni.points(np.arange(min(uni.size, 2)))
            n_concepts = np.asarray(evaluate(X0)).shape[1]
        if uni.has_labels:
            return DenseWorkload(uni, _LabelConjunction(evaluate, uni.classes),
                                 n_concepts * len(uni.classes), description=f"{name} x label")
        return DenseWorkload(uni, _FeaturesOnly(evaluate), n_concepts, description=name)

    def _dense_named_workload(self, name, uni, rng, n):
        """Thresholds/ranges/halfspaces as dense queries (sampled universe)."""
        lower, upper = uni.lower, uni.upper
        budget = self.n_queries or 1000
        if name == "halfspaces":
            from .. import classes as _classes  # foundation: data-independent covers

            cover = _classes.Halfspaces().cover(
                bounds=(lower, upper), max_size=budget, random_state=rng
            )
            wl = self._wrap_concepts(uni, cover.evaluate, cover.n_concepts, "halfspaces cover")
            wl.gamma = getattr(cover, "gamma", None)
            wl.gamma_certified = getattr(cover, "gamma_certified", None)
            return wl
        d = uni.n_features
        if name == "marginals":
            raise ValueError(
                "queries='marginals' needs universe='grid' (cells of a product grid); "
                "on a sampled universe use 'thresholds', 'ranges' or 'halfspaces'."
            )
        per_feature = max(1, budget // max(d, 1))
        feats, lo_t, hi_t = [], [], []
        for j in range(d):
            if name == "thresholds":
                t = np.linspace(lower[j], upper[j], per_feature + 2)[1:-1]
                feats.append(np.full(len(t), j))
                lo_t.append(np.full(len(t), -np.inf))
                hi_t.append(t)
            else:
                m = max(2, int(np.sqrt(2 * per_feature)))
                edges = np.linspace(lower[j], upper[j], m + 1)
                a, b = np.triu_indices(m)
                feats.append(np.full(len(a), j))
                lo_t.append(edges[a])
                hi_t.append(edges[b + 1])
        evaluate = _IntervalQueries(np.concatenate(feats), np.concatenate(lo_t),
                                    np.concatenate(hi_t))
        return self._wrap_concepts(uni, evaluate, len(evaluate.features),
                                   f"{name} on a grid of the bounds")

    # ------------------------------------------------------- data answers
    def _true_answers(self, workload, uni, X, y):
        if workload.structured:
            return workload.answers_data(uni.encode(X, y))
        return workload.answers_data(X, y)



class _FeaturesOnly:
    """Evaluate feature-only queries, ignoring labels (picklable)."""

    def __init__(self, evaluate):
        self.evaluate = evaluate

    def __call__(self, X, y=None):
        return self.evaluate(X)


class _LabelConjunction:
    """Queries ``q_j(x) and y == c`` for every base query j and class c (picklable)."""

    def __init__(self, evaluate, classes):
        self.evaluate = evaluate
        self.classes = classes

    def __call__(self, X, y):
        base = np.asarray(self.evaluate(X), dtype=bool)
        onehot = np.asarray(y)[:, None] == self.classes[None, :]
        return (base[:, :, None] & onehot[:, None, :]).reshape(len(X), -1)


class _IntervalQueries:
    """``lo_j < x_{f_j} <= hi_j`` (thresholds: ``lo = -inf``) on raw features."""

    def __init__(self, features, lo, hi):
        self.features = features
        self.lo = lo
        self.hi = hi

    def __call__(self, X):
        V = np.asarray(X, dtype=float)[:, self.features]
        return (V > self.lo) & (V <= self.hi)


class ReleaseMixin(TransformerMixin, ReleaseData):
    """Synthetic-data outputs shared by :class:`SmoothMWEM` and :class:`SubsampledNetMechanism`."""

    # ------------------------------------------------------------- outputs
    def sample(self, n_samples, random_state=None):
        """Draw synthetic rows from the released distribution.

        Post-processing of the private output: costs no privacy.

        Parameters
        ----------
        n_samples : int
            Number of synthetic rows.
        random_state : None, int or Generator
            Randomness of the draw (independent of the fit's).

        Returns
        -------
        X_syn : ndarray of shape (n_samples, n_features)
            Synthetic rows (bin centres of a grid universe, universe points of
            a sampled one).
        y_syn : ndarray of shape (n_samples,)
            Only when labels were fitted: returned as ``(X_syn, y_syn)``.
        """
        check_is_fitted(self, "distribution_")
        n_samples = check_positive_int(n_samples, "n_samples", minimum=0)
        rng = check_generator(random_state)
        p = self.distribution_
        # inverse-CDF sampling (exact, vectorised)
        cdf = np.cumsum(p)
        idx = np.searchsorted(cdf, rng.uniform(0.0, cdf[-1], size=n_samples), side="right")
        idx = np.minimum(idx, len(p) - 1)
        X_syn, y_syn = self._universe.decode(idx, rng=rng, jitter=getattr(self, "jitter", False))
        if y_syn is None:
            return X_syn
        return X_syn, y_syn

    def transform(self, X):
        """Return ``len(X)`` synthetic rows (the input values are not used).

        The rows are drawn with the estimator's ``random_state`` so that
        seeded pipelines are reproducible.
        """
        check_is_fitted(self, "distribution_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        seed = self.random_state if isinstance(self.random_state, numbers.Integral) else None
        out = self.sample(X.shape[0], random_state=seed)
        return out[0] if isinstance(out, tuple) else out

    def fit_resample(self, X, y):
        """Fit on ``(X, y)`` and return a synthetic ``(X_syn, y_syn)`` of the same size.

        imbalanced-learn sampler convention; ``y`` is one more attribute.
        """
        self.fit(X, y)
        seed = self.random_state if isinstance(self.random_state, numbers.Integral) else None
        return self.sample(len(X), random_state=seed)

    def answer(self, queries=None):
        """Answer queries from the released distribution (post-processing).

        Parameters
        ----------
        queries : None, object with ``evaluate(X)``, or callable
            ``None``: the fitted workload (``n_queries_`` answers, in the
            order of ``workload_``). Otherwise any finite query set,
            evaluated on the universe points: ``queries.evaluate(X)`` or
            ``queries(X)`` returning a boolean matrix ``(n_points, k)``
            (callables receive ``(X, y)`` when labels were fitted).

        Returns
        -------
        answers : ndarray of shape (k,)
            ``q(D) = sum_x D(x) q(x)`` for each query.
        """
        check_is_fitted(self, "distribution_")
        p = self.distribution_
        if queries is None:
            return self.workload_.answers(p)
        uni = self._universe
        total = None
        chunk = 200_000
        for start in range(0, uni.size, chunk):
            flat = np.arange(start, min(start + chunk, uni.size))
            w = p[flat]
            keep = w > 0
            if not np.any(keep):
                continue
            Xs, ys = uni.points(flat[keep])
            if hasattr(queries, "evaluate"):
                vals = queries.evaluate(Xs)
            elif callable(queries):
                vals = queries(Xs) if ys is None else queries(Xs, ys)
            else:
                raise TypeError(
                    "queries must be None, an object with evaluate(X) or a callable."
                )
            vals = np.asarray(vals, dtype=float)
            if vals.ndim == 1:
                vals = vals[:, None]
            part = w[keep] @ vals
            total = part if total is None else total + part
        return total

    @property
    def universe_(self):
        """Universe points ``(X_points, y_points)``; for a grid, bin centres."""
        check_is_fitted(self, "distribution_")
        return self._universe.points()
