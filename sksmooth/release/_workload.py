"""Query workloads evaluated without a dense query x universe matrix.

Two representations, one interface used by the release mechanisms:

* :class:`GridWorkload` — queries that are axis-aligned boxes in the level
  space of a :class:`~sksmooth.release._universe.GridUniverse`, grouped in
  *tables*: a table is a set ``S`` of attributes, its *cells* are the
  ``prod_{a in S} L_a`` conjunctions ``x_S = v`` (disjoint, they partition
  the universe), and its queries are boxes ``lo <= x_S <= hi`` (k-way
  marginal cells: ``lo = hi``; thresholds/CDF: ``lo = 0``; range queries:
  any interval per attribute). The marginal of a distribution on ``S`` is a
  reshape + sum over the other axes (O(N)); all box queries of the table are
  read from its summed-area table (cumulative sums, O(2^|S|) lookups each).
  The data's count tables come straight from the rows (``np.bincount`` of
  ravelled codes), so answering a marginal workload never builds the grid.
* :class:`DenseWorkload` — any finite set of queries given by their values
  on the universe points (halfspaces, user-given finite classes, queries on a
  sampled universe); kept as a float32 matrix when it fits in memory and
  recomputed in chunks otherwise. Every query is its own group.

Data answers are integer counts (``counts_data``); answers of a model are
fractions (``q(D) = sum_x D(x) q(x)``). Under the substitution neighbouring
relation (same n, one record replaced) a single query's count moves by at
most 1, and a table's cell counts move by at most 2 in L1 and ``sqrt(2)``
in L2 (one cell loses a record, another gains it).
"""

import itertools

import numpy as np

from ._dense_model import sum_to

__all__ = ["GridWorkload", "DenseWorkload"]

_DENSE_CACHE_LIMIT = 5e7  # matrix entries kept as float32 (200 MB)
_DENSE_BOOL_LIMIT = 5e8  # beyond: kept as bool (<= 500 MB), converted by query chunks


def _summed_area(marginal):
    """Zero-padded cumulative sums of ``marginal`` along every axis."""
    table = np.zeros(tuple(k + 1 for k in marginal.shape), dtype=marginal.dtype)
    table[(slice(1, None),) * marginal.ndim] = marginal
    for axis in range(marginal.ndim):
        np.cumsum(table, axis=axis, out=table)
    return table


class GridWorkload:
    """Box queries on a product grid, grouped in tables (see module doc).

    Parameters
    ----------
    universe : GridUniverse
    tables : list of tuple of int
        Attribute sets (sorted) of the tables.
    lows, highs : list of ndarray of shape (k_g, len(tables[g]))
        Inclusive level ranges of the queries of each table.
    description : str
        Human-readable name of the workload (e.g. "all 2-way marginals").
    """

    structured = True

    def __init__(self, universe, tables, lows, highs, description=""):
        self.universe = universe
        self.tables = [tuple(int(a) for a in t) for t in tables]
        self.lows = [np.asarray(lo, dtype=np.int64).reshape(-1, len(t)) for lo, t in zip(lows, tables)]
        self.highs = [np.asarray(hi, dtype=np.int64).reshape(-1, len(t)) for hi, t in zip(highs, tables)]
        self.description = description
        sizes = np.array([len(lo) for lo in self.lows], dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(sizes)])
        self.n_queries = int(self.offsets[-1])
        self.n_groups = len(self.tables)
        self.group_of_query = np.repeat(np.arange(self.n_groups), sizes)
        self.table_shapes = [tuple(universe.shape[a] for a in t) for t in self.tables]
        self.table_sizes = np.array([int(np.prod(s)) for s in self.table_shapes])
        self._other_axes = [
            tuple(a for a in range(len(universe.shape)) if a not in t) for t in self.tables
        ]

    # ------------------------------------------------------------ marginals
    def marginal(self, p, g):
        """Marginal table of distribution ``p`` (flat, length N) on table ``g``."""
        grid = p.reshape(self.universe.shape)
        if not self._other_axes[g]:
            return grid.copy()
        return sum_to(grid, self.tables[g])

    def data_counts(self, codes):
        """Integer count tables of the (encoded) data, one per table.

        Straight from the rows (``np.bincount`` of the ravelled codes of the
        table's attributes): no grid is built, whatever the universe size.
        """
        out = []
        for t, shape in zip(self.tables, self.table_shapes):
            flat = np.ravel_multi_index(tuple(codes[:, list(t)].T), shape)
            out.append(np.bincount(flat, minlength=int(np.prod(shape))).reshape(shape))
        return out

    def counts_data(self, codes):
        """Integer count of every query on the (encoded) data."""
        return self.answers_from_marginals(self.data_counts(codes))

    def answers_data(self, codes):
        """Exact fractions answered by the (encoded) data: ``counts_data / n``."""
        return self.counts_data(codes) / codes.shape[0]

    def table_query_answers(self, marginal, g):
        """Answers of the queries of table ``g`` from its marginal table.

        Exact integer arithmetic when ``marginal`` holds integer counts.
        """
        sat = _summed_area(marginal)
        total = np.zeros(len(self.lows[g]), dtype=sat.dtype)
        for sign, flat in self._corners(g, sat.shape):
            total += sign * sat.ravel()[flat]
        return total

    def _corners(self, g, padded_shape):
        """``(sign, flat positions)`` of the 2^s summed-area corners of table ``g``'s
        queries (inclusion-exclusion), computed once per table (public structure)."""
        cache = self.__dict__.setdefault("_corner_cache", {})
        if g not in cache:
            lo, hi = self.lows[g], self.highs[g]
            s = len(padded_shape)
            cache[g] = [((-1) ** (s - sum(corner)), np.ravel_multi_index(
                tuple(np.where(c, hi[:, a] + 1, lo[:, a]) for a, c in enumerate(corner)),
                padded_shape)) for corner in itertools.product((0, 1), repeat=s)]
        return cache[g]

    def answers_from_marginals(self, marginals):
        """All query answers given the list of marginal tables."""
        if self.n_queries == 0:
            return np.zeros(0, dtype=marginals[0].dtype if marginals else float)
        return np.concatenate(
            [self.table_query_answers(m, g) for g, m in enumerate(marginals)]
        )

    def marginals(self, p):
        return [self.marginal(p, g) for g in range(self.n_groups)]

    def answers(self, p):
        """Answers of all queries on the distribution ``p`` over the universe."""
        return self.answers_from_marginals(self.marginals(p))


    def query_table(self, j):
        """Attributes (sorted tuple) of the table query ``j`` belongs to."""
        return self.tables[self.group_of_query[j]]

    def _query_box(self, j):
        g = self.group_of_query[j]
        r = j - self.offsets[g]
        return tuple(slice(a, b + 1) for a, b in zip(self.lows[g][r], self.highs[g][r]))

    def query_answer_from_marginal(self, marginal, j):
        """Answer of query ``j`` from the marginal table of its table."""
        return float(marginal[self._query_box(j)].sum())

    def query_indicator(self, j):
        """0/1 array over the cells of query ``j``'s table: 1 inside its box."""
        out = np.zeros(self.table_shapes[self.group_of_query[j]])
        out[self._query_box(j)] = 1.0
        return out

    # ------------------------------------------------------- dense access
    def evaluate_codes(self, codes, queries=None):
        """Boolean matrix (n_points, n_queries) of the queries on encoded points."""
        queries = np.arange(self.n_queries) if queries is None else np.asarray(queries)
        out = np.empty((codes.shape[0], len(queries)), dtype=bool)
        for col, j in enumerate(queries):
            g = self.group_of_query[j]
            r = j - self.offsets[g]
            t = list(self.tables[g])
            sub = codes[:, t]
            out[:, col] = np.all((sub >= self.lows[g][r]) & (sub <= self.highs[g][r]), axis=1)
        return out

    def describe(self, j):
        g = self.group_of_query[j]
        r = j - self.offsets[g]
        parts = []
        for a, attr in enumerate(self.tables[g]):
            lo, hi = self.lows[g][r, a], self.highs[g][r, a]
            name = "y" if attr == self.universe.n_features else f"x{attr}"
            parts.append(f"{name} level {lo}" if lo == hi else f"{lo} <= {name} level <= {hi}")
        return " and ".join(parts)

    # --------------------------------------------------------- builders
    @classmethod
    def marginals_workload(cls, universe, width, lower_orders=False):
        """All cells of all ``width``-way marginal tables (k-way marginals), and with
        ``lower_orders`` those of every narrower table too (1- to k-way)."""
        attrs = range(len(universe.shape))
        width = min(width, len(universe.shape))
        tables = [t for w in (range(1, width + 1) if lower_orders else (width,))
                  for t in itertools.combinations(attrs, w)]
        lows = []
        for t in tables:
            cells = np.indices([universe.shape[a] for a in t]).reshape(len(t), -1).T
            lows.append(cells)
        orders = f"1- to {width}" if lower_orders and width > 1 else f"{width}"
        return cls(universe, tables, lows, [lo.copy() for lo in lows],
                   description=f"all {orders}-way marginals")

    @classmethod
    def ranges_workload(cls, universe, width, prefix_only=False):
        """Boxes over every ``width``-subset of the features.

        ``prefix_only=True`` gives thresholds / CDF queries ``x_S <= hi``
        (lower end at level 0). With labels, every query is conjoined with
        each label value (the label is appended to every table).
        """
        n_feat = universe.n_features
        feats = range(n_feat)
        tables = list(itertools.combinations(feats, min(width, n_feat)))
        lows, highs, out_tables = [], [], []
        for t in tables:
            per_attr = []
            for a in t:
                L = universe.shape[a]
                if prefix_only:
                    hi = np.arange(L - 1) if L > 1 else np.zeros(1, dtype=int)
                    per_attr.append((np.zeros_like(hi), hi))
                else:
                    lo, hi = np.triu_indices(L)
                    per_attr.append((lo, hi))
            if universe.has_labels:
                C = universe.shape[-1]
                per_attr.append((np.arange(C), np.arange(C)))
                t = t + (n_feat,)
            grids = np.meshgrid(*[np.arange(len(p[0])) for p in per_attr], indexing="ij")
            sel = [g.ravel() for g in grids]
            lows.append(np.stack([p[0][s] for p, s in zip(per_attr, sel)], axis=1))
            highs.append(np.stack([p[1][s] for p, s in zip(per_attr, sel)], axis=1))
            out_tables.append(t)
        name = "thresholds (CDF)" if prefix_only else f"{width}-way range queries (boxes)"
        return cls(universe, out_tables, lows, highs, description=name)

    def subsample(self, n_queries, rng):
        """A data-independent uniform subset of ``n_queries`` queries (tables kept)."""
        if n_queries >= self.n_queries:
            return self
        keep = np.sort(rng.choice(self.n_queries, size=n_queries, replace=False))
        lows, highs = [], []
        for g in range(self.n_groups):
            r = keep[self.group_of_query[keep] == g] - self.offsets[g]
            lows.append(self.lows[g][r])
            highs.append(self.highs[g][r])
        return GridWorkload(self.universe, self.tables, lows, highs,
                            description=self.description + f" (random subset of {n_queries})")


class DenseWorkload:
    """Queries given by their values on the universe points (see module doc).

    Parameters
    ----------
    universe : GridUniverse or SampleUniverse
    evaluate : callable (X, y) -> bool ndarray of shape (n_points, n_queries)
        Evaluates all queries on feature rows ``X`` (and labels ``y``).
    n_queries : int
    description : str
    """

    structured = False

    def __init__(self, universe, evaluate, n_queries, description=""):
        self.universe = universe
        self._evaluate = evaluate
        self.n_queries = int(n_queries)
        self.n_groups = self.n_queries
        self.tables = None
        self.table_sizes = np.ones(self.n_queries, dtype=int)
        self.group_of_query = np.arange(self.n_queries)
        self.offsets = np.arange(self.n_queries + 1)
        self.description = description
        self.gamma = None  # cover radius of the workload, when it is a cover
        self.gamma_certified = None
        self._matrix = None
        self._chunk = max(1, int(_DENSE_CACHE_LIMIT // max(self.n_queries, 1)) // 8)
        entries = self.n_queries * universe.size
        if entries <= _DENSE_BOOL_LIMIT:
            dtype = np.float32 if entries <= _DENSE_CACHE_LIMIT else bool
            self._matrix = np.empty((self.n_queries, universe.size), dtype=dtype)
            for flat, block in self._row_chunks():
                self._matrix[:, flat] = block.T

    def evaluate(self, X, y=None):
        return np.asarray(self._evaluate(X, y), dtype=bool)

    def _row_chunks(self):
        for start in range(0, self.universe.size, self._chunk):
            flat = np.arange(start, min(start + self._chunk, self.universe.size))
            X, y = self.universe.points(flat)
            yield flat, np.asarray(self._evaluate(X, y), dtype=np.float32)

    def answers(self, p):
        if self._matrix is not None:
            p32 = p.astype(np.float32, copy=False)
            if self._matrix.dtype == np.float32:
                return self._matrix @ p32
            step = max(1, int(_DENSE_CACHE_LIMIT // (4 * max(self.universe.size, 1))))
            return np.concatenate([
                self._matrix[i:i + step].astype(np.float32) @ p32
                for i in range(0, self.n_queries, step)
            ])
        total = np.zeros(self.n_queries)
        for flat, block in self._row_chunks():
            total += p[flat] @ block
        return total

    def query_values(self, j):
        """Values of query ``j`` on all universe points."""
        if self._matrix is not None:
            return self._matrix[j].astype(np.float32, copy=False)
        out = np.empty(self.universe.size, dtype=np.float32)
        for flat, block in self._row_chunks():
            out[flat] = block[:, j]
        return out

    def counts_data(self, X, y=None):
        """Integer count of every query on the private rows."""
        return self.evaluate(X, y).sum(axis=0, dtype=np.int64)

    def answers_data(self, X, y=None):
        """Exact fractions answered by the private rows: ``counts_data / n``."""
        return self.counts_data(X, y) / len(X)

    def describe(self, j):
        return f"query {j} of {self.description}"
