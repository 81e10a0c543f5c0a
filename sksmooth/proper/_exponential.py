"""The ``'exponential'`` strategy: the generic private learner over a cover.

The exponential mechanism with score ``-(#errors)`` over the two-label
extension of a data-independent cover, from per-concept label counts.
Class, scores and calibration: ``docs/derivations.rst``, section "The
exponential strategy over a cover".
"""

import functools
import math
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from threadpoolctl import ThreadpoolController  # scikit-learn's dependency

from .._untrusted import sanitize_rows
from .._validation import public_box, reads_data
from ..classes import (ConceptClass, FiniteConcepts, HalfspaceConcepts, StumpConcepts, Thresholds,
                       check_concept_class)
from ..exceptions import DefaultsWarning, user_stacklevel
from ..mechanisms import exact_exponential_mechanism
from ._hypothesis import ConceptRule, SelectedHypothesis, TwoLabelRule, row_blocks
from ._intervals import IntervalStrategy
from ._selection_bound import ExponentialSelectionBound, check_table_size

__all__ = ["ExponentialStrategy", "LabelCounts", "label_counts"]

_ROW_BLOCK = 2048  # rows per block in the generic count update
# halfspace counts: blocks of 4 runs of 64 rows x 512 concepts (the float32 product
# 0.5 MiB; other shapes were no faster), uint8 counts per run and concept
_RUN, _RUNS, _BLOCK_CONCEPTS = 64, 4, 512
_SAFE_SCALE = 2.0**60  # coefficient and row scales the float32 filter handles
GENERIC_SOURCE = (
    "Kasiviswanathan, Lee, Nissim, Raskhodnikova, Smith, 'What can we learn "
    "privately?', FOCS 2008 (generic learner); Ghazi, Golowich, Kumar, Manurangsi, "
    "STOC 2021, arXiv:2012.03893, Lemma 6.3: exponential mechanism, score "
    "-(#errors), sensitivity 1"
)


@dataclass(frozen=True)
class LabelCounts:
    """Private running statistics: per-concept label counts (see module docstring)."""

    inside: np.ndarray  # (n_concepts, n_classes) int64
    total: np.ndarray  # (n_classes,) int64

    @property
    def n(self):
        return int(self.total.sum())

    def __add__(self, other):
        return LabelCounts(self.inside + other.inside, self.total + other.total)


def label_counts(concepts, X, y_codes, n_classes):
    """:class:`LabelCounts` of ``(X, y)`` for every concept (linear in the rows).

    Integer counts per label of the boolean concept values, one block of rows
    at a time: no float (rows x concepts) matrix.
    """
    y_codes = np.asarray(y_codes, dtype=np.int64)
    total = np.bincount(y_codes, minlength=n_classes).astype(np.int64)
    if isinstance(concepts, StumpConcepts):
        return LabelCounts(_stump_counts(concepts, X, y_codes, total), total)
    if isinstance(concepts, HalfspaceConcepts):
        return LabelCounts(_halfspace_counts(concepts, X, y_codes, total), total)
    inside = np.zeros((concepts.n_concepts, n_classes), np.int64)
    for start in range(0, X.shape[0], _ROW_BLOCK):
        block, codes = X[start:start + _ROW_BLOCK], y_codes[start:start + _ROW_BLOCK]
        for label in np.unique(codes):  # the labels, not the rows
            # the rows of one label evaluated together: no masked copy of the values
            values = np.asarray(concepts.evaluate(block[codes == label]), dtype=bool)
            inside[:, label] += values.sum(axis=0, dtype=np.int64)
    return LabelCounts(inside, total)


def _stump_counts(stumps, X, y_codes, total):
    """Counts for ``c_j(x) = (x_f >= t) == (sign > 0)``: each row's position among a
    feature's sorted thresholds, a histogram of (position, label), suffix sums."""
    k = len(total)
    inside = np.empty((stumps.n_concepts, k), np.int64)
    for f in np.unique(stumps.feature):
        js = np.flatnonzero(stumps.feature == f)
        order = np.argsort(stumps.threshold[js], kind="stable")
        # x >= t_(j) exactly when at least j + 1 sorted thresholds are <= x
        position = np.searchsorted(stumps.threshold[js][order], X[:, f], side="right")
        histogram = np.bincount(position * k + y_codes,
                                minlength=(len(js) + 1) * k).reshape(len(js) + 1, k)
        suffix = np.cumsum(histogram[::-1], axis=0)[::-1]
        ge = np.empty((len(js), k), np.int64)
        ge[order] = suffix[1:]  # label counts of rows with x_f >= t
        inside[js] = np.where((stumps.sign[js] > 0)[:, None], ge, total - ge)
    return inside


def _halfspace_counts(halfspaces, X, y_codes, total):
    """Counts for ``c_j(x) = (x @ w_j >= -b_j)``, ``x @ w_j`` summed in float64 in feature
    order (:func:`_reference_inside`): each row adds 0 or 1 to each count, a function of
    that row alone. Exactly the reference's, from float32 products and no (rows x
    concepts) matrix (a byte per 32 rows and concept: pass row_blocks):
    ``docs/derivations.rst``, "Halfspace counts"."""
    coef, intercept = halfspaces.coef, halfspaces.intercept
    d = X.shape[1]
    inside = np.zeros((len(coef), len(total)), np.int64)
    constant = ~np.any(coef != 0, axis=1)  # x @ 0 is +-0: inside exactly when b >= 0
    inside[constant] = np.where((intercept[constant] >= 0)[:, None], total, 0)
    with np.errstate(over="ignore", invalid="ignore"):
        reach = np.maximum(np.abs(X).max(axis=0, initial=0.0), 1.0 / _SAFE_SCALE)
        scale = np.abs(coef) @ reach + np.abs(intercept)  # >= |x @ w_j| + |b_j| for every row
        fast = (~constant & (scale > 1.0 / _SAFE_SCALE) & (scale < _SAFE_SCALE)
                & bool(np.all(reach < _SAFE_SCALE)))
    slow = np.flatnonzero(~constant & ~fast)  # huge or tiny scales: the reference only
    step = max(1, (1 << 20) // max(1, slow.size))
    for start in range(0, X.shape[0] if slow.size else 0, step):
        values = _reference_inside(X[start:start + step, None, :], coef[None, slow],
                                   intercept[None, slow])
        np.add.at(inside, (slow, y_codes[start:start + step, None]), values)
    partner = halfspaces.complements()
    paired = fast & (partner >= 0)
    paired[paired] &= fast[partner[paired]]
    ids = np.flatnonzero(fast & ~(paired & (partner < np.arange(len(coef)))))
    complements = np.where(paired, partner, -1)[ids]
    if not (ids.size and len(X)):  # e.g. a row beyond 2^60: no float32 copy of the
        return inside  # rows, whose overflow warning would show a private value's size
    # With u = 2^-24 and |x_k| <= reach_k: rounding x and w_j / scale_j to float32 and
    # summing the d + 1 products (any order, FMA or not) is within (d + 3) u of
    # (x @ w_j + b_j) / scale_j, the float64 reference within d 2^-53, underflow
    # (flushed or not) within (d + 1) 2^-64; E = (2 d + 8) u bounds their sum with room
    # to spare and is exact in float32
    margin = np.float32((2 * d + 8) * 2.0**-24)
    weights = (np.column_stack([coef[ids], intercept[ids]]) / scale[ids, None]).T.astype(
        np.float32)
    # rows by label, each label padded with zero rows (products exactly +-0, counted
    # above -E only) to whole runs
    order, present = np.argsort(y_codes, kind="stable"), np.flatnonzero(total)
    runs = -(-total[present] // _RUN)
    end = np.cumsum(runs) * _RUN
    at = np.arange(len(order)) + np.repeat(end - runs * _RUN - np.cumsum(total)[present]
                                           + total[present], total[present])  # padded rows
    source = np.full(end[-1], -1)  # padded row -> row of X
    source[at] = order
    points = np.zeros((len(source), d + 1), np.float32)
    points[at, :d], points[at, d] = X[order], 1
    pads = _RUN - (source >= 0).reshape(-1, _RUN).sum(axis=1, dtype=np.uint8)[:, None]
    first = end // _RUN - runs  # each label's first run
    label = present[np.searchsorted(end // _RUN, np.arange(len(pads)), "right")]
    thresholds = np.array([margin, -margin], np.float32)[:, None, None, None]
    runs_per_block = min(_RUNS, len(pads))  # few rows: wider blocks, same product size
    width = _BLOCK_CONCEPTS * _RUNS // runs_per_block
    n_threads = min(_blas_threads(), -(-len(ids) // width))
    table = np.empty((2, len(pads), len(ids)), np.uint8)  # above E, above -E per run

    def count(part):  # concept blocks part, part + n_threads, ...: disjoint columns
        product = np.empty((runs_per_block * _RUN, width), np.float32)
        sides = np.empty((2, runs_per_block, _RUN, width), bool)
        for c in range(part * width, len(ids), n_threads * width):
            w = np.ascontiguousarray(weights[:, c:c + width])
            k = w.shape[1]
            for b in range(0, len(pads), _RUNS):
                m = min(_RUNS, len(pads) - b)  # runs in this block
                p = np.matmul(points[b * _RUN:(b + m) * _RUN], w, out=product[:m * _RUN, :k])
                np.greater_equal(p.reshape(m, _RUN, k), thresholds, out=sides[:, :m, :, :k])
                np.add.reduce(sides[:, :m, :, :k].view(np.uint8), axis=2, dtype=np.uint8,
                              out=table[:, b:b + m, c:c + k])
    if n_threads == 1:  # (a worker thread alone ran ~5% slower)
        count(0)
    else:  # numpy releases the GIL in the products, compares and sums
        with _blas().limit(limits=1), ThreadPoolExecutor(n_threads) as pool:
            list(pool.map(count, range(n_threads)))
    above, near = np.stack([table[:, a:b].sum(axis=1, dtype=np.uint32)  # per label
                            for a, b in zip(first, end // _RUN)], axis=1)
    twins = complements >= 0  # below -E: the label's runs less those above -E
    inside[ids[:, None], present] += above.T
    inside[complements[twins, None], present] += (runs * _RUN - near.T)[twins]
    close_run, close = np.divmod(np.flatnonzero(table[1] - table[0] != pads), len(ids))
    batch = max(1, (1 << 18) // (_RUN * (d + 1)))  # runs with products within E, recounted
    for start in range(0, len(close), batch):  # memory: batch x _RUN x (d + 1)
        fr, fc = close_run[start:start + batch], close[start:start + batch]
        rows = source.reshape(-1, _RUN)[fr]  # rows of X, -1 for padding
        valid = rows >= 0
        q = np.einsum("fri,if->fr", points.reshape(-1, _RUN, d + 1)[fr],
                      weights[:, fc])  # any order: the same bound
        is_above, is_near = (q >= margin) & valid, (q >= -margin) & valid
        old = table[:, fr, fc].astype(np.int64)
        twin = complements[fc] >= 0
        np.add.at(inside, (ids[fc], label[fr]), is_above.sum(1) - old[0])
        np.add.at(inside, (complements[fc][twin], label[fr][twin]),
                  ((valid & ~is_near).sum(1) - _RUN + old[1])[twin])
        f, r = np.nonzero(is_near & ~is_above)  # within E: the reference decides
        has = complements[fc[f]] >= 0
        i, l = (np.concatenate([a, a[has]]) for a in (rows[f, r], label[fr[f]]))
        j = np.concatenate([ids[fc[f]], complements[fc[f]][has]])
        np.add.at(inside, (j, l), _reference_inside(X[i], coef[j], intercept[j]))
    return inside


# the BLAS libraries, found once (threadpool_info scans the loaded libraries: ~6 ms a call)
_blas = functools.cache(lambda: ThreadpoolController().select(user_api="blas"))


def _blas_threads():
    """The BLAS threads allowed (``OPENBLAS_NUM_THREADS``, ``threadpool_limits``, ...)."""
    return max([lib.num_threads for lib in _blas().lib_controllers] or [1])


def _reference_inside(X, coef, intercept):
    """``x @ w >= -b`` for broadcast rows ``X``, concepts ``coef`` and ``intercept``, the
    float64 sum taken in feature order (elementwise ufuncs: a row gets the same bits
    wherever it sits in the data). Overflow gives +-inf or NaN (outside), unwarned: a
    warning would tell whether some private value is huge."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = X[..., 0] * coef[..., 0]
        for k in range(1, X.shape[-1]):
            total = total + X[..., k] * coef[..., k]
        return total >= -intercept


def label_pairs(n_classes):
    """The pairs ``P`` of the module docstring, as label codes ``(inside, outside)``."""
    if n_classes == 2:
        return np.array([[1, 0]])
    a, b = np.meshgrid(np.arange(n_classes), np.arange(n_classes), indexing="ij")
    keep = a != b
    return np.column_stack([a[keep], b[keep]])


def hypothesis_errors(counts, pairs):
    """Errors of every hypothesis ``(c, pair)``, flattened as ``c * len(P) + p``."""
    inside, total = counts.inside, counts.total
    n_c = inside.sum(axis=1)[:, None]
    a, b = pairs[:, 0], pairs[:, 1]
    errors = (n_c - inside[:, a]) + ((counts.n - n_c) - (total[b] - inside[:, b]))
    return errors.ravel().astype(float)


@dataclass(frozen=True)
class ExponentialStrategy(ExponentialSelectionBound):
    """The generic learner over a cover (public structure only; no private data).

    Build with :meth:`build` on the first batch; then ``accumulate`` /
    ``select`` / ``release`` / ``guarantee_facts``.
    """

    concepts: FiniteConcepts
    pairs: np.ndarray
    n_classes: int
    lower: np.ndarray
    upper: np.ndarray
    built: FiniteConcepts  # the cover as built, whose radius gamma is read when reported
    gamma_certified: bool
    add_remove: bool
    bounds_inferred: bool

    name = "exponential"

    # ------------------------------------------------------------ building
    @classmethod
    def build(cls, params, X, n_classes, public_rng):
        """The data-independent hypothesis class: public bounds and stream only.

        ``X`` is read only when ``bounds=None`` (the box is then taken from
        the data, flagged and not certified).
        """
        lower, upper = public_box(params["bounds"], X.shape[1], X)
        if isinstance(params["hypotheses"], str) and params["hypotheses"] == "intervals":
            return IntervalStrategy.build(params, lower, upper, n_classes,
                                          reads_data(params["bounds"]))
        cover = _build_cover(params, lower, upper, public_rng)
        if cover.n_features != len(lower):
            raise ValueError(
                f"hypotheses has n_features={cover.n_features} but X has {len(lower)} "
                "features."
            )
        built, certified = cover, bool(cover.gamma_certified)
        if n_classes > 2 and isinstance(cover, StumpConcepts):
            cover = cover.subset(np.flatnonzero(cover.sign > 0))  # closed under complement
        n_pairs = 1 if n_classes == 2 else n_classes * (n_classes - 1)
        check_table_size(cover.n_concepts * n_pairs,
                         f"{cover.n_concepts} concepts x {n_pairs} label pairs",
                         "fewer classes, a smaller cover_size or a larger gamma")
        return cls(cover, label_pairs(n_classes), n_classes, lower, upper, built, certified,
                   params["neighbouring"] == "add_remove", reads_data(params["bounds"]))

    @staticmethod
    def check_public_params(params):
        """The checks of the parameters alone, before any data is read."""
        _checked_hypotheses(params)

    @property
    def n_hypotheses(self):
        return self.concepts.n_concepts * len(self.pairs)

    def empty_statistics(self):
        k = self.n_classes
        return LabelCounts(np.zeros((self.concepts.n_concepts, k), np.int64),
                           np.zeros(k, np.int64))

    # ---------------------------------------------------------- interface
    def accumulate(self, statistics, X, y_codes):
        """New statistics with ``(X, y)`` added (``statistics`` is not mutated)."""
        k = statistics.total.shape[0]
        y_codes = np.asarray(y_codes, dtype=np.int64)
        for rows in row_blocks(X.shape[0]):
            block = sanitize_rows(X[rows], self.lower, self.upper)
            statistics = statistics + label_counts(self.concepts, block, y_codes[rows], k)
        return statistics

    def select(self, statistics, params, randomness):
        """``(index, None)``: the exponential mechanism on the noise stream only."""
        # integer error counts: the exact sampler's law is exactly the
        # exponential mechanism's (no floating-point caveat)
        scores = -hypothesis_errors(statistics, self.pairs).astype(np.int64)
        index = exact_exponential_mechanism(scores, params["epsilon"], 1, randomness.noise,
                                            monotonic=self.add_remove)
        return int(index), None

    def release(self, index, classes, feature_names):
        concept, pair = divmod(index, len(self.pairs))
        inside, outside = self.pairs[pair]
        rule = TwoLabelRule(ConceptRule(self.concepts.subset([concept])), inside, outside)
        return SelectedHypothesis(index, rule, classes, feature_names)

    def log_n_hypotheses(self):
        return math.log(self.n_hypotheses)

    def guarantee_facts(self, params, n, details):
        """``(source, certified, not_certified, notes)``; the class note: when read."""
        return (GENERIC_SOURCE, *self.selection_facts(params, n, "cover", self._class_note))

    def _class_note(self):
        return (f"class: {self.n_hypotheses} two-label hypotheses ({self.concepts.n_concepts} "
                f"concepts x {len(self.pairs)} label pair(s)); cover radius gamma="
                f"{self.built.gamma} ({'' if self.gamma_certified else 'not '}certified) under "
                "the uniform measure on bounds_")


def _checked_hypotheses(params):
    """``hypotheses`` of method='exponential' as a concept class (public checks)."""
    hyp = params["hypotheses"]
    if not isinstance(hyp, (str, ConceptClass, FiniteConcepts)):
        raise TypeError(
            "hypotheses must be a class name, a sksmooth.classes.ConceptClass or a "
            "FiniteConcepts instance for method='exponential' (a matrix needs "
            f"method='littlestone' or FiniteClass(matrix=...)); got {type(hyp).__name__}."
        )
    if isinstance(hyp, str) and hyp == "prototypes":
        raise ValueError(
            "hypotheses='prototypes' is learnt from noisy class means: pass "
            "method='noisy_means' (method='exponential' selects from a cover)."
        )
    if isinstance(hyp, str) and hyp == "intervals":
        return hyp
    return check_concept_class(hyp, "hypotheses")


def _build_cover(params, lower, upper, public_rng):
    hyp = _checked_hypotheses(params)
    if isinstance(hyp, FiniteConcepts):
        return hyp
    if isinstance(hyp, Thresholds) and len(lower) != 1:
        raise ValueError(
            f"hypotheses='thresholds' needs one feature, X has {len(lower)}; use 'stumps'."
        )
    max_size = 20000 if params["cover_size"] == "auto" else int(params["cover_size"])
    gamma = 1.0 / 128 if params["gamma"] == "auto" else float(params["gamma"])
    kwargs = dict(bounds=(lower, upper), gamma=gamma, max_size=max_size,
                  random_state=public_rng)
    with warnings.catch_warnings(record=True) as capped:
        warnings.simplefilter("always", DefaultsWarning)
        cover = (hyp.cover(**kwargs) if isinstance(hyp, Thresholds)
                 else hyp.cover(n_features=len(lower), **kwargs))
    for w in capped:  # public inputs only; the radius is also in guarantee_ notes
        if not issubclass(w.category, DefaultsWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            continue
        warnings.warn(f"PrivateProperClassifier: the cover is capped at cover_size={max_size} "
                      f"hypotheses (its estimated radius, in guarantee_, is above the gamma="
                      f"{gamma:.3g} asked), "
                      "so the released hypothesis may be far from the class's best (the "
                      "selection bound is relative to the cover). Raise "
                      "method=Exponential(cover_size=...) or its gamma, or use fewer features "
                      "or hypotheses='stumps'.", DefaultsWarning, stacklevel=user_stacklevel())
    return cover
