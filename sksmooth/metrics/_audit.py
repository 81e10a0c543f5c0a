"""Empirical privacy audit: a statistically valid lower bound on epsilon (SPEC §8).

If a mechanism ``M`` is ``(eps, delta)``-DP then for neighbouring datasets
``D0, D1`` and every output event ``E``,

    P[M(D0) in E] <= e^eps P[M(D1) in E] + delta,

and the same with ``D0, D1`` swapped and with ``E`` replaced by its
complement. Running ``M`` many times on both datasets gives Clopper–Pearson
confidence bounds on ``p0 = P[M(D0) in E]`` and ``p1 = P[M(D1) in E]``;
plugging the conservative ends in yields a lower bound on ``eps`` that is
valid (holds with the stated confidence) *whatever* the event, provided the
event does not depend on the trials it is evaluated on.
"""

from dataclasses import dataclass, replace
from typing import Callable, Optional

import numpy as np
from scipy.stats import beta as beta_dist

from .._validation import (check_delta, check_flag, check_generator, check_nonnegative,
                           check_positive_int, check_probability)

__all__ = [
    "AuditCase",
    "AuditResult",
    "DeltaAuditResult",
    "audit_delta",
    "audit_epsilon",
    "audit_epsilon_search",
    "audit_epsilon_select",
]

_DIRECTIONS = (
    "event: dataset0 over dataset1",
    "event: dataset1 over dataset0",
    "complement: dataset0 over dataset1",
    "complement: dataset1 over dataset0",
)


@dataclass(frozen=True)
class AuditResult:
    """Outcome of an empirical privacy audit.

    Attributes
    ----------
    epsilon_lower : float
        Lower confidence bound on the mechanism's epsilon (>= 0). If the
        mechanism is ``(eps, delta)``-DP, ``epsilon_lower <= eps`` with
        probability at least ``confidence``.
    count0, count1 : int
        Number of trials in which the event occurred under ``dataset0`` /
        ``dataset1``.
    n_trials : int
        Trials per dataset used for the bound.
    confidence : float
        Joint confidence level of the bound (Bonferroni over the four
        one-sided Clopper–Pearson bounds).
    delta : float
        The delta assumed in ``(p - delta) / p'``.
    direction : str
        Which of the four tests (event or complement, either order of the
        datasets) gave the bound.
    threshold : float or None
        The event threshold chosen by :func:`audit_epsilon_search`.
    """

    epsilon_lower: float
    count0: int
    count1: int
    n_trials: int
    confidence: float
    delta: float
    direction: str
    threshold: Optional[float] = None


@dataclass(frozen=True)
class AuditCase:
    """A named privacy audit, with the power check that makes it meaningful.

    Each subpackage lists its cases in its own ``_audit_cases.py``; the
    catalog :mod:`sksmooth.audits` collects them for ``sksmooth audit``, the
    demo and the tests.

    Attributes
    ----------
    name : str
        What is audited, on which neighbouring pair and event.
    epsilon, delta : float
        The claimed privacy parameters.
    run : callable
        ``run(n_trials, random_state) -> AuditResult``.
    n_trials : int
        Trials per dataset for the full audit.
    min_fraction : float
        The fraction of the claimed epsilon the audit is expected to reach
        with ``n_trials``: how tight the analysis is on this neighbouring
        pair. 0 only where the analysis is known to be loose (then the case
        says why in its source).
    run_broken : callable or None
        ``run_broken(n_trials, random_state) -> AuditResult`` for a
        deliberately broken variant (twice the epsilon, half the noise, or too
        little padding); its lower bound must exceed ``epsilon`` at the same
        ``n_trials``, which shows the audit has the power to see a violation.
        Default with ``run_overspent``: ``run_overspent(2, ...)``.
    broken : str
        What the broken variant gets wrong.
    run_overspent : callable or None
        ``run_overspent(factor, n_trials, random_state) -> AuditResult``: the
        release made to spend ``factor`` times the budget it charges, inside
        the estimator (same charge, same ``guarantee_``).
    detectable_factor : float, default=2
        The smallest overspend factor (2, 4, 8, ...) whose variant the case
        catches at ``n_trials`` (measured by ``benchmarks/bench_audits.py``).
        Above 2 the case has no power against a 2x overspend at ``n_trials``:
        :meth:`power` says so.
    """

    name: str
    epsilon: float
    delta: float
    run: Callable
    n_trials: int
    min_fraction: float = 0.3
    run_broken: Optional[Callable] = None
    broken: str = ""
    run_overspent: Optional[Callable] = None
    detectable_factor: float = 2.0

    def __post_init__(self):
        if self.run_broken is None and self.run_overspent is not None:
            run_overspent = self.run_overspent
            object.__setattr__(self, "run_broken", lambda n_trials, random_state:
                               run_overspent(2.0, n_trials, random_state))
            if not self.broken:
                object.__setattr__(self, "broken", "spends 2x the budget it charges")

    def power(self):
        """``'broken variant caught at N trials'`` or ``'no power at N trials: ...'``."""
        if self.run_broken is None:
            return "no broken variant"
        if self.detectable_factor <= 2:
            return f"broken variant caught at {self.n_trials} trials"
        return (f"no power at {self.n_trials} trials: only a {self.detectable_factor:g}x "
                "overspend is caught")


def _clopper_pearson(count, n, tail):
    """One-sided Clopper–Pearson bounds ``(lower, upper)``, each at level ``1 - tail``."""
    count = np.asarray(count, dtype=float)
    lower = np.where(count > 0, beta_dist.ppf(tail, count, n - count + 1), 0.0)
    upper = np.where(count < n, beta_dist.ppf(1.0 - tail, count + 1, n - count), 1.0)
    return lower, upper


def _epsilon_lower(count0, count1, n, confidence, delta):
    """Lower bounds of the four directions, shape ``(4, ...)``.

    ``1 - confidence`` is split equally over the four one-sided bounds
    ``p0 >= L0, p0 <= U0, p1 >= L1, p1 <= U1``; on their joint event (prob.
    >= confidence) all four directions are simultaneously valid.
    """
    tail = (1.0 - confidence) / 4.0
    l0, u0 = _clopper_pearson(count0, n, tail)
    l1, u1 = _clopper_pearson(count1, n, tail)
    nums = np.stack([l0 - delta, l1 - delta, (1 - u0) - delta, (1 - u1) - delta])
    dens = np.stack([u1, u0, 1 - l1, 1 - l0])
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(nums > 0, np.log(np.maximum(nums, 1e-300) / dens), -np.inf)
    return out


def _spawn(rng, n):
    """``n`` independent child generators (``Generator.spawn`` needs numpy >= 1.25)."""
    try:
        return rng.spawn(n)
    except AttributeError:  # pragma: no cover - old numpy
        return [np.random.default_rng(s) for s in rng.integers(0, 2**63 - 1, size=n)]


def _check_common(mechanism, n_trials, confidence, delta, batch):
    if not callable(mechanism):
        raise TypeError(
            f"mechanism must be callable as mechanism(dataset, rng) (or "
            f"mechanism(dataset, rng, n) with batch=True), got {type(mechanism).__name__}."
        )
    n_trials = check_positive_int(n_trials, "n_trials")
    confidence = check_probability(confidence, "confidence")
    delta = check_delta(delta)
    return n_trials, confidence, delta, check_flag(batch, "batch")


def _outputs(mechanism, dataset, rng, n, batch):
    """``n`` outputs of ``mechanism`` on ``dataset`` (array if batch, else list)."""
    if batch:
        outs = mechanism(dataset, rng, n)
        if len(outs) != n:
            raise ValueError(
                f"with batch=True, mechanism(dataset, rng, n) must return n={n} "
                f"outputs, got {len(outs)}."
            )
        return outs
    return [mechanism(dataset, rng) for _ in range(n)]


def _count_event(outs, event, batch, n):
    if batch:
        hits = np.asarray(event(outs))
        if hits.shape != (n,):
            raise ValueError(
                f"with batch=True, event(outputs) must return a boolean array of "
                f"shape ({n},), got shape {hits.shape}."
            )
        return int(np.count_nonzero(hits))
    return int(sum(bool(event(o)) for o in outs))


def _event_counts(mechanism, dataset0, dataset1, event, n, random_state, batch):
    """How often ``event`` happens in ``n`` runs on each dataset (independent streams)."""
    if not callable(event):
        raise TypeError(f"event must be callable, got {type(event).__name__}.")
    rng0, rng1 = _spawn(check_generator(random_state), 2)
    return tuple(_count_event(_outputs(mechanism, dataset, rng, n, batch), event, batch, n)
                 for dataset, rng in ((dataset0, rng0), (dataset1, rng1)))


def _result(count0, count1, n, confidence, delta, threshold=None):
    bounds = _epsilon_lower(count0, count1, n, confidence, delta)
    best = int(np.argmax(bounds))
    eps = float(max(0.0, bounds[best]))
    return AuditResult(eps, int(count0), int(count1), n, confidence, delta,
                       _DIRECTIONS[best], threshold)


def audit_epsilon(
    mechanism,
    dataset0,
    dataset1,
    event,
    n_trials,
    random_state=None,
    confidence=0.95,
    batch=False,
    delta=0.0,
):
    """Lower-bound a mechanism's epsilon from repeated runs on neighbouring datasets.

    Runs ``mechanism`` ``n_trials`` times on each dataset, counts how often
    ``event`` happens (``k0``, ``k1``), and returns the largest of

    ``ln((L0 - delta)/U1)``, ``ln((L1 - delta)/U0)``,
    ``ln((1 - U0 - delta)/(1 - L1))``, ``ln((1 - U1 - delta)/(1 - L0))``

    (clamped at 0), where ``[L, U]`` are one-sided Clopper–Pearson bounds on
    ``p0, p1``, each at level ``1 - (1 - confidence)/4``. By the union bound
    all four hold jointly with probability ``>= confidence``, so if the
    mechanism is ``(eps, delta)``-DP then ``epsilon_lower <= eps`` with
    probability ``>= confidence`` (both directions and the complement event
    are tested *and* paid for). The event must be fixed before the trials
    (use :func:`audit_epsilon_search` to choose one from data validly).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(dataset, rng) -> output``; with ``batch=True``,
        ``mechanism(dataset, rng, n) -> sequence/array of n outputs``.
    dataset0, dataset1 : object
        Neighbouring inputs, passed to ``mechanism`` unchanged.
    event : callable
        ``event(output) -> bool``; with ``batch=True``,
        ``event(outputs) -> bool array of shape (n,)``.
    n_trials : int
        Runs per dataset.
    random_state : None, int or numpy.random.Generator
        Seeds the runs (two independent child streams, one per dataset).
    confidence : float, default=0.95
        Joint confidence of the bound, in (0, 1).
    batch : bool, default=False
        Whether ``mechanism`` and ``event`` are vectorised over trials (fast
        audits with 10^5–10^6 trials).
    delta : float, default=0.0
        The mechanism's claimed delta (subtracted from the larger probability).

    Returns
    -------
    AuditResult

    References
    ----------
    Ding, Wang, Wang, Zhang, Kifer, "Detecting violations of differential
    privacy", CCS 2018. Jagielski, Ullman, Oprea, "Auditing differentially
    private machine learning", NeurIPS 2020 (Clopper–Pearson bounds).

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms import laplace_mechanism
    >>> mech = lambda x, rng, n: laplace_mechanism(x, 1.0, 1.0, rng, size=n)
    >>> res = audit_epsilon(mech, 1.0, 0.0, lambda out: out > 1.0, 100_000,
    ...                     random_state=0, batch=True)
    >>> 0.8 < res.epsilon_lower <= 1.0
    True
    """
    n_trials, confidence, delta, batch = _check_common(
        mechanism, n_trials, confidence, delta, batch
    )
    count0, count1 = _event_counts(mechanism, dataset0, dataset1, event, n_trials,
                                   random_state, batch)
    return _result(count0, count1, n_trials, confidence, delta)


def _statistics(outs, statistic, batch):
    if statistic is None:
        stats = np.asarray(outs, dtype=float) if batch else np.array([float(o) for o in outs])
    elif batch:
        stats = np.asarray(statistic(outs), dtype=float)
    else:
        stats = np.array([float(statistic(o)) for o in outs])
    if stats.ndim != 1 or stats.shape[0] != len(outs):
        raise ValueError(
            "statistic must map each output to one real number; pass statistic= "
            "for non-scalar outputs."
        )
    return stats


def audit_epsilon_search(
    mechanism,
    dataset0,
    dataset1,
    n_trials,
    statistic=None,
    n_thresholds=100,
    random_state=None,
    confidence=0.95,
    batch=False,
    delta=0.0,
):
    """Audit with a threshold event ``statistic(output) > t`` chosen from data.

    The first ``n_trials // 2`` runs per dataset are used only to choose the
    threshold ``t`` (among ``n_thresholds`` quantiles of the pooled
    statistics) that maximises the audit bound on those runs; the event is
    then evaluated by :func:`audit_epsilon` on ``n_trials - n_trials // 2``
    fresh runs per dataset. Because the event is independent of the
    evaluation runs, the returned bound keeps its confidence guarantee (the
    complement ``<= t`` is covered by the four-way test).

    Parameters
    ----------
    mechanism, dataset0, dataset1, random_state, confidence, batch, delta
        As in :func:`audit_epsilon`.
    n_trials : int
        Total runs per dataset (selection + evaluation), >= 2.
    statistic : callable, optional
        Maps an output (or, with ``batch=True``, the array of outputs) to real
        number(s). Default: the output itself, as a float.
    n_thresholds : int, default=100
        Number of candidate thresholds.

    Returns
    -------
    AuditResult
        With ``threshold`` set; ``n_trials`` is the evaluation size.
    """
    n_trials, confidence, delta, batch = _check_common(
        mechanism, n_trials, confidence, delta, batch
    )
    n_trials = check_positive_int(n_trials, "n_trials", minimum=2)
    n_thresholds = check_positive_int(n_thresholds, "n_thresholds")
    if statistic is not None and not callable(statistic):
        raise TypeError(f"statistic must be None or callable, got {type(statistic).__name__}.")
    rng_select, rng_eval = _spawn(check_generator(random_state), 2)
    n_select = n_trials // 2
    r0, r1 = _spawn(rng_select, 2)
    s0 = np.sort(_statistics(_outputs(mechanism, dataset0, r0, n_select, batch), statistic, batch))
    s1 = np.sort(_statistics(_outputs(mechanism, dataset1, r1, n_select, batch), statistic, batch))
    pooled = np.concatenate([s0, s1])
    thresholds = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, n_thresholds + 2)[1:-1]))
    k0 = n_select - np.searchsorted(s0, thresholds, side="right")
    k1 = n_select - np.searchsorted(s1, thresholds, side="right")
    scores = _epsilon_lower(k0, k1, n_select, confidence, delta).max(axis=0)
    threshold = float(thresholds[int(np.argmax(scores))])

    if batch:
        def event(outs):
            return _statistics(outs, statistic, True) > threshold
    else:
        def event(out):
            return _statistics([out], statistic, False)[0] > threshold

    result = audit_epsilon(
        mechanism, dataset0, dataset1, event, n_trials - n_select,
        random_state=rng_eval, confidence=confidence, batch=batch, delta=delta,
    )
    return replace(result, threshold=threshold)


def _check_events(events, batch):
    if not isinstance(events, dict) or not events:
        raise TypeError(
            "events must be a non-empty dict {name: event} of candidate events, "
            f"got {type(events).__name__}."
        )
    for name, event in events.items():
        if not callable(event):
            raise TypeError(f"events[{name!r}] must be callable, got {type(event).__name__}.")
    return events


def audit_epsilon_select(
    mechanism,
    dataset0,
    dataset1,
    events,
    n_trials,
    random_state=None,
    confidence=0.95,
    batch=False,
    delta=0.0,
):
    """Audit with the best of several candidate events, chosen on held-out runs.

    The first ``n_trials // 2`` runs per dataset only choose the event of
    ``events`` with the largest audit bound on them; :func:`audit_epsilon`
    then evaluates that event on ``n_trials - n_trials // 2`` fresh runs per
    dataset. The event is independent of the evaluation runs, so the bound
    keeps its confidence guarantee whatever the number of candidates (as in
    DP-Auditorium / StatDP; with the event chosen on the same runs it would
    not). Use it when the tight event is not known in advance, e.g. every
    ``output == k`` of a selection mechanism.

    Parameters
    ----------
    mechanism, dataset0, dataset1, random_state, confidence, batch, delta
        As in :func:`audit_epsilon`.
    events : dict
        ``{name: event}``; each ``event`` as in :func:`audit_epsilon`.
    n_trials : int
        Total runs per dataset (selection + evaluation), >= 2.

    Returns
    -------
    AuditResult
        ``direction`` is prefixed by the chosen event's name; ``n_trials``
        is the evaluation size.

    References
    ----------
    Ding, Wang, Wang, Zhang, Kifer, "Detecting violations of differential
    privacy", CCS 2018 (StatDP: event selection on separate runs). Kong,
    Medina, Ribero et al., "DP-Auditorium: a large scale library for auditing
    differential privacy", IEEE S&P 2024.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms import exponential_mechanism
    >>> mech = lambda s, rng, n: exponential_mechanism(s, 1.0, 1.0, rng, size=n)
    >>> events = {f"out=={k}": (lambda o, k=k: o == k) for k in range(3)}
    >>> res = audit_epsilon_select(mech, np.array([1.0, 0, 0]), np.array([0.0, 1, 1]),
    ...                            events, 100_000, random_state=0, batch=True)
    >>> res.direction.startswith("out==0") and res.epsilon_lower <= 1.0
    True
    """
    n_trials, confidence, delta, batch = _check_common(
        mechanism, n_trials, confidence, delta, batch
    )
    n_trials = check_positive_int(n_trials, "n_trials", minimum=2)
    events = _check_events(events, batch)
    rng_select, rng_eval = _spawn(check_generator(random_state), 2)
    n_select = n_trials // 2
    r0, r1 = _spawn(rng_select, 2)
    outs0 = _outputs(mechanism, dataset0, r0, n_select, batch)
    outs1 = _outputs(mechanism, dataset1, r1, n_select, batch)
    names = list(events)
    k0 = np.array([_count_event(outs0, events[name], batch, n_select) for name in names])
    k1 = np.array([_count_event(outs1, events[name], batch, n_select) for name in names])
    scores = _epsilon_lower(k0, k1, n_select, confidence, delta).max(axis=0)
    name = names[int(np.argmax(scores))]
    result = audit_epsilon(
        mechanism, dataset0, dataset1, events[name], n_trials - n_select,
        random_state=rng_eval, confidence=confidence, batch=batch, delta=delta,
    )
    return replace(result, direction=f"{name}; {result.direction}")


@dataclass(frozen=True)
class DeltaAuditResult:
    """Outcome of :func:`audit_delta`.

    Attributes
    ----------
    delta_lower : float
        Lower confidence bound on the mechanism's delta at ``epsilon``
        (>= 0): if the mechanism is ``(epsilon, delta)``-DP then
        ``delta_lower <= delta`` with probability at least ``confidence``.
    count0, count1, n_trials, confidence
        As in :class:`AuditResult`.
    epsilon : float
        The epsilon at which delta is bounded.
    direction : str
    """

    delta_lower: float
    count0: int
    count1: int
    n_trials: int
    confidence: float
    epsilon: float
    direction: str


def audit_delta(
    mechanism,
    dataset0,
    dataset1,
    event,
    n_trials,
    epsilon,
    random_state=None,
    confidence=0.95,
    batch=False,
):
    """Lower-bound a mechanism's delta at a given epsilon.

    ``(epsilon, delta)``-DP implies ``delta >= P[M(D0) in E] - e^eps
    P[M(D1) in E]`` for every event (and with the datasets swapped, and for
    the complement); with the same four one-sided Clopper–Pearson bounds as
    :func:`audit_epsilon` this gives ``max(L0 - e^eps U1, L1 - e^eps U0,
    (1 - U0) - e^eps (1 - L1), (1 - U1) - e^eps (1 - L0))``, valid jointly with
    probability ``>= confidence``. Use it for mechanisms whose delta is
    tight on some pair (e.g. the padding of sparse selection), where the
    epsilon audit sees nothing.

    Parameters
    ----------
    mechanism, dataset0, dataset1, event, n_trials, random_state, confidence, batch
        As in :func:`audit_epsilon`.
    epsilon : float
        The claimed epsilon, >= 0.

    Returns
    -------
    DeltaAuditResult
    """
    n_trials, confidence, _, batch = _check_common(mechanism, n_trials, confidence, 0.0, batch)
    epsilon = check_nonnegative(epsilon, "epsilon")
    count0, count1 = _event_counts(mechanism, dataset0, dataset1, event, n_trials,
                                   random_state, batch)
    tail = (1.0 - confidence) / 4.0
    l0, u0 = _clopper_pearson(count0, n_trials, tail)
    l1, u1 = _clopper_pearson(count1, n_trials, tail)
    factor = np.exp(epsilon)
    bounds = np.array([
        l0 - factor * u1, l1 - factor * u0,
        (1 - u0) - factor * (1 - l1), (1 - u1) - factor * (1 - l0),
    ], dtype=float)
    best = int(np.argmax(bounds))
    return DeltaAuditResult(float(max(0.0, bounds[best])), count0, count1, n_trials,
                            confidence, epsilon, _DIRECTIONS[best])
