"""Vectorised Hedge (exponential weights) over a finite set of experts.

Two engines share one batch kernel (:func:`hedge_rounds`):

* :class:`DenseHedge` keeps one log-weight per expert and consumes the
  boolean prediction matrix ``(n_rounds, n_experts)`` of any finite cover.
* :class:`StumpHedge` is exact Hedge over a large grid of decision stumps
  (thresholds are 1-D stumps). The experts of one feature are sorted by
  threshold, and a round with point ``x`` adds the same loss to every
  threshold between two consecutive observed values of ``x``; so the
  weights are piecewise constant over *segments* of the grid and only the
  segments are stored. Memory and time per round are O(number of segments)
  = O(min(rounds seen, grid size)) instead of O(grid size); the weights are
  identical to the dense engine's (tested).

Loss is the 0-1 loss of a {-1, +1} prediction; the learner's loss at round t
is the *expected* loss of the randomised Hedge draw, sum_j w_tj l_tj
(000 App. C.1, Alg. 1; Freund & Schapire 1997).

References
----------
seeds/000_08e60ac76481cbe2.txt, App. C.1, Alg. 1 (Hedge on a gamma-cover).
N. Cesa-Bianchi and G. Lugosi, *Prediction, Learning, and Games*, 2006,
Thm 2.2 (regret <= ln K / eta + eta T / 8 for losses in [0, 1]).
"""

import numpy as np

__all__ = ["hedge_rounds", "DenseHedge", "StumpHedge", "hedge_regret_bound"]

def logsumexp(a):
    """``log(sum(exp(a)))`` of a 1-D array, stable; ``-inf`` if all are ``-inf``.

    Same value as ``scipy.special.logsumexp`` for 1-D input, without its
    per-call overhead (this runs once per batch on the hot path).
    """
    a = np.asarray(a, dtype=float)
    if a.size == 0:
        return -np.inf
    m = np.max(a)
    if not np.isfinite(m):
        return float(m)
    return float(m + np.log(np.sum(np.exp(a - m))))


# Elements of the per-chunk (rounds x experts) work arrays (8 MB float64:
# cache friendly; larger chunks measured slower).
_CHUNK_ELEMENTS = 1 << 20
# Within a chunk, weights are carried in linear scale relative to the chunk's
# largest starting weight; eta * rounds_per_chunk <= this keeps every factor
# above exp(-_MAX_DECAY) (no underflow of the leading weight).
_MAX_DECAY = 40.0


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
    """Run Hedge on a batch of rounds; return predictions and expert losses.

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
    ``cumprod`` down the rows and one matrix-vector product (einsum) give every
    round's total weight ``Z_t``, and the weight on wrong experts at round t
    is ``(Z_{t-1} - Z_t) / (1 - r)`` (no exponentials, no loop over experts
    or rounds inside a chunk).
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
        pos = positive[start:stop]
        wrong = pos != y_positive[start:stop, None]
        shift = np.max(log_mass)
        w0 = np.exp(log_mass - shift)
        factors = np.where(wrong, decay, 1.0)
        np.cumprod(factors, axis=0, out=factors)
        totals = np.empty(stop - start + 1)
        totals[0] = w0.sum()
        # einsum, not BLAS: multithreaded gemv stalls on a busy machine
        totals[1:] = np.einsum("ij,j->i", factors, w0)
        # weight on wrong experts at round t = (Z_{t-1} - Z_t) / (1 - r)
        loss = (totals[:-1] - totals[1:]) / (one_minus_decay * totals[:-1])
        np.clip(loss, 0.0, 1.0, out=loss)
        expected_loss[start:stop] = loss
        y_chunk = y_positive[start:stop]
        proba[start:stop] = np.where(y_chunk, 1.0 - loss, loss)
        chunk_loss = np.count_nonzero(wrong, axis=0)
        expert_loss += chunk_loss
        log_mass -= eta * chunk_loss
        log_mass -= logsumexp(log_mass)
    return proba, expected_loss, expert_loss


class DenseHedge:
    """Hedge with one log-weight per expert (any finite cover).

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
        self.expert_loss = np.zeros(self.n_experts, dtype=np.int64)

    def update(self, positive, y_positive):
        """Play a batch of rounds (predict, then update); see :func:`hedge_rounds`."""
        proba, expected_loss, expert_loss = hedge_rounds(
            self.log_weights, positive, y_positive, self.learning_rate)
        self.expert_loss += expert_loss
        log_weights = self.log_weights - self.learning_rate * expert_loss
        self.log_weights = log_weights - logsumexp(log_weights)
        return proba, expected_loss

    def proba_positive(self, positive):
        """Weight of the experts predicting +1 for each row of ``positive``."""
        weights = np.exp(self.log_weights)
        return np.clip(np.einsum("ij,j->i", positive, weights), 0.0, 1.0)

    def sample_expert(self, rng):
        """Draw one expert index with probability equal to its weight (Gumbel-max)."""
        return int(np.argmax(self.log_weights + rng.gumbel(size=self.n_experts)))

    def weights(self):
        return np.exp(self.log_weights)


class StumpHedge:
    """Exact Hedge over decision stumps, stored as weight segments.

    Expert ``j`` predicts ``sign[j]`` if ``x[feature[j]] >= threshold[j]``
    and ``-sign[j]`` otherwise (``sksmooth.classes.StumpConcepts``). Any list
    of stumps is accepted (duplicates, one sign only, uneven grids): the
    distinct thresholds of every feature are sorted and laid end to end in
    one global axis (feature ``f`` occupies positions ``offset[f] ...
    offset[f] + M_f - 1``), with the number of experts of each sign at each
    position. A segment is a run of positions of one feature whose experts
    (of a given sign) have equal weights; every operation below is one
    vectorised numpy call over all features and segments.

    Parameters
    ----------
    feature, threshold, sign : ndarray of shape (n_experts,)
    n_features : int
    learning_rate : float
    """

    def __init__(self, feature, threshold, sign, n_features, learning_rate):
        feature = np.asarray(feature, dtype=np.intp)
        threshold = np.asarray(threshold, dtype=float)
        plus = np.asarray(sign) > 0
        self.n_experts = len(feature)
        self.n_features = int(n_features)
        self.learning_rate = float(learning_rate)
        grids, n_plus, n_minus, expert_position = [], [], [], np.empty(self.n_experts, np.intp)
        offsets = np.zeros(self.n_features + 1, dtype=np.intp)
        for f in range(self.n_features):  # setup only: one pass per feature
            mask = np.flatnonzero(feature == f)
            grid, inverse = np.unique(threshold[mask], return_inverse=True)
            grids.append(grid)
            n_plus.append(np.bincount(inverse[plus[mask]], minlength=len(grid)))
            n_minus.append(np.bincount(inverse[~plus[mask]], minlength=len(grid)))
            expert_position[mask] = offsets[f] + inverse
            offsets[f + 1] = offsets[f] + len(grid)
        self.grids = grids
        self.offsets = offsets
        self.active = np.flatnonzero(np.diff(offsets) > 0)  # features with stumps
        self.cum_plus = np.concatenate([[0], np.cumsum(np.concatenate(n_plus))]).astype(np.int64)
        self.cum_minus = np.concatenate([[0], np.cumsum(np.concatenate(n_minus))]).astype(np.int64)
        self.expert_position = expert_position
        self.expert_plus = plus
        # one segment per active feature to start with (uniform weights)
        self.starts = offsets[self.active].copy()
        self.seg_feature = self.active.copy()
        uniform = -np.log(max(self.n_experts, 1))
        self.lw_plus = np.full(len(self.starts), uniform)
        self.lw_minus = np.full(len(self.starts), uniform)
        self.loss_plus = np.zeros(len(self.starts), dtype=np.int64)
        self.loss_minus = np.zeros(len(self.starts), dtype=np.int64)

    @property
    def n_segments(self):
        return int(len(self.starts))

    # -------------------------------------------------------------- helpers
    def _positions(self, X):
        """Global position of each (row, active feature): offset + #thresholds <= x.

        Plus-stumps of feature f at positions < that value predict +1 at x.
        """
        out = np.empty((X.shape[0], len(self.active)), dtype=np.intp)
        for i, f in enumerate(self.active):  # one searchsorted per feature
            out[:, i] = self.offsets[f] + np.searchsorted(self.grids[f], X[:, f], side="right")
        return out

    def _segment_ends(self):
        ends = np.empty_like(self.starts)
        ends[:-1] = self.starts[1:]
        if len(ends):
            ends[-1] = self.offsets[-1]
        return ends

    def _segment_counts(self):
        ends = self._segment_ends()
        return (self.cum_plus[ends] - self.cum_plus[self.starts],
                self.cum_minus[ends] - self.cum_minus[self.starts])

    def _segment_log_mass(self):
        n_plus, n_minus = self._segment_counts()
        with np.errstate(divide="ignore"):
            return self.lw_plus + np.log(n_plus), self.lw_minus + np.log(n_minus)

    def _split(self, positions):
        """Add segment boundaries at the global ``positions`` (strictly inside a feature)."""
        lo = self.offsets[self.active]
        hi = self.offsets[self.active + 1]
        inside = (positions > lo) & (positions < hi)
        new = np.union1d(self.starts, positions[inside]).astype(np.intp)
        if len(new) == len(self.starts):
            return
        parent = np.searchsorted(self.starts, new, side="right") - 1
        self.starts = new
        self.seg_feature = self.seg_feature[parent]
        self.lw_plus = self.lw_plus[parent]
        self.lw_minus = self.lw_minus[parent]
        self.loss_plus = self.loss_plus[parent]
        self.loss_minus = self.loss_minus[parent]

    # ----------------------------------------------------------------- API
    def update(self, X, y_positive):
        """Play a batch of rounds in order; return ``(proba_positive, expected_loss)``."""
        n_rounds = X.shape[0]
        positions = self._positions(X)
        self._split(positions)
        # column of each segment's feature in ``positions``
        column = np.searchsorted(self.active, self.seg_feature)
        mass_plus, mass_minus = self._segment_log_mass()
        log_mass = np.concatenate([mass_plus, mass_minus])
        keep = np.isfinite(log_mass)
        n_seg = len(self.starts)
        rows = max(1, _CHUNK_ELEMENTS // max(2 * n_seg, 1))
        proba = np.empty(n_rounds)
        expected_loss = np.empty(n_rounds)
        batch_loss = np.zeros(2 * n_seg, dtype=np.int64)
        current = log_mass[keep]
        for start in range(0, n_rounds, rows):
            stop = min(start + rows, n_rounds)
            plus = self.starts[None, :] < positions[start:stop, column]
            positive = np.concatenate([plus, ~plus], axis=1)[:, keep]
            p, el, loss = hedge_rounds(current, positive, y_positive[start:stop],
                                       self.learning_rate)
            proba[start:stop] = p
            expected_loss[start:stop] = el
            batch_loss[keep] += loss
            current = current - self.learning_rate * loss
        self.loss_plus = self.loss_plus + batch_loss[:n_seg]
        self.loss_minus = self.loss_minus + batch_loss[n_seg:]
        self.lw_plus = self.lw_plus - self.learning_rate * batch_loss[:n_seg]
        self.lw_minus = self.lw_minus - self.learning_rate * batch_loss[n_seg:]
        self._normalise()
        return proba, expected_loss

    def _normalise(self):
        mass_plus, mass_minus = self._segment_log_mass()
        total = logsumexp(np.concatenate([mass_plus, mass_minus]))
        self.lw_plus = self.lw_plus - total
        self.lw_minus = self.lw_minus - total

    def proba_positive(self, X):
        """Weight of the stumps predicting +1 at each row of ``X`` (no update)."""
        if len(self.starts) == 0:
            return np.zeros(X.shape[0])
        mass_plus, mass_minus = self._segment_log_mass()
        wp, wm = np.exp(mass_plus), np.exp(mass_minus)
        cum_wp = np.concatenate([[0.0], np.cumsum(wp)])
        cum_wm = np.concatenate([[0.0], np.cumsum(wm)])
        n_plus, n_minus = self._segment_counts()
        positions = self._positions(X)                       # (n, d_active)
        first = np.searchsorted(self.starts, self.offsets[self.active])   # (d_active,)
        last = np.append(first[1:], len(self.starts)) - 1
        seg = np.searchsorted(self.starts, positions, side="right") - 1
        seg = np.minimum(seg, last)  # x above every threshold of f: last segment of f
        seg_start = self.starts[seg]
        # fraction of the segment's experts strictly below the position
        below_plus = self.cum_plus[positions] - self.cum_plus[seg_start]
        below_minus = self.cum_minus[positions] - self.cum_minus[seg_start]
        frac_plus = below_plus / np.maximum(n_plus[seg], 1)
        frac_minus = below_minus / np.maximum(n_minus[seg], 1)
        # plus stumps below the position vote +1, minus stumps at or above it do
        vote = (cum_wp[seg] - cum_wp[first] + frac_plus * wp[seg]
                + cum_wm[last + 1] - cum_wm[seg + 1] + (1.0 - frac_minus) * wm[seg])
        return np.clip(vote.sum(axis=1), 0.0, 1.0)

    def _expert_segment(self):
        return np.searchsorted(self.starts, self.expert_position, side="right") - 1

    def log_weights(self):
        """Per-expert log-weights in the original expert order (O(n_experts))."""
        seg = self._expert_segment()
        return np.where(self.expert_plus, self.lw_plus[seg], self.lw_minus[seg])

    def expert_loss(self):
        """Per-expert cumulative mistakes in the original expert order."""
        seg = self._expert_segment()
        return np.where(self.expert_plus, self.loss_plus[seg], self.loss_minus[seg])

    def weights(self):
        return np.exp(self.log_weights())

    def sample_expert(self, rng):
        """Draw one expert index with probability equal to its weight (Gumbel-max)."""
        return int(np.argmax(self.log_weights() + rng.gumbel(size=self.n_experts)))
