"""(epsilon, delta)-DP sparse selection over an unbounded universe.

Ghazi, Golowich, Kumar & Manurangsi, "Sample-efficient proper PAC learning
with approximate differential privacy", STOC 2021, arXiv:2012.03893, §5.2
(Definition 5.1, Proposition 5.6), after Ghazi, Kumar & Manurangsi,
NeurIPS 2020, Lemma 36.
"""

import itertools
from collections import Counter

import numpy as np
from scipy.special import logsumexp

from .._validation import check_delta, check_epsilon, check_positive_int
from ._common import check_rng, check_size

__all__ = ["sparse_selection"]


def sparse_selection_log_padding(max_set_size, epsilon, delta):
    """Log of the number ``K`` of dummy zero-score candidates (derivation below).

    ``K = ceil(l e^{eps/2} max((1 - delta)/delta, 1/(e^{eps/2} - 1)))``,
    returned as ``log K`` (computed in log space when ``K`` exceeds 2^50, where
    the ceiling is immaterial at double precision). The returned log is
    nudged up by ``1e-12 max(1, log K)`` so that its rounding (~1e-16
    relative) can never make the sampler use fewer than ``K`` dummies.
    """
    half = 0.5 * epsilon
    log_a = np.log1p(-delta) - np.log(delta)  # log((1 - delta)/delta)
    # log(1/(e^{eps/2} - 1)), without overflow for large eps
    log_b = -np.log(np.expm1(half)) if half < 30 else -(half + np.log1p(-np.exp(-half)))
    log_k = np.log(max_set_size) + half + max(log_a, log_b)
    if log_k < 50 * np.log(2):
        # tiny upward nudge: rounding in exp must never lower K
        log_k = np.log(np.ceil(np.exp(log_k) * (1.0 + 1e-12)))
    # and rounding in log (or in the log-space sum above) must not either
    return float(log_k + 1e-12 * max(1.0, abs(log_k)))


def _count_candidates(user_sets, max_set_size, oversized):
    """Return ``(candidates, counts)``: each candidate's number of users."""
    if isinstance(user_sets, (str, bytes)) or not hasattr(user_sets, "__iter__"):
        raise TypeError(
            "user_sets must be a list with one iterable of hashable candidates "
            f"per user, got {type(user_sets).__name__}."
        )
    per_user = []
    for i, user in enumerate(user_sets):
        if isinstance(user, (str, bytes)) or not hasattr(user, "__iter__"):
            raise TypeError(
                f"user_sets[{i}] must be an iterable of hashable candidates (e.g. a "
                f"set or list), got {type(user).__name__}."
            )
        try:
            distinct = list(dict.fromkeys(user))  # dedupe, keep order
        except TypeError:
            raise TypeError(
                f"user_sets[{i}] contains an unhashable candidate; candidates must "
                "be hashable (e.g. tuples, ints, strings)."
            ) from None
        if len(distinct) > max_set_size:
            if oversized == "raise":
                raise ValueError(
                    f"user_sets[{i}] has {len(distinct)} distinct candidates > "
                    f"max_set_size={max_set_size}; raise max_set_size (a public "
                    "bound) or pass oversized='truncate'."
                )
            distinct = distinct[:max_set_size]
        per_user.append(distinct)
    counts = Counter(itertools.chain.from_iterable(per_user))
    candidates = list(counts.keys())
    try:
        # A canonical order makes seeded draws reproducible across processes
        # (set iteration order of strings depends on PYTHONHASHSEED).
        candidates.sort()
    except TypeError:  # candidates not mutually orderable: keep first-seen order
        pass
    return candidates, np.array([counts[c] for c in candidates], dtype=float)


def _log_weights(counts, epsilon, log_padding):
    """Log-weights of the candidates and (last) the aggregated dummies, max-shifted.

    Counts are shifted by their maximum before scaling, so no finite
    ``epsilon`` can overflow; vanishing weights become ``-inf`` (probability 0).
    """
    top = counts.max() if counts.size else 0.0
    with np.errstate(over="ignore"):
        log_weights = np.append(0.5 * epsilon * (counts - top), log_padding - 0.5 * epsilon * top)
    return log_weights - log_weights.max()


def _sparse_selection_log_probabilities(counts, epsilon, log_padding):
    """Exact log-probabilities: the candidates, then the fallback (last entry)."""
    log_weights = _log_weights(counts, epsilon, log_padding)
    return log_weights - logsumexp(log_weights)


def _sparse_selection_sample(counts, epsilon, log_padding, rng, size):
    """Indices into ``counts`` (``len(counts)`` means a dummy was drawn).

    Gumbel-max over the real candidates plus ONE aggregated dummy entry of
    log-weight ``log K``: the maximum of ``K`` i.i.d. standard Gumbels is a
    Gumbel located at ``log K``, so this is exactly the exponential mechanism
    over the ``K`` materialised dummies.
    """
    log_weights = _log_weights(counts, epsilon, log_padding)
    n = log_weights.shape[0]
    if size is None:
        return int(np.argmax(log_weights + rng.gumbel(size=n)))
    out = np.empty(size, dtype=np.intp)
    rows = max(1, (1 << 22) // n)
    for start in range(0, size, rows):
        stop = min(size, start + rows)
        noise = rng.gumbel(size=(stop - start, n))
        noise += log_weights
        out[start:stop] = np.argmax(noise, axis=1)
    return out


def sparse_selection(
    user_sets,
    max_set_size,
    epsilon,
    delta,
    rng,
    fallback=None,
    oversized="truncate",
    size=None,
):
    """Select a candidate contained in many users' sets, (epsilon, delta)-DP.

    Each of ``m`` users holds a set ``S_i`` of at most ``l = max_set_size``
    candidates from an arbitrary (possibly infinite) universe; neighbouring
    inputs replace one user's set. The mechanism is the exponential
    mechanism with score ``s(u) = |{i : u in S_i}|`` (sensitivity 1) over the
    union ``U = S_1 u ... u S_m`` padded with ``K`` dummy candidates of score
    0; a drawn dummy returns ``fallback``. Output law::

        P(u) = e^{eps s(u)/2} / Z,  P(fallback) = K / Z,
        Z = K + sum_{u in U} e^{eps s(u)/2}.

    The dummies are never materialised: they enter the Gumbel-max draw as
    one entry of log-weight ``log K`` (exact, see below), so ``K ~ 10^12``
    costs nothing. This is the algorithm of Ghazi, Golowich, Kumar &
    Manurangsi (STOC 2021), §5.2, Proposition 5.6 ([GKM20], Lemma 36); its error is
    ``O(log(m l / (eps delta beta)) / eps)`` w.p. ``1 - beta``.

    **Padding, derived from the privacy proof.** Let ``D, D'`` differ in user
    ``i`` (``S_i -> S_i'``), write ``a = e^{eps/2}``. Every count moves by at
    most 1, so for ``u`` in both unions ``w_{D'}(u) <= a w_D(u)``. At most
    ``l`` candidates (those of ``S_i'``) are new in ``U(D')``, each of
    weight ``a``. Hence ``Z(D') <= K + a (Z(D) - K) + l a``, and
    ``Z(D') <= a Z(D)`` holds whenever ``K + l a <= a K``, i.e.
    ``K >= l a / (a - 1)`` (condition 1). Then for every output ``o`` that is
    possible under both inputs (the fallback, or ``u`` in both unions),
    ``P_D(o) / P_{D'}(o) <= a * a = e^eps``. The only outputs with
    ``P_{D'}(o) = 0`` are the ``b <= l`` candidates ``u in S_i`` held by no
    other user (count 1, weight ``a``); their total mass under ``D`` is
    ``b a / Z(D) <= b a / (K + b a) <= l a / (K + l a)``, which is ``<= delta``
    iff ``K >= l a (1 - delta) / delta`` (condition 2). With
    ``P_D(E) <= e^eps P_{D'}(E \\ bad) + P_D(bad)`` this gives
    (epsilon, delta)-DP, so we take::

        K = ceil( l e^{eps/2} * max((1 - delta)/delta, 1/(e^{eps/2} - 1)) ).

    Condition 2 is tight: for ``D`` where user ``i`` alone holds ``l``
    candidates and everybody else holds nothing, and ``D'`` where all sets
    are empty, the hockey-stick divergence equals ``l a / (K + l a)``
    exactly, so a smaller ``K`` is not ``delta``-private (tested).

    Parameters
    ----------
    user_sets : list of iterables
        One iterable of hashable candidates per user (duplicates within a
        user count once).
    max_set_size : int
        Public bound ``l`` on each user's set size, >= 1.
    epsilon : float
        > 0.
    delta : float
        In (0, 1).
    rng : numpy.random.Generator
    fallback : object, default=None
        Returned when a dummy candidate is drawn.
    oversized : {"truncate", "raise"}, default="truncate"
        What to do with a user's set larger than ``max_set_size``:
        ``"truncate"`` it to its first ``max_set_size`` distinct elements (a
        per-user map, so privacy is kept without revealing anything through
        an error), or ``"raise"`` a ``ValueError`` (an error whose occurrence
        depends on one user's data: use it only to debug a pipeline on
        public data).
    size : int, optional
        Number of independent draws (returns a list). Each draw is one
        ``(epsilon, delta)``-DP release; all ``size`` draws together cost
        ``size`` times as much (composition). Meant for audits.

    Seeded draws are reproducible across processes when the candidates are
    mutually orderable (they are sorted internally); otherwise they follow
    the iteration order of ``user_sets``.

    Returns
    -------
    candidate : object or list
        A candidate from the union, or ``fallback``.

    Notes
    -----
    Floating-point caveat: Gumbel-max in doubles samples the stated law only
    approximately (see :data:`sksmooth.mechanisms.FLOAT_SELECTION_NOTE`);
    the guarantee is that of the idealised real-valued mechanism.

    References
    ----------
    Ghazi, Golowich, Kumar, Manurangsi, "Sample-efficient proper PAC
    learning with approximate differential privacy", STOC 2021,
    arXiv:2012.03893, §5.2.
    [GKM20] Ghazi, Kumar, Manurangsi, "Differentially private clustering:
    tight approximation ratios", NeurIPS 2020, Lemma 36.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms import sparse_selection
    >>> users = [{"a", "b"}] * 200 + [{"b"}] * 50 + [{"c"}] * 5
    >>> sparse_selection(users, max_set_size=2, epsilon=1.0, delta=1e-6,
    ...                  rng=np.random.default_rng(0))
    'b'
    """
    max_set_size = check_positive_int(max_set_size, "max_set_size")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    rng = check_rng(rng)
    size = check_size(size)
    if oversized not in ("raise", "truncate"):
        raise ValueError(
            f"oversized must be 'raise' or 'truncate', got {oversized!r}."
        )
    candidates, counts = _count_candidates(user_sets, max_set_size, oversized)
    log_padding = sparse_selection_log_padding(max_set_size, epsilon, delta)
    index = _sparse_selection_sample(counts, epsilon, log_padding, rng, size)
    if size is None:
        return candidates[index] if index < len(candidates) else fallback
    lookup = np.empty(len(candidates) + 1, dtype=object)
    lookup[: len(candidates)] = candidates
    lookup[-1] = fallback
    return lookup[index].tolist()
