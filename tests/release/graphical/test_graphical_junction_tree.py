"""Junction trees: structure and exact marginals against a dense brute force."""

import itertools

import numpy as np
import pytest

from sksmooth.release.graphical import FactoredModel, junction_tree, tree_size
from sksmooth.release.graphical._junction_tree import (
    _min_fill,
    _tree_cliques,
    containing_clique,
    interaction_graph,
    junction_tree_size,
    junction_tree_sizes,
    maximal_cliques,
    message_order,
)


def random_sets(rng, n_attrs, n_sets, max_len):
    sets = []
    for _ in range(n_sets):
        k = int(rng.integers(2, max_len + 1))
        sets.append(tuple(sorted(rng.choice(n_attrs, size=k, replace=False).tolist())))
    return sets


def dense_log_density(shape, factors):
    total = np.zeros(shape)
    for attrs, values in factors:
        view = [shape[a] if a in attrs else 1 for a in range(len(shape))]
        total = total + values.reshape(view)
    p = np.exp(total - total.max())
    return p / p.sum()


def check_running_intersection(tree):
    """Every attribute's cliques form a connected subtree."""
    for a in {a for c in tree.cliques for a in c}:
        nodes = {i for i, c in enumerate(tree.cliques) if a in c}
        links = [(c, p) for c, p in tree.edges if c in nodes and p in nodes]
        assert len(links) == len(nodes) - 1, f"attribute {a} not connected in the tree"


CYCLES = [
    [(0, 1), (1, 2), (2, 3), (0, 3)],  # 4-cycle: needs a chord
    [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)],  # 5-cycle
    [(0, 1), (1, 2), (0, 2), (2, 3), (3, 4), (4, 5), (2, 5)],  # triangle + 4-cycle
]


@pytest.mark.parametrize("sets", CYCLES)
def test_cycles_are_triangulated(sets):
    shape = (2,) * (1 + max(a for s in sets for a in s))
    tree = junction_tree(sets, shape)
    check_running_intersection(tree)
    for s in sets:
        assert any(set(s) <= set(c) for c in tree.cliques)
    # a chordless cycle of length >= 4 cannot be a clique tree as pairs only
    assert max(len(c) for c in tree.cliques) >= 3


@pytest.mark.parametrize("seed", range(6))
def test_marginals_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_attrs = int(rng.integers(4, 8))
    shape = tuple(int(s) for s in rng.integers(2, 4, size=n_attrs))
    sets = random_sets(rng, n_attrs, int(rng.integers(2, 7)), 3)
    factors = [(s, rng.normal(scale=1.5, size=[shape[a] for a in s])) for s in sets]
    model = FactoredModel.uniform(shape)
    for attrs, values in factors:
        model = model.multiply(attrs, values)
    check_running_intersection(model.tree)
    p = dense_log_density(shape, factors)
    for k in (1, 2, 3):
        for attrs in itertools.combinations(range(n_attrs), k):
            other = tuple(a for a in range(n_attrs) if a not in attrs)
            np.testing.assert_allclose(model.marginal(attrs), p.sum(axis=other), atol=1e-12)


def test_message_order_children_before_parents():
    edges = [(0, 1), (1, 2), (1, 3), (3, 4)]
    order = message_order(5, edges, root=0)
    seen = set()
    for child, parent in order:
        assert child not in seen
        seen.add(child)
        # all of child's subtree already sent: no later edge has child as parent
    parents_position = {c: i for i, (c, _) in enumerate(order)}
    for child, parent in order:
        if parent != 0:
            assert parents_position[child] < parents_position[parent]


def test_maximal_cliques_and_size():
    assert sorted(maximal_cliques([(0, 1), (0,), (0, 1, 2), (3,), (1, 2)])) == [(0, 1, 2), (3,)]
    assert tree_size([(0, 1), (2,)], (3, 4, 5)) == 17


def test_disconnected_components_form_one_tree():
    tree = junction_tree([(0, 1), (2, 3)], (2, 2, 2, 2))
    assert len(tree.edges) == len(tree.cliques) - 1
    assert sorted(tree.cliques) == [(0, 1), (2, 3)]


@pytest.mark.parametrize("seed", range(3))
def test_batched_size_checks_decide_as_one_tree_at_a_time(seed):
    # the vectorised elimination of many candidate graphs (simplicial attributes
    # taken in one step) accepts exactly the tables the per-graph min-fill accepts
    rng = np.random.default_rng(seed)
    for _ in range(30):
        d = int(rng.integers(3, 25))
        shape = tuple(int(s) for s in rng.integers(2, 6, size=d))
        sets = random_sets(rng, d, int(rng.integers(1, 2 * d)), 3)
        extra = random_sets(rng, d, 6, 3)
        sizes = [junction_tree_size(sets + [e], shape) for e in extra]
        for cap in sorted(sizes):
            np.testing.assert_array_equal(junction_tree_sizes(sets, extra, shape, cap),
                                          [s <= cap for s in sizes])
        graphs = np.zeros((1, d, d), dtype=bool)
        for v, nbrs in enumerate(interaction_graph(sets + [(a,) for a in range(d)], d)):
            graphs[0, v, sorted(nbrs)] = True
        batched = [tuple(np.flatnonzero(c).tolist()) for c in _min_fill(graphs, shape)[0]]
        assert sorted(maximal_cliques(batched)) == sorted(_tree_cliques(sets, shape))


def test_containing_clique_is_the_first_smallest_clique_holding_the_attributes():
    rng = np.random.default_rng(0)
    for _ in range(50):
        cliques = tuple(random_sets(rng, 8, int(rng.integers(1, 7)), 5))
        for attrs in itertools.chain.from_iterable(
                itertools.combinations(range(9), k) for k in range(3)):
            holding = [i for i, c in enumerate(cliques) if set(attrs) <= set(c)]
            expected = min(holding, key=lambda i: len(cliques[i]), default=None)
            assert containing_clique(cliques, attrs) == expected
