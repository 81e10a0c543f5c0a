"""Log-space helpers of the multiplicative-weights core."""

import numpy as np

__all__ = ["log_normalize", "log_sum_exp"]


def log_sum_exp(log_w):
    """``log(sum(exp(log_w)))`` for a 1-D array (max-shifted, no overflow).

    A plain numpy version: ``scipy.special.logsumexp`` has a large constant
    overhead (array-API dispatch) that dominated the MW loop on 10^6 points.
    """
    top = np.max(log_w)
    if not np.isfinite(top):
        return top
    return top + np.log(np.sum(np.exp(log_w - top)))


def log_normalize(log_w):
    """Normalise log-weights in place so that ``sum(exp(log_w)) == 1``."""
    log_w -= log_sum_exp(log_w)
    return log_w
