"""Rows of ``X`` as indices into a finite domain (shared by the finite-domain learners)."""

import numpy as np

__all__ = ["domain_row_indices"]


def domain_row_indices(domain, X):
    """Index of each row of ``X`` among the rows of ``domain`` (-1 if absent).

    Rows are compared by value (``-0.0`` equals ``0.0``), vectorised with one
    ``np.unique`` over the stacked rows. Where ``domain`` repeats a point, the
    first occurrence is returned.

    Parameters
    ----------
    domain : ndarray of shape (n_domain, n_features), float
    X : ndarray of shape (n_samples, n_features), float

    Returns
    -------
    ndarray of int64, shape (n_samples,)
    """
    domain = np.asarray(domain, dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    both = np.vstack([domain, X])
    both = np.where(both == 0.0, 0.0, both)  # -0.0 and 0.0 are the same point
    _, first, inverse = np.unique(both, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    owner = np.where(first < len(domain), first, -1)
    return owner[inverse[len(domain):]].astype(np.int64)
