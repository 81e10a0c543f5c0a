"""Vectorised Hedge (exponential weights, 0-1 loss) over a finite set of experts.

:class:`DenseHedge` keeps one log-weight per expert of any finite binary cover;
:class:`AxisHedge` is exact Hedge over decision stumps at a per-round cost that
does not grow with the rounds played. Theory: Freund and Schapire, JCSS 55(1),
1997; Cesa-Bianchi and Lugosi, *Prediction, Learning, and Games*, 2006, Thm 2.2.
"""

from typing import NamedTuple

import numpy as np

from .._logsumexp import logsumexp

__all__ = ["hedge_rounds", "DenseHedge", "AxisHedge", "LabelPairs", "Lazy", "axis_rounds",
           "hedge_regret_bound"]

# Elements of the per-chunk (rounds x experts) work arrays (8 MB float64).
_CHUNK_ELEMENTS = 1 << 20
# Within a chunk, weights are carried in linear scale relative to the chunk's
# largest starting weight; eta * rounds_per_chunk <= this keeps every factor
# above exp(-_MAX_DECAY) (no underflow of the leading weight).
_MAX_DECAY = 40.0
# AxisHedge (see axis_rounds): a batch is played in passes whose level arrays hold
# about _LEVEL_ELEMENTS elements; a pass of at most _DENSE_ROUNDS rounds on every
# slot at once, a longer one by blocks split by factors of at most _MAX_FACTOR;
# blocks with eta * rounds above _MAX_LINEAR_DECAY keep log weights (below, linear
# weights: no factor exp(+-eta * rounds) overflows, and a weight that underflows
# stays below exp(-400) of its block's total).
_MAX_FACTOR = 4
_DENSE_ROUNDS = 16
_LEVEL_ELEMENTS = 1 << 22
_MAX_LINEAR_DECAY = 300.0
# AxisHedge.update: a batch with eta * rounds at most this takes its bins' masses from
# prefix sums (relative rounding error amplified by at most exp(_PREFIX_DECAY))
_PREFIX_DECAY = 4.0
# AxisHedge._base_mass_below: more unordered positions than this are sorted first
_ORDERED_LOOKUPS = 256
# AxisHedge._positions: rows x features placed at once (8 MB per work array); the
# last batch of at most _PLACED_ELEMENTS values is kept with its positions
_POSITION_ELEMENTS = 1 << 20
_PLACED_ELEMENTS = 1 << 14
# AxisHedge: short batches add their bins' losses to a pending layer of at most this many
# edges (O(edges) per call), folded into the segments (O(segments)) when it is full or
# when the total weight fell by exp(_PREFIX_DECAY) since the segments' prefix sums
_PENDING_EDGES = 1 << 11


def hedge_regret_bound(n_experts, n_rounds, learning_rate):
    """Hedge's regret bound ``ln K / eta + eta T / 8`` against the best expert.

    Holds for every (even adaptive) sequence of losses in [0, 1], for the
    expected loss of the randomised draw (Cesa-Bianchi & Lugosi 2006,
    Thm 2.2). With ``eta = sqrt(8 ln K / T)`` it equals ``sqrt(T ln K / 2)``.
    """
    if n_rounds == 0:
        return 0.0
    if n_experts <= 1:
        return learning_rate * n_rounds / 8.0
    return float(np.log(n_experts) / learning_rate + learning_rate * n_rounds / 8.0)


def hedge_rounds(log_mass, positive, y_positive, learning_rate,
                 chunk_elements=_CHUNK_ELEMENTS):
    """Run binary Hedge on a batch of rounds; return predictions and expert losses.

    Parameters
    ----------
    log_mass : ndarray of shape (n_experts,)
        Log weight (mass) of each expert before the batch; ``-inf`` allowed.
    positive : ndarray of bool, shape (n_rounds, n_experts)
        ``positive[t, j]`` is True when expert ``j`` predicts +1 at round t.
    y_positive : ndarray of bool, shape (n_rounds,)
        True label of each round is +1.
    learning_rate : float
        Hedge's eta > 0.

    Returns
    -------
    proba_positive : ndarray of shape (n_rounds,)
        Weight of the experts predicting +1 at each round, computed with the
        weights after all previous rounds (predict, then update).
    expected_loss : ndarray of shape (n_rounds,)
        Expected 0-1 loss of the randomised Hedge draw at each round.
    expert_loss : ndarray of int64, shape (n_experts,)
        Number of mistakes of each expert over the batch.

    Notes
    -----
    Per chunk of ``b`` rounds the weights after each round are the running
    product ``w_0 * prod_{s<=t} r^{l_s}`` with ``r = exp(-eta)``: one
    ``cumprod`` down the rows and one matrix-vector product give every
    round's total weight ``Z_t``, and the weight on wrong experts at round t
    is ``(Z_{t-1} - Z_t) / (1 - r)``.
    """
    n_rounds, n_experts = positive.shape
    proba = np.empty(n_rounds)
    expected_loss = np.empty(n_rounds)
    expert_loss = np.zeros(n_experts, dtype=np.int64)
    if n_rounds == 0:
        return proba, expected_loss, expert_loss
    eta = float(learning_rate)
    decay = np.exp(-eta)
    one_minus_decay = -np.expm1(-eta)
    rows = max(1, min(int(chunk_elements // max(n_experts, 1)),
                      int(_MAX_DECAY / eta) if eta > 0 else n_rounds, n_rounds))
    log_mass = np.array(log_mass, dtype=float)
    for start in range(0, n_rounds, rows):
        stop = min(start + rows, n_rounds)
        wrong = positive[start:stop] != y_positive[start:stop, None]
        w0 = np.exp(log_mass - np.max(log_mass))
        factors = np.where(wrong, decay, 1.0)
        if stop - start > 1:
            np.cumprod(factors, axis=0, out=factors)
        totals = np.empty(stop - start + 1)
        totals[0] = w0.sum()
        # einsum, not BLAS: multithreaded gemv stalls on a busy machine
        totals[1:] = np.einsum("ij,j->i", factors, w0)
        loss = (totals[:-1] - totals[1:]) / (one_minus_decay * totals[:-1])
        np.clip(loss, 0.0, 1.0, out=loss)
        expected_loss[start:stop] = loss
        proba[start:stop] = np.where(y_positive[start:stop], 1.0 - loss, loss)
        chunk_loss = np.count_nonzero(wrong, axis=0)
        expert_loss += chunk_loss
        log_mass -= eta * chunk_loss
        log_mass -= np.max(log_mass)  # the next chunk's w0 is relative to its maximum anyway
    return proba, expected_loss, expert_loss


class DenseHedge:
    """Binary Hedge with one log-weight per expert (any finite cover).

    Parameters
    ----------
    n_experts : int
    learning_rate : float
    log_prior : ndarray of shape (n_experts,), optional
        Initial log-weights (default uniform).
    """

    def __init__(self, n_experts, learning_rate, log_prior=None):
        self.n_experts = int(n_experts)
        self.learning_rate = float(learning_rate)
        if log_prior is None:
            self.log_weights = np.full(self.n_experts, -np.log(self.n_experts))
        else:
            log_prior = np.asarray(log_prior, dtype=float)
            self.log_weights = log_prior - logsumexp(log_prior)
        self.log_weights = _frozen(self.log_weights)
        self.expert_loss = _frozen(np.zeros(self.n_experts, dtype=np.int64))
        self.work = 0  # expert x round updates done (operation count)

    def snapshot(self):
        """A copy sharing the (read-only, replaced-on-update) arrays."""
        return _shallow(self)

    def update(self, positive, y_positive):
        """Play a batch of rounds (predict, then update); see :func:`hedge_rounds`.

        Returns ``(proba, expected_loss)``, ``proba`` of shape (n_rounds, 2).
        """
        proba, expected_loss, expert_loss = hedge_rounds(
            self.log_weights, positive, y_positive, self.learning_rate)
        self.work += positive.size
        self.expert_loss = _frozen(self.expert_loss + expert_loss)
        log_weights = self.log_weights - self.learning_rate * expert_loss
        self.log_weights = _frozen(log_weights - logsumexp(log_weights))
        return np.column_stack([1.0 - proba, proba]), expected_loss

    def add_losses(self, positive, y_positive):
        """Add each expert's mistakes on the rounds without predicting them: the
        weights after a batch depend only on the summed losses, so the state is
        :meth:`update`'s on the same rounds."""
        wrong = np.count_nonzero(positive != y_positive[:, None], axis=0)
        self.work += positive.size
        self.expert_loss = _frozen(self.expert_loss + wrong)
        log_weights = self.log_weights - self.learning_rate * wrong
        self.log_weights = _frozen(log_weights - logsumexp(log_weights))

    def proba_positive(self, positive):
        """Weight of the experts predicting +1 for each row of ``positive``."""
        weights = np.exp(self.log_weights)
        return np.clip(np.einsum("ij,j->i", positive, weights), 0.0, 1.0)

    def predict_proba_from(self, positive):
        p = self.proba_positive(positive)
        return np.column_stack([1.0 - p, p])

    def sample_expert(self, rng):
        """Draw one expert index with probability equal to its weight (Gumbel-max)."""
        return int(np.argmax(self.log_weights + rng.gumbel(size=self.n_experts)))

    def weights(self):
        return np.exp(self.log_weights)

    def expert_losses(self):
        return self.expert_loss.copy()


# ------------------------------------------------------------- axis experts
def _frozen(array):
    array.flags.writeable = False
    return array


class Lazy:
    """A value built on first call, shared by all holders (snapshots, one-vs-rest copies)."""

    def __init__(self, build):  # build: picklable (a partial of a module function)
        self.build, self.value = build, None

    def __call__(self):
        self.value = self.build() if self.value is None else self.value
        return self.value


def _shallow(obj):
    """A copy of ``obj`` sharing its attributes' values (copy.copy, without its cost)."""
    copy = object.__new__(type(obj))
    copy.__dict__.update(obj.__dict__)
    return copy


class LabelPairs(NamedTuple):
    """Label indices an axis expert predicts below / at-or-above its threshold."""

    left: np.ndarray
    right: np.ndarray

    @classmethod
    def binary(cls):
        """Binary stumps: pair 0 is ``x >= t -> 1`` (sign +1), pair 1 its complement."""
        return cls(np.array([0, 1]), np.array([1, 0]))

    @classmethod
    def all_pairs(cls, n_classes):
        """Every ordered pair of distinct classes (``k (k - 1)`` pairs)."""
        left, right = np.nonzero(~np.eye(n_classes, dtype=bool))
        return cls(left, right)


class _RoundLabels(NamedTuple):
    """Labels of the rounds of a batch and of the pairs (see :func:`axis_rounds`)."""

    y: np.ndarray            # (rounds,) class index of each round
    left: np.ndarray         # (pairs,) label each pair predicts below its threshold
    right: np.ndarray
    left_onehot: np.ndarray  # (pairs, classes) float
    right_onehot: np.ndarray


class _Pending(NamedTuple):
    """Losses of a few short batches not yet in :class:`AxisHedge`'s segments: bins
    between ``edges`` (sorted, distinct, every feature start among them) and their
    mistakes since the segments' prefix sums were taken (a query costs O(log edges);
    adding a batch O(edges), not O(segments))."""

    edges: np.ndarray       # (E,) first position of each bin
    loss: np.ndarray        # (q, E) int64 mistakes of each bin, added to its segments'
    base_below: np.ndarray  # (q, E + 1) segments' weight below each edge (and the end)
    cumulative: np.ndarray  # (q, E + 1) current weight below each edge, same scale
    rounds: int             # rounds played since the segments' prefix sums


def axis_rounds(log_mass, sizes, pos, labels, learning_rate, counter=None):
    """Exact Hedge over axis experts for a batch of rounds (predict, then update).

    Parameters
    ----------
    log_mass : ndarray of shape (n_positions, n_pairs)
        Log of the total weight of the experts in each slot (threshold
        position, label pair). Positions of one feature are contiguous and
        sorted by threshold; features follow each other.
    sizes : ndarray of int, shape (n_features,)
        Number of positions of each feature (> 0; they sum to n_positions).
    pos : ndarray of int, shape (n_rounds, n_features)
        At round ``t``, the experts of feature ``f`` at global positions
        ``< pos[t, f]`` have their threshold at or below ``x_t`` (predict
        ``right``), the others predict ``left``.
    labels : _RoundLabels
    learning_rate : float
    counter : list of one int, optional
        Incremented by the number of array elements processed (operation count).

    Returns
    -------
    proba : ndarray of shape (n_rounds, n_classes)
        Weight on each class at each round, before that round's update.
    loss : ndarray of int64, shape (n_positions, n_pairs)
        Mistakes of each slot over the batch (the same for every expert in it).

    Notes
    -----
    The losses of a block of rounds do not depend on the weights, and
    within a block the experts of one feature between the same two observed
    positions agree on every round, so their weights keep their ratios.
    Split the batch into ``c`` blocks; the weight entering block ``i`` is
    the batch's start weight times ``exp(-eta)`` to the losses of blocks
    ``< i`` (prefix sums over blocks and positions of difference arrays);
    merge each block's positions into its bins (log-sum-exp) and recurse on
    all the blocks at once, down to blocks of one round, whose class weights
    are prefix sums over the bins. A level costs ``O(c * n_features *
    n_pairs)`` per round and there are ``O(log n_rounds)`` levels, whatever
    the rounds played before.
    """
    n_rounds = pos.shape[0]
    mass = np.ascontiguousarray(log_mass.T)                            # (q, positions)
    if n_rounds <= _DENSE_ROUNDS:  # one short pass on every slot
        proba, loss = _play_dense(mass, sizes, pos, labels.y, labels, learning_rate, counter)
        if counter is not None:
            counter[0] += 4 * loss.size
        return proba, loss.T.astype(np.int64)
    n_pairs, n_positions = mass.shape
    starts = np.zeros(len(sizes), dtype=np.intp)
    np.cumsum(sizes[:-1], out=starts[1:])
    # a pair's loss at a slot is its left label's error plus, on the rounds where the
    # slot is below x_t, [y = left] - [y = right]: class counts relative to the last class
    n_classes = labels.left_onehot.shape[1]
    y = labels.y
    relative = (y[:, None] == np.arange(n_classes - 1)).astype(float)
    relative -= (y == n_classes - 1)[:, None]                          # (t, k - 1)
    base = (labels.left[None, :] != y[:, None]).astype(float)          # (t, q)
    rows = max(1, _LEVEL_ELEMENTS // (_MAX_FACTOR * len(sizes) * n_pairs))
    proba = np.empty((n_rounds, n_classes))
    loss = np.zeros((n_pairs, n_positions))
    for a in range(0, n_rounds, rows):
        b = min(a + rows, n_rounds)
        start_mass = mass - learning_rate * loss if a else mass
        if b - a <= _DENSE_ROUNDS:
            proba[a:b], part = _play_dense(start_mass, sizes, pos[a:b], y[a:b], labels,
                                           learning_rate, counter)
            loss += part
            continue
        proba[a:b] = _play_levels(start_mass, starts, pos[a:b], relative[a:b], base[a:b],
                                  labels, learning_rate, counter)
        below = _class_below(pos[None, None, a:b], relative[None, None, a:b], starts[None],
                             n_positions, 1, 0)[:, 0, 0, :n_positions]
        loss += _pair_losses(below, labels, base[a:b].sum(axis=0)[:, None])
    if counter is not None:
        counter[0] += 4 * loss.size
    return proba, np.rint(loss.T).astype(np.int64)


def _play_dense(mass, sizes, pos, y, labels, learning_rate, counter):
    """A short pass played on every slot at once (few calls; its work, rounds x
    slots, is small): ``(proba, loss)`` with ``loss`` (q, slots)."""
    n_rounds, n_features = pos.shape
    n_pairs, width = mass.shape
    column = np.repeat(np.arange(n_features), sizes)
    below = np.arange(width) < pos[:, column]                            # (t, slots)
    wrong_left = (labels.left != y[:, None]).astype(float)[:, :, None]  # (t, q, 1)
    wrong_right = (labels.right != y[:, None]).astype(float)[:, :, None]
    loss = np.where(below[:, None, :], wrong_right, wrong_left)          # (t, q, slots)
    np.cumsum(loss, axis=0, out=loss)
    log_weight = np.empty_like(loss)                                     # before each round
    log_weight[0] = mass
    np.multiply(loss[:-1], -learning_rate, out=log_weight[1:])
    log_weight[1:] += mass
    log_weight -= log_weight.max(axis=(1, 2), keepdims=True)
    weight = np.exp(log_weight, out=log_weight)
    right = np.einsum("tqj,tj->tq", weight, below.astype(float))
    proba = right @ labels.right_onehot \
        + (weight.sum(axis=2) - right) @ labels.left_onehot
    if counter is not None:
        counter[0] += 8 * weight.size
    return proba / proba.sum(axis=1, keepdims=True), loss[-1]


def _pair_losses(below, labels, base):
    """Loss of each pair from the class counts ``below`` (k - 1, ...) and the left
    labels' errors ``base`` (q, ...)."""
    last = below.shape[0]
    loss = np.empty((len(labels.left),) + below.shape[1:])
    for q, (left, right) in enumerate(zip(labels.left, labels.right)):
        if left < last and right < last:
            np.subtract(below[left], below[right], out=loss[q])
        elif left < last:
            loss[q] = below[left]
        else:
            np.negative(below[right], out=loss[q])
        loss[q] += base[q]
    return loss


def _pair_decays(below, labels, earlier, eta, rounds):
    """``exp(-eta * loss)`` of each pair, as :func:`_pair_losses`, by table look-up
    (the counts are integers in ``[-rounds, rounds]``; ``eta * rounds`` is at most
    ``_MAX_LINEAR_DECAY``, so no factor overflows)."""
    last = below.shape[0]
    index = below.astype(np.intp)
    index += rounds
    power = np.exp(-eta * np.arange(-rounds, rounds + 1))   # power[i + rounds] = exp(-eta i)
    inverse = power[::-1].copy()
    out = np.empty((len(labels.left),) + below.shape[1:])
    for q, (left, right) in enumerate(zip(labels.left, labels.right)):
        if left < last:
            np.take(power, index[left], out=out[q], mode="clip")
            if right < last:
                out[q] *= np.take(inverse, index[right], mode="clip")
        else:
            np.take(inverse, index[right], out=out[q], mode="clip")
        out[q] *= power[rounds + earlier[q].astype(np.intp)]
    return out


def _split_factors(n_rounds):
    """Block split factors (each <= _MAX_FACTOR), one per level, whose product is
    the smallest ``2^a 3^b >= n_rounds`` (the batch is padded with void rounds)."""
    best, power3 = None, 1
    while best is None or power3 < 2 * n_rounds:
        power2 = 1
        while power2 * power3 < n_rounds:
            power2 *= 2
        if best is None or power2 * power3 < best[0] * best[1]:
            best = (power2, power3)
        power3 *= 3
    primes = [3] * int(round(np.log(best[1]) / np.log(3))) \
        + [2] * int(round(np.log2(best[0])))
    factors = []
    for p in primes:  # first fit, largest primes first
        for i, f in enumerate(factors):
            if f * p <= _MAX_FACTOR:
                factors[i] *= p
                break
        else:
            factors.append(p)
    return sorted(factors) or [1]


def _play_levels(mass, starts, pos, relative, base, labels, learning_rate, counter):
    """Weight per class before each round of one pass (see :func:`axis_rounds`);
    ``mass`` (q, positions) log masses."""
    n_rounds, n_features = pos.shape
    factors = _split_factors(n_rounds)
    n_padded = int(np.prod(factors))
    if n_padded > n_rounds:  # void rounds: no expert errs (their output is dropped)
        pad = n_padded - n_rounds
        pos = np.vstack([pos, np.broadcast_to(starts, (pad, n_features))])
        relative = np.vstack([relative, np.zeros((pad, relative.shape[1]))])
        base = np.vstack([base, np.zeros((pad, base.shape[1]))])
    n_pairs = mass.shape[0]
    mass = mass[:, None]                   # (q, blocks, slots): log masses per block
    block_starts = starts[None]            # (blocks, features): first slot of each feature
    block_pos = pos[None]                  # (blocks, rounds, features), in slot coordinates
    eta = float(learning_rate)
    linear = False
    for c in factors:
        _, n_blocks, width = mass.shape
        rounds = block_pos.shape[1]
        r = rounds // c                     # rounds per child block
        if not linear and eta * rounds <= _MAX_LINEAR_DECAY:
            # over `rounds` rounds no weight ratio changes by more than exp(eta * rounds):
            # from here on, linear scale relative to each block's largest weight
            mass = np.exp(mass - mass.max(axis=(0, 2))[None, :, None])
            linear = True
        child_pos = block_pos.reshape(n_blocks, c, r, n_features)
        shape = (n_blocks, c, r, -1)
        below = _class_below(child_pos[:, :-1], relative.reshape(shape)[:, :-1], block_starts,
                             width, c, 1)[..., :width]                 # (k - 1, m, c, slots)
        # errors of the left labels over the earlier children, per pair (q, m, c, 1)
        earlier = np.zeros((n_pairs, n_blocks, c, 1))
        np.cumsum(base.reshape(shape)[:, :-1].sum(axis=2).transpose(2, 0, 1), axis=2,
                  out=earlier[:, :, 1:, 0])
        if linear:
            child_mass = _pair_decays(below, labels, earlier, eta, rounds)
            child_mass *= mass[:, :, None]                             # (q, m, c, slots)
        else:
            child_mass = _pair_losses(below, labels, earlier)
            child_mass *= -eta
            child_mass += mass[:, :, None]
        if counter is not None:
            counter[0] += 8 * child_mass.size
        if r == 1:
            proba = _class_weights(child_mass, block_starts, child_pos[:, :, 0], labels, linear)
            return proba[:n_rounds]
        mass, block_starts, block_pos = _child_bins(
            child_mass.reshape(n_pairs, n_blocks * c, width),
            np.repeat(block_starts, c, axis=0), child_pos.reshape(n_blocks * c, r, n_features),
            linear)
    raise AssertionError("the last factor leaves blocks of one round")


def _class_below(pos, relative, block_starts, width, n_children, shift):
    """``out[k, m, i, j]``: sum of ``relative[..., k]`` over the rounds of block ``m``'s
    children ``< i`` at which slot ``j`` lies below ``x_t`` (in its feature), shape
    (k - 1, blocks, n_children, width + 1); ``pos`` and ``relative`` hold the rounds
    of children ``0, 1, ...`` and count from child ``index + shift`` on.

    One difference array per child (+ at the feature starts, - at the rounds'
    positions), summed over children, then over slots.
    """
    n_blocks, n_used, r, n_features = pos.shape
    n_columns = relative.shape[-1]
    rows = (np.arange(n_blocks)[:, None] * n_children + np.arange(n_used) + shift) \
        * (width + 1)                                                  # (m, used)
    index = np.concatenate([(rows[:, :, None] + block_starts[:, None, :]).ravel(),
                            (rows[:, :, None, None] + pos).ravel()])
    size = n_blocks * n_children * (width + 1)
    out = np.empty((n_columns, size))
    for k in range(n_columns):
        column = relative[..., k]
        weight = np.concatenate([
            np.broadcast_to(column.sum(axis=2)[:, :, None], rows.shape + (n_features,)).ravel(),
            np.broadcast_to(-column[..., None], pos.shape).ravel()])
        out[k] = np.bincount(index, weight, minlength=size)
    out = out.reshape(n_columns, n_blocks, n_children, width + 1)
    for i in range(shift + 1, n_children):
        out[:, :, i] += out[:, :, i - 1]
    np.cumsum(out, axis=3, out=out)
    return out


def _child_bins(mass, block_starts, block_pos, linear):
    """Merge each block's slots between consecutive observed positions (and
    feature starts) into one bin: the blocks' masses (q, blocks, features *
    (rounds + 1); linear or log, as ``mass``), feature starts and round positions
    in bin coordinates."""
    n_pairs, n_blocks, width = mass.shape
    r, n_features = block_pos.shape[1:]
    rows = np.arange(n_blocks)[:, None]
    marks = np.zeros((n_blocks, width + 1), dtype=bool)
    marks[rows, block_starts] = True
    marks[rows, block_pos.reshape(n_blocks, -1)] = True
    marks[:, width] = False
    marked = np.flatnonzero(marks)
    block_of, slot_of = np.divmod(marked, width + 1)
    counts = np.bincount(block_of, minlength=n_blocks)
    bin_of = np.arange(len(marked)) - np.repeat(np.cumsum(counts) - counts, counts)
    lookup = np.empty((n_blocks, width + 1), dtype=np.intp)  # bin of each marked slot
    lookup.flat[marked] = bin_of
    lookup[:, width] = counts
    first = block_of * width + slot_of     # every block's slot 0 is marked
    flat = mass.reshape(n_pairs, -1)
    if linear:
        child = np.zeros((n_pairs, n_blocks, n_features * (r + 1)))
        child[:, block_of, bin_of] = np.add.reduceat(flat, first, axis=1)
    else:
        child = np.full((n_pairs, n_blocks, n_features * (r + 1)), -np.inf)
        child[:, block_of, bin_of] = _runs_logsumexp(flat, first)
    child_starts = lookup[rows, block_starts]
    child_pos = lookup[rows, block_pos.reshape(n_blocks, -1)]
    return child, child_starts, child_pos.reshape(n_blocks, r, n_features)


def _runs_logsumexp(log_mass, first):
    """Log of the summed weights (q, runs) of the runs of columns of ``log_mass``
    starting at ``first`` (sorted), each shifted by its own largest: none underflows."""
    with np.errstate(divide="ignore", invalid="ignore"):
        top = np.maximum.reduceat(log_mass, first, axis=1)
        top[~np.isfinite(top)] = 0.0
        lengths = np.diff(np.append(first, log_mass.shape[1]))
        shifted = np.exp(log_mass - np.repeat(top, lengths, axis=1))
        return np.log(np.add.reduceat(shifted, first, axis=1)) + top


def _class_weights(mass, block_starts, pos, labels, linear):
    """Weight per class (rounds, classes) of one-round blocks: ``mass`` (q, blocks,
    c, slots) before each round, ``pos`` (blocks, c, features); prefix sums."""
    n_pairs, n_blocks, c, width = mass.shape
    weight = mass if linear else np.exp(mass - mass.max(axis=(0, 3))[None, :, :, None])
    cumulative = np.empty((n_pairs, n_blocks, c, width + 1))
    cumulative[..., 0] = 0.0
    np.cumsum(weight, axis=3, out=cumulative[..., 1:])
    total = cumulative[..., width].reshape(n_pairs, -1)
    upper = np.take_along_axis(cumulative, pos[None], axis=3)
    lower = np.take_along_axis(cumulative, block_starts[None, :, None, :], axis=3)
    right = (upper - lower).sum(axis=3).reshape(n_pairs, -1)
    proba = right.T @ labels.right_onehot + (total - right).T @ labels.left_onehot
    return proba / proba.sum(axis=1, keepdims=True)


def _segment_weights(loss, count, learning_rate, cumulate=True):
    """``(cumulative, low)``: ``cumulative[:, i]`` is the weight of segments ``< i``
    relative to ``exp(-eta * low)``, ``low`` the smallest loss; shape (q, S + 1).
    ``cumulate=False``: each segment's weight, shape (q, S)."""
    low = int(loss.min())
    excess = loss - low
    weight = _decays(excess, learning_rate, int(excess.max()))
    weight *= count
    if not cumulate:
        return weight, low
    cumulative = np.empty((loss.shape[0], loss.shape[1] + 1))
    cumulative[:, 0] = 0.0
    np.cumsum(weight, axis=1, out=cumulative[:, 1:])
    return _frozen(cumulative), low


def _decays(loss, learning_rate, top):
    """``exp(-learning_rate * loss)`` of integer losses in ``[0, top]``: the exp of each
    value once, when there are no more values than losses."""
    if top <= loss.size:
        return np.take(np.exp(-learning_rate * np.arange(top + 1)), loss, mode="clip")
    return np.exp(-learning_rate * loss)


def _buckets(threshold, offsets):
    """Per feature (positions ``offsets[f]:offsets[f + 1]``), twice as many equal
    buckets between its smallest and largest threshold as it has thresholds:
    ``(scale, low, first, padded)``; ``x`` falls in bucket ``floor((x - low) *
    scale)``, the feature's thresholds in its lower buckets number ``first[2
    offset + bucket]`` (all are below ``x``: the bucket is monotone in ``x``), and
    ``padded`` is the thresholds with +inf after each feature's."""
    sizes = np.diff(offsets)
    low = threshold[offsets[:-1]]
    with np.errstate(over="ignore"):  # an infinite span: one bucket, searched
        span = threshold[offsets[1:] - 1] - low
    usable = np.isfinite(span) & (span > 0)
    scale = np.where(usable, 2 * sizes / np.where(usable, span, 1.0), 0.0)
    first = np.zeros(2 * offsets[-1], dtype=np.int32)
    for f in np.flatnonzero(usable):  # buckets as _positions computes them
        a, b = offsets[f], offsets[f + 1]
        bucket = np.minimum((threshold[a:b] - low[f]) * scale[f], 2 * (b - a) - 1)
        np.cumsum(np.bincount(bucket.astype(np.intp), minlength=2 * (b - a))[:-1],
                  out=first[2 * a + 1:2 * b])
    return scale, low, first, np.insert(threshold, offsets[1:], np.inf)


def _sorted_unique(values):
    """``np.unique`` for small int arrays (its hash path costs more here)."""
    values = np.sort(values)
    keep = np.empty(len(values), dtype=bool)
    keep[:1] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


class AxisHedge:
    """Exact Hedge over axis experts (stumps with a label on each side).

    An expert predicts ``right[pair]`` if ``x[feature] >= threshold``, else
    ``left[pair]``. The distinct thresholds of every feature are sorted and laid
    end to end (``features[i]`` occupies ``sizes[i]`` positions from ``offsets[i]``;
    ``position_threshold``); the experts of a (pair,
    position) form a slot of prior mass ``count[pair, position]`` (an expert's
    mass averages 1). ``experts``: ``(position, pair, log prior mass)`` of each
    expert in the cover's order, or a :class:`Lazy` building them when first
    needed (a fit reads only the slots); :meth:`from_experts` takes a list.
    Hedge with a prior ``pi`` has regret ``ln(1 / pi_j) / eta + eta T / 8``
    against expert ``j`` (Cesa-Bianchi & Lugosi 2006, proof of Thm 2.2).
    Memory O(positions x pairs); time per round independent of the number of
    rounds played (:func:`axis_rounds`).
    """

    def __init__(self, features, sizes, position_threshold, count, experts, n_experts, pairs,
                 n_classes, learning_rate):
        self.n_experts = int(n_experts)
        self.n_classes = int(n_classes)
        self.pairs = pairs
        self.learning_rate = float(learning_rate)
        self._experts = experts
        self.features, self.sizes = np.asarray(features), np.asarray(sizes)  # with experts
        self.offsets = np.append(0, np.cumsum(self.sizes))
        n_positions = self.offsets[-1]
        # prefix sums of the masses: experts of a position range in O(1)
        self.count_cumulative = np.zeros((len(pairs.left), n_positions + 1))
        np.cumsum(count, axis=1, out=self.count_cumulative[:, 1:])
        _frozen(self.count_cumulative)
        # segments: runs of positions whose experts have had the same losses so far
        # (hence, per pair, the same weight); one per feature to start with. The
        # weight of an expert is its prior mass times exp(-eta * its segment's loss)
        self.starts = _frozen(self.offsets[:-1].copy())
        self.loss = _frozen(np.zeros((len(pairs.left), len(self.starts)), dtype=np.int64))
        self._count_segments()
        self._prefix = None
        self._pending = None
        self._buckets = _buckets(position_threshold, self.offsets)
        self._last_placed = self._last_masses = None
        self.left_onehot = np.eye(self.n_classes)[pairs.left]
        self.right_onehot = np.eye(self.n_classes)[pairs.right]
        self.work = 0  # array elements processed (operation count)

    @classmethod
    def from_experts(cls, feature, threshold, pair, pairs, n_classes, learning_rate,
                     prior=None):
        """Expert ``j`` predicts ``right[pair[j]]`` if ``x[feature[j]] >= threshold[j]``,
        else ``left[pair[j]]``; ``prior``: relative prior masses (default uniform)."""
        pair, n = np.asarray(pair, dtype=np.intp), len(pair)
        feature, threshold = np.asarray(feature, dtype=np.intp), np.asarray(threshold, float)
        # the positions: the distinct (feature, threshold) pairs, sorted by complex keys
        order = np.argsort(feature + 1j * threshold, kind="stable")
        key_f, key_t = feature[order], threshold[order]
        new = np.r_[True, (key_f[1:] != key_f[:-1]) | (key_t[1:] != key_t[:-1])]
        position = np.empty(n, dtype=np.intp)
        position[order] = np.cumsum(new) - 1
        mass = np.ones(n) if prior is None else np.asarray(prior, float) * (n / np.sum(prior))
        q, n_positions = len(pairs.left), int(np.count_nonzero(new))
        count = np.bincount(pair * n_positions + position, mass, minlength=q * n_positions)
        return cls(*np.unique(key_f[new], return_counts=True), key_t[new],
                   count.reshape(q, n_positions),
                   (position, pair, np.log(mass)), n, pairs, n_classes, learning_rate)

    def expert_slots(self):
        """``(position, pair, log prior mass)`` of each expert (see ``experts``)."""
        return self._experts() if callable(self._experts) else self._experts

    def snapshot(self):
        """A copy sharing the (read-only, replaced-on-update) arrays."""
        return _shallow(self)

    def _positions(self, X):
        """``offset + #thresholds <= x`` for each (row, feature with experts)."""
        rows = max(1, _POSITION_ELEMENTS // len(self.features))
        if X.shape[0] > rows:
            return np.vstack([self._positions(X[a:a + rows])
                              for a in range(0, X.shape[0], rows)])
        # predict then partial_fit on one batch: the positions of the batch just placed
        last = self._last_placed
        if last is not None and last[0].shape == X.shape and (last[0] == X).all():
            return last[1]
        scale, low, first, padded = self._buckets
        # start from the count of thresholds in x's lower buckets (half a threshold per
        # bucket on average), step up to those at or below x (each feature's thresholds
        # end in +inf in padded); what two steps did not settle is searched. A binary
        # search of every row would miss the cache at each probe of a large cover
        x = X[:, self.features]
        rank = np.arange(len(self.features))
        start = self.offsets[:-1] + rank                                   # in padded
        with np.errstate(over="ignore", invalid="ignore"):
            bucket = np.where(scale > 0, (x - low) * scale, 0.0)
        np.maximum(bucket, 0, out=bucket)
        np.minimum(bucket, 2 * self.sizes - 1, out=bucket)
        at = first[2 * self.offsets[:-1] + bucket.astype(np.intp)].astype(np.intp)
        at += start
        for _ in range(2):
            at += padded[at] <= x
        wrong = padded[at] <= x
        at -= rank                                                         # global
        for f in np.flatnonzero(wrong.any(axis=0)):
            rows = wrong[:, f]
            at[rows, f] = self.offsets[f] + np.searchsorted(
                padded[start[f]:start[f] + self.sizes[f]], x[rows, f], side="right")
        if X.size <= _PLACED_ELEMENTS:
            self._last_placed = (_frozen(X.copy()), _frozen(at))
        return at

    def _count_segments(self):
        """Prior mass per pair (q, S) of the segments (a new array: snapshots share
        the old one)."""
        ends = np.append(self.starts, self.offsets[-1])
        self.segment_count = _frozen(np.diff(self.count_cumulative[:, ends], axis=1))

    def _split(self, positions):
        """Add segment boundaries at ``positions`` (sorted, distinct; those past the end
        ignored; the new segments inherit); return the segment each one starts."""
        positions = positions[positions < self.offsets[-1]]
        parent = np.searchsorted(self.starts, positions, side="right") - 1
        fresh = self.starts[parent] != positions  # not yet a boundary
        if not fresh.any():  # no copy of the segments when nothing is new
            return parent
        self._prefix = None
        # old segment i, then the new ones cut from it: runs (repeats, no look-ups)
        runs = np.bincount(parent[fresh], minlength=len(self.starts)) + 1
        self.starts = np.repeat(self.starts, runs)
        segment = parent + np.cumsum(fresh)  # fresh positions before each, itself included
        self.starts[segment[fresh]] = positions[fresh]
        _frozen(self.starts)
        self.loss = _frozen(np.repeat(self.loss, runs, axis=1))
        self._count_segments()
        return segment

    def update(self, X, y):
        """Play a batch of rounds in order; ``y`` holds class indices.

        Returns ``(proba, expected_loss)``: weight per class before each
        round, and the expected 0-1 loss of the randomised draw. Cost
        O(log) per round (:func:`axis_rounds`) plus, for a short batch, O(its
        bins + the pending layer's edges) (:class:`_Pending`), else O(segments);
        segments <= min(rounds seen, positions).
        """
        n_rounds = X.shape[0]
        if n_rounds == 0:
            return np.empty((0, self.n_classes)), np.empty(0)
        positions = self._positions(X)
        labels = _RoundLabels(np.asarray(y, dtype=np.intp), self.pairs.left, self.pairs.right,
                              self.left_onehot, self.right_onehot)
        # experts between the same two observed positions (or feature ends) agree on
        # every round of the batch: play the batch on these bins
        n_positions = self.offsets[-1]
        edges, bin_pos = self._edges(positions)
        bounds = np.append(edges, n_positions)
        decay = self.learning_rate * n_rounds
        if self._pending_decay() + decay > _PREFIX_DECAY:
            self._fold_pending()
        if decay <= _PREFIX_DECAY:
            # bin masses as differences of prefix sums, O(log segments) each: exact up to
            # rounding relative to the total weight when the prefix sums were taken, which
            # the pending rounds (_pending_decay) and the batch's (at most exp(eta *
            # rounds)) amplify by at most exp(_PREFIX_DECAY) together
            base_below, below = self._masses_at(positions, bounds)
            with np.errstate(divide="ignore"):
                bin_log_mass = np.log(np.maximum(np.diff(below, axis=1), 0.0)).T
        else:  # a bin's mass summed over its segments: no cancellation
            first = self._split(edges)
            bin_log_mass = self._bin_log_masses(first, linear=decay <= _MAX_LINEAR_DECAY)
        counter = [0]
        proba, bin_loss = axis_rounds(bin_log_mass, np.diff(np.searchsorted(edges, self.offsets)),
                                      bin_pos, labels, self.learning_rate, counter)
        self.work += counter[0]
        if decay <= _PREFIX_DECAY:
            self._add_pending(edges, base_below, bin_loss.T, n_rounds)
        else:  # the segments (split at the edges) take their bin's mistakes
            per_bin = np.diff(np.append(first, len(self.starts)))
            self.loss = _frozen(self.loss + np.repeat(bin_loss.T, per_bin, axis=1))
            self.work += 6 * self.loss.size
            self._prefix = None  # summed when next read (_prefix_masses)
        self._last_masses = None  # of the weights before the batch: not kept alive
        return proba, 1.0 - proba[np.arange(n_rounds), y]

    def _add_pending(self, edges, edge_base_below, bin_loss, n_rounds):
        """Add the mistakes ``bin_loss`` (q, bins) of the bins starting at ``edges``
        (sorted, distinct, every feature start among them) to the pending layer;
        ``edge_base_below`` (q, bins + 1) is :meth:`_base_mass_below` of the edges and
        the end."""
        pending = self._pending
        if pending is None:
            union, loss, rounds, base_below = edges, bin_loss.astype(np.int64), n_rounds, \
                edge_base_below
        else:
            old = pending.edges
            at = np.searchsorted(old, edges, side="right") - 1  # pending bin of each edge
            fresh = old[at] != edges
            placed = at + np.cumsum(fresh)                      # each edge in the union
            # a pending bin splits at the fresh edges in it, a batch bin spans the union's
            # edges up to the next batch edge: runs (repeats), no look-ups
            splits = np.bincount(at[fresh], minlength=len(old) + 1)  # and 0 at the end
            splits += 1
            union = np.repeat(old, splits[:-1])
            union[placed[fresh]] = edges[fresh]
            spans = np.empty_like(placed)                       # union edges per batch bin
            np.subtract(placed[1:], placed[:-1], out=spans[:-1])
            spans[-1] = len(union) - placed[-1]
            loss = np.repeat(pending.loss, splits[:-1], axis=1)
            loss += np.repeat(bin_loss, spans, axis=1)
            rounds = pending.rounds + n_rounds
            base_below = np.repeat(pending.base_below, splits, axis=1)
            base_below[:, placed[fresh]] = edge_base_below[:, np.flatnonzero(fresh)]
        cumulative = np.empty_like(base_below)
        cumulative[:, 0] = 0.0
        np.cumsum(np.diff(base_below, axis=1) * _decays(loss, self.learning_rate, rounds),
                  axis=1, out=cumulative[:, 1:])
        self._pending = _Pending(_frozen(union), _frozen(loss), _frozen(base_below),
                                 _frozen(cumulative), rounds)
        self.work += 8 * cumulative.size
        if len(union) > _PENDING_EDGES:
            self._fold_pending()

    def _pending_decay(self):
        """``ln`` of the total weight when the segments' prefix sums were taken over the
        current one (0 without a pending layer): their rounding errors, relative to the
        earlier total, are that much larger relative to the current one."""
        pending = self._pending
        if pending is None:
            return 0.0
        return float(np.log(pending.base_below[:, -1].sum() / pending.cumulative[:, -1].sum()))

    def _fold_pending(self):
        """Move the pending layer's losses into the segments (O(segments))."""
        pending = self._pending
        if pending is None:
            return
        first = self._split(pending.edges)
        per_bin = np.diff(np.append(first, len(self.starts)))
        self.loss = _frozen(self.loss + np.repeat(pending.loss, per_bin, axis=1))
        self.work += 6 * self.loss.size
        self._prefix = None
        self._pending = None

    def add_losses(self, X, y):
        """Add each expert's mistakes on the rows (class indices ``y``) to its loss,
        without predicting them: Hedge's weights after a batch depend only on the
        summed losses, so the state is :meth:`update`'s on the same rows. Cost
        O(rows x features x log(positions) + segments).
        """
        n_rounds = X.shape[0]
        if n_rounds == 0:
            return
        positions = self._positions(X)
        edges, bin_pos = self._edges(positions)
        self._fold_pending()
        first = self._split(edges)
        # left[k, b]: rows of class k whose position in bin b's feature is at or below
        # bin b (its experts predict their left label): + at each row's bin, - at the
        # end of its feature, summed along the bins
        n_bins = len(edges)
        y = np.asarray(y, dtype=np.intp)
        n_of_class = np.bincount(y, minlength=self.n_classes)
        feature_end = np.append(np.searchsorted(edges, self.offsets[1:-1]), n_bins)
        width = n_bins + 1
        left = np.bincount(((y * width)[:, None] + bin_pos).ravel(),
                           minlength=self.n_classes * width)
        left = left.reshape(self.n_classes, width)
        left[:, feature_end] -= n_of_class[:, None]    # the ends are distinct
        np.cumsum(left, axis=1, out=left)
        # wrong on the left: rows at or below not of the left label; on the right: the
        # others not of the right label
        bin_loss = left[self.pairs.right, :n_bins]
        bin_loss -= left[self.pairs.left, :n_bins]
        bin_loss += (n_rounds - n_of_class[self.pairs.right])[:, None]
        if len(self.starts) > n_bins:  # else the segments are the bins
            bin_loss = np.repeat(bin_loss, np.diff(np.append(first, len(self.starts))), axis=1)
        self.loss = _frozen(np.add(bin_loss, self.loss, out=bin_loss))
        self.work += 2 * positions.size + 6 * self.loss.size
        self._prefix = None
        self._last_masses = None

    def _edges(self, positions):
        """The feature starts and the observed positions, sorted and distinct, and each
        observed position's index among them (rows, features)."""
        n_positions = self.offsets[-1]
        if positions.size * 8 < n_positions:  # few rows: sort them
            edges = _sorted_unique(np.concatenate([self.offsets[:-1],
                                                   positions[positions < n_positions]]))
            return edges, np.searchsorted(edges, positions)
        marks = np.zeros(n_positions + 1, dtype=bool)  # many rows: mark every position
        marks[self.offsets[:-1]] = True
        marks[positions] = True
        marks[n_positions] = False
        rank = np.cumsum(marks)
        rank -= marks                                  # edges below each position
        return np.flatnonzero(marks), rank[positions]

    def _bin_log_masses(self, first, linear=False):
        """Log mass (bins, q) of the runs of segments starting at ``first`` (sorted).

        ``linear``: summed relative to the largest weight; a bin that underflows
        to zero weighs below ``exp(-745)`` of it, and a batch with ``eta * rounds
        <= _MAX_LINEAR_DECAY`` keeps it below ``exp(-400)``. Otherwise each bin is
        shifted by its own largest segment: no bin underflows."""
        if linear:
            weight, low = _segment_weights(self.loss, self.segment_count, self.learning_rate,
                                           cumulate=False)
            with np.errstate(divide="ignore"):
                return (np.log(np.add.reduceat(weight, first, axis=1))
                        - self.learning_rate * low).T
        with np.errstate(divide="ignore"):
            return _runs_logsumexp(np.log(self.segment_count) - self.learning_rate * self.loss,
                                   first).T

    def _prefix_masses(self):
        """:func:`_segment_weights` of the current weights (cached)."""
        if self._prefix is None:
            self._prefix = _segment_weights(self.loss, self.segment_count, self.learning_rate)
        return self._prefix

    def _masses_at(self, positions, bounds=None):
        """``(base, below)``: :meth:`_base_mass_below` and :meth:`_mass_below` at the
        positions followed by the feature offsets, or at ``bounds`` (sorted, among
        them). Those of a small batch are kept until the weights change: predict,
        then partial_fit on one batch, looks them up once."""
        state = (positions, self._pending, self.loss)
        last = self._last_masses
        if last is not None and all(a is b for a, b in zip(last[0], state)):
            points, base, below = last[1:]
            if bounds is None:
                return base, below
            order = np.argsort(points)
            at = order[np.searchsorted(points, bounds, sorter=order)]
            return base[:, at], below[:, at]
        if bounds is not None:
            base = self._base_mass_below(bounds, ordered=True)
            return base, self._mass_below(bounds, base)
        points = np.append(positions.ravel(), self.offsets)
        base = self._base_mass_below(points)
        below = self._mass_below(points, base)
        if positions.size <= _PLACED_ELEMENTS:
            self._last_masses = (state, points, _frozen(base), _frozen(below))
        return base, below

    def predict_proba_from(self, X):
        """Weight of the experts voting for each class at each row (no update)."""
        positions = self._positions(X)
        _, below = self._masses_at(positions)
        at_start = below[:, positions.size:]                              # (q, F + 1)
        on_right = (below[:, :positions.size].reshape(-1, *positions.shape)
                    - at_start[:, None, :-1]).sum(axis=2)                 # (q, rows)
        proba = on_right.T @ self.right_onehot \
            + (at_start[:, -1] - at_start[:, 0] - on_right.T) @ self.left_onehot
        proba /= proba.sum(axis=1, keepdims=True)
        return np.minimum(np.maximum(proba, 0.0, out=proba), 1.0, out=proba)

    def _mass_below(self, positions, base_below):
        """Weight of the experts at global positions ``< positions`` (any shape), one
        row per pair (q, ...), in the scale of the cached prefix sums, from the
        segments' (:meth:`_base_mass_below`) ``base_below`` there."""
        below = base_below.copy()
        pending = self._pending
        if pending is None:
            return below
        # the pending layer's bin of each position: its current prefix, plus the rest of
        # the bin at the bin's pending losses
        at = np.searchsorted(pending.edges, positions, side="right") - 1
        below -= pending.base_below[:, at]
        below *= np.exp(-self.learning_rate * pending.loss[:, at])
        below += pending.cumulative[:, at]
        return below

    def _base_mass_below(self, positions, ordered=False):
        """:meth:`_mass_below` of the segments' weights (without the pending layer).
        Many unordered positions are looked up in increasing order (neighbouring
        searches and reads share the cache: 3x faster at 10^4 rows on 10^5 segments)."""
        if not ordered and positions.size > _ORDERED_LOOKUPS:
            flat = positions.ravel()
            order = np.argsort(flat)
            below = np.empty((len(self.pairs.left), flat.size))
            below[:, order] = self._base_mass_below(flat[order], ordered=True)
            return below.reshape(-1, *positions.shape)
        cumulative, low = self._prefix_masses()
        seg = np.searchsorted(self.starts, positions, side="right") - 1
        partial = self.count_cumulative[:, positions] \
            - self.count_cumulative[:, self.starts[seg]]
        partial *= np.exp(-self.learning_rate * (self.loss[:, seg] - low))
        return cumulative[:, seg] + partial

    def log_weights(self):
        """Per-expert log-weights in the original expert order (O(n_experts))."""
        cumulative, low = self._prefix_masses()
        pending = self._pending
        total = (cumulative if pending is None else pending.cumulative)[:, -1].sum()
        log_total = np.log(total) - self.learning_rate * low
        return -self.learning_rate * self.expert_losses() + self.expert_slots()[2] - log_total

    def expert_losses(self):
        """Per-expert cumulative mistakes in the original expert order."""
        position, pair, _ = self.expert_slots()
        loss = self.loss[pair, np.searchsorted(self.starts, position, side="right") - 1]
        pending = self._pending
        if pending is not None:
            loss += pending.loss[pair, np.searchsorted(pending.edges, position, side="right") - 1]
        return loss

    def weights(self):
        return np.exp(self.log_weights())

    def sample_expert(self, rng):
        """Draw one expert index with probability equal to its weight (Gumbel-max)."""
        return int(np.argmax(self.log_weights() + rng.gumbel(size=self.n_experts)))
