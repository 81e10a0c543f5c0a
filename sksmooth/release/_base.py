"""What the grid-family releases share: parameters, the public mapping of the
private rows (``PrivateTable``), the universe and the workload's entry point.

Every choice made here is a function of public inputs (bounds, categorical
features and their levels, classes, bin counts, n, the public random
stream), except where a ``PrivacyLeakWarning`` says otherwise; those
releases are then marked not certified. Bad rows are never refused for their
values: they are mapped into the public box (:mod:`sksmooth._private_data`),
and how many were mapped is never stored. Outputs: :mod:`._outputs`;
workloads: :mod:`._queries`.
"""

from dataclasses import dataclass, replace
from typing import Any, Optional

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator

from .._constraints import (BOUNDS, EPSILON, RANDOM_STATE, READ_FROM_DATA, Boolean, Check,
                            Integer, NoneValue, Options, Param)
from .._guarantee import read_from_data_reason
from .._randomness import SEEDED_NOISE_NOTE
from .._untrusted import as_floats, read_labels, read_numbers, read_table, sanitize_rows
from .._validation import (
    BOUNDS_HINT,
    check_box_has_width,
    check_delta,
    check_sigma,
    reads_data,
)
from ..accounting._ledger import ACCOUNTANT, charge_release, refusal_recorded
from ..classes import user_code_notes
from ._statistics import WorkloadCounts
from ._streaming import PartitionCounter, ReleaseStream, StreamingRelease
from ._columns import (
    LevelColumn,
    warn_levels_from_dtype,
    label_dtype,
    label_name,
    label_output_dtype,
    reads_labels_from_rows,
    resolve_labels,
    schema_change_error,
)
from ._queries import as_workload, build_workload, check_workload
from ._schema import CLASSES, LEVELS, TableSchema, is_dataframe
from ._universe import GridUniverse, SampleUniverse

__all__ = ["ReleaseData", "ReleaseContext", "PrivateTable", "COMMON_CONSTRAINTS"]

MAX_UNIVERSE_CAP = 2**28
#: measured: 2**24 sampled points of 3 columns peaked at 1.3 GB (about 24 bytes
#: per value in the copies a fit makes); refused above 2 GiB
_SAMPLED_BYTES_PER_VALUE = 24
_SAMPLED_UNIVERSE_BYTES = 2**31


#: constraints shared by the four release estimators (SPEC §1.6)
COMMON_CONSTRAINTS = {
    "epsilon": EPSILON,
    "queries": Check(check_workload, "a workload name, object, callable or Workload(...)"),
    "universe": (Options("grid", "sample"), Integer(1, high=MAX_UNIVERSE_CAP, cap_reason=(
        "memory: a sampled point costs 24 bytes per column"))),
    "n_bins": (Options("auto"), Integer(1, high=2**16, cap_reason=(
        "bins per continuous feature; the grid is also capped by max_universe_size"))),
    "max_universe_size": Integer(1, high=MAX_UNIVERSE_CAP, cap_reason=(
        "memory: 16 bytes per universe point (4 GiB at the cap)")),
    "levels": LEVELS,
    "bounds": Param((NoneValue(), READ_FROM_DATA, BOUNDS),
                    hint=BOUNDS_HINT),
    "classes": CLASSES,
    "accountant": ACCOUNTANT,
    "random_state": RANDOM_STATE,
}
DELTA_CONSTRAINT = Check(check_delta, "a real number in [0, 1)")
SIGMA_CONSTRAINT = Check(check_sigma, "a real number in (0, 1]")
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
    levels: Any = None  # the levels parameter the schema was built from

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
            schema = TableSchema.from_input(X, frame.levels)
            change = schema.n_features == frame.schema.n_features and frame.schema.change_to(
                schema)  # (a different width: sklearn's message below)
            if change:
                raise schema_change_error(change)
            # a later chunk may have no rows (its row count is private under add/remove)
            return frame.map_rows(self._numeric(X, frame.schema, reset=False, min_rows=0), y)
        levels = self.levels
        schema = TableSchema.from_input(X, levels, self.bounds)
        X_num = self._numeric(X, schema, reset=True)
        if schema.n_features == 0:  # input of an unusual structure, validated above
            schema = TableSchema.from_input(X_num, levels, self.bounds)
        n = X_num.shape[0]
        lower, upper = schema.box(self.bounds, _box_values(X_num) if reads_data(self.bounds)
                                  else None)
        if not reads_data(self.bounds):
            check_box_has_width(lower, upper)
        labels, inferred, from_dtype = None, False, False
        if y is not None:
            dtype = label_dtype(y)
            y = read_labels(y, n)
            declared = self.classes if classes is None else classes
            labels, inferred, from_dtype = resolve_labels(y, declared, dtype)
        frame = PrivateTable(None, None, lower, upper, schema.categorical.copy(), labels,
                             inferred, schema, n_rows=0, classes_from_dtype=from_dtype,
                             levels=levels)
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
        with self._refusal_recorded(data):
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

    def _read_from_rows(self, X, y, labels_declared):
        """What a first chunk's rows would give (leak-warned): the parameters that
        would declare it instead. Only structure is looked at (names, dtypes,
        declared or dtype levels): an all-categorical table with public levels
        needs no bounds, a Categorical ``y`` no classes."""
        missing = []
        if reads_data(self.bounds) and not self._schema_of(X).all_levelled:
            missing.append("bounds=(lower, upper)")
        if reads_labels_from_rows(y, labels_declared):
            missing.append("classes=[...] (the label set)")
        return missing

    def _rows_read_in(self, X, y, labels_declared):
        """The rows realising the labels read (the base's) and, with ``bounds='data'``,
        every column's smallest and largest value (the box read from the rows)."""
        rows = super()._rows_read_in(X, y, labels_declared)
        schema = self._schema_of(X)
        if not reads_data(self.bounds) or schema.all_levelled:
            return rows
        if schema.n_features == 0:
            raise ValueError("X is not a table")  # read whole: validation says what it is
        values = _box_values(self._numeric(X, schema, reset=True))
        return np.concatenate([rows, values.argmin(axis=0), values.argmax(axis=0)])

    def _schema_of(self, X):
        """The schema of a first chunk ``X`` (no warning: ``fit`` gives it)."""
        return TableSchema.from_input(X, self.levels, self.bounds)

    def _infers_from_data(self, X, y, classes):
        """Whether a first chunk's box or label set will be read from its rows (then
        read from the whole chunk)."""
        return bool(self._read_from_rows(X, y, not reads_data(self.classes)
                                         or classes is not None))

    def _check_dask_parameters(self, X_head, y_head, labels_declared):
        """Refuse a dask release whose box or label set would be read from its rows."""
        missing = self._read_from_rows(X_head, y_head, labels_declared)
        if missing:
            raise ValueError(
                "a dask collection is counted without loading it, so nothing may be read "
                f"from its values: pass public {' and '.join(missing)}.")

    def _read_from_data(self, data):
        """What this release read from its rows (``mark_read_from_data``'s flags)."""
        return dict(bounds=reads_data(self.bounds) and not data.schema.all_levelled,
                    classes=bool(data.classes_inferred))

    def _refusal_recorded(self, data):
        """A refusal once the box or labels were read from the rows (the opt-in 'data')
        depends on them, as may its message (a grid size, the bounds): recorded first."""
        return refusal_recorded(self.accountant, type(self).__name__,
                                read_from_data_reason(**self._read_from_data(data)))

    def _charge(self, data, epsilon, delta, certified):
        """Charge the release, or, when its box or labels were read from the rows (the
        opt-in 'data'), record it as not private (never in the headline total)."""
        charge_release(self.accountant, type(self).__name__, epsilon, delta, certified=certified,
                       not_private=read_from_data_reason(**self._read_from_data(data)))

    def _not_certified(self, data, randomness):
        """Assumptions of the privacy claim the code could not certify."""
        out = []
        if randomness.seeded:
            out.append(SEEDED_NOISE_NOTE)
        if reads_data(self.bounds) and not data.schema.all_levelled:
            out.append("bounds are public (taken from data: PrivacyLeakWarning)")
        if data.classes_inferred:
            out.append("label set is public (taken from y: PrivacyLeakWarning)")
        out += user_code_notes(as_workload(self.queries).kind, "queries")
        return out + warn_levels_from_dtype(data.schema.codec.levels_from_dtype(), "levels",
                                        labels_from_dtype=data.classes_from_dtype)

    # -------------------------------------------------------- universe
    def _grid_bins(self, data, n_continuous, other_levels=1, n_public=True):
        """Bins per continuous feature of ``n_bins='auto'``: 16, fewer if the grid would
        exceed 2^16 points (public inputs only: d, categorical levels, classes)."""
        budget = min(self.max_universe_size, 2**16) / max(other_levels, 1)
        return max(2, min(16, _root_floor(budget, n_continuous)))

    def _grid(self, data, *, check_size=True, n_public=True):
        lower, upper, categorical = data.lower, data.upper, data.categorical
        n_cont = int(np.sum(~categorical & (upper > lower)))
        other = float(np.prod([np.floor(hi) - np.ceil(lo) + 1 for lo, hi, c
                               in zip(lower, upper, categorical) if c] or [1.0]))
        other *= 1 if data.classes is None else len(data.classes)
        n_bins = (self._grid_bins(data, n_cont, other, n_public)
                  if self.n_bins == "auto" else int(self.n_bins))
        uni = GridUniverse(lower, upper, categorical, n_bins, data.classes)
        if check_size and uni.size > self.max_universe_size:
            raise ValueError(
                f"the grid universe has {uni.size:.3g} points > max_universe_size="
                f"{self.max_universe_size}; {fewer_bins(uni, self.max_universe_size)}"
            )
        return uni

    def _build_universe(self, data, rng, n_points=None):
        if self.universe == "grid":
            return self._grid(data)
        if n_points is None:  # 'sample': 10 000 points; an int: that many
            n_points = (min(self.max_universe_size, 10_000) if isinstance(self.universe, str)
                        else self.universe)
        if n_points > self.max_universe_size:
            raise ValueError(f"a sampled universe of {n_points} points > max_universe_size="
                             f"{self.max_universe_size}; sample fewer points (universe=int).")
        n_columns = len(data.lower) + (data.classes is not None)
        if n_points * n_columns * _SAMPLED_BYTES_PER_VALUE > _SAMPLED_UNIVERSE_BYTES:
            raise ValueError(
                f"a sampled universe of {n_points} points of {n_columns} columns needs about "
                f"{n_points * n_columns * _SAMPLED_BYTES_PER_VALUE / 2**30:.3g} GiB; sample "
                "fewer points (universe=int).")
        return SampleUniverse(data.lower, data.upper, data.categorical, n_points, rng,
                              data.classes)

    # -------------------------------------------------------- workload
    def _build_workload(self, uni, rng):
        return build_workload(self.queries, uni, rng)


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


def fewer_bins(uni, max_size):
    """The fix for a grid ``uni`` past ``max_size`` points: the most bins per continuous
    column that fit, or the alternatives when even 2 do not."""
    continuous = np.flatnonzero(~uni.categorical & (uni.upper > uni.lower))
    n_cont = len(continuous)
    n_bins = uni.shape[continuous[0]] if n_cont else 1
    other = uni.size / float(n_bins) ** n_cont
    fits = _root_floor(max_size / other, n_cont) if n_cont else 0
    if fits >= 2:
        return (f"lower n_bins (now {n_bins}) to at most {fits}, raise max_universe_size, "
                "or use universe='sample'.")
    return (f"even n_bins=2 gives {2.0 ** n_cont * other:.3g} points ({n_cont} continuous "
            "columns): raise max_universe_size or use universe='sample'.")


def _root_floor(value, k):
    """``floor(value ** (1 / k))`` (``k >= 1``), robust to rounding below an integer."""
    return int(np.floor(value ** (1.0 / max(k, 1)) + 1e-9))


