"""Shared preprocessing and outputs of the release estimators.

Every choice made here is a function of public inputs (bounds, categorical
features and their levels, classes, bin counts, n, the public random
stream) — never of the private data — except where a
``PrivacyLeakWarning`` says otherwise (``bounds=None``, ``classes=None``
with labels); those releases are then marked not certified.

Bad rows are never refused for their values (an error raised only when a
row is NaN is itself a release): non-finite and out-of-box coordinates are
mapped into the public box, unknown labels and categorical values to the
first level (:mod:`sksmooth._untrusted`), and how many rows were mapped
is never stored.

Pipeline contract (SPEC §7): ``fit_transform(X)`` / ``transform(X)`` emit
synthetic rows (the release as the last step of an unsupervised
preprocessing pipeline); with a ``y`` — what a supervised ``Pipeline`` or a
``ColumnTransformer`` passes — they raise and point to ``fit_resample`` /
:meth:`ReleaseMixin.as_sampler`, so fitting through them never pairs
synthetic X with real y. One route stays open and cannot be closed here:
an already fitted release wrapped in scikit-learn's ``FrozenEstimator``
inside a supervised ``Pipeline`` (its ``fit`` is a no-op, then the
pipeline calls ``transform(X)`` without ``y``, which looks exactly like the
unsupervised use); don't freeze a release into a supervised pipeline —
use :meth:`ReleaseMixin.as_sampler` in imbalanced-learn's ``Pipeline``.
"""

import copy
from dataclasses import dataclass, replace
from typing import Any, Optional

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._set_output import _get_output_config
from sklearn.utils.validation import check_is_fitted

from .._domain import grid_threshold
from .._constraints import (EPSILON, RANDOM_STATE, Boolean, Check, Integer, NoneValue, Options,
                           Param)
from .._randomness import SEEDED_NOISE_NOTE, sampling_generator
from .._untrusted import as_floats, read_labels, read_numbers, read_table, sanitize_rows
from .._validation import (
    BOUNDS_HINT,
    call_user_function,
    check_bounds,
    check_box_has_width,
    check_delta,
    check_sigma,
)
from ..accounting import check_accountant
from ..classes import Halfspaces, user_code_notes
from ._sampler import SyntheticSampler
from ._statistics import WorkloadCounts
from ._streaming import PartitionCounter, ReleaseStream, StreamingRelease
from ._columns import (
    LevelColumn,
    check_n_samples,
    column_positions,
    dtype_levels_notes,
    format_labels,
    label_dtype,
    label_name,
    label_output_dtype,
    reads_labels_from_rows,
    resolve_labels,
    schema_change_error,
)
from ._systematic import check_scheme
from ._schema import BOUNDS_FORMS, check_bounds_parameter, level_box
from ._tables import TableSchema, check_categorical_features, check_categories, is_dataframe
from ._universe import GridUniverse, SampleUniverse
from ._workload import DenseWorkload, GridWorkload

__all__ = ["ReleaseData", "ReleaseMixin", "ReleaseContext", "PrivateTable", "COMMON_CONSTRAINTS"]

_QUERY_NAMES = ("auto", "marginals", "thresholds", "ranges", "halfspaces")
MAX_UNIVERSE_CAP = 2**28
_MAX_TABLE_CELLS = 2**24  # cells of one marginal table built from data counts


# ------------------------------------------------------------ parameter checks
def _check_queries(value, name):
    if isinstance(value, str):
        if value not in _QUERY_NAMES:
            raise ValueError(f"{name} must be one of {_QUERY_NAMES}, an object with "
                             f"evaluate(X), or a concept class with cover(...); got {value!r}.")
        return value
    if hasattr(value, "evaluate") or hasattr(value, "cover") or (
            callable(value) and not isinstance(value, type)):
        return value
    raise TypeError(f"{name} must be one of {_QUERY_NAMES}, an object with evaluate(X), a "
                    f"concept class with cover(...), or a callable; got {type(value).__name__}.")


def _check_classes(value, name):
    if isinstance(value, (str, bytes, dict, set)) or np.ndim(value) != 1 or len(value) == 0:
        raise TypeError(f"{name} must be None or a non-empty 1-D list of the public labels, "
                        "e.g. classes=[0, 1].")
    return value


def _check_accountant(value, name):
    return check_accountant(value)


#: constraints shared by the four release estimators (SPEC §1.6)
COMMON_CONSTRAINTS = {
    "epsilon": EPSILON,
    "queries": Check(_check_queries, "a workload name, object or callable"),
    "marginal_width": Integer(1, high=8, cap_reason=(
        "a k-way table has prod(levels) cells and there are C(d, k) tables; "
        "k > 8 is never cheaper than the full joint")),
    "n_queries": (NoneValue(), Integer(1, high=10**7, cap_reason=(
        "memory: the workload stores a row per query"))),
    "universe": Options("grid", "sample"),
    "n_bins": (Options("auto"), Integer(1, high=2**16, cap_reason=(
        "bins per continuous feature; the grid is also capped by max_universe_size"))),
    "n_universe": (Options("auto"), Integer(1, high=MAX_UNIVERSE_CAP, cap_reason=(
        "memory: 16 bytes per universe point"))),
    "max_universe_size": Integer(1, high=MAX_UNIVERSE_CAP, cap_reason=(
        "memory: 16 bytes per universe point (4 GiB at the cap)")),
    "categorical_features": Check(check_categorical_features,
                                  "None, 'from_dtype', a mask, indices or names"),
    "categories": Check(check_categories, "None or a dict {column: [levels]}"),
    "bounds": Param((NoneValue(), Check(check_bounds_parameter, BOUNDS_FORMS)),
                    hint=BOUNDS_HINT),
    "classes": (NoneValue(), Check(_check_classes, "a 1-D list of labels")),
    "accountant": Check(_check_accountant, "None or a BudgetAccountant"),
    "random_state": RANDOM_STATE,
}
DELTA_CONSTRAINT = Check(check_delta, "a real number in [0, 1)")
SIGMA_CONSTRAINT = (NoneValue(), Check(check_sigma, "a real number in (0, 1]"))
JITTER_CONSTRAINT = Boolean()


@dataclass
class PrivateTable:
    """The private data after the public, data-independent mapping."""

    X: np.ndarray  # sanitised numeric rows (categorical columns as level codes)
    y: np.ndarray  # labels mapped into classes_ (or None)
    lower: np.ndarray
    upper: np.ndarray
    categorical: np.ndarray
    classes: np.ndarray  # public label set (or None)
    classes_inferred: bool
    schema: TableSchema
    n_rows: Optional[int] = None  # rows behind accumulated counts (X is then None)
    classes_from_dtype: bool = False  # the categories of a Categorical y

    @property
    def n(self):
        return self.X.shape[0] if self.n_rows is None else self.n_rows

    def public_frame(self):
        """The public structure only (no rows): what maps every later chunk."""
        return replace(self, X=None, y=None, n_rows=0)

    def map_rows(self, X_num, y):
        """Map a chunk's numeric rows and labels by the public rule of this frame."""
        n = X_num.shape[0]
        if (y is None) != (self.classes is None):
            first = "given" if self.classes is not None else "not given"
            now = "is not" if y is None else "is"
            raise ValueError(
                f"y was {first} with the first chunk but {now} given now: every chunk of a "
                "release must have the same columns (labels included); call fit or "
                "release() to start over.")
        if y is not None:
            y = read_labels(y, n)
            # the labels are one more column with public levels: the codec's rule,
            # row by row (a label of another type maps to level 0, alone)
            y = self.classes[LevelColumn(self.classes).encode(y)]
        return replace(self, X=sanitize_rows(X_num, self.lower, self.upper), y=y, n_rows=None)


def _box_values(X_num):
    """The values a box read from the rows spans: a missing or infinite entry counts
    as 0 (it is mapped into the box like any missing value)."""
    return np.nan_to_num(np.where(np.isfinite(X_num), X_num, np.nan), nan=0.0)


@dataclass(frozen=True)
class ReleaseContext:
    """The public choices of a release, fixed at its first chunk.

    ``universe`` carries the released model, ``workload`` the queries;
    the counts are made on ``counting_universe`` (default ``universe``;
    the Subsampled Net Mechanism counts on the full grid behind its
    subsample). ``extra`` holds anything else an estimator fixed then.
    """

    universe: Any
    workload: Any
    counting_universe: Any = None
    extra: Any = None

    @property
    def counted_on(self):
        return self.universe if self.counting_universe is None else self.counting_universe


class ReleaseData(StreamingRelease, BaseEstimator):
    """Data handling shared by the release estimators (universe, workload)."""

    _release_state = ("_stream", "_schema", "_sampling_rng", "_seeded", "_y_name", "_y_dtype",
                      "_universe")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        tags.requires_fit = True
        tags.target_tags.required = False
        tags.input_tags.allow_nan = True  # mapped by the public rule, never refused
        tags.input_tags.string = True  # a non-number is mapped like a missing value
        return tags

    # ------------------------------------------------------------ data
    def _validate_common(self, X, y, frame=None, classes=None):
        """Public mapping of the private rows (structure errors only, no values).

        ``frame``: the public structure fixed at a release's first chunk; a
        later chunk must match it and is mapped with its bounds and classes.
        ``classes``: the public labels given to ``partial_fit`` (when the
        ``classes`` parameter is None).
        """
        X = read_table(X)  # a pyarrow or polars table as pandas, once for schema and rows
        if frame is not None:
            schema = TableSchema.from_input(X, self.categorical_features, self.categories)
            if schema.n_features == frame.schema.n_features and not frame.schema.same_structure(
                    schema):  # (a different width: sklearn's message below)
                raise schema_change_error(frame.schema.change_to(schema))
            # a later chunk may have no rows (its row count is private under add/remove)
            return frame.map_rows(self._numeric(X, frame.schema, reset=False, min_rows=0), y)
        schema = TableSchema.from_input(X, self.categorical_features, self.categories)
        X_num = self._numeric(X, schema, reset=True)
        if schema.n_features == 0:  # input of an unusual structure, validated above
            schema = TableSchema.from_input(X_num, self.categorical_features, self.categories)
        n, d = X_num.shape
        if self.bounds is None and schema.all_levelled:  # every box edge is a level count
            lower, upper = np.zeros(d), np.zeros(d)
        elif isinstance(self.bounds, dict):
            lower, upper = level_box(self.bounds, schema.levels, schema.columns)
        else:
            lower, upper = check_bounds(self.bounds, d, X=None if self.bounds is not None else
                                        _box_values(X_num))
        lower, upper = schema.public_bounds(lower, upper)
        if self.bounds is not None:
            check_box_has_width(lower, upper)
        labels, inferred, from_dtype = None, False, False
        if y is not None:
            dtype = label_dtype(y)
            y = read_labels(y, n)
            declared = self.classes if classes is None else classes
            labels, inferred, from_dtype = resolve_labels(y, declared, dtype)
        frame = PrivateTable(None, None, lower, upper, schema.categorical.copy(), labels,
                             inferred, schema, n_rows=0, classes_from_dtype=from_dtype)
        return frame.map_rows(X_num, y)

    def _numeric(self, X, schema, reset, min_rows=1):
        """The input as a float matrix (level codes), validated without echoing values."""
        if sparse.issparse(X):
            raise TypeError("X is sparse, but the release estimators need dense input; "
                            "convert it with X.toarray().")
        X_num = schema.encode(X)
        if is_dataframe(X):
            import pandas as pd  # a DataFrame came in, so pandas is installed

            X_num = pd.DataFrame(X_num, columns=X.columns)
        return read_numbers(self, X_num, reset=reset, dtype=np.float64,
                                     ensure_min_samples=min_rows)

    # ------------------------------------------------------- streaming
    # (fit / partial_fit / release: sksmooth.release._streaming)
    def _open_stream(self, X, y, params, randomness, whole_table, classes=None, n_rows=None):
        """First chunk: fix the public structure; return the stream and mapped rows.

        ``n_rows``: the whole table's row count when ``fit`` passes it in blocks
        (``n_bins='auto'`` with ``sigma`` sizes the grid from it)."""
        data = self._validate_common(X, y, classes=classes)
        sized = data if n_rows is None else replace(data, n_rows=n_rows)
        context = self._release_context(sized, params, randomness, whole_table)
        stream = ReleaseStream(params, data.public_frame(), randomness, context,
                               WorkloadCounts(context.counted_on, context.workload),
                               label_name(y), label_output_dtype(
                                   y, self.classes if classes is None else classes))
        return stream, (data.X, data.y)

    def _stream_labels(self, stream):
        return stream.frame.classes

    def _map_chunk(self, stream, X, y):
        data = self._validate_common(X, y, frame=stream.frame)
        return data.X, data.y

    def _partition_counter(self, stream):
        return _PartitionCounter(stream.frame, stream.statistic.empty_like())

    def _declared_level_columns(self, X):
        """Labels of the DataFrame ``X``'s columns whose levels ``categories`` declares."""
        columns = list(getattr(X, "columns", []))
        if not columns or not self.categories:
            return set()
        return {columns[j] for j in column_positions(self.categories, len(columns), columns,
                                                     "categories")}

    def _read_from_rows(self, X, y, labels_declared):
        """What a first chunk's rows would give (leak-warned): the parameters that
        would declare it instead. Only structure is looked at (names, dtypes,
        declared or dtype levels): an all-categorical table with public levels
        needs no bounds, a Categorical ``y`` no classes."""
        missing = []
        if self.bounds is None and not TableSchema.from_input(
                X, self.categorical_features, self.categories).all_levelled:
            missing.append("bounds=(lower, upper)")
        if reads_labels_from_rows(y, labels_declared):
            missing.append("classes=[...] (the label set)")
        return missing

    def _rows_read_in(self, X, y, labels_declared):
        """The rows realising the labels read (the base's) and, with ``bounds=None``,
        every column's smallest and largest value (the box read from the rows)."""
        rows = super()._rows_read_in(X, y, labels_declared)
        schema = TableSchema.from_input(X, self.categorical_features, self.categories)
        if self.bounds is not None or schema.all_levelled:
            return rows
        if schema.n_features == 0:
            raise ValueError("X is not a table")  # read whole: validation says what it is
        values = _box_values(self._numeric(X, schema, reset=True))
        return np.concatenate([rows, values.argmin(axis=0), values.argmax(axis=0)])

    def _infers_from_data(self, X, y, classes):
        """Whether a first chunk's box or label set will be read from its rows (then
        read from the whole chunk)."""
        return bool(self._read_from_rows(X, y, self.classes is not None or classes is not None))

    def _check_dask_parameters(self, X_head, y_head, labels_declared):
        """Refuse a dask release whose box or label set would be read from its rows."""
        missing = self._read_from_rows(X_head, y_head, labels_declared)
        if missing:
            raise ValueError(
                "a dask collection is counted without loading it, so nothing may be read "
                f"from its values: pass public {' and '.join(missing)}.")

    def _not_certified(self, data, randomness):
        """Assumptions of the privacy claim the code could not certify."""
        out = []
        if randomness.seeded:
            out.append(SEEDED_NOISE_NOTE)
        if self.bounds is None and not data.schema.all_levelled:
            out.append("bounds are public (taken from data: PrivacyLeakWarning)")
        if data.classes_inferred:
            out.append("label set is public (taken from y: PrivacyLeakWarning)")
        out += user_code_notes(self.queries, "queries")
        return out + dtype_levels_notes(data.schema.codec.levels_from_dtype(), "categories",
                                        labels_from_dtype=data.classes_from_dtype)

    # -------------------------------------------------------- universe
    def _grid_bins(self, data, sigma, n_continuous, other_levels=1, n_public=True):
        """Bins per continuous feature of ``n_bins='auto'`` (public inputs only)."""
        if sigma is None:
            # 16 bins per continuous feature, fewer if the grid would exceed
            # 2^16 points (public inputs only: d, categorical levels, classes)
            budget = min(self.max_universe_size, 2**16) / max(other_levels, 1)
            return max(2, min(16, _root_floor(budget, n_continuous)))
        # gamma = 1/(2 n_bins) for thresholds; theory wants gamma = sigma/(2n)
        # (Haghtalab et al. 2020, App. E, Alg. 2), capped so the grid fits in memory
        want = int(np.ceil(min(data.n / sigma, 2.0**62)))
        cap = _root_floor(self.max_universe_size / max(other_levels, 1), n_continuous)
        return max(2, min(want, cap))

    def _grid(self, data, sigma, *, check_size=True, n_public=True):
        lower, upper, categorical = data.lower, data.upper, data.categorical
        n_cont = int(np.sum(~categorical & (upper > lower)))
        other = float(np.prod([np.floor(hi) - np.ceil(lo) + 1 for lo, hi, c
                               in zip(lower, upper, categorical) if c] or [1.0]))
        other *= 1 if data.classes is None else len(data.classes)
        n_bins = (self._grid_bins(data, sigma, n_cont, other, n_public)
                  if self.n_bins == "auto" else int(self.n_bins))
        uni = GridUniverse(lower, upper, categorical, n_bins, data.classes)
        if check_size and uni.size > self.max_universe_size:
            raise ValueError(
                f"the grid universe has {uni.size:.3g} points > max_universe_size="
                f"{self.max_universe_size}; lower n_bins (now {n_bins}), raise "
                "max_universe_size, or use universe='sample'."
            )
        return uni

    def _build_universe(self, data, sigma, rng, n_points=None):
        if self.universe == "grid":
            return self._grid(data, sigma)
        if n_points is None:
            n_points = self.n_universe
        if n_points == "auto":
            n_points = min(self.max_universe_size, 10_000)
        if n_points > self.max_universe_size:
            raise ValueError(f"n_universe={n_points} > max_universe_size="
                             f"{self.max_universe_size}; lower n_universe.")
        return SampleUniverse(data.lower, data.upper, data.categorical, n_points, rng,
                              data.classes)

    # -------------------------------------------------------- workload
    def _check_width(self, uni):
        if self.marginal_width > uni.n_attributes:
            raise ValueError(
                f"marginal_width={self.marginal_width} exceeds the number of attributes "
                f"({uni.n_attributes}, labels included); lower marginal_width.")

    def _build_workload(self, uni, rng):
        queries = self.queries
        if isinstance(queries, str):
            if queries == "auto":
                queries = "marginals" if uni.kind == "grid" else "thresholds"
            if uni.kind == "grid" and queries != "halfspaces":
                if queries in ("marginals", "ranges"):
                    self._check_width(uni)
                if queries == "marginals":
                    wl = GridWorkload.marginals_workload(uni, self.marginal_width)
                elif queries == "thresholds":
                    wl = GridWorkload.ranges_workload(uni, 1, prefix_only=True)
                else:
                    wl = GridWorkload.ranges_workload(uni, self.marginal_width)
                if max(wl.table_sizes, default=0) > _MAX_TABLE_CELLS:
                    raise ValueError(
                        f"a {self.marginal_width}-way table has more than {_MAX_TABLE_CELLS} "
                        "cells; lower marginal_width or n_bins.")
                if self.n_queries is not None:
                    wl = wl.subsample(self.n_queries, rng)
                return wl
            return self._dense_named_workload(queries, uni, rng)
        if hasattr(queries, "evaluate"):
            concepts = queries
        elif hasattr(queries, "cover"):
            concepts = queries.cover(bounds=(uni.lower, uni.upper),
                                     max_size=self.n_queries or 2000, random_state=rng)
        else:
            return self._wrap_concepts(uni, queries, None, "callable workload")
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

    def _dense_named_workload(self, name, uni, rng):
        """Thresholds/ranges/halfspaces as dense queries (sampled universe)."""
        lower, upper = uni.lower, uni.upper
        budget = self.n_queries or 1000
        if name == "halfspaces":
            cover = _halfspace_cover(lower, upper, budget, rng)
            wl = self._wrap_concepts(uni, cover.evaluate, cover.n_concepts, "halfspaces cover")
            wl.gamma = getattr(cover, "gamma", None)
            wl.gamma_certified = getattr(cover, "gamma_certified", None)
            return wl
        if name == "marginals":
            raise ValueError(
                "queries='marginals' needs universe='grid' (cells of a product grid); "
                "on a sampled universe use 'thresholds', 'ranges' or 'halfspaces'."
            )
        evaluate = _IntervalQueries.on_grid(name, lower, upper, budget)
        return self._wrap_concepts(uni, evaluate, len(evaluate.features),
                                   f"{name} on a grid of the bounds")

class _PartitionCounter(PartitionCounter):
    """Maps the rows of a dask partition by the public frame."""

    def map_block(self, X, y):
        # a non-number reads as missing (its refusal would tell a row held one)
        X_num = as_floats(self.frame.schema.encode(X) if self.frame.schema.n_features
                          else read_table(X))
        if X_num.ndim != 2 or X_num.shape[1] != self.frame.schema.n_features:
            # its width only: its row count may be private (add/remove)
            found = f"{X_num.shape[1]} columns" if X_num.ndim == 2 else f"{X_num.ndim} dimension(s)"
            raise ValueError(f"a partition has {found}; expected "
                             f"{self.frame.schema.n_features} columns.")
        data = self.frame.map_rows(X_num, y)
        return data.X, data.y


def _root_floor(value, k):
    """``floor(value ** (1 / k))`` (``k >= 1``), robust to rounding below an integer."""
    return int(np.floor(value ** (1.0 / max(k, 1)) + 1e-9))


def _halfspace_cover(lower, upper, budget, rng):

    return Halfspaces().cover(bounds=(lower, upper), max_size=budget, random_state=rng)


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
    """``lo_j < x_{f_j} <= hi_j`` on raw features (``lo = -inf`` for thresholds and for
    ranges from the lower bound, so that rows on the bound are counted)."""

    def __init__(self, features, lo, hi):
        self.features = features
        self.lo = lo
        self.hi = hi

    @classmethod
    def on_grid(cls, name, lower, upper, budget):
        d = len(lower)
        per_feature = max(1, budget // max(d, 1))
        feats, lo_t, hi_t = [], [], []
        for j in range(d):
            if name == "thresholds":
                t = grid_threshold(lower[j], upper[j], np.arange(1, per_feature + 1),
                                   per_feature + 1)
                lo_j, hi_j = np.full(len(t), -np.inf), t
            else:
                m = max(2, int(np.sqrt(2 * per_feature)))
                edges = grid_threshold(lower[j], upper[j], np.arange(m + 1), m)
                a, b = np.triu_indices(m)
                # the first bin is closed: a row on the lower bound is counted
                lo_j, hi_j = np.where(a == 0, -np.inf, edges[a]), edges[b + 1]
            feats.append(np.full(len(lo_j), j))
            lo_t.append(lo_j)
            hi_t.append(hi_j)
        return cls(np.concatenate(feats), np.concatenate(lo_t), np.concatenate(hi_t))

    def __call__(self, X):
        V = np.asarray(X, dtype=float)[:, self.features]
        return (V > self.lo) & (V <= self.hi)


_SUPERVISED_MISUSE = (
    "{name}.{method} was called with a y: the release emits synthetic rows, and a "
    "supervised Pipeline or a ColumnTransformer would pair them with the REAL y (or "
    "swap real columns for synthetic ones). Use fit_resample(X, y), which returns "
    "synthetic (X, y) together, and inside an imblearn.pipeline.Pipeline use "
    "{name}(...).as_sampler()."
)


class ReleaseMixin(TransformerMixin, ReleaseData):
    """Synthetic-data outputs shared by :class:`SmoothMWEM` and :class:`SubsampledNetMechanism`.

    The fitted release is ``model_`` (a
    :class:`~sksmooth.release._model.ReleaseModel` over ``_universe``);
    everything here is post-processing of it with the *sampling* stream,
    independent of the mechanism's noise.
    """

    def sample(self, n_samples, random_state=None, *, scheme="systematic"):
        """Draw synthetic rows from the released distribution (post-processing, free).

        Parameters
        ----------
        n_samples : int
        random_state : None, int or Generator
            Randomness of the draw only (never the fit's noise stream);
            ``None`` is fresh OS entropy. Seeding a draw costs no privacy.
        scheme : {'systematic', 'iid'}, default='systematic'
            ``'systematic'``: every row has exactly the released
            distribution and the rows' counts are within one of their
            expectation on each point of a dense model, on each clique
            given its separator for a factored one (systematic sampling,
            Madow & Madow 1944; rows exchangeable, not independent).
            ``'iid'``: independent rows.

        Returns
        -------
        X_syn : ndarray or DataFrame of shape (n_samples, n_features)
            Synthetic rows in the input's format (a DataFrame with the
            original names and dtypes when a DataFrame was fitted).
            Continuous coordinates are drawn uniformly inside their grid bin
            (``jitter=True``) or at its centre.
        y_syn : ndarray or Series of shape (n_samples,)
            Only when labels were fitted: returned as ``(X_syn, y_syn)``; a
            pandas Series with the fitted ``y``'s name when ``y`` was one, and its
            dtype when that is public (a Categorical).
        """
        check_is_fitted(self, "model_")
        return self._emit(check_n_samples(n_samples), sampling_generator(random_state),
                          check_scheme(scheme))

    def _emit(self, n_samples, rng, scheme="systematic"):
        codes = self.model_.sample(n_samples, rng, scheme)
        X_num, y_syn = self._universe.decode_codes(codes, rng=rng,
                                                   jitter=getattr(self, "jitter", False))
        X_syn = self._schema.decode(X_num)
        if y_syn is None:
            return X_syn
        return X_syn, format_labels(y_syn, self._y_name, self._y_dtype)

    def fit_transform(self, X, y=None, **fit_params):
        """Fit, then emit ``len(X)`` synthetic rows; refuses a ``y`` (see class doc)."""
        if y is not None:
            raise ValueError(_SUPERVISED_MISUSE.format(name=type(self).__name__,
                                                       method="fit_transform"))
        return self.fit(X, **fit_params).transform(X)

    def transform(self, X):
        """``len(X)`` fresh synthetic rows (the values of ``X`` are not used).

        Drawn from fresh OS entropy (post-processing); a release fitted with a
        seed draws them reproducibly instead: the same rows for the same
        ``len(X)``, from a copy of its sampling stream (so ``fit_transform``
        and a seeded Pipeline repeat). When labels were fitted, the synthetic
        labels are dropped: use :meth:`sample` or :meth:`fit_resample` to get
        rows and labels drawn together.
        """
        check_is_fitted(self, "model_")
        n = self._numeric(X, self._schema, reset=False).shape[0]
        rng = copy.deepcopy(self._sampling_rng) if self._seeded else sampling_generator(None)
        out = self._emit(n, rng)
        out = out[0] if isinstance(out, tuple) else out
        if isinstance(out, np.ndarray) and _get_output_config("transform", self)["dense"] == \
                "pandas":  # scikit-learn would give the synthetic rows X's own index
            import pandas as pd  # noqa: PLC0415 (set_output(transform='pandas') needs it)

            out = pd.DataFrame(out, columns=self.get_feature_names_out())
        return out

    def fit_resample(self, X, y):
        """Fit on ``(X, y)`` and return a synthetic ``(X_syn, y_syn)`` of ``len(X)`` rows.

        imbalanced-learn's sampler contract; ``y`` is one more attribute. The
        rows are drawn from the release's sampling stream (independent of its
        noise). Inside ``imblearn.pipeline.Pipeline`` use :meth:`as_sampler`
        (imbalanced-learn refuses steps that also have ``transform``).
        """
        self.fit(X, y)
        n = X.shape[0] if is_dataframe(X) else np.shape(X)[0]
        return self._emit(n, self._sampling_rng)

    def as_sampler(self):
        """This release as an imbalanced-learn sampler (``fit_resample`` only).

        Returns
        -------
        SyntheticSampler
        """

        return SyntheticSampler(self)

    def get_feature_names_out(self, input_features=None):
        """Column names of the synthetic rows (those of the fitted input)."""
        check_is_fitted(self, "model_")
        return self._schema.feature_names(input_features)

    def answer(self, queries=None):
        """Answer queries from the released distribution (post-processing).

        Parameters
        ----------
        queries : None, object with ``evaluate(X)``, or callable
            ``None``: the fitted workload (``n_queries_`` answers). Otherwise
            any finite query set evaluated on the universe points (in the
            internal numeric coding): ``queries.evaluate(X)`` or
            ``queries(X)`` (``queries(X, y)`` when labels were fitted)
            returning a boolean matrix ``(n_points, k)``.

        Returns
        -------
        answers : ndarray of shape (k,)
        """
        check_is_fitted(self, "model_")
        p = self.distribution_
        if queries is None and p is None:  # a factored model: from its table marginals
            wl = self.workload_
            return wl.answers_from_marginals([self.model_.marginal(t) for t in wl.tables])
        if queries is None:
            return self.workload_.answers(p)
        if not (hasattr(queries, "evaluate") or callable(queries)):
            raise TypeError("queries must be None, an object with evaluate(X) or a callable.")
        if p is None:
            raise ValueError("answer(queries) evaluates queries on every universe point, but "
                             "this release is a factored model over a grid larger than "
                             "max_universe_size; answer the fitted workload (queries=None), "
                             "use model_.marginal(attrs), or evaluate on sample(n) rows.")
        uni = self._universe
        total = None
        for start in range(0, uni.size, 200_000):
            flat = np.arange(start, min(start + 200_000, uni.size))
            keep = p[flat] > 0
            if not np.any(keep):
                continue
            Xs, ys = uni.points(flat[keep])
            if hasattr(queries, "evaluate"):
                vals = queries.evaluate(Xs)
            else:
                args = (Xs,) if ys is None else (Xs, ys)
                vals = call_user_function(queries, "queries", *args)
            vals = np.asarray(vals, dtype=float)
            vals = vals[:, None] if vals.ndim == 1 else vals
            part = p[flat[keep]] @ vals
            total = part if total is None else total + part
        return total

    @property
    def universe_(self):
        """Universe points ``(X_points, y_points)``; for a grid, bin centres."""
        check_is_fitted(self, "model_")
        if self.distribution_ is None:
            raise ValueError("universe_ lists every universe point, but this release is a "
                             "factored model over a grid larger than max_universe_size "
                             f"({self._universe.size:.3g} points); use "
                             "model_.marginal(attrs) or sample(n) rows.")
        return self._universe.points()

    def _remember_input(self, stream):
        """Public facts about the input needed to format outputs."""
        self._schema = stream.frame.schema
        self._sampling_rng = stream.randomness.sampling
        self._seeded = stream.randomness.seeded
        self._y_name, self._y_dtype = stream.y_name, stream.y_dtype
