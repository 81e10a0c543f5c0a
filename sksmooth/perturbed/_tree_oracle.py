"""Exact weighted 0-1 ERM over depth-2 axis-aligned trees on a public grid.

One additive statistic (signed weights per pair of cells of every feature
pair) and its 2-D prefix sums give every tree's correlation in ``O(d^2
n^2)``; separation from an orthogonal array; a canonical parametrisation so
that only the function is released. Details: ``docs/derivations.rst``,
section "Exact ERM over depth-two trees".
"""

import itertools
from dataclasses import dataclass
from math import comb

import numpy as np

from .._domain import grid_threshold
from .._validation import check_positive_int
from ._oracle_base import PreparedRows
from ._stump_oracle import MulticlassStumpERMClassifier, StumpERMClassifier

__all__ = ["DepthTwoTreeERMClassifier", "MulticlassDepthTwoTreeERMClassifier"]

# Most feature subsets enumerated by the separation bound (else it returns 0).
_MAX_SEPARATION_SUBSETS = 20_000
# The separation argument needs cell tuples of this many features.
_TREE_PATH_FEATURES = 4


@dataclass(frozen=True)
class GridLeaf:
    """One side of a tree: a constant ``below`` (``feature == -1``, then
    ``above == below``) or a stump with value ``below`` for cells under
    ``cell_index`` and ``above`` from it on. Values are +-1 (binary trees) or
    label indices (multiclass trees)."""

    feature: int
    cell_index: int
    threshold: float
    below: int
    above: int

    def predict(self, cells):
        if self.feature < 0:
            return np.full(len(cells), self.below)
        return np.where(cells[:, self.feature] >= self.cell_index, self.above, self.below)


def _smallest_prime_at_least(n):
    n = max(int(n), 2)
    while any(n % f == 0 for f in range(2, int(n**0.5) + 1)):
        n += 1
    return n


class _GridTreeMixin:
    """What the binary and multiclass depth-2 grid trees share: the pair
    statistic's encoding, its prefix sums, the separation bound and the
    orthogonal-array design (module docstring)."""

    # _erm_class_size is an upper bound on |F| (several parametrisations, one
    # tree), _erm_separation a lower bound on the separation
    _erm_class_size_is_bound = True
    _erm_separation_is_bound = True
    _erm_separation_hint = (
        " (depth-2 trees: n_hallucinated at least p^min(4, d), the size of their "
        "orthogonal-array design, p the smallest prime >= max(n_thresholds + 1, d); "
        "noise='theory' and fit pick it by default)")

    # -- additive statistic: signed weight per feature pair and cell pair --
    def _erm_prepare(self, X, context=None):
        prepared = super()._erm_prepare(X, context)
        n_thresholds = prepared.context[0]
        n, d, q = prepared.n_rows, prepared.n_features, n_thresholds + 1
        cells = prepared.index.reshape(n, d) - q * np.arange(d)
        pair = (np.arange(d)[:, None] * d + np.arange(d)[None, :]) * q * q
        codes = pair[None] + cells[:, :, None] * q + cells[:, None, :]
        return PreparedRows(codes.reshape(n, d * d), n, d, prepared.context)

    @staticmethod
    def _tree_sides(hist, n):
        """Total weight and, for the left (``cell_j < a``) and right sides of
        every root ``(j, a)``, the side's total ``(d, n, ...)`` and the weight
        below every child threshold ``(k, b)``, ``(d, n, d, n, ...)`` (a
        trailing class axis for a multiclass statistic)."""
        prefix = hist.cumsum(axis=3).cumsum(axis=2)
        total = prefix[0, 0, -1, -1]
        # below[j, a, k, b]: weight with cell_j < a and cell_k < b (a, b = 1..n)
        below = np.swapaxes(prefix[:, :, :n, :n], 1, 2)
        left_total = np.einsum("jja...->ja...", prefix[:, :, :n, -1])  # cell_j < a
        column = prefix[:, :, -1, :n][:, None]  # (j, 1, k, b): cell_k < b, any cell_j
        return total, ((left_total, below), (total - left_total, column - below))

    def _fewest_in_a_cell_tuple(self, Z):
        """``D``: the fewest points of ``Z`` in one cell tuple of ``s = min(4,
        d_active)`` active features, a lower bound on the disagreements of two
        distinct trees (module docstring); 0 if some tuple is empty or there
        are more than 20000 feature subsets to check; ``None`` without an
        active feature (only constants)."""
        Z = np.asarray(Z, dtype=float)
        n, lower, upper = self._grid(Z.shape[1])
        cells = self._cells(Z, n, lower, upper)[:, self._active(lower, upper)]
        m, d_active, q = len(Z), cells.shape[1], n + 1
        if d_active == 0:
            return None
        s = min(_TREE_PATH_FEATURES, d_active)
        subsets = itertools.combinations(range(d_active), s)
        if m < q**s or comb(d_active, s) > _MAX_SEPARATION_SUBSETS:
            return 0
        radix = q ** np.arange(s)
        fewest = m
        for subset in subsets:  # bounded by _MAX_SEPARATION_SUBSETS
            counts = np.bincount(cells[:, subset] @ radix, minlength=q**s)
            fewest = min(fewest, int(counts.min()))
            if fewest == 0:
                break
        return fewest

    def _orthogonal_array_size(self, d_active):
        n = check_positive_int(self.n_thresholds, "n_thresholds")
        s = min(_TREE_PATH_FEATURES, d_active)
        return _smallest_prime_at_least(max(n + 1, d_active)) ** s

    def _erm_design(self, n_points, rng, lower, upper):
        """The strength-``s`` orthogonal array (module docstring) when
        ``n_points`` is at least its size ``p^s``, else the stumps' Latin design
        (then the certified separation is 0)."""
        active = np.flatnonzero(upper > lower)
        if len(active) == 0 or n_points < self._orthogonal_array_size(len(active)):
            return super()._erm_design(n_points, rng, lower, upper)
        n = check_positive_int(self.n_thresholds, "n_thresholds")
        q, d_active = n + 1, len(active)
        s = min(_TREE_PATH_FEATURES, d_active)
        p = _smallest_prime_at_least(max(q, d_active))
        coefficients = (np.arange(p**s)[:, None] // p ** np.arange(s)) % p  # (p^s, s)
        powers = np.arange(d_active)[:, None] ** np.arange(s) % p  # Vandermonde rows
        levels = coefficients @ powers.T % p  # (p^s, d_active): any s columns, all tuples
        cells = levels * q // p  # p >= q: every cell gets at least one level
        Z = np.tile(np.asarray(lower, dtype=float), (p**s, 1))
        Z[:, active] = grid_threshold(lower[active], upper[active], cells + 0.5, q)
        return Z

    def _erm_default_n_points(self, n_features):
        """The stumps' Latin design size, ``64 (n_thresholds + 1)``: cheap per
        round (the practical online noise), but not separating (``rho = 0``)."""
        return super()._erm_default_n_points(n_features)

    def _erm_certifying_n_points(self, n_features):
        """Size ``p^s`` of the orthogonal array, which certifies ``rho > 0``
        (used by 'auto' when the run needs a certificate)."""
        return self._orthogonal_array_size(n_features)

    def _joint_counts(self, Z):
        raise NotImplementedError("depth-2 trees use their own separation bound")

    @staticmethod
    def _side_values(leaf):
        """``(feature, cell_index, value below, value above)`` of a side."""
        return leaf.feature, leaf.cell_index, leaf.below, leaf.above

    @staticmethod
    def _constant_leaf(value):
        return GridLeaf(-1, 0, -np.inf, int(value), int(value))

    def _make_leaf(self, feature, cell_index, below, above, lower, upper):
        if feature < 0:
            return self._constant_leaf(below)
        threshold = grid_threshold(lower[feature], upper[feature], cell_index,
                                   self._n_thresholds + 1)
        return GridLeaf(int(feature), int(cell_index), float(threshold), int(below), int(above))

    def _fit_statistic(self, hist, prepared):
        """The best tree: the best root ``(j, a)`` by the sum of its sides' best
        subtrees (``_side_best``), then each side's first best subtree (``_leaf``)."""
        n, lower, upper = prepared.context
        self.bounds_, self._n_thresholds = (lower, upper), n
        active = self._active(lower, upper)
        total, sides = self._tree_sides(hist, n)
        if not active.any():
            self._set_tree(-1, 0, self._constant_leaf(self._best_constant(total)))
            return
        tree = sum(self._side_best(side_total, side_below, active)
                   for side_total, side_below in sides)
        tree[~active] = -np.inf
        j, a = np.unravel_index(int(np.argmax(tree)), tree.shape)
        leaves = [self._leaf(side_total[j, a], side_below[j, a], active, lower, upper)
                  for side_total, side_below in sides]
        self._set_tree(int(j), int(a) + 1, *leaves)
        self._set_canonical_tree()

    def _set_tree(self, feature, cell_index, left, right=None):
        self._set_split(feature, cell_index)  # feature < 0: a constant, both sides equal
        self.left_, self.right_ = left, left if feature < 0 else right

    def _tree_values(self, X):
        """The fitted tree's leaf value at every row of ``X``."""
        lower, upper = self.bounds_
        cells = self._cells(X, self._n_thresholds, lower, upper)
        if self.feature_ < 0:
            return self.left_.predict(cells)
        go_right = cells[:, self.feature_] >= self._cell_index
        return np.where(go_right, self.right_.predict(cells), self.left_.predict(cells))

    # -- canonical parametrisation: the released parameters are a function of
    # the released *function* (module docstring, "Canonical parameters") --
    def _set_canonical_tree(self):
        """Replace the fitted parameters by the first parametrisation, in a fixed
        order over the function's own features and breakpoints, of the same function."""
        if self.feature_ < 0:
            return
        lower, upper = self.bounds_
        sides = [self._side_values(self.left_), self._side_values(self.right_)]
        cuts = {self.feature_: {self._cell_index}}
        for feature, cell_index, _, _ in sides:
            if feature >= 0:
                cuts.setdefault(feature, set()).add(cell_index)
        cuts = {f: sorted(c) for f, c in cuts.items()}
        cells, values = self._on_compressed_grid(cuts, len(lower))
        real = {}  # the function's breakpoints: where its value changes
        for axis, feature in enumerate(sorted(cuts)):
            steps = np.diff(values, axis=axis) != 0
            changes = np.moveaxis(steps, axis, 0).reshape(steps.shape[axis], -1).any(axis=1)
            kept = [c for c, changed in zip(cuts[feature], changes) if changed]
            if kept:
                real[feature] = kept
        if not real:
            first = int(np.flatnonzero(self._active(lower, upper))[0])
            constant = self._constant_leaf(values.flat[0])
            self._set_tree(first, 1, constant, constant)
            return
        cells, values = self._on_compressed_grid(real, len(lower))
        found = self._first_parametrisation(real, cells.reshape(-1, len(lower)),
                                            values.ravel(), lower, upper)
        if found is not None:
            self._set_tree(*found)

    def _on_compressed_grid(self, cuts, d):
        """One cell per piece between ``cuts`` on their features (0 elsewhere) and
        the fitted tree's value there, both shaped by the pieces."""
        features = sorted(cuts)
        reps = [[0] + list(cuts[f]) for f in features]
        shape = tuple(len(r) for r in reps)
        cells = np.zeros(shape + (d,), dtype=np.int64)
        for axis, (feature, r) in enumerate(zip(features, reps)):
            index = [None] * len(features)
            index[axis] = slice(None)
            cells[..., feature] = np.asarray(r)[tuple(index)]
        flat = cells.reshape(-1, d)
        values = np.where(flat[:, self.feature_] >= self._cell_index,
                          self.right_.predict(flat), self.left_.predict(flat))
        return cells, values.reshape(shape)

    def _first_parametrisation(self, cuts, cells, values, lower, upper):
        """First ``(root feature, root cell, left, right)`` equal to ``values`` on
        ``cells``: roots and stumps over the breakpoints ``cuts`` in increasing
        order, constants first, labels in increasing order."""
        labels = np.unique(values)
        candidates = [(-1, 0, c, c) for c in labels]
        candidates += [(f, b, lo, hi) for f in sorted(cuts) for b in cuts[f]
                       for lo in labels for hi in labels if lo != hi]
        side_values = np.array([np.full(len(cells), lo) if f < 0 else
                                np.where(cells[:, f] >= b, hi, lo)
                                for f, b, lo, hi in candidates])
        matches = side_values == values[None, :]
        for feature in sorted(cuts):
            for cell_index in cuts[feature]:
                right = cells[:, feature] >= cell_index
                left_ok = np.flatnonzero((matches | right[None, :]).all(axis=1))
                right_ok = np.flatnonzero((matches | ~right[None, :]).all(axis=1))
                if len(left_ok) and len(right_ok):
                    left, right_side = (self._make_leaf(*candidates[i], lower, upper)
                                        for i in (left_ok[0], right_ok[0]))
                    return feature, cell_index, left, right_side
        return None  # not reached for depth-2 trees (tests/perturbed, exhaustive)


class DepthTwoTreeERMClassifier(_GridTreeMixin, StumpERMClassifier):
    """Exact weighted 0-1 ERM over depth-2 trees with thresholds on a public grid.

    See the module docstring for the class, the ERM and the separating
    design. The root splits one feature at a grid threshold; each side is a
    constant or a stump on any feature (its own feature and threshold).
    ``|F| <= d n (2 d n + 2)^2`` for ``d`` features and ``n =
    n_thresholds`` (the bounds of Thm 1 and Lemma 2 use this count; they
    only grow with it). ERM: ``O(n_rows d^2 + d^2 n^2)``.

    Parameters
    ----------
    n_thresholds : int, default=16
        Interior grid thresholds per feature (the grid of
        :class:`StumpERMClassifier`).
    bounds : tuple (lower, upper) or None, default=None
        Public box defining the grid (``None``: from the training data, fine
        for non-private use only).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    feature_ : int
        Root feature (-1 when every feature has zero width: a constant).
    threshold_ : float
        Root threshold: rows whose cell index is at least this go right.
    left_, right_ : GridLeaf
        The two sides (``feature == -1``: a constant; values +-1).
    bounds_ : tuple of ndarray
    n_features_in_ : int

    References
    ----------
    A. Block and A. Shetty, "Small loss bounds for online learning separated
    function classes: a Gaussian process perspective", 2025,
    arXiv:2502.10292, Alg. 1 and 2, Thm 1, Lemma 2, Def. 5 (the exact
    finite-class ERM oracle and the separation they need).
    K. A. Bush, "Orthogonal arrays of index unity", Annals of Mathematical
    Statistics 23(3), 426-434, 1952 (the polynomial construction of the
    separating design).

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.perturbed import DepthTwoTreeERMClassifier
    >>> X = np.array([[0.1, 0.1], [0.1, 0.9], [0.9, 0.1], [0.9, 0.9]])
    >>> y = [0, 1, 1, 0]  # XOR: no stump fits it, a depth-2 tree does
    >>> DepthTwoTreeERMClassifier(n_thresholds=3, bounds=(0, 1)).fit(X, y).predict(X)
    array([0, 1, 1, 0])
    """

    def __init__(self, n_thresholds=16, *, bounds=None):
        super().__init__(n_thresholds=n_thresholds, bounds=bounds)

    def _erm_accumulate(self, prepared, y, weights, n_classes=2):
        """Signed weight per (root feature, child feature, root cell, child cell)."""
        q, d = prepared.context[0] + 1, prepared.n_features
        return np.bincount(prepared.index.ravel(), weights=np.repeat(weights * y, d * d),
                           minlength=d * d * q * q).reshape(d, d, q, q)

    @staticmethod
    def _best_constant(total):
        return 1 if total >= -total else -1

    @staticmethod
    def _side_best(side_total, side_below, active):
        """Best subtree correlation on one side for every root ``(j, a)``:
        ``max(|total|, max_{k, b} |total - 2 below|)`` (a stump and its
        negation, a constant and its negation), shape ``(d, n)``."""
        d, n = side_total.shape
        stumps = side_total[:, :, None, None] - 2.0 * side_below
        np.abs(stumps, out=stumps)
        if not active.all():
            stumps[:, :, ~active] = -np.inf
        return np.maximum(np.abs(side_total), stumps.reshape(d, n, -1).max(axis=-1))

    def _leaf(self, side_total, side_below, active, lower, upper):
        """The side's first best subtree (correlation) in the canonical order
        ``[+1, -1, (+1 stumps (k, b)), (-1 stumps)]``."""
        d, n = side_below.shape
        stumps = np.where(active[:, None], side_total - 2.0 * side_below, -np.inf).ravel()
        minus = np.where(np.isfinite(stumps), -stumps, -np.inf)
        index = int(np.argmax(np.concatenate([[side_total, -side_total], stumps, minus])))
        if index < 2:
            return self._constant_leaf(1 if index == 0 else -1)
        sign = 1 if index - 2 < d * n else -1
        feature, b = divmod((index - 2) % (d * n), n)
        return self._make_leaf(feature, b + 1, -sign, sign, lower, upper)

    def _predict_pm1(self, X):
        return self._tree_values(X).astype(float)

    # -- what PerturbedERMClassifier needs to certify ----------------------
    def _erm_class_size(self, n_features):
        """Upper bound ``d n (2 d n + 2)^2`` on ``|F|`` (distinct trees are fewer)."""
        n = check_positive_int(self.n_thresholds, "n_thresholds")
        if n_features == 0:
            return 2
        return int(n_features * n * (2 * n_features * n + 2) ** 2)

    def _erm_evaluate_class(self, Z):
        """Every parametrised tree on ``Z`` (``(m, N)``; small grids only: tests)."""
        Z = np.asarray(Z, dtype=float)
        n, lower, upper = self._grid(Z.shape[1])
        cells = self._cells(Z, n, lower, upper)
        active = np.flatnonzero(self._active(lower, upper))
        if len(active) == 0:
            return np.array([[1], [-1]], dtype=np.int8).T.repeat(len(Z), axis=0)
        above = (cells[:, active, None] >= np.arange(1, n + 1)).reshape(len(Z), -1)
        stumps = np.where(above, 1, -1).astype(np.int8)
        const = np.ones((len(Z), 1), dtype=np.int8)
        sides = np.hstack([const, -const, stumps, -stumps])  # (m, S)
        roots = stumps > 0  # (m, d_active n): goes right
        values = np.where(roots[:, :, None, None], sides[:, None, None, :], sides[:, None, :, None])
        return values.reshape(len(Z), -1)

    def _erm_separation(self, Z):
        """Certified lower bound on the minimum distance (module docstring):
        ``2 sqrt(D / m)``, ``D`` the fewest points of ``Z`` in one cell tuple of
        ``s = min(4, d_active)`` active features (0 if some tuple is empty or
        there are more than 20000 feature subsets to check)."""
        fewest = self._fewest_in_a_cell_tuple(Z)
        return 2.0 if fewest is None else float(2.0 * np.sqrt(fewest / len(Z)))


def _best_distinct_pair(below, above):
    """``max_{c1 != c2} below[..., c1] + above[..., c2]`` (top two of each)."""
    first_below, first_above = below.argmax(axis=-1), above.argmax(axis=-1)
    top_below = np.take_along_axis(below, first_below[..., None], -1)[..., 0]
    top_above = np.take_along_axis(above, first_above[..., None], -1)[..., 0]
    k = below.shape[-1]
    if k < 2:
        return np.full(below.shape[:-1], -np.inf)
    masked_below = np.where(np.arange(k) == first_below[..., None], -np.inf, below)
    masked_above = np.where(np.arange(k) == first_above[..., None], -np.inf, above)
    same = np.maximum(top_below + masked_above.max(axis=-1),
                      masked_below.max(axis=-1) + top_above)
    return np.where(first_below != first_above, top_below + top_above, same)


class MulticlassDepthTwoTreeERMClassifier(_GridTreeMixin, MulticlassStumpERMClassifier):
    """Exact weighted multiclass 0-1 ERM over depth-2 grid trees.

    The trees of :class:`DepthTwoTreeERMClassifier` with a label per leaf:
    each side of the root is a constant label or a stump with two distinct
    labels (as :class:`MulticlassStumpERMClassifier`), ``|F| <= d n (k + d n
    k (k - 1))^2`` for ``k`` classes. Statistic: weight per feature pair,
    cell pair and class, ``(d, d, n + 1, n + 1, k)``; each side's best stump
    takes the best pair of distinct labels from the top two per side
    (``O(d^2 n^2 k)`` per call). Separation in the one-hot metric: ``sqrt(2
    D / m)`` with the same ``D`` as the binary trees.

    Parameters
    ----------
    n_thresholds, bounds
        As in :class:`DepthTwoTreeERMClassifier`.

    Attributes
    ----------
    classes_ : ndarray of shape (k,)
    left_, right_ : GridLeaf
        Labels are indices into ``classes_``.
    feature_, threshold_, bounds_, n_features_in_
        As in :class:`DepthTwoTreeERMClassifier`.

    References
    ----------
    As :class:`DepthTwoTreeERMClassifier`.
    """

    def __init__(self, n_thresholds=16, *, bounds=None):
        super().__init__(n_thresholds=n_thresholds, bounds=bounds)

    def _erm_accumulate(self, prepared, codes, weights, n_classes=2):
        """Weight per (root feature, child feature, root cell, child cell, class)."""
        q, d, k = prepared.context[0] + 1, prepared.n_features, int(n_classes)
        offsets = (prepared.index * k + np.asarray(codes, dtype=np.int64)[:, None]).ravel()
        return np.bincount(offsets, weights=np.repeat(weights, d * d),
                           minlength=d * d * q * q * k).reshape(d, d, q, q, k)

    @staticmethod
    def _best_constant(total):
        return np.argmax(total)

    @staticmethod
    def _side_best(side_total, side_below, active):
        """Best subtree weight on one side of every root ``(j, a)``, ``(d, n)``."""
        stumps = _best_distinct_pair(side_below, side_total[:, :, None, None] - side_below)
        if not active.all():
            stumps[:, :, ~active] = -np.inf
        d, n = side_total.shape[:2]
        return np.maximum(side_total.max(axis=-1), stumps.reshape(d, n, -1).max(axis=-1))

    def _leaf(self, side_total, side_below, active, lower, upper):
        """The side's first best subtree in the canonical order: constants
        ``0..k-1``, then stumps ``(k, b, c_below, c_above)``, distinct labels."""
        k = len(side_total)
        pair = side_below[..., :, None] + (side_total - side_below)[..., None, :]
        pair[..., np.arange(k), np.arange(k)] = -np.inf
        pair[~active] = -np.inf
        best = int(np.argmax(np.concatenate([side_total, pair.ravel()])))
        if best < k:
            return self._constant_leaf(best)
        feature, b, c_below, c_above = np.unravel_index(best - k, pair.shape)
        return self._make_leaf(feature, b + 1, c_below, c_above, lower, upper)

    def _predict_codes(self, X):
        return self._tree_values(X)

    def _erm_class_size(self, n_features, n_classes=2):
        """Upper bound ``d n (k + d n k (k - 1))^2`` on ``|F|``."""
        n, k = check_positive_int(self.n_thresholds, "n_thresholds"), int(n_classes)
        if n_features == 0:
            return k
        return int(n_features * n * (k + n_features * n * k * (k - 1)) ** 2)

    def _erm_separation(self, Z, n_classes=2):
        """``sqrt(2 D / m)``: the one-hot distance of two labelings that
        differ on ``D`` of the ``m`` points (``D`` as for the binary trees)."""
        fewest = self._fewest_in_a_cell_tuple(Z)
        return float(np.sqrt(2.0)) if fewest is None else float(np.sqrt(2.0 * fewest / len(Z)))
