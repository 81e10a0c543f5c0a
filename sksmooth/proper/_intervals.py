"""``hypotheses='intervals'``: the exponential mechanism over 1-D interval partitions.

Hypothesis class (proper, multiclass). On the public grid of ``N`` cells per
feature (the stump grid of ``bounds``, cut points ``l_f + i (u_f - l_f) /
N``), a hypothesis is a feature ``f``, at most ``P - 1`` of the ``N - 1``
cut points and one label per piece::

    h(x) = label_j   where piece j holds the grid cell of x_f

with ``P = max(2, n_classes)`` pieces at most. Every piece may take any
label, so the class contains the multiclass stumps (``P = 2``) and the
constants; a depth-limited decision tree on one feature, e.g. the petal
length splits of iris. Its size is ``|H| = d * sum_{p=1}^{P} C(N - 1, p - 1)
k^p`` (``cover_size_``), far too many to list, but the score ``-(#errors)``
is a sum over pieces. Selection is the exponential mechanism with score
``-(#errors)`` (sensitivity 1, like
:class:`~sksmooth.proper._exponential.ExponentialStrategy`). When ``|H| <=
MAX_LISTED`` the class is listed (integer error counts, vectorised per
number of pieces) and sampled exactly: certified. Larger classes are sampled
by a forward pass (log partition functions over prefixes of cells, log
space) and a backward sampling pass, the same law in real arithmetic but in
floating point with Gumbel noise, so the release says it is not certified
(:data:`~sksmooth.mechanisms.FLOAT_SELECTION_NOTE`).

Statistics: per feature and grid cell, the label counts (``d x N x k``
integers; exact, kept between ``partial_fit`` calls).

References
----------
McSherry, Talwar, "Mechanism design via differential privacy", FOCS 2007;
Kasiviswanathan, Lee, Nissim, Raskhodnikova, Smith, "What can we learn
privately?", FOCS 2008 (generic learner over a finite class).
"""

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy.special import gammaln, logsumexp

from .._domain import box_distance, grid_threshold
from .._untrusted import sanitize_rows
from ..mechanisms import FLOAT_SELECTION_NOTE, exact_exponential_mechanism
from ._hypothesis import SelectedHypothesis, row_blocks
from ._selection_bound import ExponentialSelectionBound, check_table_size

__all__ = ["IntervalStrategy", "CellCounts", "MAX_LISTED", "listed_cells"]

MAX_SCALE = 1e250
# the forward pass holds (n_cells + 1)^2 x n_classes log weights per feature
MAX_CELLS = 1024
# classes up to this size are listed and sampled exactly (certified): 32 MiB of scores
MAX_LISTED = 2**22

INTERVAL_SOURCE = (
    "McSherry, Talwar, FOCS 2007 (exponential mechanism, sampled by dynamic "
    "programming over pieces); Kasiviswanathan et al., FOCS 2008 (generic learner): "
    "score -(#errors), sensitivity 1"
)


@dataclass(frozen=True)
class CellCounts:
    """Private running statistics: label counts per feature and grid cell."""

    counts: np.ndarray  # (n_features, n_cells, n_classes) int64

    @property
    def n(self):
        return int(self.counts[0].sum()) if len(self.counts) else 0

    def __add__(self, other):
        return CellCounts(self.counts + other.counts)


@dataclass(frozen=True)
class IntervalRule:
    """Piecewise-constant labels of one feature (released hypothesis)."""

    feature: int
    cuts: np.ndarray  # sorted thresholds; piece j is cuts[j-1] <= x < cuts[j]
    labels: np.ndarray  # label code of every piece (len(cuts) + 1)
    lower: float  # the feature's public bounds (margins are in box widths)
    upper: float

    def codes(self, X):
        return self.labels[np.searchsorted(self.cuts, X[:, self.feature], side="right")]

    def margin(self, X):
        if len(self.cuts) == 0:
            return np.zeros(X.shape[0])
        distance = box_distance(X[:, self.feature, None], self.cuts[None, :],
                                self.lower, self.upper)
        return distance.min(axis=1)

    def describe(self, classes):
        x = f"x[{self.feature}]"
        edges = [None] + [f"{c:.6g}" for c in self.cuts] + [None]
        parts = []
        for j, code in enumerate(self.labels):
            lo, hi = edges[j], edges[j + 1]
            cond = " and ".join(p for p in (lo and f"{x} >= {lo}", hi and f"{x} < {hi}") if p)
            parts.append(f"{cond or 'always'} -> {classes[code]}")
        return "; ".join(parts)


def _log_piece_weights(prefix, scale):
    """``logW[i, j]``, ``i < j``: log sum over labels of exp(-scale * errors of cells i..j-1)."""
    seg = prefix[None, :, :] - prefix[:, None, :]  # (N+1, N+1, k): counts of cells [i, j)
    n_seg = seg.sum(axis=2, keepdims=True)
    logw = logsumexp(-scale * (n_seg - seg), axis=2)
    upper = np.triu(np.ones(logw.shape, dtype=bool), k=1)
    return np.where(upper, logw, -np.inf), seg


def _forward(logw, n_pieces):
    """``logZ[p, j]``: log weight of all splits of cells [0, j) into p + 1 pieces."""
    n_edges = logw.shape[0]
    logz = np.full((n_pieces, n_edges), -np.inf)
    logz[0] = logw[0]
    for p in range(1, n_pieces):
        logz[p] = logsumexp(logz[p - 1][:, None] + logw, axis=0)
    return logz


def interval_class_size(n_features, n_cells, n_classes):
    """``|H|`` of the interval class (a Python int; public inputs only)."""
    pieces = min(max(2, n_classes), n_cells)  # no more pieces than cells
    return n_features * sum(math.comb(n_cells - 1, p - 1) * n_classes**p
                            for p in range(1, pieces + 1))


def listed_cells(n_features, n_classes, most=64, fewest=16):
    """The largest grid of ``fewest..most`` cells whose class is listed exactly, or None."""
    for n_cells in range(most, fewest - 1, -1):
        if interval_class_size(n_features, n_cells, n_classes) <= MAX_LISTED:
            return n_cells
    return None


def _edges(n_cells, n_pieces):
    """``(C, n_pieces + 1)`` piece edges ``0 < e_1 < ... < n_cells`` in lexicographic order."""
    combos = list(combinations(range(1, n_cells), n_pieces - 1))
    inner = np.array(combos, dtype=np.int64).reshape(len(combos), n_pieces - 1)
    ends = np.ones((len(inner), 1), dtype=np.int64)
    return np.hstack([0 * ends, inner, n_cells * ends])


def _gumbel_argmax(log_weights, rng):
    return int(np.argmax(log_weights + rng.gumbel(size=np.shape(log_weights))))


@dataclass(frozen=True)
class IntervalStrategy(ExponentialSelectionBound):
    """Exponential mechanism over interval partitions (public grid only)."""

    cuts: np.ndarray  # (n_features, n_cells - 1) grid cut points
    n_classes: int
    max_pieces: int
    lower: np.ndarray
    upper: np.ndarray
    add_remove: bool
    bounds_inferred: bool

    name = "exponential"

    @classmethod
    def build(cls, params, lower, upper, n_classes, bounds_inferred):
        gamma = 1.0 / 128 if params["gamma"] == "auto" else float(params["gamma"])
        n_cells = max(2, min(MAX_CELLS, math.ceil(1.0 / (2.0 * gamma) - 1e-12)))
        if params["cover_size"] != "auto":  # cap the grid: cover_size cut points in all
            n_cells = max(2, min(n_cells, int(params["cover_size"]) // len(lower) + 1))
        check_table_size((n_cells + 1) ** 2 * n_classes,
                         f"(n_cells + 1)^2 x n_classes = {n_cells + 1}^2 x {n_classes} log "
                         "weights per feature", "fewer classes or a larger gamma")
        cuts = grid_threshold(lower[:, None], upper[:, None], np.arange(1, n_cells), n_cells)
        return cls(cuts, n_classes, max(2, n_classes), lower, upper,
                   params["neighbouring"] == "add_remove", bounds_inferred)

    @property
    def n_cells(self):
        return self.cuts.shape[1] + 1

    @property
    def n_hypotheses(self):
        """``|H|`` exactly (a Python int; it can be astronomically large)."""
        return interval_class_size(self.cuts.shape[0], self.n_cells, self.n_classes)

    @property
    def listed(self):
        """Whether the class is listed and sampled exactly (certified)."""
        return self.n_hypotheses <= MAX_LISTED

    def log_n_hypotheses(self):
        n, k = self.n_cells, self.n_classes
        p = np.arange(1, self.max_pieces + 1)
        log_comb = gammaln(n) - gammaln(p) - gammaln(n - p + 1)
        return math.log(self.cuts.shape[0]) + float(logsumexp(log_comb + p * math.log(k)))

    def empty_statistics(self):
        return CellCounts(np.zeros((self.cuts.shape[0], self.n_cells, self.n_classes), np.int64))

    def accumulate(self, statistics, X, y_codes):
        d, n_cells, k = statistics.counts.shape
        y_codes = np.asarray(y_codes, dtype=np.int64)
        new = np.zeros(d * n_cells * k, np.int64)
        for rows in row_blocks(X.shape[0]):
            block = sanitize_rows(X[rows], self.lower, self.upper)
            # cell of x_f: number of grid cuts <= x_f (x >= t lies right of t)
            cells = (block[:, :, None] >= self.cuts[None, :, :]).sum(axis=2)
            flat = (np.arange(d)[None, :] * n_cells + cells) * k + y_codes[rows, None]
            new += np.bincount(flat.ravel(), minlength=d * n_cells * k)
        return statistics + CellCounts(new.reshape(d, n_cells, k))

    def _scale(self, epsilon):
        # above MAX_SCALE one error already weighs exp(-1e250) = 0 in double
        # precision; a smaller scale than claimed is only more private
        return min(MAX_SCALE, epsilon if self.add_remove else epsilon / 2.0)

    def select(self, statistics, params, randomness):
        """A sample of the exponential mechanism (module docstring)."""
        if self.listed:
            return self._select_listed(statistics, params, randomness), None
        rng, scale = randomness.noise, self._scale(params["epsilon"])
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            tables = [self._tables(c, scale) for c in statistics.counts]
            log_totals = np.array([logsumexp(logz[:, -1]) for _, logz, _ in tables])
            f = _gumbel_argmax(log_totals, rng)
            logw, logz, seg = tables[f]
            pieces = _gumbel_argmax(logz[:, -1], rng)
            edges = [self.n_cells]
            for p in range(pieces, 0, -1):  # backward: start of the last remaining piece
                edges.append(_gumbel_argmax(logz[p - 1] + logw[:, edges[-1]], rng))
            edges = edges[::-1]
            starts = [0] + edges[:-1]
            labels = [_gumbel_argmax(-scale * (seg[i, j].sum() - seg[i, j]), rng)
                      for i, j in zip(starts, edges)]
        return (f, tuple(edges[:-1]), tuple(labels)), None

    def _listed_errors(self, counts):
        """Error counts of every hypothesis, ``(n_features, |H| / n_features)`` int64, in
        the order (feature, pieces, edges, labels) that :meth:`_listed_choice` reads."""
        d, n_cells, k = counts.shape
        prefix = np.concatenate([np.zeros((d, 1, k), np.int64), np.cumsum(counts, axis=1)],
                                axis=1)
        blocks = []
        for pieces in range(1, self.max_pieces + 1):
            edges = _edges(n_cells, pieces)
            seg = prefix[:, edges[:, 1:]] - prefix[:, edges[:, :-1]]  # (d, C, pieces, k)
            miss = seg.sum(axis=3, keepdims=True) - seg  # errors of a piece per label
            errors = np.zeros((d, len(edges)) + (1,) * pieces, np.int64)
            for j in range(pieces):  # labels of piece j vary along axis 2 + j
                shape = [d, len(edges)] + [1] * pieces
                shape[2 + j] = k
                errors = errors + miss[:, :, j].reshape(shape)
            blocks.append(errors.reshape(d, -1))
        return np.concatenate(blocks, axis=1)

    def _select_listed(self, statistics, params, randomness):
        errors = self._listed_errors(statistics.counts)
        index = exact_exponential_mechanism(-errors.ravel(), params["epsilon"], 1,
                                            randomness.noise, monotonic=self.add_remove)
        return self._listed_choice(int(index))

    def _listed_choice(self, index):
        """``(feature, interior edges, labels)`` of hypothesis ``index`` of the listing."""
        k = self.n_classes
        f, rest = divmod(index, self.n_hypotheses // self.cuts.shape[0])
        for pieces in range(1, self.max_pieces + 1):
            size = math.comb(self.n_cells - 1, pieces - 1) * k**pieces
            if rest < size:
                break
            rest -= size
        combo, code = divmod(rest, k**pieces)
        edges = _edges(self.n_cells, pieces)[combo]
        labels = np.unravel_index(code, (k,) * pieces) if pieces else ()
        return f, tuple(int(e) for e in edges[1:-1]), tuple(int(v) for v in labels)

    def _tables(self, counts, scale):
        prefix = np.vstack([np.zeros((1, counts.shape[1])), np.cumsum(counts, axis=0)])
        logw, seg = _log_piece_weights(prefix, scale)
        return logw, _forward(logw, self.max_pieces), seg

    def release(self, choice, classes, feature_names):
        f, interior, labels = choice
        cuts = self.cuts[f, np.asarray(interior, dtype=int) - 1]
        rule = IntervalRule(int(f), cuts, np.asarray(labels, dtype=int),
                            float(self.lower[f]), float(self.upper[f]))
        index = self._index(f, interior, labels)
        return SelectedHypothesis(index, rule, classes, feature_names)

    def _index(self, f, interior, labels):
        """A unique integer code of the hypothesis (feature, cut mask, labels)."""
        mask = sum(1 << (c - 1) for c in interior)
        code = 0
        for label in labels:
            code = code * self.n_classes + int(label)
        return ((int(f) << (self.n_cells - 1)) + mask) * self.n_classes ** self.max_pieces + code

    def guarantee_facts(self, params, n, details):
        class_note = (
            f"class: interval partitions of one feature, <= {self.max_pieces} pieces on a "
            f"grid of {self.n_cells} cells, any label per piece (ln|H| = "
            f"{self.log_n_hypotheses():.4g}); "
            + ("listed and sampled exactly" if self.listed else "sampled by dynamic programming"))
        certified, not_certified, notes = self.selection_facts(params, n, "grid", class_note)
        if not self.listed:
            not_certified.append(f"interval sampler: {FLOAT_SELECTION_NOTE}")
        return INTERVAL_SOURCE, certified, not_certified, notes
