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


# Elements of the per-chunk (rounds x experts) work arrays (~32 MB float64).
_CHUNK_ELEMENTS = 1 << 22
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
    ``cumprod`` down the rows and one matrix-vector product give every
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
        np.dot(factors, w0, out=totals[1:])
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
        return np.clip(positive @ weights, 0.0, 1.0)

    def sample_expert(self, rng):
        """Draw one expert index with probability equal to its weight (Gumbel-max)."""
        return int(np.argmax(self.log_weights + rng.gumbel(size=self.n_experts)))

    def weights(self):
        return np.exp(self.log_weights)


class StumpHedge:
    """Exact Hedge over decision stumps, stored as weight segments.

    Expert ``j`` predicts ``sign[j]`` if ``x[feature[j]] >= threshold[j]``
    and ``-sign[j]`` otherwise. Any list of stumps is accepted (duplicates,
    one sign only, uneven grids); the engine groups them by feature, sorts
    the distinct thresholds, and counts the experts of each sign at each
    distinct threshold.

    Parameters
    ----------
    feature, threshold, sign : ndarray of shape (n_experts,)
    n_features : int
    learning_rate : float
    """

    def __init__(self, feature, threshold, sign, n_features, learning_rate):
        feature = np.asarray(feature, dtype=np.intp)
        threshold = np.asarray(threshold, dtype=float)
        sign = np.asarray(sign)
        self.n_experts = len(feature)
        self.n_features = int(n_features)
        self.learning_rate = float(learning_rate)
        self._feature = feature
        self._threshold = threshold
        self._plus = sign > 0
        # per feature: distinct sorted thresholds, cumulative counts per sign,
        # segment starts (positions in the distinct grid) and per-expert
        # log-weight of each segment (same for every expert in a segment).
        self.grids = []
        self.cum_plus = []
        self.cum_minus = []
        self.starts = []
        self.lw_plus = []
        self.lw_minus = []
        self.loss_plus = []
        self.loss_minus = []
        uniform = -np.log(self.n_experts)
        for f in range(self.n_features):
            mask = feature == f
            grid, inverse = np.unique(threshold[mask], return_inverse=True)
            n_plus = np.bincount(inverse[self._plus[mask]], minlength=len(grid))
            n_minus = np.bincount(inverse[~self._plus[mask]], minlength=len(grid))
            self.grids.append(grid)
            self.cum_plus.append(np.concatenate([[0], np.cumsum(n_plus)]))
            self.cum_minus.append(np.concatenate([[0], np.cumsum(n_minus)]))
            self.starts.append(np.zeros(1, dtype=np.intp))
            self.lw_plus.append(np.full(1, uniform))
            self.lw_minus.append(np.full(1, uniform))
            self.loss_plus.append(np.zeros(1, dtype=np.int64))
            self.loss_minus.append(np.zeros(1, dtype=np.int64))

    @property
    def n_segments(self):
        return int(sum(len(s) for s in self.starts))

    # -------------------------------------------------------------- helpers
    def _segment_counts(self, f, starts):
        ends = np.append(starts[1:], len(self.grids[f]))
        cp, cm = self.cum_plus[f], self.cum_minus[f]
        return cp[ends] - cp[starts], cm[ends] - cm[starts]

    @staticmethod
    def _log(counts):
        with np.errstate(divide="ignore"):
            return np.log(counts)

    def _split(self, f, positions):
        """Add segment boundaries at ``positions`` (indices into the grid)."""
        grid_size = len(self.grids[f])
        positions = positions[(positions > 0) & (positions < grid_size)]
        old = self.starts[f]
        new = np.union1d(old, positions).astype(np.intp)
        if len(new) == len(old):
            return
        parent = np.searchsorted(old, new, side="right") - 1
        self.starts[f] = new
        self.lw_plus[f] = self.lw_plus[f][parent]
        self.lw_minus[f] = self.lw_minus[f][parent]
        self.loss_plus[f] = self.loss_plus[f][parent]
        self.loss_minus[f] = self.loss_minus[f][parent]

    def _positions(self, f, x):
        # number of grid thresholds <= x: the plus-stumps at grid positions
        # < that number predict +1 at x
        return np.searchsorted(self.grids[f], x, side="right")

    # ----------------------------------------------------------------- API
    def update(self, X, y_positive):
        """Play a batch of rounds in order; return ``(proba_positive, expected_loss)``."""
        n_rounds = X.shape[0]
        positions = [self._positions(f, X[:, f]) for f in range(self.n_features)]
        for f in range(self.n_features):
            self._split(f, positions[f])
        log_mass, columns = [], []
        for f in range(self.n_features):
            starts = self.starts[f]
            n_plus, n_minus = self._segment_counts(f, starts)
            log_mass.append(self.lw_plus[f] + self._log(n_plus))
            log_mass.append(self.lw_minus[f] + self._log(n_minus))
            columns.append(starts)
        log_mass = np.concatenate(log_mass)
        keep = np.isfinite(log_mass)
        sizes = [len(s) for s in self.starts]
        # rows of at most ~_CHUNK_ELEMENTS work elements; hedge_rounds chunks again
        total_columns = 2 * sum(sizes)
        rows = max(1, _CHUNK_ELEMENTS // max(total_columns, 1))
        proba = np.empty(n_rounds)
        expected_loss = np.empty(n_rounds)
        batch_loss = np.zeros(total_columns, dtype=np.int64)
        current = log_mass.copy()
        for start in range(0, n_rounds, rows):
            stop = min(start + rows, n_rounds)
            blocks = []
            for f in range(self.n_features):
                plus = columns[f][None, :] < positions[f][start:stop, None]
                blocks.append(plus)
                blocks.append(~plus)
            positive = np.concatenate(blocks, axis=1)[:, keep]
            p, el, loss = hedge_rounds(current[keep], positive,
                                       y_positive[start:stop], self.learning_rate)
            proba[start:stop] = p
            expected_loss[start:stop] = el
            batch_loss[keep] += loss
            current[keep] -= self.learning_rate * loss
        offset = 0
        for f in range(self.n_features):
            k = sizes[f]
            lp = batch_loss[offset:offset + k]
            lm = batch_loss[offset + k:offset + 2 * k]
            self.loss_plus[f] = self.loss_plus[f] + lp
            self.loss_minus[f] = self.loss_minus[f] + lm
            self.lw_plus[f] = self.lw_plus[f] - self.learning_rate * lp
            self.lw_minus[f] = self.lw_minus[f] - self.learning_rate * lm
            offset += 2 * k
        self._normalise()
        return proba, expected_loss

    def _segment_log_mass(self):
        out = []
        for f in range(self.n_features):
            n_plus, n_minus = self._segment_counts(f, self.starts[f])
            out.append((self.lw_plus[f] + self._log(n_plus),
                        self.lw_minus[f] + self._log(n_minus)))
        return out

    def _normalise(self):
        masses = self._segment_log_mass()
        total = logsumexp(np.concatenate([np.concatenate(m) for m in masses]))
        for f in range(self.n_features):
            self.lw_plus[f] = self.lw_plus[f] - total
            self.lw_minus[f] = self.lw_minus[f] - total

    def proba_positive(self, X):
        """Weight of the stumps predicting +1 at each row of ``X`` (no update)."""
        out = np.zeros(X.shape[0])
        for f, (mass_plus, mass_minus) in enumerate(self._segment_log_mass()):
            starts = self.starts[f]
            wp = np.exp(mass_plus)
            wm = np.exp(mass_minus)
            # plus stumps at positions < idx vote +1; minus stumps at >= idx do
            cum_plus = np.concatenate([[0.0], np.cumsum(wp)])
            cum_minus_tail = np.concatenate([np.cumsum(wm[::-1])[::-1], [0.0]])
            idx = self._positions(f, X[:, f])
            # segments fully below idx; idx may fall inside a segment (points
            # never seen), so split that segment's mass by expert counts.
            seg = np.searchsorted(starts, idx, side="right") - 1
            seg_start = starts[seg]
            n_plus, n_minus = self._segment_counts(f, starts)
            cp, cm = self.cum_plus[f], self.cum_minus[f]
            with np.errstate(invalid="ignore", divide="ignore"):
                frac_plus = np.where(n_plus[seg] > 0,
                                     (cp[idx] - cp[seg_start]) / np.maximum(n_plus[seg], 1), 0.0)
                frac_minus = np.where(n_minus[seg] > 0,
                                      (cm[idx] - cm[seg_start]) / np.maximum(n_minus[seg], 1), 0.0)
            out += cum_plus[seg] + frac_plus * wp[seg]
            out += cum_minus_tail[seg + 1] + (1.0 - frac_minus) * wm[seg]
        return np.clip(out, 0.0, 1.0)

    def log_weights(self):
        """Per-expert log-weights in the original expert order (O(n_experts))."""
        out = np.empty(self.n_experts)
        for f in range(self.n_features):
            mask = np.flatnonzero(self._feature == f)
            pos = np.searchsorted(self.grids[f], self._threshold[mask])
            seg = np.searchsorted(self.starts[f], pos, side="right") - 1
            plus = self._plus[mask]
            out[mask] = np.where(plus, self.lw_plus[f][seg], self.lw_minus[f][seg])
        return out

    def expert_loss(self):
        """Per-expert cumulative mistakes in the original expert order."""
        out = np.empty(self.n_experts, dtype=np.int64)
        for f in range(self.n_features):
            mask = np.flatnonzero(self._feature == f)
            pos = np.searchsorted(self.grids[f], self._threshold[mask])
            seg = np.searchsorted(self.starts[f], pos, side="right") - 1
            plus = self._plus[mask]
            out[mask] = np.where(plus, self.loss_plus[f][seg], self.loss_minus[f][seg])
        return out

    def weights(self):
        return np.exp(self.log_weights())

    def sample_expert(self, rng):
        """Draw one expert index with probability equal to its weight."""
        return int(np.argmax(self.log_weights() + rng.gumbel(size=self.n_experts)))
