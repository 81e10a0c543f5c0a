"""Log-space helpers of the multiplicative-weights core."""

from .._logsumexp import logsumexp

__all__ = ["log_normalize"]


def log_normalize(log_w):
    """Normalise log-weights in place so that ``sum(exp(log_w)) == 1``."""
    log_w -= logsumexp(log_w)
    return log_w
