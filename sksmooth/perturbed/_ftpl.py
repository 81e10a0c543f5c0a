"""Gaussian Follow-the-Perturbed-Leader: the online half of PerturbedERMClassifier.

Block, Shetty, *Small loss bounds for online learning separated function
classes: a Gaussian process perspective*, arXiv:2502.10292 (2025), Alg. 1 and
Thm 1. Each round plays the leader ``argmin_f L_{t-1}(f) + eta_t w_t(f)``
with a fresh Gaussian ``w_t``; the variants differ only in how ``eta_t`` is
chosen and how the perturbation reaches the oracle, so each is a small
strategy object (:class:`PracticalNoise`, :class:`TheoryNoise`,
:class:`FixedNoise`, :class:`LabelPerturbation`) behind one interface:
``noise(run, T) -> eta`` and ``leader(run, X_hist, y_hist, eta) -> estimator``.

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
"""

import copy
from dataclasses import dataclass, replace

import numpy as np
from sklearn.base import clone

from ._calibration import ftpl_noise, ftpl_regret_bound
from ._setup import fit_oracle, hallucinate

__all__ = ["OnlineRun", "RegretBound", "PracticalNoise", "TheoryNoise", "FixedNoise",
           "LabelPerturbation", "online_strategy", "regret_report"]


@dataclass
class OnlineRun:
    """State of one online run (one ``partial_fit`` call = one round)."""

    classes: np.ndarray
    box: object
    Z: np.ndarray
    calibration: object
    oracle: object
    rng: np.random.Generator
    X: np.ndarray  # history buffer; rows past n are scratch
    y: np.ndarray
    n: int = 0
    loss_bound: int = 0  # B: the largest batch so far
    n_rounds: int = 0
    cumulative_loss: float = 0.0
    estimator: object = None
    eta_low: float = np.inf
    eta_high: float = -np.inf
    rounds_since_refit: int = 0
    eta: float = float("nan")

    def append(self, X, y_pm1):
        """Rows into the amortised-doubling history buffer (returns the new run)."""
        n_new = self.n + len(X)
        buf_X, buf_y = self.X, self.y
        if n_new > len(buf_X):
            size = max(n_new, 2 * len(buf_X), 64)
            buf_X = np.concatenate([buf_X[:self.n], np.zeros((size - self.n, X.shape[1]))])
            buf_y = np.concatenate([buf_y[:self.n], np.zeros(size - self.n)])
        else:
            buf_X, buf_y = buf_X.copy(), buf_y.copy()
        buf_X[self.n:n_new], buf_y[self.n:n_new] = X, y_pm1
        return replace(self, X=buf_X, y=buf_y, n=n_new)

    def history(self):
        return self.X[:self.n], self.y[:self.n]

    def noise_varied(self):
        return bool(self.eta_high > self.eta_low * (1 + 1e-12))


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

    def leader(self, run, X_hist, y_hist, eta):
        labels, weights = hallucinate(run.Z, eta, run.rng)
        return fit_oracle(_next_oracle(run), np.vstack([X_hist, run.Z]),
                          np.concatenate([y_hist, labels]),
                          np.concatenate([np.ones(len(y_hist)), weights]))


class PracticalNoise(_Hallucinated):
    """``eta_t = sqrt(B (L_t + 1) / max(ln |F|, 1))`` (module docstring).

    ``L_t`` is the learner's own cumulative loss so far, ``B`` the largest
    batch; ``ln |F|`` is the class's (``m ln 2`` for a heuristic oracle).
    """

    name = "practical"

    def noise(self, run, horizon):
        B = max(run.loss_bound, 1)
        return float(np.sqrt(B * (run.cumulative_loss + 1.0)
                             / max(run.calibration.log_n_functions, 1.0)))


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
    with labels ``sign(y_s - g_s)`` and weights ``|y_s - g_s|``.
    """

    scale: float = 1.0
    name: str = "labels"
    has_bound: bool = False

    def noise(self, run, horizon):
        return self.scale

    def leader(self, run, X_hist, y_hist, eta):
        if len(y_hist) == 0:
            return None
        perturbed = y_hist - eta * run.rng.standard_normal(len(y_hist))
        return fit_oracle(_next_oracle(run), X_hist, np.where(perturbed >= 0, 1.0, -1.0),
                          np.abs(perturbed))


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


def _theory_bound(cal, horizon, B, best_loss):
    eta = ftpl_noise(cal.rho, cal.gaussian_complexity, cal.log_n_functions, horizon, B)
    return ftpl_regret_bound(eta, cal.rho, cal.gaussian_complexity, cal.log_n_functions,
                             horizon, best_loss, loss_bound=B)


def non_vacuous_horizon(cal, B, best_loss=0.0, max_horizon=2**62):
    """Smallest ``T`` with Thm 1's bound (theory ``eta``) ``<= T B`` (doubling, bisection)."""
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
        return RegretBound(nan, T, T * B, False, None, False,
                           f"eta = {run.eta:.4g} is below condition (13)'s minimum "
                           f"{ftpl_noise(cal.rho, cal.gaussian_complexity, cal.log_n_functions, T, B):.4g}")
    vacuous = value > T * B
    start = non_vacuous_horizon(cal, B, best_loss) if vacuous else None
    return RegretBound(value, T, T * B, vacuous, start, True)
