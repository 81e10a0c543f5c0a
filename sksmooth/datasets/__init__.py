"""Bundled datasets with public domain bounds (no downloads)."""

from ._bundled import load_breast_cancer_public, load_digits_binary_public, published_bounds

__all__ = ["load_breast_cancer_public", "load_digits_binary_public", "published_bounds"]
