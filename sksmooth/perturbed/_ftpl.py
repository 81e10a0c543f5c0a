"""Gaussian Follow-the-Perturbed-Leader: the online half of PerturbedERMClassifier.

Block, Shetty, *Small loss bounds for online learning separated function
classes: a Gaussian process perspective*, arXiv:2502.10292 (2025), Alg. 1 and
Thm 1. Each round plays the leader ``argmin_f L_{t-1}(f) + eta_t w_t(f)``
with a fresh Gaussian ``w_t``; the variants differ only in how ``eta_t`` is
chosen and how the perturbation reaches the oracle, so each is a small
strategy object (:class:`PracticalNoise`, :class:`TheoryNoise`,
:class:`FixedNoise`, :class:`LabelPerturbation`) behind one interface:
``noise(run, T) -> eta`` and ``leader(run, eta) -> estimator``.

Why a practical default. Thm 1's ``eta`` (condition (13)) carries the
proof's constant 64 and ``log(2 T |F|) / rho^2``; for every horizon a user
runs it exceeds ``T B``, so the perturbation swamps the data and the learner
plays at random. :class:`PracticalNoise` keeps Alg. 1's form (one oracle
call per round on the past rows plus a fresh Gaussian perturbation) with the
standard FTPL tuning: Hedge's learning rate ``sqrt(ln N / L)`` corresponds to
a perturbation of scale ``sqrt(L / ln N)`` (Kalai and Vempala, *Efficient
algorithms for online decision problems*, JCSS 2005), with the unknown best
loss ``L`` replaced by the observed one -- the learner's own cumulative
mistakes plus one, the adaptive small-loss tuning of Hutter and Poland,
*Adaptive online prediction by following the perturbed leader*, JMLR 2005.
So ``eta_t = sqrt(B (L_t + 1) / ln |F|)``. ``eta`` then changes between
rounds, which Thm 1 does not cover: the default learns, the theory choice
certifies.

Cost. The past reaches the leader only through the oracle. An exact
oracle's weighted 0-1 loss is linear in the rows, so the run keeps their
additive statistic (:class:`PastStatistic`; per-cell signed weights for
stumps) and a round costs O(m + batch), not O(t + m): the same leader as a
refit on all rows, at every t. A heuristic oracle refits on all rows
(:class:`PastRows`, an append-only buffer that snapshots share), by default
once the rows grew by 1/8 since its last refit: O(T) rows of oracle work.
"""

import copy
import functools
from dataclasses import dataclass, replace

import numpy as np
from sklearn.base import clone

from .._atomic import share_in_copies
from ._calibration import ftpl_noise, ftpl_regret_bound
from ._protocol import IncrementalERMOracle, is_erm_oracle, predict_validated
from ._setup import check_weights, fit_oracle, oracle_labels

__all__ = ["OnlineRun", "PastRows", "PastStatistic", "start_run", "RegretBound",
           "PracticalNoise", "TheoryNoise", "FixedNoise", "LabelPerturbation",
           "online_strategy", "regret_report"]


class _RowBuffer:
    """Append-only row storage, shared by the copies of a run.

    ``filled`` is how many rows have been written. A :class:`PastRows` of
    ``n`` rows writes in place only while ``filled == n`` -- nobody has
    written past its end -- and otherwise starts a buffer of its own. So a
    snapshot (the atomic ``partial_fit`` rollback, a ``deepcopy``) shares
    the buffer instead of copying ``t`` rows every round, and rows a failed
    or diverging copy wrote are never seen.
    """

    def __init__(self, X, y, filled):
        self.X, self.y, self.filled = X, y, filled


@dataclass(frozen=True, slots=True)
class PastRows:
    """The past rows (heuristic oracles, and the label-perturbation variant).

    Its state (pickling, comparison) is the ``n`` rows, never the buffer's
    scratch space or rows written by another copy."""

    buffer: _RowBuffer
    n: int = 0

    def __getstate__(self):
        return self.rows()

    def __setstate__(self, state):
        X, y = state
        object.__setattr__(self, "buffer", _RowBuffer(X.copy(), y.copy(), len(y)))
        object.__setattr__(self, "n", len(y))

    @classmethod
    def empty(cls, n_features):
        return cls(_RowBuffer(np.empty((64, n_features)), np.empty(64), 0))

    def append(self, X, y, run):
        n_new, buf = self.n + len(X), self.buffer
        if buf.filled != self.n or n_new > len(buf.y):  # shared past our end, or full
            size = max(n_new, 2 * len(buf.y))
            X_new, y_new = np.empty((size, X.shape[1])), np.empty(size)
            X_new[:self.n], y_new[:self.n] = buf.X[:self.n], buf.y[:self.n]
            buf = _RowBuffer(X_new, y_new, self.n)
        buf.X[self.n:n_new], buf.y[self.n:n_new] = X, y
        buf.filled = n_new
        return PastRows(buf, n_new)

    def rows(self):
        return self.buffer.X[:self.n], self.buffer.y[:self.n]

    def leader(self, run, labels, weights):
        X_hist, y_hist = self.rows()
        return fit_oracle(_next_oracle(run), np.vstack([X_hist, run.hallucinated_rows]),
                          np.concatenate([y_hist, labels]),
                          np.concatenate([np.ones(len(y_hist)), weights]),
                          n_classes=run.codec.n_classes)

    def __deepcopy__(self, memo):
        return self  # an immutable view of an append-only buffer (_RowBuffer)


@dataclass(frozen=True)
class PastStatistic:
    """The exact oracle's additive statistic of the past rows (its weighted
    0-1 loss of every hypothesis is linear in the rows): O(1) memory and work
    per round instead of O(t). Never modified in place."""

    statistic: np.ndarray
    n: int = 0

    def __post_init__(self):
        self.statistic.setflags(write=False)

    @classmethod
    def empty(cls, run):
        return cls(_row_statistic(run, run.hallucinated_rows[:0], np.empty(0)))

    def append(self, X, y, run):
        return PastStatistic(self.statistic + _row_statistic(run, X, y), self.n + len(X))

    def leader(self, run, labels, weights):
        check_weights(weights)
        n_classes = run.codec.n_classes
        prepared = run.hallucinated
        perturbation = run.oracle._erm_accumulate(
            prepared, oracle_labels(run.oracle, labels, n_classes), weights, n_classes)
        # the template is unfitted and its parameters are never modified: a
        # shallow copy is a clone without clone's parameter introspection
        oracle = copy.copy(run.oracle)
        return oracle._fit_from_statistic(self.statistic + perturbation, prepared, n_classes)


def _row_statistic(run, X, y):
    oracle, n_classes = run.oracle, run.codec.n_classes
    prepared = oracle._erm_prepare(oracle._erm_check_domain(X), run.hallucinated.context)
    return oracle._erm_accumulate(prepared, oracle_labels(oracle, y, n_classes),
                                  np.ones(len(X)), n_classes)


@dataclass
class OnlineRun:
    """State of one online run (one ``partial_fit`` call = one round).

    ``codec`` (public labels), ``box``, ``Z``, ``calibration``, ``oracle``
    (an unfitted template) and ``hallucinated`` (``Z`` prepared for the
    oracle's statistic) are fixed at the start; ``past`` is replaced, never
    modified; a round changes ``rng`` and the scalars. A copy (the atomic
    ``partial_fit`` snapshot) costs O(m), not O(t): the past is a statistic
    or a shared append-only buffer.
    """

    codec: object
    box: object
    Z: np.ndarray
    calibration: object
    oracle: object
    rng: np.random.Generator
    past: object  # PastStatistic or PastRows
    hallucinated_rows: np.ndarray  # Z, or Z repeated per class
    hallucinated: object = None  # PreparedRows of hallucinated_rows (statistic path)
    loss_bound: int = 0  # B: the largest batch so far
    n_rounds: int = 0
    cumulative_loss: float = 0.0
    estimator: object = None
    eta_low: float = np.inf
    eta_high: float = -np.inf
    rounds_since_refit: int = 0
    eta: float = float("nan")
    lazy: bool = False  # a round played a stale leader (outside Thm 1)
    n_at_refit: int = 0  # rows of the past at the last refit
    n_refits: int = 0

    @property
    def incremental(self):
        """The past is the oracle's additive statistic (a refit costs O(1) rows)."""
        return isinstance(self.past, PastStatistic)

    # fixed at the start and never changed: a snapshot shares them
    _SHARED = ("codec", "box", "Z", "calibration", "oracle", "hallucinated_rows",
               "hallucinated")

    def snapshot_shared(self):
        """The objects a copy shares (:func:`sksmooth._atomic.atomic_update`)."""
        return [getattr(self, name) for name in self._SHARED]

    def __deepcopy__(self, memo):
        """A copy sharing the fixed fields (copying them cost most of a round: the
        snapshot of an atomic ``partial_fit``); the rest is copied."""
        new = copy.copy(self)
        memo[id(self)] = new
        share_in_copies(self.snapshot_shared(), memo)  # and every other reference to them
        for name, value in vars(self).items():
            if name not in self._SHARED:
                setattr(new, name, copy.deepcopy(value, memo))
        return new

    @property
    def classes(self):
        return self.codec.classes_

    @property
    def n(self):
        return self.past.n

    def append(self, X, y_coded):
        """The run with the rows added to the past (a new object)."""
        return replace(self, past=self.past.append(X, y_coded, self))

    def predict_coded(self, X):
        """The current leader's predictions of validated rows, in the oracle's coding."""
        if self.estimator is None:
            return np.ones(len(X))
        return predict_validated(self.estimator, X)

    def noise_varied(self):
        return bool(self.eta_high > self.eta_low * (1 + 1e-12))


def start_run(codec, box, Z, calibration, oracle, rng, online_perturbation):
    """A fresh run; the past is a statistic when the oracle has one (exact
    oracles) and the perturbation is hallucinated, else the rows."""
    rows = codec.hallucinated_rows(Z)
    incremental = (online_perturbation == "hallucinated" and is_erm_oracle(oracle)
                   and oracle._erm_incremental() and isinstance(oracle, IncrementalERMOracle))
    prepared = oracle._erm_prepare(oracle._erm_check_domain(rows)) if incremental else None
    run = OnlineRun(codec, box, Z, calibration, oracle, rng, PastRows.empty(Z.shape[1]),
                    rows, prepared)
    if incremental:
        run.past = PastStatistic.empty(run)
    return run


def _next_oracle(run):
    """A fresh clone of the oracle, or -- when the user's oracle has
    ``warm_start=True`` -- a copy of the current leader, so the refit starts
    from it (for a convex surrogate the minimiser it converges to is the
    same; only the oracle's run time changes)."""
    previous = run.estimator
    if (run.oracle.get_params().get("warm_start") is True
            and type(previous) is type(run.oracle)):
        oracle = copy.deepcopy(previous)
        oracle.set_params(warm_start=True)
        return oracle
    return clone(run.oracle)


def _horizon(horizon, n_rounds):
    return int(horizon) if horizon is not None else max(n_rounds, 1)


class _Hallucinated:
    """Alg. 1 with the Gaussian process realised as hallucinated examples."""

    has_bound = False

    def leader(self, run, eta):
        labels, weights = run.codec.hallucinated_labels(run.Z, eta, run.rng)
        return run.past.leader(run, labels, weights)


class PracticalNoise(_Hallucinated):
    """``eta_t = sqrt(B (L_t + 1) / max(ln |F|, 1))`` (module docstring).

    ``L_t`` is the learner's own cumulative loss so far, ``B`` the largest
    batch; ``ln |F|`` is the class's (also when ``Z`` does not separate it;
    ``m ln 2`` for a heuristic oracle).
    """

    name = "practical"

    def noise(self, run, horizon):
        B = max(run.loss_bound, 1)
        return float(np.sqrt(B * (run.cumulative_loss + 1.0)
                             / max(run.calibration.practical_log_size, 1.0)))


class TheoryNoise(_Hallucinated):
    """Thm 1's ``eta``: the smallest value allowed by condition (13) at horizon ``T``."""

    name = "theory"
    has_bound = True

    def noise(self, run, horizon):
        cal = run.calibration
        return ftpl_noise(cal.rho, cal.gaussian_complexity, cal.log_n_functions,
                          _horizon(horizon, run.n_rounds), loss_bound=max(run.loss_bound, 1))


@dataclass(frozen=True)
class FixedNoise(_Hallucinated):
    """A user-given ``eta`` (Thm 1's bound applies if it satisfies (13))."""

    value: float
    name: str = "fixed"
    has_bound: bool = True

    def noise(self, run, horizon):
        return self.value


@dataclass(frozen=True)
class LabelPerturbation:
    """Hallucination-free variant: perturb the past labels (no regret bound).

    ``sum_s (1 - y_s f(x_s)) / 2 + sum_s (g_s / 2) f(x_s)`` with
    ``g_s ~ N(0, scale^2)`` equals, up to a constant, a weighted 0-1 loss
    with labels ``sign(y_s - g_s)`` and weights ``|y_s - g_s|``; multiclass:
    the one-hot analogue (``BinaryCodec.perturbed_rows``,
    ``MulticlassCodec.perturbed_rows``).
    """

    scale: float = 1.0
    name: str = "labels"
    has_bound: bool = False

    def noise(self, run, horizon):
        return self.scale

    def leader(self, run, eta):
        X_hist, y_hist = run.past.rows()
        if len(y_hist) == 0:
            return None
        rows, labels, weights = run.codec.perturbed_rows(X_hist, y_hist, eta, run.rng)
        return fit_oracle(_next_oracle(run), rows, labels, weights,
                          n_classes=run.codec.n_classes)


def online_strategy(noise, online_perturbation):
    """The strategy for the (validated) ``noise`` and ``online_perturbation``."""
    if online_perturbation == "labels":
        return LabelPerturbation(1.0 if isinstance(noise, str) else float(noise))
    if noise == "auto":
        return PracticalNoise()
    if noise == "theory":
        return TheoryNoise()
    return FixedNoise(float(noise))


@dataclass(frozen=True)
class RegretBound:
    """Thm 1's expected-regret bound for a run, and when it says something.

    Attributes
    ----------
    value : float
        The bound (``nan`` when Thm 1 does not apply; ``reason`` says why).
    horizon : int
        ``T`` it is computed for.
    trivial : float
        ``T B``: no learner can lose more, so a larger bound is vacuous.
    vacuous : bool
    non_vacuous_from : int or None
        Smallest horizon at which the bound (same class, ``B``, ``L*``, and
        the theory ``eta`` of that horizon) drops below ``T B``.
    applies : bool
    reason : str
    """

    value: float
    horizon: int
    trivial: float
    vacuous: bool
    non_vacuous_from: object
    applies: bool
    reason: str = ""

    def __str__(self):
        if not self.applies:
            return f"no Thm 1 bound: {self.reason}"
        text = f"E[regret] <= {self.value:.4g} over T = {self.horizon} rounds"
        if self.vacuous:
            text += (f" (vacuous: above T*B = {self.trivial:.4g}; non-vacuous from "
                     f"T = {self.non_vacuous_from})")
        return text


@dataclass(frozen=True)
class _Constants:
    rho: float
    gaussian_complexity: float
    log_n_functions: float


def _theory_bound(cal, horizon, B, best_loss):
    eta = ftpl_noise(cal.rho, cal.gaussian_complexity, cal.log_n_functions, horizon, B)
    return ftpl_regret_bound(eta, cal.rho, cal.gaussian_complexity, cal.log_n_functions,
                             horizon, best_loss, loss_bound=B)


def non_vacuous_horizon(cal, B, best_loss=0.0, max_horizon=2**62):
    """Smallest ``T`` with Thm 1's bound (theory ``eta``) ``<= T B`` (doubling, bisection)."""
    return _non_vacuous_horizon(cal.rho, cal.gaussian_complexity, cal.log_n_functions,
                                B, best_loss, max_horizon)


@functools.lru_cache(maxsize=256)
def _non_vacuous_horizon(rho, G, log_n, B, best_loss, max_horizon):
    cal = _Constants(rho, G, log_n)
    high = 1
    while _theory_bound(cal, high, B, best_loss) > high * B:
        high *= 2
        if high > max_horizon:
            return None
    low = high // 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if _theory_bound(cal, mid, B, best_loss) > mid * B else (low, mid)
    return high


def regret_report(strategy, run, horizon, best_loss=0.0, n_rounds=None):
    """A :class:`RegretBound` for ``run`` played with ``strategy``."""
    T = int(n_rounds or max(horizon or 0, run.n_rounds, 1))
    B = max(run.loss_bound, 1)
    nan = float("nan")
    if run.codec.multiclass:
        return RegretBound(nan, T, T * B, False, None, False,
                           "Thm 1 is stated for binary classes; a multiclass run has no "
                           "certified bound")
    if not strategy.has_bound:
        why = ("the label-perturbation variant has no regret theorem"
               if strategy.name == "labels" else
               "the practical noise changes with the observed loss, while Thm 1 assumes "
               "one fixed eta; use noise='theory' (with horizon=T) for a certified bound")
        return RegretBound(nan, T, T * B, False, None, False, why)
    if run.noise_varied():
        return RegretBound(nan, T, T * B, False, None, False,
                           f"eta changed across rounds (from {run.eta_low:.4g} to "
                           f"{run.eta_high:.4g}: horizon=None or growing batch sizes) "
                           "but Thm 1 assumes one fixed eta; pass horizon=T and batches "
                           "of one size")
    cal = run.calibration
    value = ftpl_regret_bound(run.eta, cal.rho, cal.gaussian_complexity,
                              cal.log_n_functions, T, best_loss, loss_bound=B)
    if not np.isfinite(value):
        minimum = ftpl_noise(cal.rho, cal.gaussian_complexity, cal.log_n_functions, T, B)
        return RegretBound(nan, T, T * B, False, None, False,
                           f"eta = {run.eta:.4g} is below condition (13)'s minimum "
                           f"{minimum:.4g}")
    vacuous = value > T * B
    start = non_vacuous_horizon(cal, B, best_loss) if vacuous else None
    return RegretBound(value, T, T * B, vacuous, start, True)
