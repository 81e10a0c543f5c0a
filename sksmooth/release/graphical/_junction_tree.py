"""Junction trees over attribute cliques, as pure functions.

From the attribute sets of a model's factors (plus every single attribute,
so that the tree covers the whole domain):

1. the *interaction graph* joins two attributes when a factor contains both;
2. it is triangulated by greedy *min-fill* elimination (eliminate the
   attribute whose neighbourhood needs the fewest fill-in edges, ties broken
   by the smallest table the elimination creates); each elimination yields a
   clique ``{v} | neighbours(v)``;
3. the *maximal* cliques of the triangulated graph are kept;
4. a *maximum spanning tree* of the clique graph, edge weight = size of the
   separator (shared attributes), is a junction tree (running intersection
   property holds for the cliques of a chordal graph); components that share
   no attribute are joined by empty separators, so the result is one tree;
5. a *message order* roots the tree and lists edges leaves-to-root.

References
----------
Koller & Friedman, "Probabilistic Graphical Models", MIT Press 2009, §9.4
(min-fill), §10.4 (clique trees from chordal graphs, Thm. 10.4).
"""

import functools
import operator
from collections import OrderedDict
from typing import NamedTuple

import numpy as np

from ._domain import table_size

__all__ = [
    "JunctionTree",
    "interaction_graph",
    "min_fill_cliques",
    "maximal_cliques",
    "maximum_spanning_tree",
    "message_order",
    "junction_tree",
    "tree_size",
    "junction_tree_size",
    "junction_tree_sizes",
]


class JunctionTree(NamedTuple):
    """A rooted junction tree.

    Attributes
    ----------
    cliques : tuple of tuple of int
        Maximal cliques (sorted attribute tuples); ``cliques[0]`` is the root.
    edges : tuple of (int, int)
        ``(child, parent)`` pairs in upward message order (leaves first);
        reversing the tuple and swapping each pair gives the downward order.
    separators : tuple of tuple of int
        ``separators[k]`` = attributes shared by the two ends of ``edges[k]``.
    """

    cliques: tuple
    edges: tuple
    separators: tuple

    def parent_order(self):
        """Cliques in downward order (root first) with their parent edge index."""
        order = [(0, None)]
        for k in range(len(self.edges) - 1, -1, -1):
            order.append((self.edges[k][0], k))
        return order


def interaction_graph(attr_sets, n_attrs):
    """Adjacency sets: ``a ~ b`` when some set contains both."""
    adjacency = [set() for _ in range(n_attrs)]
    for s in attr_sets:
        for a in s:
            adjacency[a].update(b for b in s if b != a)
    return adjacency


def _members(bits):
    """The attributes in the bit set ``bits`` (an int), ascending."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


def min_fill_cliques(adjacency, shape):
    """Cliques created by greedy min-fill elimination of every attribute.

    Returns the list of elimination cliques (sorted tuples), in order.
    Neighbourhoods are bit sets; after an elimination only the attributes
    whose fill can change are re-scored: the eliminated attribute's
    neighbours and the common neighbours of each fill-in edge's ends.
    """
    nbrs = [sum(1 << u for u in set(adjacency[v]) if u != v) for v in range(len(adjacency))]

    def fill(v):  # twice the number of missing edges among v's neighbours
        m = bits = nbrs[v]
        total = 0
        while bits:
            low = bits & -bits
            bits ^= low
            total += (m & ~nbrs[low.bit_length() - 1] & ~low).bit_count()
        return total

    fills = {v: fill(v) for v in range(len(nbrs))}
    sizes = {}  # table size of {v} | neighbours(v), computed only to break ties
    cliques = []
    while fills:
        best = min(fills.values())
        tied = [v for v, f in fills.items() if f == best]
        if len(tied) > 1:
            for u in tied:
                if u not in sizes:
                    sizes[u] = table_size(shape, _members(nbrs[u] | 1 << u))
            v = min(tied, key=lambda u: (sizes[u], u))
        else:
            v = tied[0]
        m = nbrs[v]
        members = _members(m)
        gained = [m & ~nbrs[u] & ~(1 << u) for u in members]  # fill-in edges
        affected = m
        for u, new in zip(members, gained):
            common = nbrs[u]
            while new:  # the common neighbours of each fill-in edge's ends
                low = new & -new
                new ^= low
                affected |= common & nbrs[low.bit_length() - 1]
        for u, new in zip(members, gained):
            nbrs[u] = (nbrs[u] | new) & ~(1 << v)
        del fills[v]
        rescored = affected & ~(1 << v)
        while rescored:
            low = rescored & -rescored
            rescored ^= low
            u = low.bit_length() - 1
            fills[u] = fill(u)
            sizes.pop(u, None)
        cliques.append(tuple(sorted(members + [v])))
    return cliques


def _min_fill(graphs, levels):
    """:func:`min_fill_cliques` of ``k`` graphs at once, vectorised over the graphs
    (boolean adjacency matrices ``(k, d, d)``, symmetric, no loops; ``d^3``
    work per step and graph, so for few attributes): ``(k, d, d)`` masks,
    entry ``[g, v]`` the clique of graph ``g`` created by eliminating ``v``.

    Each step eliminates the attribute whose neighbourhood misses the
    fewest edges (``deg (deg - 1) - 2 |edges among neighbours|``), ties
    broken by the smallest table ``{v} | neighbours(v)`` and then the
    smallest index; its neighbours become a clique. While attributes miss
    no edge (simplicial), greedy elimination takes them all before any
    other, in an order that changes neither the filled graph (no edge is
    added; a simplicial attribute stays simplicial when others go) nor its
    maximal cliques, so they go in one step. Table sizes are floats: exact
    below ``2^53`` cells, and a tie that rounding could break differently
    involves cliques of more cells than any tree accepted by a size cap
    below ``2^52`` (:func:`junction_tree_sizes`).
    """
    graphs = graphs.copy()
    k, d, _ = graphs.shape
    rows = np.arange(k)
    alive = np.ones((k, d), dtype=bool)
    cliques = np.zeros((k, d, d), dtype=bool)
    self_loops = np.eye(d, dtype=bool)
    while alive.any():
        adjacency = graphs.astype(np.float32)  # eliminated attributes have no edges
        paths = np.matmul(adjacency, adjacency)  # diagonal: the degrees
        degree = np.einsum("gii->gi", paths)
        twice_edges = np.einsum("gij,gij->gi", paths, adjacency)
        fill = np.where(alive, degree * (degree - 1) - twice_edges, np.inf)
        best = fill.min(axis=1, keepdims=True)
        key = np.where(fill == best, 0.0, np.inf)
        tied = np.nonzero((fill == best) & alive & (best > 0))  # simplicial ones all go
        sizes = np.where(graphs[tied] | self_loops[tied[1]], levels, 1.0).prod(axis=1)
        key[tied] = np.minimum(sizes, 1e300)  # an overflowed table still ranks before a non-tie
        v = key.argmin(axis=1)
        chosen = np.zeros((k, d), dtype=bool)
        chosen[rows, v] = True
        chosen = np.where(best == 0, fill == 0, chosen & alive)
        cliques |= chosen[:, :, None] & (graphs | self_loops)
        members = graphs[rows, v] & (best[:, 0] > 0)[:, None]  # simplicial: no fill-in
        graphs |= members[:, :, None] & members[:, None, :]
        graphs &= ~(self_loops | chosen[:, :, None] | chosen[:, None, :])
        alive &= ~chosen
    return cliques


def maximal_cliques(cliques):
    """The sets not strictly contained in another one (duplicates removed)."""
    unique = sorted(set(cliques), key=len, reverse=True)
    kept, kept_sets = [], []
    for c in unique:
        members = frozenset(c)
        if not any(members <= k for k in kept_sets):
            kept.append(c)
            kept_sets.append(members)
    return kept


def maximum_spanning_tree(cliques):
    """Kruskal on separator sizes; returns undirected edges ``(i, j)``.

    Pairs without shared attributes get weight 0, so the result always
    spans all cliques (one tree).
    """
    m = len(cliques)
    bits = [sum(1 << a for a in c) for c in cliques]
    pairs = [(-(bits[i] & bits[j]).bit_count(), i, j) for i in range(m) for j in range(i + 1, m)]
    pairs.sort()
    root = list(range(m))

    def find(i):
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    edges = []
    for _, i, j in pairs:
        ri, rj = find(i), find(j)
        if ri != rj:
            root[ri] = rj
            edges.append((i, j))
    return edges


def message_order(n_cliques, edges, root=0):
    """``(child, parent)`` pairs such that every child comes after its subtree."""
    neighbours = [[] for _ in range(n_cliques)]
    for i, j in edges:
        neighbours[i].append(j)
        neighbours[j].append(i)
    parent = {root: None}
    stack, visit = [root], []
    while stack:  # depth-first from the root
        node = stack.pop()
        visit.append(node)
        for nb in neighbours[node]:
            if nb not in parent:
                parent[nb] = node
                stack.append(nb)
    return [(node, parent[node]) for node in reversed(visit) if parent[node] is not None]


def _tree_cliques(attr_sets, shape):
    """Maximal cliques of the min-fill triangulation of ``attr_sets`` plus singletons."""
    n_attrs = len(shape)
    sets = [tuple(s) for s in attr_sets] + [(a,) for a in range(n_attrs)]
    return maximal_cliques(min_fill_cliques(interaction_graph(sets, n_attrs), shape))


def junction_tree(attr_sets, shape):
    """A junction tree whose cliques cover every set in ``attr_sets``.

    Every attribute of the domain is covered (singletons are added), so the
    tree defines a distribution over the whole product domain. The root is
    the largest clique.
    """
    cliques = _tree_cliques(attr_sets, shape)
    cliques.sort(key=lambda c: (-table_size(shape, c), c))
    edges = message_order(len(cliques), maximum_spanning_tree(cliques))
    separators = tuple(tuple(sorted(set(cliques[i]) & set(cliques[j]))) for i, j in edges)
    return JunctionTree(tuple(cliques), tuple(edges), separators)


def tree_size(cliques, shape):
    """Number of floats stored by one table per clique."""
    return int(sum(table_size(shape, c) for c in cliques))


def junction_tree_size(attr_sets, shape):
    """``tree_size`` of ``junction_tree(attr_sets, shape)``, without building the tree."""
    return tree_size(_tree_cliques(attr_sets, shape), shape)


_EXACT_SIZES = 2.0**52  # float table sizes decide exactly below this cap
_BATCH_ATTRS = 64  # beyond, one graph at a time (the batch costs k d^4)
_BATCH_GRAPHS = 4  # fewer graphs: one at a time is faster (bit sets, no array set-up)


def junction_tree_sizes(attr_sets, extra_sets, shape, max_size):
    """Whether ``junction_tree_size(attr_sets + [extra], shape) <= max_size``, for
    every ``extra`` in ``extra_sets`` (boolean array), the eliminations of all
    the graphs run together (:func:`_min_fill`)."""
    d = len(shape)
    if max_size >= _EXACT_SIZES or d > _BATCH_ATTRS or len(extra_sets) < _BATCH_GRAPHS:
        return np.array([junction_tree_size(list(attr_sets) + [e], shape) <= max_size
                         for e in extra_sets], dtype=bool)
    graphs = np.zeros((len(extra_sets), d, d), dtype=bool)
    for g, attrs in enumerate(extra_sets):
        graphs[g][np.ix_(attrs, attrs)] = True
    for attrs in attr_sets:
        graphs[(slice(None), *np.ix_(attrs, attrs))] = True
    graphs &= ~np.eye(d, dtype=bool)
    levels = np.asarray(shape, dtype=float)
    cliques = _min_fill(graphs, levels)
    cells = cliques.astype(np.float32)
    shared = np.matmul(cells, cells.transpose(0, 2, 1))  # [g, i, j] = |c_i & c_j|
    card = cells.sum(axis=2)
    inside = shared == card[:, :, None]  # c_i a subset of c_j
    larger = card[:, :, None] < card[:, None, :]
    earlier = np.tri(d, k=-1, dtype=bool)[None]  # [i, j]: j < i
    dropped = (inside & (larger | ((card[:, :, None] == card[:, None, :]) & earlier))).any(axis=2)
    sizes = np.where(cliques, levels, 1.0).prod(axis=2)
    return np.where(dropped, 0.0, sizes).sum(axis=1) <= max_size


_HOSTS = OrderedDict()  # id(cliques) -> (cliques, {attrs: index}); the tuple kept alive
_HOSTS_MAX = 256
_MISSING = object()


def containing_clique(cliques, attrs):
    """Index of the smallest clique containing ``attrs``, or ``None``.

    Answers are cached per clique tuple (by identity: every model sharing a
    junction tree shares its ``cliques`` tuple), so the marginals of many
    candidate tables cost one dictionary lookup each after the first.
    """
    entry = _HOSTS.get(id(cliques))
    if entry is None or entry[0] is not cliques:
        holders = {}  # attribute -> bit set of the cliques holding it
        for i, c in enumerate(cliques):
            for a in c:
                holders[a] = holders.get(a, 0) | 1 << i
        entry = (cliques, {}, holders)
        _HOSTS[id(cliques)] = entry
        if len(_HOSTS) > _HOSTS_MAX:
            _HOSTS.popitem(last=False)
    attrs = tuple(attrs)
    host = entry[1].get(attrs, _MISSING)
    if host is _MISSING:
        held = functools.reduce(operator.and_, (entry[2].get(a, 0) for a in attrs),
                                (1 << len(cliques)) - 1)
        holding = [i for i in range(held.bit_length()) if held >> i & 1]
        host = entry[1][attrs] = min(holding, key=lambda i: len(cliques[i]), default=None)
    return host
