"""Littlestone dimension, SOA classifiers and irreducibility of finite classes.

A finite class is a ``(n_hypotheses, n_points)`` matrix with entries in
``{-1, +1}`` (or booleans, ``True -> +1``): row ``i`` is the hypothesis
``f_i`` evaluated on the ``n_points`` points of a finite domain. Subclasses
are Python integers used as bitmasks over the rows, so that a restriction
``G|_(x, b)`` is a single ``&`` with a precomputed column mask and subclasses
are hashable keys for memoisation.

References
----------
Ghazi et al., STOC 2021, arXiv:2012.03893: §2.4 (Def. 2.5, Littlestone dimension),
§4 (Def. 4.1 irreducibility, Lemma 4.1, Lemma 4.5 reducing arrays,
Def. 4.2 SOA classifier).
"""

import math
import numbers
import sys

import numpy as np

__all__ = [
    "LittlestoneOracle",
    "littlestone_dimension",
    "soa",
    "irreducibility_order",
    "is_k_irreducible",
    "as_class_matrix",
]


def _bool_to_mask(bits):
    """Pack a 1-D boolean array into a Python int (bit i <-> bits[i])."""
    packed = np.packbits(np.asarray(bits, dtype=bool), bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def _mask_to_bool(mask, size):
    """Inverse of :func:`_bool_to_mask`."""
    n_bytes = (size + 7) // 8
    raw = np.frombuffer(mask.to_bytes(n_bytes, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:size].astype(bool)


def as_class_matrix(F, name="F"):
    """Validate a finite class and return it as a boolean ``(K, N)`` matrix.

    ``True`` stands for the label ``+1``. Accepts ``{-1, +1}`` or ``{0, 1}``
    integer/float matrices and boolean matrices.
    """
    if isinstance(F, LittlestoneOracle):
        return F.matrix
    try:
        F = np.asarray(F)
    except Exception:  # pragma: no cover - exotic inputs
        raise TypeError(f"{name} must be a 2-D array of +-1 labels.") from None
    if F.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_hypotheses, n_points) with "
            f"entries in {{-1, +1}}, got an array of shape {F.shape}."
        )
    if F.shape[0] == 0 or F.shape[1] == 0:
        raise ValueError(
            f"{name} must contain at least one hypothesis and one point, got "
            f"shape {F.shape}."
        )
    if F.dtype == bool:
        return F.copy()
    if not np.issubdtype(F.dtype, np.number):
        raise TypeError(f"{name} must be numeric or boolean, got dtype {F.dtype}.")
    values = np.unique(F)
    if np.all(np.isin(values, (-1, 1))):
        return F > 0
    if np.all(np.isin(values, (0, 1))):
        return F > 0
    raise ValueError(
        f"{name} must have entries in {{-1, +1}} (or {{0, 1}} / booleans); "
        f"found values {values[:10].tolist()}."
    )


class LittlestoneOracle:
    """Memoised Littlestone-dimension oracle for a finite class.

    Parameters
    ----------
    F : array-like of shape (n_hypotheses, n_points)
        The class, entries in ``{-1, +1}`` (or booleans).

    Attributes
    ----------
    matrix : ndarray of bool, shape (n_hypotheses, n_points)
    n_hypotheses, n_points : int
    full : int
        Bitmask of the whole class.

    Notes
    -----
    ``ldim(mask)`` uses the recursion of Def. 2.5 (Ghazi et al. 2021, §2.4):
    ``Ldim(G) = max_x 1 + min(Ldim(G|(x,+1)), Ldim(G|(x,-1)))`` over points
    that split ``G``, with ``Ldim(empty) = -1`` and ``Ldim({f}) = 0``, memoised
    on the subclass bitmask and pruned with ``Ldim(G) <= floor(log2 |G|)``.
    Splits are deduplicated per subclass (points inducing the same split are
    equivalent).
    """

    def __init__(self, F):
        self.matrix = as_class_matrix(F)
        self.n_hypotheses, self.n_points = self.matrix.shape
        self.full = (1 << self.n_hypotheses) - 1
        self._pos = [_bool_to_mask(self.matrix[:, x]) for x in range(self.n_points)]
        self._memo = {0: -1}

    # -- basic operations -------------------------------------------------
    def mask_from_bool(self, bits):
        """Bitmask of the hypotheses selected by a boolean vector of length K."""
        return _bool_to_mask(bits)

    def mask_to_indices(self, mask):
        """Row indices of the hypotheses in ``mask``."""
        return np.flatnonzero(_mask_to_bool(mask, self.n_hypotheses))

    def restrict(self, mask, x, b):
        """``G|_(x, b)`` (Ghazi et al. 2021, §4): hypotheses of ``mask`` with ``f(x) = b``."""
        pos = self._pos[x]
        return mask & pos if b > 0 else mask & ~pos & self.full

    def restrict_many(self, mask, pairs):
        """``G|_S`` for ``S = [(x1, b1), ...]``."""
        for x, b in pairs:
            mask = self.restrict(mask, x, b)
        return mask

    def _split_points(self, mask, size):
        """Points on which the subclass disagrees (vectorised count over all points)."""
        if size * 8 < self.n_points:  # few hypotheses: column sums of their rows
            n_plus = self.matrix[self.mask_to_indices(mask)].sum(axis=0)
        else:
            n_plus = self._counts_full(mask)
        return np.flatnonzero((n_plus > 0) & (n_plus < size))

    def _counts_full(self, mask):
        rows = _mask_to_bool(mask, self.n_hypotheses)
        return self.matrix[rows].sum(axis=0)

    def _splits(self, mask):
        """Yield ``(x, G|(x,+1), G|(x,-1))`` for points that split ``mask``, deduplicated."""
        seen = set()
        pos_list = self._pos
        for x in self._split_points(mask, mask.bit_count()):
            a = mask & pos_list[x]
            if a == 0 or a == mask or a in seen:
                continue
            b = mask ^ a
            seen.add(a)
            seen.add(b)
            yield x, a, b

    # -- Littlestone dimension -------------------------------------------
    def ldim(self, mask=None):
        """Littlestone dimension of the subclass ``mask`` (default: whole class)."""
        if mask is None:
            mask = self.full
        value = self._memo.get(mask)
        if value is not None:
            return value
        # The recursion can be as deep as |G| (unbalanced splits); plain Python
        # recursion (no generators) does not grow the C stack on CPython >= 3.11.
        limit = sys.getrecursionlimit()
        need = 2 * self.n_hypotheses + 1000
        if limit >= need:
            return self._ldim(mask)
        sys.setrecursionlimit(need)
        try:
            return self._ldim(mask)
        finally:
            sys.setrecursionlimit(limit)

    def _ldim(self, mask):
        memo = self._memo
        value = memo.get(mask)
        if value is not None:
            return value
        size = mask.bit_count()
        if size <= 1:
            memo[mask] = size - 1
            return size - 1
        upper = size.bit_length() - 1  # floor(log2 |G|)
        splits, seen = [], set()
        pos_list = self._pos
        for x in self._split_points(mask, size):
            a = mask & pos_list[x]
            if a in seen:
                continue
            b = mask ^ a
            seen.add(a)
            seen.add(b)
            ca, cb = a.bit_count(), b.bit_count()
            splits.append((ca, a, b) if ca <= cb else (cb, b, a))
        # most balanced splits first: they reach the bound floor(log2 |G|) soonest,
        # and 1 + min(Ldim(a), Ldim(b)) <= 1 + floor(log2 |small|) prunes the rest
        splits.sort(key=lambda t: -t[0])
        best = 0
        for n_small, small, large in splits:
            if n_small.bit_length() <= best:
                break
            l_small = self._ldim(small)
            if l_small + 1 <= best:
                continue
            value = 1 + min(l_small, self._ldim(large))
            if value > best:
                best = value
                if best >= upper:
                    break
        memo[mask] = best
        return best

    # -- SOA classifier (Def. 4.2) ---------------------------------------
    def soa(self, mask=None):
        """``SOA_G`` on every domain point, as an int8 array in ``{-1, +1}``.

        ``SOA_G(x) = +1`` iff ``Ldim(G|(x,+1)) >= Ldim(G|(x,-1))``
        (Ghazi et al. 2021, Def. 4.2).
        """
        if mask is None:
            mask = self.full
        rows = self.mask_to_indices(mask)
        size = len(rows)
        n_plus = self.matrix[rows].sum(axis=0)  # |G|(x,+1)| for every point at once
        # points on which G agrees: one restriction is G, the other is empty
        out = np.where(n_plus == size, 1, -1).astype(np.int8)
        cache = {}
        for x in np.flatnonzero((n_plus > 0) & (n_plus < size)):
            a = mask & self._pos[x]
            value = cache.get(a)
            if value is None:
                value = 1 if self.ldim(a) >= self.ldim(mask ^ a) else -1
                cache[a] = value
                cache[mask ^ a] = -value if self.ldim(a) != self.ldim(mask ^ a) else value
            out[x] = value
        return out

    # -- irreducibility (Def. 4.1) ---------------------------------------
    def reduction_path(self, mask=None, max_order=None):
        """Shortest Ldim-preserving walk from ``G`` to a reducible class.

        Along any tree, the bit that keeps ``Ldim(G|...) = Ldim(G)`` at a node
        is unique when it exists (both bits preserving would give
        ``Ldim(G) >= Ldim(G) + 1``), so an adversarial tree has no choice but
        the labels of its nodes. ``G`` is therefore ``k``-irreducible iff no
        class reachable by fewer than ``k`` Ldim-preserving restrictions has a
        point where both restrictions lose dimension. Breadth-first search
        over those restrictions gives the irreducibility order (the largest
        such ``k``) and, when finite, the reducing array of Lemma 4.5.

        Parameters
        ----------
        mask : int, optional
            Subclass (default: whole class).
        max_order : int or None
            Stop searching once all classes at depth ``< max_order`` were
            explored; the order is then reported as ``>= max_order``.

        Returns
        -------
        order : int or float
            Irreducibility order: ``G`` is ``k``-irreducible iff
            ``k <= order``. ``math.inf`` when no reducible class is reachable
            (e.g. a single hypothesis). With ``max_order``, a value
            ``>= max_order`` means "at least ``max_order``".
        path : list of (x, b) or None
            Forced restrictions ``(x_1, c_1), ..., (x_{k-1}, c_{k-1})`` followed
            by ``(x_k, 0)``, the point where both labels lose dimension
            (``k = order + 1``); ``None`` when no reducible class was found.
        """
        if mask is None:
            mask = self.full
        level = self.ldim(mask)
        if level <= 0:  # empty or a single hypothesis: always a preserving bit
            return math.inf, None
        parent = {mask: None}
        frontier = [mask]
        depth = 0
        while frontier:
            if max_order is not None and depth >= max_order:
                return depth, None
            nxt = []
            for node in frontier:
                for x, a, b in self._splits(node):
                    la, lb = self.ldim(a), self.ldim(b)
                    if la < level and lb < level:
                        path = [(x, 0)]
                        cur = node
                        while parent[cur] is not None:
                            prev, px, pb = parent[cur]
                            path.append((px, pb))
                            cur = prev
                        return depth, path[::-1]
                    child, bit = (a, 1) if la == level else (b, -1)
                    if child not in parent:
                        parent[child] = (node, x, bit)
                        nxt.append(child)
            frontier = nxt
            depth += 1
        return math.inf, None

    def irreducibility_order(self, mask=None, max_order=None):
        """Largest ``k`` such that ``G`` is ``k``-irreducible (see reduction_path)."""
        return self.reduction_path(mask, max_order)[0]

    def is_k_irreducible(self, k, mask=None):
        """Whether the subclass is ``k``-irreducible (Ghazi et al. 2021, Def. 4.1)."""
        return self.reduction_path(mask, max_order=k)[0] >= k

    def reducing_array(self, mask=None, max_order=None):
        """Points and reducing array of Lemma 4.5 for the minimal ``k``.

        Returns ``(points, array)`` where ``points = (x_1, ..., x_k)`` and
        ``array`` is the list of ``k + 1`` tuples ``b^(1), ..., b^(k+1)`` of
        Def. 4.3, with ``k`` the smallest integer for which ``G`` is not
        ``k``-irreducible, such that every child ``G|(x_1, b^(j)_1), ...``
        is nonempty and of smaller Littlestone dimension (eq. (6)).
        Returns ``None`` when ``G`` is ``max_order``-irreducible.
        """
        order, path = self.reduction_path(mask, max_order)
        if path is None:
            return None
        forced = [b for _, b in path[:-1]]
        points = tuple(x for x, _ in path)
        k = len(points)
        array = []
        for j in range(1, k):
            array.append(tuple(forced[: j - 1]) + (-forced[j - 1],))
        array.append(tuple(forced) + (1,))
        array.append(tuple(forced) + (-1,))
        return points, array


def _oracle(F):
    return F if isinstance(F, LittlestoneOracle) else LittlestoneOracle(F)


def littlestone_dimension(F):
    """Littlestone dimension of a finite class.

    Parameters
    ----------
    F : array-like of shape (n_hypotheses, n_points) or LittlestoneOracle
        Entries in ``{-1, +1}`` (or booleans); row ``i`` is hypothesis ``i``
        on the ``n_points`` domain points.

    Returns
    -------
    int
        The depth of the deepest mistake tree shattered by ``F``
        (Ghazi, Golowich, Kumar, Manurangsi, "Sample-efficient proper PAC learning with
approximate differential privacy", STOC 2021, arXiv:2012.03893, §2.4, Def. 2.5).

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.proper import littlestone_dimension
    >>> N = 7
    >>> thresholds = np.where(np.arange(N)[None, :] >= np.arange(N + 1)[:, None], 1, -1)
    >>> littlestone_dimension(thresholds)
    3
    """
    return _oracle(F).ldim()


def soa(F):
    """The SOA classifier of a finite class (Ghazi et al. 2021, Def. 4.2).

    Parameters
    ----------
    F : array-like of shape (n_hypotheses, n_points) or LittlestoneOracle

    Returns
    -------
    predict : callable
        ``predict(indices)`` maps domain-point indices (ints in
        ``[0, n_points)``) to labels in ``{-1, +1}``; ``predict.values`` is the
        full vector ``SOA_F(x)`` for every domain point.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.proper import soa
    >>> F = np.array([[1, -1, -1], [-1, 1, -1], [-1, -1, 1]])
    >>> soa(F).values.tolist()
    [-1, -1, -1]
    """
    oracle = _oracle(F)
    values = oracle.soa().astype(int)

    def predict(indices):
        indices = np.asarray(indices)
        if not np.issubdtype(indices.dtype, np.integer):
            raise TypeError("SOA predictor takes integer domain-point indices.")
        if indices.size and (indices.min() < 0 or indices.max() >= oracle.n_points):
            raise ValueError(
                f"domain-point indices must lie in [0, {oracle.n_points}), got "
                f"range [{indices.min()}, {indices.max()}]."
            )
        return values[indices]

    predict.values = values
    return predict


def irreducibility_order(F, max_order=None):
    """Largest ``k`` such that the finite class ``F`` is ``k``-irreducible.

    ``F`` is ``k``-irreducible (Ghazi et al. 2021, Def. 4.1) if every depth-``k``
    tree has a root-to-leaf path along which the restriction keeps the
    Littlestone dimension of ``F``. Returns ``math.inf`` when ``F`` is
    ``k``-irreducible for every ``k`` (e.g. a single hypothesis) and ``0``
    when ``F`` is not even irreducible. With ``max_order``, the search stops
    at that depth and any value ``>= max_order`` means "at least that".

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.proper import irreducibility_order
    >>> points = np.where(np.eye(5) > 0, 1, -1)      # point functions on 5 points
    >>> irreducibility_order(points)
    3
    """
    if max_order is not None:
        max_order = _check_order(max_order)
    return _oracle(F).irreducibility_order(max_order=max_order)


def is_k_irreducible(F, k):
    """Whether the finite class ``F`` is ``k``-irreducible (Ghazi et al. 2021, Def. 4.1)."""
    return _oracle(F).is_k_irreducible(_check_order(k))


def _check_order(k):
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 0:
        raise ValueError(f"k must be a non-negative integer, got {k!r}.")
    return int(k)
