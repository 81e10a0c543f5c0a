"""Exact samplers for selection with integer scores: no floating point.

Both samplers work with the exact rationals ``gamma_r = eps (s* - s_r) /
(2 Delta)`` (``eps/Delta`` when monotonic), where ``s*`` is the largest
score, and decide every Bernoulli(exp(-gamma_r)) with the integer-only
algorithm of Canonne, Kamath & Steinke (2020, Algorithm 1). ``epsilon`` and
``sensitivity`` are used as the exact rationals ``Fraction(epsilon)``,
``Fraction(sensitivity)`` (exact for binary floats); scores must be integers
(e.g. counts, numbers of correct predictions). Every output is an exact
function of uniform integer draws (``rng.integers``), so the output law is
exactly the stated mechanism's and its pure ``epsilon``-DP guarantee holds
for the implementation, not only for an idealised real-valued sampler.
"""

import math
from fractions import Fraction

import numpy as np

from .._validation import check_epsilon
from ._common import check_rng, check_scores, check_selection_inputs, check_sensitivity
from ._discrete import ExpMinusTable, survivors_exp_minus_one

__all__ = ["exact_exponential_mechanism", "permute_and_flip"]

# Largest number of Bernoulli trials held in memory at once.
_CHUNK_ELEMENTS = 1 << 22
# Scores are kept in int64 with room for differences.
_MAX_ABS_SCORE = 2 ** 61
# A table entry per gap below the far gap up to this many entries; beyond, per distinct gap.
_DENSE_TABLE = 1 << 12
# permute_and_flip visits candidates one by one when about this many coins are expected heads.
_FEW_VISITS = 8
# Coins with gamma >= this are decided by their first 64 Bernoulli(exp(-1)) trials.
_FAR_GAMMA = 64


def _check_integer_scores(scores, name="scores"):
    """Return integer-valued ``scores`` as a non-empty 1-D int64 array."""
    arr = np.asarray(scores)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(
            f"{name} must be a 1-D array of integers (e.g. counts), got dtype "
            f"{arr.dtype}; use exponential_mechanism for real-valued scores."
        )
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-D array (one score per candidate), got "
            f"shape {arr.shape}."
        )
    if arr.dtype.kind == "f" and (
        not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr))
    ):
        raise ValueError(
            f"{name} must be integer-valued for the exact samplers; use "
            "exponential_mechanism for real-valued scores."
        )
    if max(-int(arr.min()), int(arr.max())) >= _MAX_ABS_SCORE:  # exact: 2^61 - 1 passes
        raise ValueError(f"{name} must be smaller than 2^61 in magnitude.")
    return arr.astype(np.int64, copy=False)


class _SelectionCoins:
    """Exact Bernoulli(exp(-gamma_r)) coins, ``gamma_r = eps (s* - s_r)/(c Delta)``.

    With ``eps = a/b`` and ``Delta = e/f``, ``gamma_r = gap_r A / d`` for the
    integers ``A = a f`` and ``d = c b e``. Only candidates with
    ``gamma_r < 64`` (``gap_r < ceil(64 d / A)``, decided exactly) get a
    table entry; for the others the coin is "64 Bernoulli(exp(-1)) trials
    succeed" AND Bernoulli(exp(-(gamma_r - 64))), and the second factor is
    computed only in the (probability ``e^-64``) event that the first holds.
    """

    def __init__(self, scores, epsilon, sensitivity, monotonic):
        eps, delta = Fraction(epsilon), Fraction(sensitivity)
        self.numerator = eps.numerator * delta.denominator
        self.denominator = (1 if monotonic else 2) * eps.denominator * delta.numerator
        self.gaps = scores.max() - scores
        far_gap = -(-_FAR_GAMMA * self.denominator // self.numerator)
        near = self.gaps < far_gap
        if far_gap <= _DENSE_TABLE:
            distinct, self.entry = np.arange(far_gap), np.where(near, self.gaps, -1)
        else:
            distinct, inverse = np.unique(self.gaps[near], return_inverse=True)
            self.entry = np.full(scores.size, -1, dtype=np.int64)
            self.entry[near] = inverse.ravel()
        self.distinct = distinct
        self.table = ExpMinusTable.from_rationals(
            distinct.astype(object) * self.numerator, self.denominator
        )

    def acceptance_estimate(self):
        """Float estimate of the mean coin probability (performance only)."""
        try:
            rate = self.numerator / self.denominator
        except OverflowError:  # epsilon / sensitivity past the float range
            rate = math.inf
        # per table entry; the far coins add less than e^-64 each
        counts = np.bincount(self.entry[self.entry >= 0], minlength=self.distinct.size)
        with np.errstate(over="ignore", invalid="ignore"):
            gamma = np.where(self.distinct == 0, 0.0, self.distinct * rate)
        return float(counts @ np.exp(-np.minimum(gamma, 745.0))) / self.gaps.size

    def flip(self, candidates, rng):
        """One exact coin per entry of the int array ``candidates`` (``None``: all)."""
        entry = self.entry if candidates is None else self.entry[candidates]
        near = entry >= 0
        heads = np.zeros(entry.size, dtype=bool)
        heads[near] = self.table.bernoulli(entry[near], rng)
        far = np.flatnonzero(~near)
        for i in far[survivors_exp_minus_one(far.size, _FAR_GAMMA, rng)]:
            candidate = i if candidates is None else candidates[i]
            rest = int(self.gaps[candidate]) * self.numerator - _FAR_GAMMA * self.denominator
            heads[i] = ExpMinusTable.from_rationals([rest], self.denominator).bernoulli(
                np.zeros(1, dtype=np.int64), rng
            )[0]
        return heads


def pick_uniform_true(accepted, rng):
    """Per row of the boolean matrix ``accepted``, a uniform column among the Trues."""
    rows, columns = np.nonzero(accepted)  # row-major: each row's Trues are contiguous
    counts = np.bincount(rows, minlength=accepted.shape[0])
    rank = rng.integers(0, counts)  # every row has at least one True
    return columns[np.cumsum(counts) - counts + rank]


def permute_and_flip(scores, epsilon, sensitivity, rng, monotonic=False, size=None):
    """Permute-and-flip selection with exact integer arithmetic.

    Visit the candidates in a uniformly random order and stop at the first
    ``r`` whose coin ``Bernoulli(exp(eps (s_r - s*) / (2 Delta)))`` comes up
    heads (``eps/Delta`` when monotonic); the best candidate always stops
    it. The coins are independent of the order, so the output is a uniform
    choice among the candidates whose coins are heads, which is how it is
    drawn here (all coins at once, vectorised). ``epsilon``-DP when each
    integer score changes by at most ``sensitivity`` between neighbours
    (McKenna & Sheldon 2020, Thm 1), and never worse in expected score than
    the exponential mechanism. It is the law of report-noisy-max with
    exponential noise (Ding et al. 2021), i.e.
    ``report_noisy_max(..., noise="exponential")`` without floating point.

    Parameters
    ----------
    scores : array-like of int, shape (n_candidates,)
        Integer utilities (higher is better), ``|s| < 2^61``.
    epsilon : float
        ``> 0``, used as the exact rational ``Fraction(epsilon)``.
    sensitivity : float
        ``> 0``: the largest change of any score between neighbours.
    rng : numpy.random.Generator
    monotonic : bool, default=False
        ``eps/Delta`` instead of ``eps/(2 Delta)``; only for monotone scores.
    size : int, optional
        Number of independent draws (for audits); each is one
        ``epsilon``-DP release.

    Returns
    -------
    index : int or ndarray of shape (size,)

    References
    ----------
    McKenna & Sheldon, "Permute-and-Flip: A new mechanism for differentially
    private selection", NeurIPS 2020, arXiv:2010.12603. Ding, Kifer, Sam,
    Steinke, Wang, Xiao, Zhang, "The permute-and-flip mechanism is identical
    to report-noisy-max with exponential noise", arXiv:2105.07260, 2021.
    Canonne, Kamath & Steinke, NeurIPS 2020, arXiv:2004.00010, Algorithm 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms import permute_and_flip
    >>> permute_and_flip([0, 50, 1], 1.0, 1.0, np.random.default_rng(0))
    1
    """
    scores, epsilon, sensitivity, rng, monotonic, size = check_selection_inputs(
        scores, epsilon, sensitivity, rng, monotonic, size, _check_integer_scores
    )
    coins = _SelectionCoins(scores, epsilon, sensitivity, monotonic)
    n = scores.size
    if size is None:
        acceptance = coins.acceptance_estimate()
        if n * acceptance >= _FEW_VISITS:
            return _first_head_in_random_order(coins, n, acceptance, rng)
    n_draws = 1 if size is None else size
    out = np.empty(n_draws, dtype=np.int64)
    rows = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, n_draws, rows):
        stop = min(n_draws, start + rows)
        candidates = None if stop - start == 1 else np.tile(np.arange(n), stop - start)
        heads = coins.flip(candidates, rng)
        out[start:stop] = pick_uniform_true(heads.reshape(stop - start, n), rng)
    return int(out[0]) if size is None else out


def _first_head_in_random_order(coins, n, acceptance, rng):
    """Permute-and-flip as its definition reads: visit in random order, stop at a head.

    The candidates in order of first appearance in i.i.d. uniform proposals
    form a uniformly random order; each coin is flipped when its candidate
    is first visited. Visits come in rounds of doubling size; cheap when
    many coins are likely heads (about ``n / (heads + 1)`` visits).
    """
    visited = np.zeros(n, dtype=bool)
    batch = max(16, int(4 / acceptance))
    while True:
        proposals = rng.integers(0, n, size=batch)
        fresh, first = np.unique(proposals, return_index=True)
        order = np.argsort(first)
        fresh = fresh[order][~visited[fresh[order]]]
        heads = coins.flip(fresh, rng)
        if heads.any():
            return int(fresh[np.argmax(heads)])
        visited[fresh] = True
        batch *= 2


def rational_permute_and_flip(scores, epsilon, sensitivity, rng):
    """Permute-and-flip over real scores read as exact rationals; ``epsilon``-DP.

    As :func:`permute_and_flip` (one draw, ``epsilon/(2 Delta)``), for
    finite float scores that need not be integers (e.g. sums of per-row
    utilities in ``[0, 1]``): every float is an exact rational, so every
    ``gamma_r = eps (s* - s_r) / (2 Delta)`` is one, and its coin
    ``Bernoulli(exp(-gamma_r))`` is drawn exactly by :class:`ExpMinusTable`
    (integer arithmetic over the common denominator of the ``gamma_r``).
    The output is a uniform choice among the heads (the best candidate is
    always heads), the law of visiting the candidates in a random order and
    stopping at the first head.

    Parameters
    ----------
    scores : array-like of float, shape (n_candidates,)
        Finite; each changes by at most ``sensitivity`` between neighbours.
    epsilon, sensitivity : float
        ``> 0``, used as the exact rationals ``Fraction(epsilon)``,
        ``Fraction(sensitivity)``.
    rng : numpy.random.Generator
        The privacy-noise stream.

    Returns
    -------
    int

    References
    ----------
    McKenna & Sheldon, "Permute-and-Flip: A new mechanism for differentially
    private selection", NeurIPS 2020, arXiv:2010.12603, Algorithm 1 and
    Theorem 1. Canonne, Kamath & Steinke, "The Discrete Gaussian for
    Differential Privacy", NeurIPS 2020, arXiv:2004.00010, Algorithm 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms._exact_selection import rational_permute_and_flip
    >>> rational_permute_and_flip([0.25, 40.5, 1.0], 1.0, 1.0, np.random.default_rng(0))
    1
    """
    scores = check_scores(scores)
    rate = Fraction(check_epsilon(epsilon)) / (2 * Fraction(check_sensitivity(sensitivity)))
    rng = check_rng(rng)
    exact = [Fraction(s) for s in scores.tolist()]
    best = max(exact)
    gammas = [rate * (best - s) for s in exact]
    denominator = math.lcm(*(g.denominator for g in gammas))
    numerators = [g.numerator * (denominator // g.denominator) for g in gammas]
    heads = ExpMinusTable.from_rationals(numerators, denominator).bernoulli(
        np.arange(scores.size), rng)
    return int(pick_uniform_true(heads[None, :], rng)[0])


def _proposals_per_round(coins):
    """Proposals per pending draw and round: about the expected number needed.

    Only a performance choice; the output law does not depend on it.
    """
    acceptance = max(coins.acceptance_estimate(), 1e-300)
    return int(min(_CHUNK_ELEMENTS, max(1, np.ceil(1.0 / acceptance))))


def exact_exponential_mechanism(
    scores, epsilon, sensitivity, rng, monotonic=False, size=None
):
    """The exponential mechanism for integer scores, sampled exactly.

    Outputs candidate ``r`` with probability exactly
    ``exp(eps s_r / (2 Delta)) / Z`` (``eps s_r / Delta`` when monotonic):
    propose ``r`` uniformly at random and accept it with probability
    ``exp(-eps (s* - s_r) / (2 Delta))`` (an exact integer-arithmetic
    Bernoulli trial), repeat until a proposal is accepted. Accepted
    proposals have law ``∝ exp(eps s_r / (2 Delta))``. ``epsilon``-DP when
    each score changes by at most ``sensitivity`` between neighbours
    (McSherry & Talwar 2007), and — unlike the Gumbel-max sampler of
    :func:`exponential_mechanism` — the guarantee holds for the
    implementation (no floating point).

    The expected number of proposals per draw is
    ``n exp(eps s*/(2 Delta)) / Z <= n``; proposals are drawn in vectorised
    rounds. For many candidates with one dominant score,
    :func:`permute_and_flip` (``O(n)`` per draw, at least as accurate, also
    ``epsilon``-DP) is the cheaper exact choice.

    Parameters
    ----------
    scores : array-like of int, shape (n_candidates,)
    epsilon : float
    sensitivity : float
    rng : numpy.random.Generator
    monotonic : bool, default=False
    size : int, optional
        Number of independent draws (for audits).

    Returns
    -------
    index : int or ndarray of shape (size,)

    References
    ----------
    McSherry & Talwar, "Mechanism design via differential privacy", FOCS
    2007. Canonne, Kamath & Steinke, NeurIPS 2020, arXiv:2004.00010,
    Algorithm 1 (exact Bernoulli(exp(-gamma))).

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms import exact_exponential_mechanism
    >>> exact_exponential_mechanism([0, 50, 1], 1.0, 1.0, np.random.default_rng(0))
    1
    """
    scores, epsilon, sensitivity, rng, monotonic, size = check_selection_inputs(
        scores, epsilon, sensitivity, rng, monotonic, size, _check_integer_scores
    )
    coins = _SelectionCoins(scores, epsilon, sensitivity, monotonic)
    n = scores.size
    per_round = _proposals_per_round(coins)
    n_draws = 1 if size is None else size
    out = np.empty(n_draws, dtype=np.int64)
    pending = np.arange(n_draws)
    while pending.size:
        rows = pending[: max(1, _CHUNK_ELEMENTS // per_round)]
        proposals = rng.integers(0, n, size=(rows.size, per_round))
        accepted = coins.flip(proposals.ravel(), rng)
        accepted = accepted.reshape(rows.size, per_round)
        done = accepted.any(axis=1)
        first = np.argmax(accepted, axis=1)
        out[rows[done]] = proposals[done, first[done]]
        pending = np.concatenate([rows[~done], pending[rows.size:]])
    return int(out[0]) if size is None else out
