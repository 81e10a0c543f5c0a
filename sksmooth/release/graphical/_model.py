"""The factored release model: a graphical model over measured tables.

Every multiplicative-weights (or mirror-descent) update by a table
measurement multiplies the distribution by a factor over that table's
attributes, so the released distribution is ``p(x) ∝ exp(sum_f phi_f(x_f))``
with one log-factor ``phi_f`` per measured attribute set. It is stored
factored: the factors are assigned to the cliques of a junction tree
(:mod:`._junction_tree`), and sum-product message passing in log space
calibrates one belief (the exact marginal) per clique. Memory and time are
linear in the total size of the cliques instead of the size of the domain.

References
----------
McKenna, Sheldon & Miklau, "Graphical-model based estimation and inference
for differential privacy", ICML 2019, arXiv:1901.09136, §3–4.
Koller & Friedman, "Probabilistic Graphical Models", MIT Press 2009, §10.2
(sum-product calibration of a clique tree).
"""

import itertools
import math
from functools import cached_property

import numpy as np

from ._domain import as_attrs, table_shape
from ._factor import Factor
from ._junction_tree import containing_clique, junction_tree, junction_tree_sizes, tree_size
from ._sampling import sample_rows

__all__ = ["FactoredModel"]


class FactoredModel:
    """Distribution ``∝ exp(sum of log-factors)`` kept as a junction tree.

    Implements :class:`sksmooth.release._model.ReleaseModel`. Instances are
    immutable: :meth:`multiply` returns a new model.

    Parameters
    ----------
    shape : tuple of int
        Number of levels of each attribute.
    factors : sequence of Factor, default=()
        The log-factors; no two share the same attribute set (use
        :meth:`multiply` to combine).
    tree : JunctionTree, optional
        A junction tree covering every factor (computed when omitted).
    clique_probabilities : list of ndarray, optional
        The calibrated clique marginals of this model on ``tree``, when the
        caller already computed them (the estimator's last calibration).
    """

    def __init__(self, shape, factors=(), tree=None, *, clique_probabilities=None):
        self.shape = tuple(int(s) for s in shape)
        if any(s < 1 for s in self.shape):
            raise ValueError(f"shape must hold positive level counts, got {self.shape}.")
        self.factors = tuple(factors)
        self.tree = tree if tree is not None else junction_tree(
            [f.attrs for f in self.factors], self.shape)
        if clique_probabilities is not None:
            self.__dict__["clique_probabilities"] = list(clique_probabilities)

    @classmethod
    def uniform(cls, shape):
        """The uniform distribution over the product domain ``shape``."""
        return cls(shape)

    # ------------------------------------------------------------ protocol
    @property
    def size(self):
        """Floats stored: one table per clique."""
        return tree_size(self.tree.cliques, self.shape)

    def multiply(self, attrs, log_factor):
        """Model ``∝ self * exp(log_factor)``, the factor over ``attrs``.

        A factor over a subset of an existing factor's attributes is added
        into it, so the junction tree is kept; otherwise it becomes a new
        factor, and the tree is re-triangulated only when no clique covers
        ``attrs``.
        """
        attrs = as_attrs(attrs)
        log_factor = np.asarray(log_factor, dtype=float)
        if log_factor.shape != table_shape(self.shape, attrs):
            raise ValueError(f"log_factor has shape {log_factor.shape}, expected "
                             f"{table_shape(self.shape, attrs)} for attrs {attrs}.")
        new = Factor(attrs, log_factor)
        factors = list(self.factors)
        host = containing_clique([f.attrs for f in factors], attrs)
        if host is not None:
            factors[host] = Factor(factors[host].attrs, factors[host].values + new.expand(factors[host].attrs))
        else:
            factors.append(new)
        covered = containing_clique(self.tree.cliques, attrs) is not None
        return FactoredModel(self.shape, factors, self.tree if covered else None)

    def fits(self, attrs, max_size):
        """Whether a factor over ``attrs`` leaves the model within ``max_size`` floats.

        A factor inside an existing clique never grows the model. AIM's
        model-size rule (McKenna et al. 2022, §4): a table whose junction
        tree would exceed the cap is not measured. Depends only on the
        attribute sets already in the model, i.e. on released choices.
        """
        return bool(self.fitting([attrs], max_size)[0])

    def fitting(self, tables, max_size):
        """:meth:`fits` of every table in ``tables`` (boolean array), the junction
        trees of those that grow the model triangulated together."""
        tables = [as_attrs(t) for t in tables]
        out = np.ones(len(tables), dtype=bool)
        grows = [i for i, t in enumerate(tables)
                 if containing_clique(self.tree.cliques, t) is None]
        out[grows] = junction_tree_sizes([f.attrs for f in self.factors],
                                         [tables[i] for i in grows], self.shape, max_size)
        return out

    def marginal(self, attrs):
        """Marginal table over ``attrs`` (sums to 1).

        Read from a calibrated clique belief when one clique contains
        ``attrs``; otherwise by variable elimination over the smallest
        subtree whose cliques cover ``attrs`` (:func:`_eliminate`).
        """
        return self.marginals([attrs])[0]

    def marginals(self, tables):
        """:meth:`marginal` of every attribute set in ``tables``; the pairs no clique
        holds are computed together (:func:`_split_pairs`)."""
        tables = [as_attrs(t) for t in tables]
        hosts = [containing_clique(self.tree.cliques, t) for t in tables]
        split = {t for t, h in zip(tables, hosts) if h is None and len(t) == 2}
        pairs = _split_pairs(self, split) if len(split) > 1 else {}
        return [_sum_to(self.clique_probabilities[h], self.tree.cliques[h], t) if h is not None
                else pairs[t] if t in pairs else _eliminate(self, t) for t, h in zip(tables, hosts)]

    def sample(self, n_samples, rng, scheme="systematic"):
        """``n_samples`` rows of level codes, shape ``(n, n_attrs)``; ``scheme``:
        ``'systematic'`` or ``'iid'`` (:mod:`sksmooth.release._systematic`)."""
        return sample_rows(self.tree, self.beliefs, self.shape, int(n_samples), rng, scheme)

    # ------------------------------------------------------------ inference
    def clique_potentials(self):
        """Log-potential of every clique: the sum of the factors assigned to it."""
        potentials = [Factor.zeros(self.shape, c) for c in self.tree.cliques]
        for f in self.factors:
            i = containing_clique(self.tree.cliques, f.attrs)
            potentials[i].values[...] += f.expand(potentials[i].attrs)  # fresh arrays
        return potentials

    @cached_property
    def clique_probabilities(self):
        """``exp`` of every normalised clique belief (the clique marginals)."""
        if "beliefs" in self.__dict__:
            return [np.exp(b.values) for b in self.beliefs]
        return calibrated_probabilities(self.tree, self.clique_potentials())

    @cached_property
    def _index(self):
        return _TreeIndex(self.tree)

    @cached_property
    def _separator_tables(self):
        """Marginal of every clique on the separator to its parent (root: ``1``)."""
        tables, index = self.clique_probabilities, self._index
        return [_sum_to(tables[i], c, index.separator[i]) if index.separator[i] else np.ones(())
                for i, c in enumerate(self.tree.cliques)]

    @cached_property
    def beliefs(self):
        """Normalised log-marginal of every clique (calibrated)."""
        beliefs, _ = calibrate(self.tree, self.clique_potentials())
        return beliefs

    def dense(self):
        """The full probability vector over the domain (small domains only)."""
        n_cells = math.prod(self.shape)
        if n_cells > 2**26:
            raise ValueError(f"domain has {n_cells} cells; dense() is for small domains.")
        total = Factor.zeros(self.shape, tuple(range(len(self.shape))))
        for f in self.factors:
            total = total.product(f)
        return total.probabilities()


def calibrate(tree, potentials):
    """Sum-product message passing in log space on a junction tree.

    Returns ``(beliefs, log_partition)``: normalised log clique marginals and
    ``log Z`` of ``exp(sum of potentials)``.
    """
    full, log_z = _pass_messages(tree, potentials)
    for b in full:
        b.values[...] -= log_z
    return full, log_z


def calibrated_probabilities(tree, potentials):
    """The clique marginals (probabilities) of ``exp(sum of potentials)``.

    Hugin message passing in linear space: each clique's table is
    ``exp(potential - max)`` (one exponential per cell), each upward message
    is rescaled to max 1 and each clique normalised once final, so no table
    under- or overflows unless the log-potentials span hundreds of nats
    across cliques; then (a table's scale below ``_LINEAR_FLOOR``, a message
    entry below ``_MESSAGE_FLOOR``, or a downward ratio not finite) the
    log-space :func:`calibrate` answers. A cell lost to underflow is below
    1e-307, so each is a share below 1e-27 of any message entry it sums into;
    an entry itself near underflow may have lost all of its cells, and the
    parent's potentials can weigh it up by any factor (hence its floor).
    """
    tables = _linear_calibration(tree, potentials)
    if tables is None:
        return [np.exp(b.values) for b in calibrate(tree, potentials)[0]]
    return tables


_LINEAR_FLOOR = 1e-240
_MESSAGE_FLOOR = 1e-280


def _linear_calibration(tree, potentials):
    """:func:`calibrated_probabilities` in linear space, or ``None`` when a scale
    leaves double precision's safe range."""
    cliques, edges, separators = tree.cliques, tree.edges, tree.separators
    tables = []
    for p in potentials:
        t = p.values - p.values.max()
        tables.append(np.exp(t, out=t))
    up, tops = [None] * len(edges), [None] * len(edges)
    for k, (child, parent) in enumerate(edges):  # leaves to root
        message = _summed(tables[child], cliques[child], separators[k])
        tops[k] = float(message.max())
        # the child's largest cell is at least top / (cells summed): checked once here
        if not (_LINEAR_FLOOR < tops[k] < math.inf and float(message.min()) > _MESSAGE_FLOOR):
            return None
        message *= 1.0 / tops[k]
        up[k] = message
        tables[parent] *= Factor(separators[k], message).expand(cliques[parent])
    total = float(tables[0].sum())
    if not _LINEAR_FLOOR < total < math.inf:
        return None
    tables[0] *= 1.0 / total
    for k in range(len(edges) - 1, -1, -1):  # root to leaves: parents are final
        child, parent = edges[k]
        down = _summed(tables[parent], cliques[parent], separators[k])
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(up[k] > 0, down / up[k], 0.0)  # the parent's message
        # the child sums to top * up on the separator: its total after the message,
        # from separator tables (no pass over the child)
        total = tops[k] * float(np.sum(up[k] * ratio))
        if not (np.isfinite(ratio).all() and _LINEAR_FLOOR < total < math.inf):
            return None
        tables[child] *= Factor(separators[k], ratio / total).expand(cliques[child])
    return tables


def _summed(table, attrs, keep):
    """``table`` (axes ``attrs``) summed over the attributes not in ``keep``, a new array."""
    axes = tuple(i for i, a in enumerate(attrs) if a not in keep)
    return table.sum(axis=axes) if axes else table.copy()


def _pass_messages(tree, potentials):
    """Upward then downward messages: ``(unnormalised log beliefs, log Z)``."""
    n = len(tree.cliques)
    up = [None] * len(tree.edges)
    incoming = [[] for _ in range(n)]  # messages from the children
    full = [None] * n  # a clique's belief: its potential and every message it received
    for k, (child, _parent) in enumerate(tree.edges):  # leaves to root
        full[child] = _combine(potentials[child], incoming[child])
        up[k] = _log_marginal(full[child], tree.separators[k])
        incoming[_parent].append(up[k])
    full[0] = _combine(potentials[0], incoming[0])
    exp_full = {}  # parent -> (exp(belief - max), max): one exponential per parent
    for k in range(len(tree.edges) - 1, -1, -1):  # root to leaves
        child, parent = tree.edges[k]
        sep = tree.separators[k]
        # message parent -> child: parent's full belief (final: its own parent's
        # message came first) without child's message
        if parent not in exp_full:
            values = full[parent].values
            shift = float(values.max())
            exp_full[parent] = (np.exp(values - shift), shift)
        prob, shift = exp_full[parent]
        axes = tuple(i for i, a in enumerate(full[parent].attrs) if a not in sep)
        with np.errstate(divide="ignore"):
            down = np.log(prob.sum(axis=axes)) + shift if axes else np.log(prob) + shift
        down = Factor(sep, down - up[k].values)
        full[child].values[...] += down.expand(full[child].attrs)  # owned by calibrate
    if 0 in exp_full:
        prob, shift = exp_full[0]
        log_z = float(np.log(prob.sum())) + shift
    else:
        log_z = full[0].log_total()
    return full, log_z


def _log_marginal(factor, keep):
    """``factor.marginalize(keep)`` with one shift for the whole table (one pass less);
    per separator value only when a value's sum would lose precision."""
    keep = tuple(a for a in factor.attrs if a in keep)
    axes = tuple(i for i, a in enumerate(factor.attrs) if a not in keep)
    values = factor.values
    shift = float(values.max())
    if not axes or not math.isfinite(shift):
        return factor.marginalize(keep)
    total = np.exp(values - shift).sum(axis=axes)
    if float(total.min()) < _PRECISE_SUM:
        return factor.marginalize(keep)
    return Factor(keep, np.log(total) + shift)


_PRECISE_SUM = 1e-280  # sums of exp(value - max) above it keep double precision


def _combine(potential, messages):
    """``potential`` times the ``messages`` (log space), in a new array."""
    values = potential.values.copy()
    for m in messages:
        values += m.expand(potential.attrs)
    return Factor(potential.attrs, values)


class _TreeIndex:
    """Parent, separator and depth of every clique."""

    def __init__(self, tree):
        n = len(tree.cliques)
        self.parent = [-1] * n
        self.separator = [()] * n
        self.depth = [0] * n
        for clique, edge in tree.parent_order():  # parents before children
            if edge is not None:
                self.parent[clique] = tree.edges[edge][1]
                self.separator[clique] = tree.separators[edge]
                self.depth[clique] = self.depth[self.parent[clique]] + 1


def _sum_to(table, attrs, keep):
    """Sum ``table`` (axes ``attrs``) over the attributes not in ``keep``, renormalised."""
    axes = tuple(i for i, a in enumerate(attrs) if a not in keep)
    out = table.sum(axis=axes) if axes else table
    return out / out.sum()


def _contract(table, attrs, factors, keep):
    """Sum of ``table * prod(factors)`` onto ``keep``, one factor at a time.

    Folding the factors in pairwise (each step summing out the attributes no
    later factor and not ``keep`` needs) costs the size of each pairwise
    union, where one many-operand ``einsum`` loops over the product of all
    axes; each pairwise step is a batched matrix product (:func:`_product_sum`).
    """
    attrs = tuple(attrs)
    for k, (f_attrs, f_table) in enumerate(factors):
        later = set(keep).union(*(a for a, _ in factors[k + 1:]))
        union = tuple(dict.fromkeys(attrs + tuple(f_attrs)))
        out = tuple(a for a in union if a in later)
        table = _product_sum(table, attrs, f_table, tuple(f_attrs), out)
        attrs = out
    axes = tuple(i for i, a in enumerate(attrs) if a not in keep)
    if axes:
        table = table.sum(axis=axes)
        attrs = tuple(a for a in attrs if a in keep)
    return table.transpose([attrs.index(a) for a in keep])


def _product_sum(x, x_attrs, y, y_attrs, out):
    """``sum x[x_attrs] * y[y_attrs]`` over the attributes not in ``out``, axes ``out``.

    As ``np.einsum``, but as one batched matrix product (BLAS): attributes
    of both tables kept in ``out`` are the batch, those of both summed out
    the inner dimension; an attribute of one table only and not kept is
    summed out first.
    """
    x, x_attrs = _sum_unshared(x, x_attrs, y_attrs, out)
    y, y_attrs = _sum_unshared(y, y_attrs, x_attrs, out)
    batch = [a for a in out if a in x_attrs and a in y_attrs]
    inner = [a for a in x_attrs if a in y_attrs and a not in out]
    left = [a for a in x_attrs if a not in y_attrs]
    right = [a for a in y_attrs if a not in x_attrs]
    size = dict(zip(x_attrs, x.shape)) | dict(zip(y_attrs, y.shape))

    def cells(attrs):
        return math.prod(size[a] for a in attrs)

    xm = x.transpose([x_attrs.index(a) for a in batch + left + inner]).reshape(
        cells(batch), cells(left), cells(inner))
    ym = y.transpose([y_attrs.index(a) for a in batch + inner + right]).reshape(
        cells(batch), cells(inner), cells(right))
    order = batch + left + right
    z = np.matmul(xm, ym).reshape([size[a] for a in order])
    return z.transpose([order.index(a) for a in out])


def _sum_unshared(x, x_attrs, other_attrs, out):
    axes = tuple(i for i, a in enumerate(x_attrs) if a not in out and a not in other_attrs)
    if not axes:
        return x, tuple(x_attrs)
    return x.sum(axis=axes), tuple(a for a in x_attrs if a in out or a in other_attrs)


def _eliminate(model, attrs):
    """Marginal over ``attrs`` spanning several cliques (variable elimination).

    On the smallest subtree whose cliques cover ``attrs`` (the paths from
    each covering clique up to their lowest common ancestor), the joint of
    the subtree's attributes is ``prod clique marginals / prod separator
    marginals`` (calibrated junction tree). Eliminating deepest-first, each
    clique sends its parent the sum over everything but the separator and
    the target attributes found below it, divided by the separator
    marginal; the common ancestor keeps ``attrs``. Each clique enters as its
    marginal on just the attributes the step needs (separators, targets).
    The contractions are matrix products of normalised (overflow-free) tables.
    """
    index, cliques = model._index, model.tree.cliques
    chains = [[containing_clique(cliques, (a,))] for a in attrs]
    for chain in chains:  # each target's smallest clique and its ancestors
        while index.parent[chain[-1]] >= 0:
            chain.append(index.parent[chain[-1]])
    common = set(chains[0]).intersection(*chains[1:])
    top = max(common, key=lambda i: index.depth[i])
    nodes = set()
    for chain in chains:
        nodes.update(chain[:chain.index(top)])
    targets = set(attrs)
    inbox = {}
    for node in sorted(nodes, key=lambda i: -index.depth[i]) + [top]:
        clique = cliques[node]
        incoming = inbox.pop(node, [])
        sep = () if node == top else index.separator[node]
        carried = set().union(*(m for m, _ in incoming))
        sub_attrs = tuple(a for a in clique if a in targets or a in sep or a in carried)
        keep = attrs if node == top else tuple(sorted(set(sep) | targets & (carried | set(clique))))
        message = _contract(_summed(model.clique_probabilities[node], clique, sub_attrs),
                            sub_attrs, incoming, keep)
        if node == top:
            return message / message.sum()
        inbox.setdefault(index.parent[node], []).append(
            (keep, _conditional(message, keep, model._separator_tables[node], sep)))


def _conditional(table, attrs, sep_table, sep):
    """``table`` (axes ``attrs``, then any stacked axes) divided by the separator
    marginal ``sep_table`` (axes ``sep``, a subset of ``attrs``); 0 where it is 0."""
    sep_table = sep_table.reshape([sep_table.shape[sep.index(a)] if a in sep else 1
                                   for a in attrs] + [1] * (table.ndim - len(attrs)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sep_table > 0, table / sep_table, 0.0)


_BELOW, _OTHER = -1, -2  # labels of the stacked axes of _split_pairs (attributes are >= 0)


def _split_pairs(model, pairs):
    """Marginals of the attribute pairs ``(i, j)`` in ``pairs`` that no clique holds.

    A pair's path is closest to the root at one clique ``T``: ``i`` is in ``T``
    or below its child ``a``, ``j`` below another child ``b``, and ``P(i, j) =
    sum_T P(T) U_a U_b``, ``U_c`` stacking ``P(k | S_c)`` of every ``k`` below
    ``c`` and not in its separator ``S_c`` (``i`` in ``T``: its indicator). ``U_c``
    sums ``P(c | S_c)`` times the indicators of ``c``'s others and its children's
    ``U``: one product per tree edge and pair of branches, not one per pair.
    """
    tree, index, probs = model.tree, model._index, model.clique_probabilities
    children = [[c for c, p in tree.edges if p == node] for node in range(len(tree.cliques))]
    stacked, out = {}, {}  # child -> (U, {attr: (offset, levels)})

    def indicators(node, sep, members):  # P(k, sep) of each k in members: (sep..., levels)
        parts = [np.moveaxis(_summed(probs[node], tree.cliques[node], set(sep) | {k}),
                             sorted(set(sep) | {k}).index(k), -1) for k in members]
        offsets = np.cumsum([0] + [model.shape[k] for k in members])
        return parts, {k: (int(o), model.shape[k]) for k, o in zip(members, offsets)}

    def keep_pairs(block, rows, cols):
        for i, (r, n) in rows.items():
            for j, (c, m) in cols.items():
                if (min(i, j), max(i, j)) in pairs:
                    table = block[r:r + n, c:c + m]
                    out[min(i, j), max(i, j)] = (table if i < j else table.T) / table.sum()

    for node in [c for c, _ in tree.edges] + [0]:  # leaves to root
        clique = tree.cliques[node]
        below = [(c, index.separator[c], *stacked.pop(c)) for c in children[node]]
        for c, sep, u, cols in below:  # i in the clique, j below child c
            parts, rows = indicators(node, sep, [a for a in clique if a not in sep])
            keep_pairs(np.concatenate([p.reshape(-1, p.shape[-1]).T for p in parts])
                       @ u.reshape(-1, u.shape[-1]), rows, cols)
        for (a, sep_a, u_a, rows), (b, sep_b, u_b, cols) in itertools.combinations(below, 2):
            both = tuple(x for x in clique if x in sep_a or x in sep_b)
            x = _product_sum(_summed(probs[node], clique, both), both, u_a, sep_a + (_BELOW,),
                             sep_b + (_BELOW,))
            keep_pairs(_product_sum(x, sep_b + (_BELOW,), u_b, sep_b + (_OTHER,),
                                    (_BELOW, _OTHER)), rows, cols)
        if node == 0:
            return out
        sep = index.separator[node]  # U of this clique, for its parent
        parts, cols = indicators(node, sep, [a for a in clique if a not in sep])
        for c, sep_c, u, c_cols in below:
            both = tuple(x for x in clique if x in sep or x in sep_c)
            parts.append(_product_sum(_summed(probs[node], clique, both), both, u,
                                      sep_c + (_BELOW,), sep + (_BELOW,)))
            width = sum(n for _, n in cols.values())
            cols.update({k: (width + o, n) for k, (o, n) in c_cols.items()})
        stacked[node] = (_conditional(np.concatenate(parts, axis=-1), sep,
                                      model._separator_tables[node], sep), cols)
