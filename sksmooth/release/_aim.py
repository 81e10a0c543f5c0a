"""``AdaptiveMarginalSynthesizer``: AIM-style synthetic tables on a factored model.

A synthetic-data *sampler* (not a transformer): ``fit`` runs the adaptive
select-measure-estimate loop of :mod:`sksmooth.release.graphical._aim`
(AIM) or the spanning-tree selection of :mod:`sksmooth.release.graphical._mst`
(MST) on a table of categorical and binned continuous columns, ``sample``
draws synthetic rows from the released graphical model (systematic sampling
by default, :mod:`._systematic`; i.i.d. on request),
``fit_resample`` returns a synthetic ``(X, y)`` (imbalanced-learn's sampler
contract). There is no ``transform``:
synthetic rows are never silently paired with real labels or real columns.

The name says what it does: it *adaptively* selects which *marginals* to
measure (AIM, McKenna et al. 2022) and *synthesizes* rows from them.
"""

import itertools
import math
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._constraints import (
    BOUNDS,
    RANDOM_STATE,
    EPSILON,
    Check,
    Integer,
    NoneValue,
    Options,
    Param,
    Real,
)
from .._guarantee import Guarantee, PrivacySpent, mark_read_from_data, read_from_data_reason
from .._progress import VERBOSE, Progress
from .._randomness import SEEDED_NOISE_NOTE, sampling_generator
from .._untrusted import read_labels, read_numbers, read_table
from .._validation import BOUNDS_HINT, check_delta_for_n, reads_data
from ..accounting import zcdp_from_dp_budget
from ..accounting._ledger import ACCOUNTANT, charge_release
from ._columns import (
    LevelColumn,
    TableCodec,
    check_n_samples,
    declared_dtype,
    dtype_categories,
    warn_levels_from_dtype,
    format_labels,
    label_dtype,
    label_name,
    label_output_dtype,
    levels_change,
    reads_labels_from_rows,
    resolve_labels,
    schema_change_error,
    structure_change,
)
from ._schema import CLASSES, DEFAULT_N_BINS, LEVELS, TableSchema
from ._statistics import MarginalCounts
from ._streaming import PartitionCounter, ReleaseStream, StreamingRelease
from ._systematic import check_scheme
from .graphical._mst import select_spanning_tree
from .graphical._aim import round_signal_to_noise, select_and_measure
from .graphical._budget import ADD_REMOVE, SUBSTITUTION, measure_total

__all__ = ["AdaptiveMarginalSynthesizer"]

_SOURCE = (
    "McKenna, Mullins, Sheldon & Miklau, 'AIM: An adaptive and iterative mechanism for "
    "differentially private synthetic data', VLDB 2022, arXiv:2201.12677, Alg. 2; zCDP "
    "composition (Bun & Steinke, TCC 2016) converted to (eps, delta) by Canonne, Kamath & "
    "Steinke (NeurIPS 2020, Cor. 13)"
)
_MAX_MODEL_SIZE = 10**9  # floats: 8 GB
_COUNT_SHARE = 0.01  # of rho, for the noisy record count behind method='auto' (add/remove)
# method='auto' runs AIM when round_signal_to_noise >= this. Measured on six
# tables x three epsilons (benchmarks/bench_synthetic_tables.py, ours with the
# method forced, 5 seeds: the ours-aim / ours-mst rows of
# results/synthetic_tables.json, MST at its current selection share): below
# ~0.8 MST has the lower max and mean error; from ~0.8 to ~1.5 MST's mean
# error is lower on all 4 tables (by 2-11%), its max error on 2 (by 11-24%;
# AIM's 2% lower on digits15y at eps 2, 26% lower on a 40-column table with
# two parents per column, which no tree captures), and a classifier trained
# on MST's rows scores higher; from ~1.6 up AIM's max error is 7-24% lower
# and its mean error equal (digits8 eps 1: .0082 both) or 8-14% lower. The
# threshold sits at the top of the split zone.
_AIM_MIN_SIGNAL_TO_NOISE = 1.5
_SOURCE_MST = ("McKenna, Miklau & Sheldon, 'Winning the NIST Contest: A scalable and general "
               "approach to differentially private synthetic data', JPC 2021, "
               "arXiv:2108.04978, Alg. 1")


def _check_workload(value, name="workload"):
    """A tuple of orders in ``[1, 8]`` or a list of column-index tuples (not mixed)."""
    if not isinstance(value, (list, tuple)) or len(value) == 0:
        raise TypeError(f"{name} must be an order k, a tuple of orders such as (2, 3), or a "
                        f"list of column-index tuples such as [(0, 1), (1, 2)]; got {value!r}.")
    is_int = [isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value]
    if all(is_int):
        if not all(1 <= v <= 8 for v in value):
            raise ValueError(f"{name}: every order must be in [1, 8] (tables of more than 8 "
                             f"columns are not supported), got {value!r}.")
        return value
    tables_ok = not any(is_int) and all(
        isinstance(t, (list, tuple, np.ndarray)) and 0 < len(t) <= 8 and all(
            isinstance(a, numbers.Integral) and not isinstance(a, bool) and a >= 0 for a in t)
        for t in value)
    if not tables_ok:
        raise ValueError(f"{name} must be all orders, such as (2, 3), or all tables of 1 to 8 "
                         f"non-negative column indices, such as [(0, 1), (1, 2)]; got {value!r}.")
    return value


_WIDTH_NOT_PUBLIC = (
    "AdaptiveMarginalSynthesizer: with neighbouring='add_remove' the record count is "
    "private, so the table's shape must not depend on it, yet the width of a list (or "
    "of a 1-D array) is read from its rows and an empty one has none. Pass X as a 2-D "
    "array (np.empty((0, d)) when it has no rows) or a DataFrame, or give levels as a "
    "list (one entry per column), which fixes the width.")


def _width_from_rows(X):
    """Whether ``X``'s width can only be read from its rows: anything but a table
    whose type carries a 2-D shape (a DataFrame, a 2-D array or sparse matrix), e.g.
    a list, tuple or deque of rows, or a 1-D array (``np.asarray`` of an empty list)."""
    shape = getattr(X, "shape", None)
    return not (isinstance(shape, tuple) and len(shape) == 2)


class _StreamFrame:
    """The public column structure fixed at the first chunk (picklable).

    ``leaked``: ``("y",)`` when the label set was read from ``y``
    (``classes=None``, warned), else ``()``.
    """

    def __init__(self, codec, leaked, has_y):
        self.codec, self.leaked, self.has_y = codec, leaked, has_y
        self.classes_inferred = bool(leaked)  # as the grid family's PrivateTable

    def encode(self, columns):
        return _codes(self.codec, columns)


def _codes(codec, columns):
    """The level codes of a table's columns, one column of codes per strategy."""
    return np.stack(codec.encode(columns), axis=1).astype(np.int64)


class _PartitionCounter(PartitionCounter):
    """Encodes the rows of a dask partition under the fixed levels."""

    def map_block(self, X, y):
        columns = TableCodec.split(read_table(X))[0]
        if y is not None:
            columns.append(read_labels(y))
        return (self.frame.encode(columns),)


class AdaptiveMarginalSynthesizer(StreamingRelease, BaseEstimator):
    """Differentially private synthetic tables: adaptive marginals on a graphical model.

    The AIM mechanism (McKenna et al. 2022) written for numpy: all 1-way
    marginals are measured first; then, round by round, the exponential
    mechanism picks the workload table (or sub-table) the current model
    gets most wrong beyond the noise its measurement would carry, its counts
    receive discrete Gaussian noise, and a graphical model is re-fitted to
    all measurements at once (Private-PGM mirror descent). The noise is
    annealed when a measurement stops moving the model, and the loop stops
    when the zCDP budget is spent. The model stays factored (junction tree
    over the measured tables, capped at ``max_model_size`` floats), so
    tables with dozens of columns fit in memory.

    With few records for the number of columns, AIM's many rounds leave
    every measurement mostly noise; ``method='auto'`` (the default) then runs
    MST instead (McKenna, Miklau & Sheldon 2021: 1-way marginals and a
    private maximum spanning tree of 2-way marginals, ``2d - 1`` precise
    measurements), see ``method``. Continuous columns are discretised on
    their public ``bounds`` (no budget spent on the discretisation) and
    synthetic values drawn uniformly inside their bin.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget, > 0.
    delta : float, default=1e-9
        In (0, 1). The loop is accounted in zCDP (Gaussian noise and the
        exponential mechanism) and converted to ``(epsilon, delta)``;
        ``delta = 0`` (pure DP) is not supported: it would need Laplace
        noise and basic composition, which costs roughly a factor
        ``sqrt(rounds)`` in noise at equal epsilon.
    levels : None, int, sequence or dict, default=None
        The public levels of every column. An int ``L``: every column holds
        codes ``0 .. L-1``. A sequence (one entry per column) or a dict
        (column name or index -> entry; an int key is a position, as in
        scikit-learn, and an unknown key is refused), each entry an int
        (codes), a list of level values, or ``int``: the integers between the
        column's ``bounds`` (the column then comes back as integers; its input
        dtype is not public). Columns with a ``Categorical`` dtype use its
        categories when not given (the release is then marked not certified:
        ``astype('category')`` reads them from the data, and the code cannot
        tell a publicly declared dtype from such a one). Any other dtype
        follows the values (a numpy bool column with one missing value is
        object; ``convert_dtypes()`` makes a column of booleans ``boolean``
        and, with one text, ``string``), so a bool column needs ``[False,
        True]`` declared.
        A column with neither levels nor ``bounds`` is refused: levels are
        never read from the data (they would release which values occur,
        and the largest code would set the model's size).
    bounds : None, dict or tuple (lower, upper), default=None
        Continuous columns and their public range: ``{column name or index:
        (lower, upper)}``, or a pair ``(lower, upper)`` (numbers, or one per
        column) for every column without levels (as ``SmoothMWEM`` takes
        it). Each such column is cut into ``n_bins``
        equal-width bins of its range — a data-independent discretisation
        that costs no budget (a quantile split would have to be paid for) —
        and every synthetic value is drawn uniformly inside its bin from the
        sampling stream (floats: whether the column held integers is not
        public, its dtype following the values; declare ``levels={column:
        int}`` for integers). Values
        outside the range go to the first/last bin, missing values to the
        middle one (never refused or counted).
    n_bins : int, default=10
        Bins per continuous column (``bounds``).
    classes : None, 'data' or sequence, default=None
        Public label set when ``y`` is passed (``y`` is one more column).
        ``None``: a pandas ``Categorical`` ``y``'s categories (the release is
        then not certified, as for levels from a dtype), else refused; the
        opt-in ``'data'`` reads it from ``y`` with a
        :class:`~sksmooth.exceptions.PrivacyLeakWarning` (no
        differential-privacy guarantee), as in every release estimator.
    workload : int, tuple of int or list of tuple, default=2
        Marginals to be accurate on: ``k`` (all k-way tables), a tuple of
        orders such as ``(2, 3)``, or an explicit list of column-index
        tuples. All weights are 1.
    method : {"auto", "aim", "mst"}, default="auto"
        ``"aim"``: the adaptive loop above (AIM, McKenna et al. 2022).
        ``"mst"``: MST (McKenna, Miklau & Sheldon 2021): the 1-way
        marginals (``rho/3``), then a private maximum spanning tree of 2-way
        marginals (selection ``2 rho/15``, its tables ``8 rho/15``: the
        paper's equal thirds give selection more than it needs, see
        :mod:`sksmooth.release.graphical._mst`); ``2d - 1`` precise
        measurements, a tree-shaped model (the workload and
        ``max_model_size`` do not change it); levels whose noisy 1-way count
        is below ``3 sigma`` are merged before the 2-way step (MST's domain
        compression; never the labels ``y``). ``"auto"``: AIM when one of
        its initial rounds would measure a 2-way table with noise std below
        ``1/1.5`` of the table's mean cell count ``N / cells``, else MST —
        few records or many columns leave AIM's ``16 d`` rounds mostly
        noise, while with a strong signal AIM's adaptive, wider tables win;
        between ratios ~0.8 and ~1.5 MST has the lower mean error and
        mostly the lower max error, measured on six tables (see
        ``_AIM_MIN_SIGNAL_TO_NOISE``). ``N`` is public
        under substitution; under add/remove it is a discrete Gaussian
        count paid with 1% of the budget (in ``privacy_records_``).
    max_model_size : int, default=1_000_000
        Cap on the floats stored by the junction tree (8 MB; scoring the
        candidates also caches elimination messages, up to 16 times the
        model's floats, at least 4 Mi floats); tables whose
        measurement would exceed it are never selected. AIM's paper uses 80 MB
        (``10_000_000``); every round scores every candidate table on the
        model, so the fit's time grows with the cap. On a strongly dependent
        40-column table (n = 10 000, 5 levels, epsilon 1;
        ``benchmarks/bench_aim_dependent_table.py``) the fit takes 50 s at the
        default and 426 s at ``10_000_000``, with 2-way errors max .062 vs
        .061, mean .0050 vs .0050 (one seed; another seed: .065 vs .056,
        .0051 vs .0048, ``results/aim_dependent_table_seed1.json``); on the benchmark's
        40-column table at epsilon 2 the two caps give the same errors
        (20 seeds; ``benchmarks/results/synthetic_tables.json`` now and as
        of commit ``6ec5b5e``, at the previous default of ``10_000_000``).
    neighbouring : {"add_remove", "substitution"}, default="add_remove"
        Neighbouring relation of the guarantee. ``"add_remove"`` (AIM's)
        keeps the number of records private (it is estimated from the noisy
        tables), so a table without rows is released like any other, never
        refused. Its shape must then not depend on the rows: a DataFrame or a
        2-D array (``np.empty((0, d))`` when empty) keeps its width, but a
        list's width is read from its rows (``[]``, a cursor's empty result,
        has none), so a list or 1-D array is refused whatever its rows unless
        ``levels`` is a list (one entry per column), which fixes the width.
        ``"substitution"`` treats the record count as public.
    accountant : BudgetAccountant, default=None
        Ledger charged before the model is published. A ledger's budget is
        read under its own relation (substitution by default), which
        charges an add/remove release of ``(epsilon, delta)`` as ``(2
        epsilon, (1 + e^epsilon) delta)``: see
        :class:`~sksmooth.accounting.BudgetAccountant`.
    random_state : None, int, Generator or RandomState, default=None
        ``None``: fresh OS entropy (certified release). Anything else makes
        the release reproducible and *not certified*.
    verbose : int or bool, default=0
        ``>= 1``: after the charge, the mechanism chosen, its stages and a
        progress bar over the share of the budget spent (on stderr; tqdm
        when installed).

    Attributes
    ----------
    method_ : {"aim", "mst"}
        The mechanism that ran.
    classes_ : ndarray
        The label set (``classes``), when fitted with ``y``.
    model_ : FactoredModel
        The released graphical model (level codes).
    measured_tables_ : list of tuple of int
        Column sets measured, in order (released).
    n_records_ : float
        The record count the model represents (public under substitution,
        a post-processed noisy estimate under add/remove).
    privacy_records_ : list of PrivacyRecord
        Every zCDP spend: selection epsilons and measurement noise scales.
    rho_ : float
        zCDP budget spent (the sum of ``privacy_records_``).
    privacy_spent_ : PrivacySpent
    guarantee_ : Guarantee
    feature_names_in_ : ndarray of str
        Column names when a DataFrame whose column names are all strings was
        fitted (scikit-learn's rule); the synthetic frame keeps the fitted
        column labels as they were, strings or not.

    References
    ----------
    McKenna, Mullins, Sheldon & Miklau, "AIM: An adaptive and iterative
    mechanism for differentially private synthetic data", VLDB 2022,
    arXiv:2201.12677.
    McKenna, Miklau & Sheldon, "Winning the NIST Contest: A scalable and
    general approach to differentially private synthetic data", Journal of
    Privacy and Confidentiality 11(3), 2021, arXiv:2108.04978.
    McKenna, Sheldon & Miklau, "Graphical-model based estimation and
    inference for differential privacy", ICML 2019, arXiv:1901.09136.
    Canonne, Kamath & Steinke, "The discrete Gaussian for differential
    privacy", NeurIPS 2020, arXiv:2004.00010.
    Madow & Madow, "On the theory of systematic sampling, I", Annals of
    Mathematical Statistics 15(1), 1944 (``sample``'s default scheme).

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.release import AdaptiveMarginalSynthesizer
    >>> X = np.random.default_rng(0).integers(0, 3, size=(500, 4))
    >>> synth = AdaptiveMarginalSynthesizer(epsilon=1.0, levels=3).fit(X)
    >>> synth.sample(5).shape
    (5, 4)
    """

    _release_state = ("_stream", "_codec", "_has_y", "_y_name", "_y_dtype")

    _parameter_constraints = {
        "epsilon": EPSILON,
        "delta": Real(0, 1, closed="neither"),
        "levels": LEVELS,
        "classes": CLASSES,
        "bounds": Param((NoneValue(), BOUNDS), hint=BOUNDS_HINT),
        "n_bins": Integer(2, high=1024, cap_reason=(
            "a table's cells are the product of its columns' bins")),
        "workload": (Integer(1, high=8, cap_reason="tables of more than 8 columns"),
                     Check(_check_workload, "a tuple of orders or a list of column tuples")),
        "max_model_size": Integer(1, high=_MAX_MODEL_SIZE, cap_reason="8 GB of floats"),
        "method": Options("auto", "aim", "mst"),
        "neighbouring": Options("add_remove", "substitution"),
        "accountant": ACCOUNTANT,
        "random_state": RANDOM_STATE,
        "verbose": VERBOSE,
    }

    def __init__(self, *, epsilon=1.0, delta=1e-9, levels=None, bounds=None,
                 n_bins=DEFAULT_N_BINS, classes=None, workload=2, method="auto",
                 max_model_size=1_000_000,
                 neighbouring="add_remove", accountant=None, random_state=None, verbose=0):
        self.epsilon = epsilon
        self.delta = delta
        self.levels = levels
        self.bounds = bounds
        self.n_bins = n_bins
        self.classes = classes
        self.workload = workload
        self.method = method
        self.max_model_size = max_model_size
        self.neighbouring = neighbouring
        self.accountant = accountant
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        tags.requires_fit = True
        tags.target_tags.required = False
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    # ------------------------------------------------------------ input
    def _columns(self, X, y, min_rows=1, first=True):
        """``(columns, names, dtypes, frame)`` of the input table
        (a later chunk may have no rows: ``min_rows=0``), read by :func:`read_table`
        (a pyarrow dictionary column by its values: its levels must be declared)."""
        if first and min_rows == 0 and not hasattr(X, "columns") and _width_from_rows(X):
            # the record count is private: a table's shape must not depend on it, but a
            # list's width is read from its rows ([] from a cursor has none). Decided by
            # the input's type and the parameters alone, never by its (empty) rows
            if not isinstance(self.levels, (list, tuple)):
                raise ValueError(_WIDTH_NOT_PUBLIC)
            if isinstance(X, (str, bytes)) or (np.ndim(X) == 0 and (  # a number, a text,
                    isinstance(X, np.ndarray) or not hasattr(X, "__iter__"))):  # a 0-d array
                raise ValueError("X must be 2-D (n_samples, n_features): got a single "
                                 "value.")
            # read as the list of its rows (a Series or 1-D object array of rows, a set,
            # an iterator), so that an empty one and one with rows are read alike
            X = list(X)
            if len(X) == 0:
                X = np.empty((0, len(self.levels)))
        X = read_table(X)
        frame = hasattr(X, "columns") and hasattr(X, "dtypes")
        if frame:  # the DataFrame's own column labels, strings or not
            columns, names, dtypes, _ = TableCodec.split(X)
        else:  # its structure checked (2-D, sparse, rows), its values as they are
            arr = read_numbers(self, X, dtype=None, ensure_min_samples=min_rows)
            columns, names, dtypes, _ = TableCodec.split(arr)
        if len(columns) == 0 or len(columns[0]) < min_rows:
            raise ValueError("X must have at least one row and one column."
                             if min_rows else "X must have at least one column.")
        if y is not None:
            y_dtype = label_dtype(y)  # a Categorical's categories are public
            y = read_labels(y, len(columns[0]))  # a column vector too, as SmoothMWEM takes it
            columns.append(y)
            names.append("y")
            dtypes.append(y.dtype if y_dtype is None else y_dtype)
        return columns, names, dtypes, frame

    def _encode(self, X, y, min_rows=1):
        """``(codes, codec, leaked)``: the table's level codes under its public codec.

        Levels are public (declared, or a Categorical dtype's categories) and a
        continuous column is binned on its public ``bounds``; a column with
        neither is refused. The label set is ``classes`` or, with ``'data'``,
        read from ``y`` with a PrivacyLeakWarning (then ``leaked == ("y",)``;
        ``None`` is refused), the rule of every release estimator.
        """
        values, names, dtypes, frame = self._columns(X, y, min_rows=min_rows)
        n_features = len(values) - int(y is not None)
        columns = TableSchema.build(names[:n_features], dtypes[:n_features], frame, self.levels,
                                    self.bounds, self.n_bins).codec.columns
        leaked = ()
        if y is not None:
            classes, inferred, from_dtype = resolve_labels(values[-1], self.classes, dtypes[-1])
            columns.append(LevelColumn(classes, declared_dtype(dtypes[-1], classes)
                                       if not reads_data(self.classes) else dtypes[-1],
                                       from_dtype=from_dtype))
            leaked = ("y",) if inferred else ()
        codec = TableCodec(names, columns, frame)
        return _codes(codec, values), codec, leaked

    def _tables(self, d):
        w = self.workload
        if isinstance(w, numbers.Integral):
            orders = (int(w),)
        elif all(isinstance(k, numbers.Integral) and not isinstance(k, bool) for k in w):
            orders = tuple(int(k) for k in w)
        else:
            tables = [tuple(sorted(int(a) for a in t)) for t in w]
            if any(not t or min(t) < 0 or max(t) >= d for t in tables):
                raise ValueError(f"workload tables must hold column indices in [0, {d - 1}].")
            return [(t, 1.0) for t in tables]
        return [(t, 1.0) for k in orders for t in itertools.combinations(range(d), min(k, d))]

    # ------------------------------------------- fit / partial_fit / release
    # (the flow is sksmooth.release._streaming; these are its hooks)
    def _open_stream(self, X, y, params, randomness, whole_table, classes=None, n_rows=None):
        """First chunk: fix the columns' public levels and the counted tables."""
        if classes is not None and reads_data(self.classes):
            raise ValueError("AdaptiveMarginalSynthesizer: declare the public label set as "
                             "the classes parameter (classes=[...]), not in partial_fit.")
        # under add/remove the record count is private: a table without rows is released
        # like any other (refusing it would tell the empty table from one with a row)
        codes, codec, leaked = self._encode(
            X, y, min_rows=0 if self._row_count_is_private(params) else 1)
        tables = self._tables(codes.shape[1])
        # every 1-way table: both strategies measure them all first
        counted = {tuple(sorted(t)) for t, _ in tables} | {(a,) for a in range(codes.shape[1])}
        if params["method"] != "aim":  # MST measures a spanning tree of all 2-way tables
            d = codes.shape[1]
            counted |= set(itertools.combinations(range(d), 2)) if d > 1 else {(0,)}
        counts = MarginalCounts(codec.shape, sorted(counted))
        frame = _StreamFrame(codec, tuple(leaked), y is not None)
        return ReleaseStream(params, frame, randomness, tables, counts, label_name(y),
                             label_output_dtype(y, self.classes)), (codes,)

    def _stream_labels(self, stream):
        return stream.frame.codec.columns[-1].levels if stream.frame.has_y else None

    def _map_chunk(self, stream, X, y):
        frame = stream.frame
        if not (hasattr(X, "columns") or sp.issparse(X)):  # width checked against the first chunk
            read_numbers(self, X, reset=False, dtype=None, ensure_min_samples=0)
        # no rows is allowed: a later chunk's row count is private under add/remove
        columns, names, dtypes, chunk_frame = self._columns(X, y, min_rows=0, first=False)
        # compared as the first chunk's were kept (declared levels: declared_dtype)
        dtypes = [c.chunk_dtype(t) for c, t in zip(frame.codec.columns, dtypes)]
        if (y is not None) != frame.has_y:
            change = ("y is given here but was not at the first chunk" if y is not None else
                      "y is missing here but was given at the first chunk")
        else:
            # features whose levels are their dtype's categories keep them; labels map
            # onto the fixed label set (as in the grid family)
            features = frame.codec.subset(len(names) - int(frame.has_y))
            from_dtype = [getattr(c, "from_dtype", False) for c in features.columns]
            change = (structure_change(frame.codec.structure(),
                                       TableCodec.structure_of(chunk_frame, names, dtypes))
                      or levels_change(
                          features.names,
                          [c.levels if f else None for c, f in zip(features.columns, from_dtype)],
                          [dtype_categories(t) if f else None for t, f in zip(dtypes, from_dtype)]))
        if change:
            raise schema_change_error(change)
        return (frame.encode(columns),)

    def _partition_counter(self, stream):
        return _PartitionCounter(stream.frame, stream.statistic.empty_like())

    def _infers_from_data(self, X, y, classes):
        return reads_labels_from_rows(y, not reads_data(self.classes))

    def _check_dask_parameters(self, X_head, y_head, labels_declared):
        """Refuse a first dask chunk whose label set would be read from its rows (the
        levels of its columns are checked as in memory: never read from the rows)."""
        if reads_labels_from_rows(y_head, labels_declared):
            raise ValueError(
                "the label set would be read from y; a dask collection is counted without "
                "loading it, so declare the public labels with classes=[...].")

    def _release_stream(self, stream, params):
        """Run the adaptive loop on the accumulated counts (charged first)."""
        epsilon, delta = params["epsilon"], params["delta"]
        codec, leaked = stream.frame.codec, stream.frame.leaked
        neighbouring = ADD_REMOVE if params["neighbouring"] == "add_remove" else SUBSTITUTION
        check_delta_for_n(delta, stream.statistic.n if neighbouring.public_total else None)
        rho = zcdp_from_dp_budget(epsilon, delta)
        not_certified = self._not_certified(codec, stream.randomness.seeded, leaked,
                                            stream.frame.has_y)
        charge_release(self.accountant, type(self).__name__, epsilon, delta,
                       certified=not not_certified, neighbouring=params["neighbouring"],
                       not_private=read_from_data_reason(classes=leaked))
        label = (len(codec.shape) - 1,) if stream.frame.has_y else ()
        with Progress(type(self).__name__, params["verbose"], total=100,
                      unit="% of rho") as progress:
            progress.log(f"charged ({epsilon:g}, {delta:g}): rho = {rho:.4g}")
            method, result = self._run(params, stream.statistic, codec.shape, stream.context,
                                       rho, neighbouring, stream.randomness.noise, label,
                                       progress=progress)
        # ---- publish (after the charge)
        self._codec = codec
        self._has_y = stream.frame.has_y
        self._y_name, self._y_dtype = stream.y_name, stream.y_dtype
        self.method_ = method
        self.model_ = result.model
        self.measured_tables_ = [m.attrs for m in result.measurements]
        self.n_records_ = float(result.total)
        self.privacy_records_ = list(result.records)
        self.rho_ = result.rho_spent
        self.n_features_in_ = len(codec.shape) - int(self._has_y)
        if self._has_y:  # the public label set (classes=), as the other releases give it
            self.classes_ = np.asarray(codec.columns[-1].levels)
        names = codec.names[: self.n_features_in_]
        if codec.frame and all(isinstance(n, str) for n in names):  # scikit-learn's rule
            self.feature_names_in_ = np.array(names, dtype=object)
        self.privacy_spent_ = PrivacySpent(epsilon, delta)
        self.guarantee_ = mark_read_from_data(
            self._guarantee(epsilon, delta, neighbouring, not_certified, method),
            classes=bool(stream.frame.leaked))

    def _run(self, params, counts, shape, tables, rho, neighbouring, rng, label=(),
             progress=None):
        """``(method, SelectionResult)``: the mechanism ``method`` chose, run within ``rho``.

        ``'auto'`` runs AIM when one of its rounds would measure a 2-way
        table with noise std below 1/1.5 of the table's mean cell count
        (:func:`~.graphical._aim.round_signal_to_noise` >= 1.5,
        ``_AIM_MIN_SIGNAL_TO_NOISE``), and MST otherwise. The record count it
        needs is public under substitution and otherwise a discrete Gaussian count paid with 1% of ``rho``
        (recorded in ``privacy_records_``); the choice is post-processing.
        """
        method, spent = params["method"], []
        if method == "auto":
            share = 0.0 if neighbouring.public_total else _COUNT_SHARE * rho
            total, spent = measure_total(counts, share, rng, neighbouring)
            ratio = round_signal_to_noise(total, shape, tables,
                                          rho - math.fsum(r.rho for r in spent), neighbouring)
            method = "aim" if ratio >= _AIM_MIN_SIGNAL_TO_NOISE else "mst"
        if progress is not None:
            progress.log(f"method {method!r}")
        if method == "aim":
            result = select_and_measure(counts, shape, tables, rho, rng, neighbouring=neighbouring,
                                        max_model_size=params["max_model_size"],
                                        prior=spent, progress=progress)
        else:
            result = select_spanning_tree(counts, shape, rho, rng, neighbouring=neighbouring,
                                          exempt=label, prior=spent, progress=progress)
        return method, result

    @staticmethod
    def _not_certified(codec, seeded, leaked, has_y):
        """Assumptions of the privacy claim the code could not certify."""
        out = []
        if seeded:
            out.append(SEEDED_NOISE_NOTE)
        if leaked:
            out.append("label set is public (taken from y: PrivacyLeakWarning)")
        features = codec.subset(len(codec.columns) - int(has_y))
        return out + warn_levels_from_dtype(
            features.levels_from_dtype(), "levels",
            labels_from_dtype=has_y and getattr(codec.columns[-1], "from_dtype", False))

    def _guarantee(self, epsilon, delta, neighbouring, not_certified, method):
        return Guarantee(
            claim=f"({epsilon:g}, {delta:g})-differential privacy ({neighbouring.name} "
                  "neighbours)",
            source=_SOURCE if method == "aim" else _SOURCE_MST,
            certified=not not_certified,
            assumptions_certified=(
                f"table sensitivity: L1 {neighbouring.l1:g}, L2 {neighbouring.l2:.4g} "
                f"({neighbouring.name})",
                "zCDP spends sum to the budget (see privacy_records_)",
                "model-size cap and candidate set depend only on released tables",
            ) + (() if neighbouring.public_total else (
                "a table without rows is released like any other (no input is refused "
                "for its row count)",)),
            assumptions_not_certified=tuple(not_certified),
            notes=("exact discrete Gaussian noise on integer counts and exact "
                   "exponential-mechanism selection on integer scores (no floating-point "
                   "sampler: Mironov 2012 does not apply)",
                   f"mechanism: {method.upper()}"
                   + (" (chosen by method='auto' from public inputs and the record count: "
                      + ("public under substitution)" if neighbouring.public_total
                         else "a noisy count, in privacy_records_)")
                      if self.method == "auto" else "")),
        )

    # ------------------------------------------------------------ outputs
    def sample(self, n_samples=None, random_state=None, *, scheme="systematic"):
        """Synthetic rows from the released model (post-processing, no privacy cost).

        Parameters
        ----------
        n_samples : int, optional
            Number of rows; default: ``round(n_records_)``.
        random_state : None, int or Generator
            Randomness of the draw, independent of the mechanism's noise.
        scheme : {'systematic', 'iid'}, default='systematic'
            ``'systematic'``: every row has exactly the model's distribution
            and the rows' counts on each of the model's cliques, given its
            separator, are within one of their expected value, so the rows
            add little sampling error to the model's; rows are
            exchangeable, not independent (systematic sampling, Madow &
            Madow 1944). ``'iid'``: independent rows.

        Returns
        -------
        X_syn : ndarray or DataFrame
            Same kind and column names as the fitted ``X``; dtypes from public
            inputs only: a Categorical column keeps its dtype, any other
            column gets its levels' dtype (a continuous column floats),
            since pandas picks every other dtype from the values (an int
            column with a missing value is float64; ``convert_dtypes()``
            makes whole numbers ``Int64`` and, with one 41.5, ``Float64``).
        y_syn : ndarray or Series
            Only when ``y`` was fitted: returned as ``(X_syn, y_syn)``; a
            pandas Series with the fitted ``y``'s name when ``y`` was one, and its
            dtype when that is public (a Categorical).
        """
        check_is_fitted(self, "model_")
        n_samples = (max(int(round(self.n_records_)), 1) if n_samples is None
                     else check_n_samples(n_samples))
        check_scheme(scheme)
        rng = sampling_generator(random_state)
        codes = self.model_.sample(int(n_samples), rng, scheme)
        if not self._has_y:
            return self._codec.decode(codes, rng)
        y_syn = format_labels(self._codec.columns[-1].decode(codes[:, -1], rng),
                              self._y_name, self._y_dtype)
        return self._codec.subset(-1).decode(codes[:, :-1], rng), y_syn

    def fit_resample(self, X, y):
        """Fit on ``(X, y)`` and return a synthetic ``(X_syn, y_syn)``.

        ``round(n_records_)`` rows: ``len(X)`` under substitution, where the
        count is public; under add/remove the released noisy count, since
        ``len(X)`` rows would reveal the private number of records.
        """
        self.fit(X, y)
        seed = self.random_state if isinstance(self.random_state, numbers.Integral) else None
        return self.sample(None, random_state=seed)

    def get_feature_names_out(self, input_features=None):
        """Column names of the synthetic rows."""
        check_is_fitted(self, "model_")
        return self._codec.feature_names(input_features, self.n_features_in_)
