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


def _fill_in(adjacency, v, alive):
    nbrs = [u for u in adjacency[v] if u in alive]
    return sum(1 for i, a in enumerate(nbrs) for b in nbrs[i + 1:] if b not in adjacency[a])


def min_fill_cliques(adjacency, shape):
    """Cliques created by greedy min-fill elimination of every attribute.

    Returns the list of elimination cliques (sorted tuples), in order.
    """
    adjacency = [set(n) for n in adjacency]
    alive = set(range(len(adjacency)))
    cliques = []
    while alive:
        def cost(v):
            nbrs = [u for u in adjacency[v] if u in alive]
            return (_fill_in(adjacency, v, alive), table_size(shape, nbrs + [v]), v)

        v = min(alive, key=cost)
        nbrs = [u for u in adjacency[v] if u in alive]
        for i, a in enumerate(nbrs):
            for b in nbrs[i + 1:]:
                adjacency[a].add(b)
                adjacency[b].add(a)
        cliques.append(tuple(sorted(nbrs + [v])))
        alive.remove(v)
    return cliques


def maximal_cliques(cliques):
    """The sets not strictly contained in another one (duplicates removed)."""
    unique = sorted(set(cliques), key=len, reverse=True)
    kept = []
    for c in unique:
        if not any(set(c) <= set(k) for k in kept):
            kept.append(c)
    return kept


def maximum_spanning_tree(cliques):
    """Kruskal on separator sizes; returns undirected edges ``(i, j)``.

    Pairs without shared attributes get weight 0, so the result always
    spans all cliques (one tree).
    """
    m = len(cliques)
    pairs = [(len(set(cliques[i]) & set(cliques[j])), i, j)
             for i in range(m) for j in range(i + 1, m)]
    pairs.sort(key=lambda t: -t[0])
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


def junction_tree(attr_sets, shape):
    """A junction tree whose cliques cover every set in ``attr_sets``.

    Every attribute of the domain is covered (singletons are added), so the
    tree defines a distribution over the whole product domain. The root is
    the largest clique.
    """
    n_attrs = len(shape)
    sets = [tuple(s) for s in attr_sets] + [(a,) for a in range(n_attrs)]
    adjacency = interaction_graph(sets, n_attrs)
    cliques = maximal_cliques(min_fill_cliques(adjacency, shape))
    cliques.sort(key=lambda c: (-table_size(shape, c), c))
    edges = message_order(len(cliques), maximum_spanning_tree(cliques))
    separators = tuple(tuple(sorted(set(cliques[i]) & set(cliques[j]))) for i, j in edges)
    return JunctionTree(tuple(cliques), tuple(edges), separators)


def tree_size(cliques, shape):
    """Number of floats stored by one table per clique."""
    return int(sum(table_size(shape, c) for c in cliques))


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
        entry = (cliques, {})
        _HOSTS[id(cliques)] = entry
        if len(_HOSTS) > _HOSTS_MAX:
            _HOSTS.popitem(last=False)
    attrs = tuple(attrs)
    host = entry[1].get(attrs, _MISSING)
    if host is _MISSING:
        host = entry[1][attrs] = _scan(cliques, attrs)
    return host


def _scan(cliques, attrs):
    best, best_size = None, np.inf
    attrs = set(attrs)
    for i, c in enumerate(cliques):
        if len(c) < best_size and attrs <= set(c):
            best, best_size = i, len(c)
    return best
