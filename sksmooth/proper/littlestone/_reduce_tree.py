"""ReduceTree (Alg. 1) and the per-user candidate sets of PolyPriLearn (Alg. 2).

References
----------
Ghazi, Golowich, Kumar, Manurangsi, "Sample-efficient proper PAC learning with
approximate differential privacy", STOC 2021, arXiv:2012.03893, §5.1 (Algorithm 1 ReduceTree, Lemma 5.1,
Lemma 5.5), §5.3 (Algorithm 2 PolyPriLearn, Theorem 5.7).
"""

import numpy as np

__all__ = ["reduce_tree", "empirical_errors"]

_TOL = 1e-12


class _Leaf:
    __slots__ = ("ancestors", "restriction")

    def __init__(self, ancestors, restriction):
        self.ancestors = ancestors  # tuple of (x, b): the ancestor set a(v)
        self.restriction = restriction  # bitmask of F|_{a(v)}


def empirical_errors(oracle, x_idx, y):
    """Empirical error of every hypothesis (in [0, 1]) on the sample ``(x_idx, y)``."""
    if len(x_idx) == 0:
        return np.zeros(oracle.n_hypotheses)
    predictions = oracle.matrix[:, x_idx]  # True <-> +1
    return np.mean(predictions != (np.asarray(y) > 0)[None, :], axis=1)


def _split_leaves(oracle, leaves, chosen, stable, e_low, k_t):
    """Step 6d: replace every stable chosen leaf by the children of a reducing array."""
    new_leaves = []
    for leaf in leaves:
        if leaf not in chosen or not stable[chosen.index(leaf)]:
            new_leaves.append(leaf)  # not chosen, or step 6d-i: the dimension dropped
            continue
        g_low = e_low & leaf.restriction
        found = oracle.reducing_array(g_low, max_order=k_t)  # step 6d-ii
        if found is None:  # pragma: no cover - excluded by step 6c
            new_leaves.append(leaf)
            continue
        points, array = found
        for bits in array:  # step 6d-iii: k_v + 1 children
            pairs = tuple(zip(points[: len(bits)], bits))
            new_leaves.append(
                _Leaf(leaf.ancestors + pairs, oracle.restrict_many(leaf.restriction, pairs))
            )
    return new_leaves


def reduce_tree(oracle, x_idx, y, alpha_delta, k_prime, d=None):
    """Algorithm 1 (ReduceTree) of Ghazi et al. 2021, §5.1, on one user's sample.

    Parameters
    ----------
    oracle : LittlestoneOracle
        The finite class ``F``.
    x_idx : ndarray of int, shape (n0,)
        Domain-point indices of the sample ``S_n``.
    y : ndarray of shape (n0,)
        Labels in ``{-1, +1}``.
    alpha_delta : float
        The step ``alpha_Delta`` (Alg. 1 sets it to ``6 alpha(n, gamma)``).
    k_prime : int
        ``k'``; level ``t`` uses ``k_t = k' 2^t`` (step 3).
    d : int, optional
        ``Ldim(F)`` (computed if not given).

    Returns
    -------
    candidates : list of ndarray
        The set ``S_hat`` of eq. (16): ``SOA`` vectors (int8, one value per
        domain point) of the ``k'``-irreducible nonempty classes
        ``G_hat(alpha_{t_final+1} - 2 alpha_Delta / 3, v)``, ``v`` in ``L_hat'``,
        deduplicated, in leaf order.
    info : dict
        ``t_final``, ``n_leaves`` and the final level (for tests; these are
        data dependent and must never be released).
    """
    if d is None:
        d = oracle.ldim()
    errors = empirical_errors(oracle, x_idx, y)

    def level_mask(alpha):
        return oracle.mask_from_bool(errors <= alpha + _TOL)

    alphas = {t: (d + 3 - t) * alpha_delta for t in range(1, d + 2)}  # step 2
    leaves = [_Leaf((), oracle.full)]  # steps 4-5

    def best_leaves(t):
        e_t = level_mask(alphas[t])
        dims = [oracle.ldim(e_t & leaf.restriction) for leaf in leaves]
        w_star = max(dims)
        return [leaf for leaf, dim in zip(leaves, dims) if dim == w_star], e_t

    t_final = d
    for t in range(1, d + 1):  # step 6
        k_t = k_prime * 2**t
        chosen, e_t = best_leaves(t)
        e_low = level_mask(alphas[t] - alpha_delta)
        stable = []
        for leaf in chosen:
            high = oracle.ldim(e_t & leaf.restriction)
            g_low = e_low & leaf.restriction
            stable.append(oracle.ldim(g_low) == high)
            # step 6c: a stable, k_t-irreducible leaf ends the loop
            if stable[-1] and oracle.is_k_irreducible(k_t, g_low):
                t_final = t - 1
                break
        else:
            leaves = _split_leaves(oracle, leaves, chosen, stable, e_low, k_t)
            continue
        break

    # steps 7-8
    t = t_final + 1
    chosen, _ = best_leaves(t)
    e_out = level_mask(alphas[t] - 2.0 * alpha_delta / 3.0)
    candidates, seen = [], set()
    for leaf in chosen:
        g = e_out & leaf.restriction
        if g == 0 or not oracle.is_k_irreducible(k_prime, g):
            continue
        values = oracle.soa(g)
        key = values.tobytes()
        if key not in seen:
            seen.add(key)
            candidates.append(values)
    return candidates, {"t_final": t_final, "n_leaves": len(leaves)}
