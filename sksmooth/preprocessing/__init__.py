"""Data-independent preprocessing for private pipelines."""

from ._public_bounds_scaler import PublicBoundsScaler

__all__ = ["PublicBoundsScaler"]
