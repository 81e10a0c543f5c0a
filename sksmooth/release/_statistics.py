"""Exact sufficient statistics of the release estimators, accumulated chunk by chunk.

Every release estimator sees its private rows only through integer counts:
the count tables of a set of attribute sets (the marginals of
:class:`~sksmooth.release.SmoothMWEM`'s tables, of
:class:`~sksmooth.release.AdaptiveMarginalSynthesizer`'s workload, of the
per-query baselines), or the count of every query of a dense workload.
Counts are sums over rows, so one streaming pass computes them exactly:
``update`` on each chunk (``partial_fit``), or on each Dask partition with
the partial results added (:meth:`merge_state`). Nothing here is noisy, and
nothing here is ever shown to a user: the estimators publish only what
their mechanism releases from these counts, after the ledger charged it.

Counting is vectorised: the codes of a table's attributes are ravelled into
one flat cell index and counted with ``np.bincount``. Many small tables
are counted through a few *joint* tables (the union of several attribute
sets, at most ``max_joint_cells`` cells, chosen from the public shape and
tables only); a table's counts are the sum of its joint over the other
axes, which is exact in integers. With 15 attributes of 8 levels the 120
tables of all 1- and 2-way marginals need about a dozen ``bincount``
passes instead of 120.
"""

import copy

import numpy as np

__all__ = ["MarginalCounts", "QueryCounts", "WorkloadCounts", "plan_counting",
           "plan_joint_tables"]

_JOINT_CELLS = 2**18  # cells of one joint count table (2 MiB of int64: stays in cache)
_MAX_PLANNED_TABLES = 2000  # beyond: one bincount per table (planning is O(tables x joints))
_DENSE_BLOCK_ENTRIES = 2**24  # rows x queries evaluated at once by QueryCounts


def _cells(shape, attrs):
    return int(np.prod([shape[a] for a in attrs], dtype=np.float64))


def _maximal(tables):
    distinct = set(tables)
    if len(distinct) > _MAX_PLANNED_TABLES:
        return sorted(distinct)
    return sorted(t for t in distinct if not any(set(t) < set(u) for u in distinct))


def plan_joint_tables(shape, tables, max_cells=_JOINT_CELLS):
    """Few joint attribute sets whose count tables contain every table.

    First fit: tables, largest first, join the existing joint whose union
    with them is smallest, if that union has at most ``max_cells`` cells;
    otherwise they start a new joint. Depends only on public inputs.

    Parameters
    ----------
    shape : tuple of int
        Levels per attribute.
    tables : list of tuple of int
        Sorted attribute sets.
    max_cells : int

    Returns
    -------
    joints : list of tuple of int
        Sorted attribute sets; every table is a subset of at least one.
    """
    maximal = sorted(_maximal(tables), key=lambda t: (-_cells(shape, t), t))
    if len(maximal) > _MAX_PLANNED_TABLES:
        return maximal
    joints = []
    for t in maximal:
        best, best_cells = None, None
        for i, joint in enumerate(joints):
            cells = _cells(shape, joint | set(t))
            if cells <= max_cells and (best is None or cells < best_cells):
                best, best_cells = i, cells
        if best is None:
            joints.append(set(t))
        else:
            joints[best] |= set(t)
    return [tuple(sorted(j)) for j in joints]


def plan_counting(shape, tables, max_cells=_JOINT_CELLS):
    """Units (attribute blocks coded once per chunk) and joints made of units.

    The attributes are cut, in order, into consecutive *blocks* of at most
    ``sqrt(max_cells)`` cells. A table whose blocks' union has at most
    ``max_cells`` cells is counted in the joint of those blocks, whose cell
    index is one multiply-add per block from the block codes computed once
    per chunk (all 2-way marginals of 15 attributes with 8 levels: 5 blocks,
    10 joints). Tables that do not fit are planned by
    :func:`plan_joint_tables` on single attributes.

    Returns
    -------
    units : list of tuple of int
        Consecutive attribute sets (blocks, then single attributes).
    joints : list of tuple of int
        Increasing unit indices; the joint's attributes (sorted) are the
        concatenation of its units'.
    """
    side = max(2, int(np.sqrt(max_cells)))
    blocks, current = [], []
    for a, levels in enumerate(shape):
        if current and _cells(shape, current + [a]) > side:
            blocks.append(tuple(current))
            current = []
        current.append(a)
    if current:
        blocks.append(tuple(current))
    block_of = {a: i for i, block in enumerate(blocks) for a in block}
    by_blocks, rest = set(), []
    for t in _maximal(tables):
        touched = tuple(sorted({block_of[a] for a in t}))
        if _cells(shape, [a for i in touched for a in blocks[i]]) <= max_cells:
            by_blocks.add(touched)
        else:
            rest.append(t)
    joints = [j for j in by_blocks if not any(set(j) < set(k) for k in by_blocks)]
    raw = plan_joint_tables(shape, rest, max_cells) if rest else []
    singles = sorted({a for j in raw for a in j})
    used = sorted({b for j in joints for b in j})  # blocks no table touches are not coded
    unit_of_block = {b: i for i, b in enumerate(used)}
    units = [blocks[b] for b in used] + [(a,) for a in singles]
    unit_of_single = {a: len(used) + i for i, a in enumerate(singles)}
    joints = [tuple(unit_of_block[b] for b in j) for j in sorted(joints)] + [
        tuple(unit_of_single[a] for a in j) for j in raw]
    return units, joints


def _flat_index(codes, attrs, shape):
    """Row-major cell index of each row in the table of ``attrs`` (int64)."""
    flat = codes[:, attrs[0]].astype(np.int64)
    for a in attrs[1:]:
        flat *= shape[a]
        flat += codes[:, a]
    return flat


class MarginalCounts:
    """Integer count tables of fixed attribute sets, accumulated over chunks.

    Parameters
    ----------
    shape : tuple of int
        Public number of levels of every attribute.
    tables : list of tuple of int
        Sorted attribute sets whose counts are needed; any subset of one of
        them can be asked for as well (:meth:`counts`).
    max_joint_cells : int
        Size cap of a joint count table (see module docstring).
    """

    def __init__(self, shape, tables, *, max_joint_cells=_JOINT_CELLS):
        self.shape = tuple(int(s) for s in shape)
        self.tables = [tuple(int(a) for a in t) for t in tables]
        for t in self.tables:
            if not t or list(t) != sorted(set(t)) or t[-1] >= len(self.shape) or t[0] < 0:
                raise ValueError(f"table {t} must be a non-empty sorted tuple of distinct "
                                 f"attribute indices in [0, {len(self.shape) - 1}].")
        self.units, self._joint_units = plan_counting(self.shape, self.tables,
                                                      max_joint_cells)
        self.joints = [tuple(a for u in units for a in self.units[u])
                       for units in self._joint_units]
        self._counts = None  # allocated at the first update (empty copies ship light)
        self.n = 0
        self._cache = {}

    def update(self, codes):
        """Add the rows of ``codes`` (int array ``(n, n_attributes)``, in range)."""
        codes = np.asarray(codes)
        if codes.ndim != 2 or codes.shape[1] != len(self.shape):
            raise ValueError(f"codes must have shape (n, {len(self.shape)}), got {codes.shape}.")
        if codes.shape[0] == 0:
            return
        unit_codes = [_flat_index(codes, unit, self.shape) for unit in self.units]
        unit_sizes = [_cells(self.shape, unit) for unit in self.units]
        for units, counts in zip(self._joint_units, self._joint_counts):
            if len(units) == 1:
                flat = unit_codes[units[0]]
            else:
                flat = unit_codes[units[0]] * unit_sizes[units[1]]
                flat += unit_codes[units[1]]
                for u in units[2:]:
                    flat *= unit_sizes[u]
                    flat += unit_codes[u]
            counts += np.bincount(flat, minlength=counts.size)
        self.n += int(codes.shape[0])
        self._cache.clear()

    @property
    def _joint_counts(self):
        if self._counts is None:
            self._counts = [np.zeros(_cells(self.shape, j), dtype=np.int64)
                            for j in self.joints]
        return self._counts

    def counts(self, attrs):
        """Count table of ``attrs`` (sorted tuple, a subset of a planned table)."""
        attrs = tuple(int(a) for a in attrs)
        if attrs not in self._cache:
            joint_index = next((i for i, j in enumerate(self.joints) if set(attrs) <= set(j)),
                               None)
            if joint_index is None:
                raise ValueError(f"attributes {attrs} are not within any counted table.")
            joint = self.joints[joint_index]
            table = self._joint_counts[joint_index].reshape([self.shape[a] for a in joint])
            other = tuple(i for i, a in enumerate(joint) if a not in attrs)
            self._cache[attrs] = table.sum(axis=other) if other else table.copy()
        return self._cache[attrs]

    def table_counts(self, tables=None):
        """Count tables of ``tables`` (default: the planned ones), in order."""
        return [self.counts(t) for t in (self.tables if tables is None else tables)]

    # ------------------------------------------------- partial results (Dask)
    def empty_like(self):
        """A zero accumulator with the same plan (for one partition)."""
        out = object.__new__(type(self))
        out.shape, out.tables, out.joints = self.shape, self.tables, self.joints
        out.units, out._joint_units = self.units, self._joint_units
        out._counts = None
        out.n, out._cache = 0, {}
        return out

    def state(self):
        """All counts and ``n`` as one int64 vector (summable across partitions)."""
        return np.concatenate(self._joint_counts + [np.array([self.n], dtype=np.int64)])

    def merge_state(self, state):
        """Add a :meth:`state` vector of an accumulator with the same plan."""
        state = np.asarray(state, dtype=np.int64)
        sizes = [c.size for c in self._joint_counts]
        if state.shape != (sum(sizes) + 1,):
            raise ValueError("state vector of a different counting plan.")
        for counts, part in zip(self._joint_counts, np.split(state[:-1], np.cumsum(sizes)[:-1])):
            counts += part
        self.n += int(state[-1])
        self._cache.clear()


class QueryCounts:
    """Count of every query of a dense workload, accumulated over chunks.

    Parameters
    ----------
    workload : DenseWorkload
        Anything with ``n_queries`` and ``evaluate(X, y)`` returning a
        boolean matrix ``(n_rows, n_queries)``.
    """

    def __init__(self, workload):
        self.workload = workload
        self.query_counts = np.zeros(int(workload.n_queries), dtype=np.int64)
        self.n = 0

    def update(self, X, y=None):
        """Add the rows ``X`` (and labels ``y``), evaluated in row blocks."""
        n = X.shape[0]
        step = max(1, _DENSE_BLOCK_ENTRIES // max(self.query_counts.size, 1))
        for start in range(0, n, step):
            block_y = None if y is None else y[start:start + step]
            self.query_counts += self.workload.evaluate(X[start:start + step], block_y).sum(
                axis=0, dtype=np.int64)
        self.n += int(n)

    def empty_like(self):
        return QueryCounts(self.workload)

    def __deepcopy__(self, memo):  # the workload is fixed and shared; counts are copied
        out = self.empty_like()
        out.query_counts[:] = self.query_counts
        out.n = self.n
        return out

    def state(self):
        return np.concatenate([self.query_counts, np.array([self.n], dtype=np.int64)])

    def merge_state(self, state):
        state = np.asarray(state, dtype=np.int64)
        if state.shape != (self.query_counts.size + 1,):
            raise ValueError("state vector of a different workload.")
        self.query_counts += state[:-1]
        self.n += int(state[-1])


class WorkloadCounts:
    """The counts a release over ``universe`` needs for ``workload``.

    A structured workload (tables of a grid) keeps the count tables of its
    tables (:class:`MarginalCounts` over the grid's level codes); a dense
    one keeps one count per query (:class:`QueryCounts` on the mapped
    rows).
    """

    def __init__(self, universe, workload, *, accumulator=None):
        self.universe = universe
        self.workload = workload
        if accumulator is not None:
            self.accumulator = accumulator
        elif workload.structured:
            self.accumulator = MarginalCounts(universe.shape, workload.tables)
        else:
            self.accumulator = QueryCounts(workload)

    @property
    def n(self):
        return self.accumulator.n

    def update(self, X, y=None):
        """Add mapped rows ``X`` (inside the public box) and labels ``y``."""
        if self.workload.structured:
            self.accumulator.update(self.universe.encode(X, y))
        else:
            self.accumulator.update(X, y)

    def table_counts(self):
        """Count table of every table of a structured workload."""
        return self.accumulator.table_counts(self.workload.tables)

    def query_counts(self):
        """Integer count of every query (exact, from the tables when structured)."""
        if self.workload.structured:
            return self.workload.answers_from_marginals(self.table_counts())
        return self.accumulator.query_counts.copy()

    def empty_like(self):
        return WorkloadCounts(self.universe, self.workload,
                              accumulator=self.accumulator.empty_like())

    def __deepcopy__(self, memo):  # universe and workload are fixed and shared
        return WorkloadCounts(self.universe, self.workload,
                              accumulator=copy.deepcopy(self.accumulator, memo))

    def state(self):
        return self.accumulator.state()

    def merge_state(self, state):
        self.accumulator.merge_state(state)
