"""One log-sum-exp for the hot loops (SPEC §1.5).

``scipy.special.logsumexp`` is the reference, but its per-call overhead
(array-API dispatch) dominates loops that call it on small arrays many times
(MW rounds over 10^6 points, message passing on small cliques). This plain
numpy version is the package's one home for that case; code that calls it a
few times uses scipy's.
"""

import numpy as np

__all__ = ["logsumexp"]


def logsumexp(values, axis=None):
    """``log(sum(exp(values), axis))`` shifted by the maximum (no overflow)."""
    values = np.asarray(values, dtype=float)
    shift = np.max(values, axis=axis, keepdims=True)
    shift = np.where(np.isfinite(shift), shift, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(values - shift), axis=axis, keepdims=True)) + shift
    if axis is None:
        return out.reshape(())[()]
    return np.squeeze(out, axis=axis)
