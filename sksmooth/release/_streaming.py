"""``fit`` / ``partial_fit`` / ``release``: one release from data in chunks.

The mechanisms need only exact integer counts, so chunks (in memory, or dask
partitions) are counted into a private accumulator and ``release()`` charges,
then publishes, once. What the first chunk fixes and what is refused later:
``docs/derivations.rst``, section "Releases from data in chunks".
"""

import copy
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._atomic import atomic_update, forget_fit, parameter_fingerprints, refuse_changed_parameters
from .._constraints import validate_params
from .._guarantee import PrivacySpent, read_from_data_reason
from .._randomness import ReleaseRandomness, release_randomness
from .._untrusted import read_labels
from .._validation import check_same_classes, declared_classes, reads_data
from ..accounting._ledger import refusal_recorded
from ._columns import reads_labels_from_rows
from ._dask import count_dask_partitions, is_dask_collection, refuse_unknown_categories
from ._schema import declared_level_columns

__all__ = ["PartitionCounter", "ReleaseStream", "StreamingRelease", "row_blocks"]

_BLOCK_ENTRIES = 2**20  # rows x columns mapped and counted at once (8 MiB of floats)


@dataclass
class ReleaseStream:
    """Everything a release accumulates between its first chunk and ``release()``.

    ``frame`` (the public structure that maps every chunk), ``context``
    (the estimator's universe, workload and other public choices) and
    ``randomness`` are fixed at the first chunk; only ``statistic`` (exact
    counts) grows. Never published.
    """

    params: Any  # validated parameters of the first chunk
    frame: Any  # public structure: maps the rows of every chunk
    randomness: ReleaseRandomness
    context: Any  # estimator-specific public choices (universe, workload, ...)
    statistic: Any  # exact counts, with update(...), empty_like(), state(), merge_state()
    y_name: Any = False  # name of a pandas Series y, False for arrays
    y_dtype: Any = None  # a Series y's public dtype (label_output_dtype)
    parameter_fingerprints: dict = field(default_factory=dict)
    schema: Any = field(default_factory=dict)  # n_features_in_ / feature_names_in_ seen

    def __deepcopy__(self, memo):
        # @atomic_update snapshots the state before every chunk: copy the
        # counts only, share the fixed public parts (universe, workload)
        return replace(self, statistic=copy.deepcopy(self.statistic, memo))


class StreamingRelease:
    """``fit``, ``partial_fit`` and ``release`` of a release estimator (module doc).

    Subclasses implement ``_open_stream``, ``_map_chunk``,
    ``_partition_counter``, ``_check_dask_parameters``, ``_infers_from_data``
    and ``_release_stream`` (and may extend ``_check_public_parameters``).
    """

    # private state a release leaves besides its fitted attributes (forgotten by ``fit``)
    _release_state = ("_stream",)

    def __sklearn_is_fitted__(self):
        return hasattr(self, "privacy_spent_")  # released, not merely accumulating

    def fit(self, X, y=None):
        """Release from ``X`` (and ``y``): one chunk, then :meth:`release`.

        Parameters
        ----------
        X : array-like, DataFrame or dask collection of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), optional
            Labels, one more (categorical) attribute.

        A new fit starts from the parameters: the previous release's fitted
        state is forgotten first, so a fit that fails (bad input, a ledger
        that refuses the charge) leaves an unfitted estimator, nothing of the
        previous release mixed with the new input's structure
        (:func:`~sksmooth._atomic.forget_fit`); a bad parameter is refused
        before that, leaving the previous release as it was.

        Returns
        -------
        self
        """
        validate_params(self)  # a bad parameter leaves the previous release as it was
        forget_fit(self, private=self._release_state)  # fit = reset + one chunk + release
        try:
            self._accumulate(X, y, whole_table=True)
            return self.release()
        finally:
            self._stream = None

    @atomic_update
    def partial_fit(self, X, y=None, classes=None):
        """Add one chunk of rows to the exact counts; releases and charges nothing.

        The first chunk fixes the public structure; later chunks must have
        the same columns and dtypes. Call :meth:`release` to release once
        from all chunks. A failed call leaves the accumulation as it was.

        Parameters
        ----------
        X : array-like, DataFrame or dask collection of shape (n_chunk, n_features)
            A dask collection is counted partition by partition with Dask.
        y : array-like of shape (n_chunk,), optional
            Labels of the chunk (if the first chunk had labels, every chunk must).
        classes : array-like, optional
            scikit-learn's ``partial_fit`` convention for the public label
            set. It is the ``classes`` parameter of a release: if both are
            given they must list the same labels; with ``classes=None`` as a
            parameter, the first chunk's ``classes`` fixes the label set of
            the accumulation. Later chunks may repeat it (same labels) or
            omit it.

        Returns
        -------
        self
        """
        self._accumulate(X, y, whole_table=False, classes=classes)
        return self

    @atomic_update
    def release(self):
        """Run the mechanism once on the counts accumulated by :meth:`partial_fit`.

        Charges the ledger first, then publishes the release; the estimator
        then behaves exactly like one fitted on all chunks at once. The
        counts are consumed: a second ``release()`` raises until new chunks
        arrive, and the next :meth:`partial_fit` starts a new accumulation.

        Returns
        -------
        self
        """
        stream = getattr(self, "_stream", None)
        if stream is None:
            raise ValueError(
                f"{type(self).__name__}.release(): no rows accumulated since the last "
                "release; call partial_fit(X_chunk) first (or fit(X)).")
        params = validate_params(self)
        _check_parameters_unchanged(self, stream)
        self._check_public_parameters(params)
        _take_schema(self)
        self.__dict__.update(stream.schema)  # the new release's input schema
        self._release_stream(_with_noise(stream), params)
        self._stream = None
        return self

    def _accumulate(self, X, y, *, whole_table, classes=None):
        # a published release keeps its input schema until the next release replaces it;
        # meanwhile the chunks are validated against the accumulation's own
        published = _take_schema(self) if self.__sklearn_is_fitted__() else None
        stream = getattr(self, "_stream", None)
        if published is not None and stream is not None:
            self.__dict__.update(stream.schema)
        try:
            self._add_chunk(X, y, whole_table=whole_table, classes=classes)
        finally:
            stream = getattr(self, "_stream", None)
            seen = (_take_schema(self) if published is not None else
                    {a: self.__dict__[a] for a in _SCHEMA_ATTRIBUTES if a in self.__dict__})
            if stream is not None:
                stream.schema = seen
            if published is not None:
                self.__dict__.update(published)

    def _add_chunk(self, X, y, *, whole_table, classes=None):
        params = validate_params(self)
        stream = getattr(self, "_stream", None)
        if stream is not None:
            _check_parameters_unchanged(self, stream)
        if classes is not None:
            declared_classes(classes, self.classes)
            if stream is not None:  # against labels read from the rows: recorded first
                with refusal_recorded(self.accountant, type(self).__name__, read_from_data_reason(
                        classes=stream.frame.classes_inferred)):
                    check_same_classes(classes, self._stream_labels(stream), any_type=True)
        if stream is None:
            self._check_public_parameters(params)  # the ledger first, before any data
        if stream is not None and _no_rows_nor_columns(X) and (y is None or len(y) == 0):
            # a later chunk's row count is private under add/remove: a chunk without rows
            # is accepted however it comes (a cursor's last fetchmany() is [], and
            # np.asarray / pd.DataFrame of it have no columns either); nothing to count
            return
        dask_input = is_dask_collection(X) or is_dask_collection(y)
        if dask_input:
            _check_dask_pair(X, y)
            labels_declared = not reads_data(self.classes) or classes is not None
            first_X, first_y = _dask_head(X, y, declared_level_columns(X, self.levels),
                                          # a later chunk's labels map onto the fixed set
                                          labels_declared or stream is not None,
                                          may_be_empty=(stream is not None
                                                        or self._row_count_is_private(params)))
            if stream is None:  # later chunks: the first fixed bounds and labels
                self._check_dask_parameters(first_X, first_y, labels_declared)
            blocks = []
        elif stream is None and self._infers_from_data(X, y, classes):
            # what a release reads from the data (leak-warned) must come from the whole
            # chunk, not its first row block (the outcome would depend on the row count):
            # the chunk's rows that realise it open the stream, then every block is counted
            blocks = row_blocks(X, y)
            opening = self._opening_rows(X, y, blocks, classes)
            if opening is None:
                (first_X, first_y), blocks = (X, y), []
            else:
                first_X, first_y = opening
        else:
            (first_X, first_y), *blocks = row_blocks(X, y)
            opening = None
        if stream is None:
            randomness = _without_fresh_noise(release_randomness(self.random_state))
            whole = whole_table and not dask_input
            stream, rows = self._open_stream(first_X, first_y, params, randomness, whole, classes,
                                             n_rows=_n_rows(X) if whole else None)
            stream.params = dict(params)  # a plain dict: picklable
            stream.parameter_fingerprints = parameter_fingerprints(self.get_params(deep=True))
            self._stream = stream
        else:
            rows = self._map_chunk(stream, first_X, first_y)  # dask: a schema check only
        if dask_input:
            stream.statistic.merge_state(
                count_dask_partitions(X, y, self._partition_counter(stream)))
            return
        if opening is None:  # else the opening rows are counted in their blocks
            stream.statistic.update(*rows)
        for block_X, block_y in blocks:
            stream.statistic.update(*self._map_chunk(stream, block_X, block_y))

    def _opening_rows(self, X, y, blocks, classes):
        """The rows of a chunk (``blocks``: its row blocks) that realise what its
        first-chunk inference reads, as ``(X_rows, y_rows)``: opened from them, a
        release reads what it would read from the whole chunk. ``None`` when the
        input is not a table of as many rows as ``y`` or some row defeats the
        search (the chunk is then read whole, and validation reports the problem).

        Every block gives its first row of each label and of each extreme; among
        these candidates, searched again, are the first rows of the blocks seen
        so far, so the rows opening the release are the whole chunk's first
        rows, however the chunk is cut. Of equal labels of different types (1,
        True, 1.0; 0.0 and -0.0) or equal extremes, the one in the first row is
        read. The candidates are searched again whenever they outgrow a block,
        so the search holds about a block (and one row per distinct label).
        """
        if not _row_table(X, y):
            return None  # read whole: validation says what is wrong with it
        labels_declared = not reads_data(self.classes) or classes is not None
        y = _indexable(y)

        def first_rows(candidates):
            X_c, y_c = _rows_at(X, candidates), None if y is None else _rows_at(y, candidates)
            return candidates[np.unique(self._rows_read_in(X_c, y_c, labels_declared))]

        try:
            candidates, start = np.zeros(0, dtype=np.intp), 0
            for block_X, block_y in blocks:
                found = start + self._rows_read_in(block_X, block_y, labels_declared)
                candidates = np.unique(np.concatenate([candidates, found]))  # in row order
                start += block_X.shape[0]
                if candidates.size > block_X.shape[0]:
                    candidates = first_rows(candidates)
            rows = first_rows(candidates)
            return _rows_at(X, rows), None if y is None else _rows_at(y, rows)
        except (TypeError, ValueError, IndexError, KeyError, NotImplementedError,
                ArithmeticError):
            return None

    def _rows_read_in(self, X, y, labels_declared):
        """Positions of rows of ``X`` / ``y`` that realise what a first chunk reads from
        its rows: the first row of every distinct label when the labels are read
        (subclasses add what else they read)."""
        if not reads_labels_from_rows(y, labels_declared):
            return np.zeros(0, dtype=np.intp)
        labels = read_labels(y, len(y))
        if labels.dtype == object and np.not_equal(labels, labels).any():
            raise ValueError("a label is not equal to itself (NaN): it has no first row")
        return np.unique(labels, return_index=True)[1]  # the labels read: np.unique(y)

    def _planned_spend(self, params):
        """``(epsilon, delta)`` one release charges, from public parameters alone."""
        return PrivacySpent(params["epsilon"], params.get("delta", 0.0))

    @staticmethod
    def _row_count_is_private(params):
        """Whether the release keeps the number of records private (add/remove
        neighbours): then no input may be refused for having no rows."""
        return params.get("neighbouring") == "add_remove"

    def _check_public_parameters(self, params):
        """Checks of public inputs before any data is touched (ledger first)."""
        if self.accountant is not None:
            self.accountant.check(*self._planned_spend(params),
                                  neighbouring=params.get("neighbouring", "substitution"))


class PartitionCounter:
    """Exact counts of one dask partition, as a summable vector (picklable).

    Subclasses map a block of rows by the stream's fixed public structure
    (``map_block(X, y) -> arguments of statistic.update``).
    """

    def __init__(self, frame, empty_statistic):
        self.frame, self.empty = frame, empty_statistic

    def __call__(self, X, y=None):
        statistic = self.empty.empty_like()
        for block_X, block_y in row_blocks(X, y):
            if len(block_X):
                statistic.update(*self.map_block(block_X, block_y))
        return statistic.state()


_SCHEMA_ATTRIBUTES = ("n_features_in_", "feature_names_in_")  # set by validate_data


def _take_schema(estimator):
    """Remove and return the input-schema attributes scikit-learn's validation sets."""
    return {a: estimator.__dict__.pop(a) for a in _SCHEMA_ATTRIBUTES if a in estimator.__dict__}


def _n_rows(X):
    """Rows of a whole table split into blocks (its first block holds only some)."""
    shape = getattr(X, "shape", None)
    return int(shape[0]) if shape is not None and len(shape) == 2 else None


def row_blocks(X, y):
    """A large chunk as row blocks of about ``_BLOCK_ENTRIES`` entries each.

    Mapping and counting a block that fits in the CPU cache is several times
    faster than streaming whole-chunk temporaries through memory. Input of
    an unusual structure is left whole for validation to report.
    """
    if not _row_table(X, y):
        return [(X, y)]
    n_rows, n_columns = X.shape
    step = max(1, _BLOCK_ENTRIES // max(int(n_columns), 1))
    if n_rows <= step:
        return [(X, y)]
    y = _indexable(y)
    return [(_rows(X, start, start + step), None if y is None else _rows(y, start, start + step))
            for start in range(0, n_rows, step)]


def _row_table(X, y):
    """Whether ``X`` is a dense table of known rows and ``y`` (if any) one entry per
    row: input that can be taken apart by rows (anything else stays whole, for
    validation to report)."""
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2 or not isinstance(shape[0], int) or sp.issparse(X) \
            or sp.issparse(y):
        return False
    if y is None:
        return True
    # a list is not given to np.ndim: numpy would convert it whole and fail on a label
    # that is a sequence; anything else without rows (a set, a dict, a scalar) stays whole
    if not isinstance(y, (list, tuple)) and np.ndim(y) == 0:
        return False
    return len(y) == shape[0]


def _no_rows_nor_columns(X):
    """An in-memory chunk with no rows and no width (``[]``, ``np.asarray([])``,
    ``pd.DataFrame([])``); one of shape ``(0, d)`` is checked like any chunk."""
    if isinstance(X, (list, tuple)):
        return len(X) == 0
    shape = getattr(X, "shape", None)
    if is_dask_collection(X) or shape is None or len(shape) not in (1, 2):
        return False
    return shape[0] == 0 and (len(shape) == 1 or shape[1] == 0)


def _indexable(y):
    """``y`` as row blocks take it: a list or tuple as an array (:func:`read_labels`);
    anything else (numpy, pandas, pyarrow) as it is, so it keeps its dtype and name."""
    return read_labels(y) if isinstance(y, (list, tuple)) else y


def _rows(values, start, stop):
    return values.iloc[start:stop] if hasattr(values, "iloc") else values[start:stop]


def _rows_at(values, positions):
    if hasattr(values, "iloc"):
        return values.iloc[positions]
    if not isinstance(values, np.ndarray) and hasattr(values, "take"):
        return values.take(positions)  # pyarrow tables and arrays, pandas extension arrays
    return values[positions]


def _without_fresh_noise(randomness):
    """Keep a certified release's noise out of the accumulator until ``release()``.

    A copy of an accumulating estimator (``copy.deepcopy``, pickling) copies
    everything it holds; two copies that held the same noise generator
    would add the *same* noise to two different accumulations, and the
    difference of their releases would be an exact difference of counts.
    So with ``random_state=None`` the noise stream is drawn from fresh OS
    entropy inside ``release()`` only. A seeded release keeps its noise
    stream (it is replayable by design, and marked not certified).
    """
    return randomness if randomness.seeded else replace(randomness, noise=None)


def _with_noise(stream):
    if stream.randomness.noise is not None:
        return stream
    fresh = release_randomness(None).noise
    return replace(stream, randomness=replace(stream.randomness, noise=fresh))


def _check_parameters_unchanged(estimator, stream):
    """A release's parameters are those of its first chunk (structure is fixed then)."""
    refuse_changed_parameters(stream.parameter_fingerprints, estimator.get_params(deep=True),
                              "the counts were made with", "call fit (or release() and a "
                              "new partial_fit) to use the new one")


def _check_dask_pair(X, y):
    """X and y (if given) both dask collections with the same row blocks."""
    if y is None:
        return
    if not (is_dask_collection(X) and is_dask_collection(y)):
        raise ValueError("X and y must both be dask collections (or both in memory): got "
                         f"{type(X).__name__} and {type(y).__name__}; convert the other with "
                         "dask.dataframe.from_pandas / dask.array.from_array, partitioned "
                         "as X.")
    x_blocks, y_blocks = getattr(X, "npartitions", None), getattr(y, "npartitions", None)
    if x_blocks != y_blocks:
        raise ValueError(f"X has {x_blocks} partitions and y {y_blocks}: partition them "
                         "alike (same row blocks), e.g. y = X-derived or from_array with "
                         "X's chunks.")


def _dask_head(X, y, declared_columns, labels_declared, may_be_empty):
    """The first rows of a dask collection (for structure checks only; never counted).

    Unknown categories are refused (:func:`~._dask.refuse_unknown_categories`)
    except on the columns (``declared_columns``) or labels whose levels are
    declared: those never consult the categories. A later chunk
    (``may_be_empty``) may have no rows (its row count is private under
    add/remove); its head is then an empty table, which still has a structure.
    """
    return (_head(X, "X", declared_columns, may_be_empty),
            None if y is None else _head(y, "y", labels_declared, may_be_empty))


def _head(collection, name, declared, may_be_empty):
    refuse_unknown_categories(collection, name, declared)
    from ._dask import compute_privately

    if may_be_empty and hasattr(collection, "_meta"):
        # its structure alone (columns, dtypes, no rows): nothing is computed, so
        # neither the time taken nor the rows found say where the first row lies
        head = collection._meta
        if not hasattr(collection, "head"):  # dask array: the meta's width may be 0
            head = np.empty((0,) + tuple(collection.shape[1:]), dtype=collection.dtype)
    elif not hasattr(collection, "head"):  # dask array
        (head,) = compute_privately(collection[:1])
    else:  # the first partition, or (if it is empty) the first rows of any
        (head,) = compute_privately(collection.head(1, npartitions=1, compute=False))
        if len(head) == 0:
            (head,) = compute_privately(collection.head(1, npartitions=-1, compute=False))
    if len(head) == 0 and not may_be_empty:
        raise ValueError(f"the dask collection {name} has no rows.")
    return head
