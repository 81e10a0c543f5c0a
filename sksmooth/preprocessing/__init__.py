"""Data-independent preprocessing for private pipelines.

Unlike :mod:`sklearn.preprocessing`, whose scalers learn statistics from the
rows (a release that no privacy ledger records), the transformers here only
use a *public* box given by the user (e.g. from :mod:`sksmooth.datasets`), so
they are safe in front of a private estimator and cost no privacy. Without a
public box, :class:`PrivateBounds` estimates one privately (charged).
"""

from ._private_bounds import PrivateBounds
from ._public_bounds_scaler import PublicBoundsScaler

__all__ = ["PrivateBounds", "PublicBoundsScaler"]
