"""PolyPriLearn (Alg. 2), the Lemma 6.2 minimax set, GenericLearner and
PolyPriPropLearn (Alg. 3) for finite classes on finite domains.

Privacy is stated for *substitution* neighbours (datasets of the same size
``n`` differing in one example), as in Ghazi et al. 2021, Def. 2.2. The algorithm
splits the sample (after a data-independent random permutation) into
disjoint parts: ``n_chunks`` users of PolyPriLearn and a fresh part for
GenericLearner. One example lies in exactly one part, so the release is
``(epsilon, delta)``-DP (sparse selection on the users' sets, Prop. 5.6) and
GenericLearner's ``(epsilon, 0)`` touches other examples (Thm 6.4, proof).
Everything between the two private steps (the minimax set ``H``) depends
only on the privately selected ``SOA`` vector and the public class
(post-processing).

References
----------
Ghazi, Golowich, Kumar, Manurangsi, "Sample-efficient proper PAC learning with
approximate differential privacy", STOC 2021, arXiv:2012.03893, §5.2 (Def. 5.1, Prop. 5.6), §5.3 (Alg. 2,
Thm 5.7), §6 (Lemma 6.1, Lemma 6.2), §6.1 (Lemma 6.3, Alg. 3, Thm 6.4).
"""

import math

import numpy as np
from scipy.optimize import linprog

from ...mechanisms import exact_exponential_mechanism, sparse_selection
from ._reduce_tree import reduce_tree

__all__ = [
    "minimax_set",
    "generic_learner",
    "poly_pri_learn",
    "poly_pri_prop_learn",
    "theoretical_sample_size",
    "resolve_parameters",
]


def minimax_set(oracle, target, size, rng):
    """The small set ``H`` of Lemma 6.2 for the target function ``SOA_G``.

    Solves the zero-sum game ``min_{D in Delta(F)} max_{x} P_{h~D}[h(x) !=
    target(x)]`` as a linear program (``scipy.optimize.linprog``, HiGHS)
    and draws ``size`` hypotheses i.i.d. from the optimal ``D`` (the proof of
    Lemma 6.2 samples ``m = ceil(C0 d* / alpha^2)`` of them).

    Parameters
    ----------
    oracle : LittlestoneOracle
    target : ndarray of shape (n_points,)
        Values in ``{-1, +1}`` (e.g. the output of PolyPriLearn).
    size : int
        Number of i.i.d. draws from ``D``.
    rng : numpy.random.Generator

    Returns
    -------
    indices : ndarray of int
        Sorted distinct row indices of ``H``.
    game_value : float
        ``min_D max_x P_{h~D}[h(x) != target(x)]`` (Lemma 6.1 bounds it by
        ``alpha`` when ``target = SOA_G`` with ``G`` highly irreducible).
    distribution : ndarray of shape (n_hypotheses,)
        The optimal ``D``.
    """
    K, N = oracle.n_hypotheses, oracle.n_points
    disagree = (oracle.matrix.T != (np.asarray(target) > 0)[:, None]).astype(float)
    c = np.zeros(K + 1)
    c[-1] = 1.0
    a_ub = np.hstack([disagree, -np.ones((N, 1))])
    a_eq = np.ones((1, K + 1))
    a_eq[0, -1] = 0.0
    bounds = [(0.0, None)] * K + [(None, None)]
    res = linprog(
        c, A_ub=a_ub, b_ub=np.zeros(N), A_eq=a_eq, b_eq=[1.0], bounds=bounds,
        method="highs",
    )
    if not res.success:  # pragma: no cover - the LP is always feasible and bounded
        raise RuntimeError(f"Lemma 6.2 linear program failed: {res.message}")
    dist = np.clip(res.x[:K], 0.0, None)
    dist /= dist.sum()
    draws = rng.choice(K, size=int(size), p=dist)
    return np.unique(draws), float(res.x[-1]), dist


def generic_learner(oracle, candidates, x_idx, y, epsilon, rng):
    """GenericLearner (Lemma 6.3, [KLN+08]) over a finite candidate set.

    Exponential mechanism with score ``-#errors`` on the sample, sensitivity
    1. Under substitution neighbours the scores of two candidates can move in
    opposite directions, so the non-monotonic calibration
    ``exp(epsilon * score / 2)`` is used: ``(epsilon, 0)``-DP, for the
    implementation too (integer scores, sampled exactly).

    Returns the selected row index of the class.
    """
    candidates = np.asarray(candidates)
    if len(x_idx):
        wrong = oracle.matrix[np.ix_(candidates, x_idx)] != (np.asarray(y) > 0)[None, :]
        scores = -wrong.sum(axis=1).astype(np.int64)
    else:
        scores = np.zeros(len(candidates), dtype=np.int64)
    j = exact_exponential_mechanism(scores, epsilon, 1, rng, monotonic=False)
    return int(candidates[int(j)])


def poly_pri_learn(
    oracle, x_idx, y, *, epsilon, delta, n_chunks, alpha_delta, k_prime,
    max_set_size, rng, d=None,
):
    """PolyPriLearn (Alg. 2, Ghazi et al. 2021 §5.3) on disjoint chunks.

    Runs ReduceTree on ``n_chunks`` disjoint chunks of the sample (the users
    of sparse selection) and selects, with sparse selection (§5.2), an SOA
    vector that lies in many users' sets. Each user's set is truncated to its
    ``max_set_size`` candidates of smallest empirical error on the user's own
    chunk (a function of that user's data only, so privacy is unaffected;
    Alg. 2 instead takes the Lemma 5.5 bound as the set size, under which
    truncation never happens).

    Returns
    -------
    values : ndarray of int8, shape (n_points,)
        The selected hypothesis ``f_hat`` on the domain. When sparse selection
        draws a dummy candidate, the public fallback ``SOA_F`` is returned.
    from_fallback : bool
        Whether the fallback was returned (a private output: it is a function
        of the mechanism's output only).
    """
    if d is None:
        d = oracle.ldim()
    chunks = np.array_split(np.arange(len(x_idx)), n_chunks)
    user_sets, table = [], {}
    for chunk in chunks:
        cands, _ = reduce_tree(oracle, x_idx[chunk], y[chunk], alpha_delta, k_prime, d)
        if len(cands) > max_set_size:
            xs, ys = x_idx[chunk], np.asarray(y[chunk])
            errs = np.array([np.count_nonzero(c[xs] != ys) for c in cands])
            order = np.argsort(errs, kind="stable")[:max_set_size]
            cands = [cands[i] for i in order]
        keys = []
        for c in cands:
            key = c.tobytes()
            table[key] = c
            keys.append(key)
        user_sets.append(keys)
    fallback = object()
    key = sparse_selection(user_sets, max_set_size, epsilon, delta, rng, fallback=fallback)
    if key is fallback or key not in table:
        return oracle.soa().astype(np.int8), True
    return table[key], False


def poly_pri_prop_learn(
    oracle, x_idx, y, *, epsilon, delta, n_generic, n_chunks, alpha_delta,
    k_prime, max_set_size, h_size, rng, d=None,
):
    """PolyPriPropLearn (Alg. 3, Ghazi et al. 2021 §6.1): a proper private learner.

    The first ``n - n_generic`` examples (in the given order; callers permute
    them with a data-independent permutation) feed PolyPriLearn, the last
    ``n_generic`` feed GenericLearner over the Lemma 6.2 set ``H``.

    Returns
    -------
    index : int
        Row of the selected hypothesis (always a member of the class).
    details : dict
        ``soa_values`` (the private output of PolyPriLearn), ``from_fallback``,
        ``candidate_indices`` (``H``) and ``game_value``: all functions of the
        private outputs only, safe to release.
    """
    n = len(x_idx)
    n_learn = n - n_generic
    if d is None:
        d = oracle.ldim()
    f_hat, from_fallback = poly_pri_learn(
        oracle, x_idx[:n_learn], y[:n_learn], epsilon=epsilon, delta=delta,
        n_chunks=n_chunks, alpha_delta=alpha_delta, k_prime=k_prime,
        max_set_size=max_set_size, rng=rng, d=d,
    )
    candidates, game_value, _ = minimax_set(oracle, f_hat, h_size, rng)
    index = generic_learner(
        oracle, candidates, x_idx[n_learn:], y[n_learn:], epsilon, rng
    )
    return index, {
        "soa_values": f_hat,
        "from_fallback": from_fallback,
        "candidate_indices": candidates,
        "game_value": game_value,
    }


def theoretical_sample_size(d_littlestone, d_vc, epsilon, delta, alpha, beta, constant=1.0):
    """Sample size of Theorem 6.4 (Ghazi et al. 2021, eq. (30)).

    ``n = C * d_L^5 * d_V * log^2(d_L / (epsilon delta alpha beta)) /
    (epsilon alpha^2)`` where ``alpha`` is the target error (``eta`` in the
    paper). The paper proves the bound for *some* absolute constant ``C``
    that it does not specify; ``constant`` (default 1) is that ``C``, so the
    number is the theorem's rate, not a certified constant. ``d_L`` is
    replaced by ``max(d_L, 1)`` inside the logarithm and the power.

    Parameters
    ----------
    d_littlestone, d_vc : int
        Littlestone and VC dimension of the class (``d_V <= d_L``; passing
        ``d_L`` for both gives an upper bound).
    epsilon, delta, alpha, beta : float
        Privacy parameters, target error and failure probability, in (0, 1)
        except ``epsilon`` (any positive value).
    constant : float
        The unspecified constant ``C`` of the theorem.

    Returns
    -------
    int, or ``math.inf`` when the rate exceeds ``e^700`` (extreme parameters)
    """
    for name, value in (("delta", delta), ("alpha", alpha), ("beta", beta)):
        if not 0 < value < 1:
            raise ValueError(f"{name} must lie in (0, 1), got {value!r}.")
    if not epsilon > 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon!r}.")
    d_l = max(int(d_littlestone), 1)
    d_v = max(int(d_vc), 1)
    # in log space: the product epsilon * delta * alpha * beta may underflow
    log_term = math.log(d_l) - math.log(epsilon) - math.log(delta) - math.log(alpha) - math.log(beta)
    if log_term == 0.0:
        return 0
    log_n = (math.log(constant) + 5 * math.log(d_l) + math.log(d_v)
             + 2 * math.log(abs(log_term)) - math.log(epsilon) - 2 * math.log(alpha))
    if log_n > 700:
        return math.inf
    return int(math.ceil(math.exp(log_n) * (1 - 1e-12)))


def _ceil_capped(value, cap):
    """``ceil(value)`` capped at ``cap`` (``value`` may be ``inf``)."""
    return int(cap) if not value < cap else int(math.ceil(value))


def resolve_parameters(
    n, *, d, n_hypotheses, n_points, epsilon, delta, alpha, beta,
    n_generic="auto", n_chunks="auto", alpha_delta="auto", k_prime="auto",
    max_set_size="auto", h_size="auto",
):
    """Resolve the ``'auto'`` internals of PolyPriPropLearn from public inputs.

    Every rule uses only public quantities (``n``, ``d = Ldim(F)``, ``|F|``,
    ``|X|``, ``epsilon``, ``delta``, ``alpha``, ``beta``), so the choices are
    data independent (SPEC §1, principle 3). Constants of the theorems that
    the paper leaves unspecified (``C``, ``C0``) are taken to be 1.

    * ``alpha_delta = alpha / (4 (d + 3))``: Alg. 3 runs PolyPriLearn with
      target ``alpha / 4`` and Alg. 2 needs ``(d + 3) alpha_delta < eta``.
    * ``k_prime = max(ceil(n0 (d + 3) alpha_delta), ceil(64 C0 d / (alpha/4)^2))``
      (Alg. 2, step 1).
    * ``h_size = ceil(C0 d* / (alpha/8)^2)`` with the dual VC bound
      ``d* <= floor(log2 |X|)`` (Lemma 6.2 with ``alpha/8``, Thm 6.4 proof),
      capped at 10^6 draws.
    * ``n_generic = min(floor(n/2), ceil(4 (ln min(h_size, |F|) + ln(2/beta)) /
      (alpha epsilon)))`` (Lemma 6.3 rate with constant 4).
    * ``max_set_size = 2 (d + 1)``: a practical cap on each user's set (the
      Lemma 5.5 bound is astronomically large); see :func:`poly_pri_learn`.
    * ``n_chunks``: the number of users ``m``: the smallest ``m`` with
      ``m >= 4 * tau`` where ``tau = (2/epsilon) ln(max_set_size * m *
      e^{epsilon} / delta)`` is the order of the sparse-selection error
      (Prop. 5.6), capped by the number of available examples.
    """
    out = {}
    out["alpha_delta"] = alpha / (4.0 * (d + 3)) if alpha_delta == "auto" else float(alpha_delta)
    out["max_set_size"] = 2 * (d + 1) if max_set_size == "auto" else int(max_set_size)
    dual_vc = max(1, int(math.floor(math.log2(max(n_points, 2)))))
    # (8 / alpha)^2 and 1 / (alpha epsilon) are formed as quotients of
    # quotients: inf (then capped) instead of an underflow to 0 and a
    # ZeroDivisionError for extreme alpha, epsilon
    out["h_size"] = (
        _ceil_capped(dual_vc * (8.0 / alpha) * (8.0 / alpha), H_SIZE_CAP)
        if h_size == "auto" else int(h_size)
    )
    if n_generic == "auto":
        h_card = max(2, min(out["h_size"], n_hypotheses))
        need = 4.0 * (math.log(h_card) + math.log(2.0 / beta)) / alpha / epsilon
        out["n_generic"] = _ceil_capped(need, n // 2)
    else:
        out["n_generic"] = int(n_generic)
    n_learn = n - out["n_generic"]
    if n_chunks == "auto":
        out["n_chunks"] = _auto_chunks(out["max_set_size"], epsilon, delta, max(n_learn, 1))
    else:
        out["n_chunks"] = int(n_chunks)
    n0 = max(n_learn // max(out["n_chunks"], 1), 1)
    if k_prime == "auto":
        out["k_prime"] = max(
            _ceil_capped(n0 * (d + 3) * out["alpha_delta"], K_PRIME_CAP),
            _ceil_capped(64.0 * max(d, 1) * (4.0 / alpha) * (4.0 / alpha), K_PRIME_CAP),
        )
    else:
        out["k_prime"] = int(k_prime)
    return out


H_SIZE_CAP = 10**6  # draws from the Lemma 6.2 distribution
K_PRIME_CAP = 10**12  # irreducibility parameter (compared with path counts only)


def _auto_chunks(max_set_size, epsilon, delta, cap):
    """Smallest ``m >= 4 tau(m)``, ``tau(m) = (2/eps) ln(l m e^eps / delta)``, capped.

    ``4 tau`` increases with ``m``, so the fixed-point iteration
    ``m <- ceil(4 tau(m))`` from ``m = 1`` climbs to the least such ``m``
    in a few steps (``tau`` grows like ``log m``). ``ln(e^eps)`` is written
    ``eps``: no overflow for large ``epsilon``.
    """
    m = 1
    for _ in range(200):
        tau = (2.0 / epsilon) * (math.log(max_set_size * m / delta) + epsilon)
        target = 4.0 * tau
        if m >= target or m >= cap:
            break
        m = _ceil_capped(target, cap)
    return int(max(1, min(m, cap)))
