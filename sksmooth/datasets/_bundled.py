"""scikit-learn's bundled datasets with *public* domain bounds (SPEC §3.1).

A private estimator needs the box of its inputs to be public. For the
bundled datasets the box is taken from published documentation (the
``Summary Statistics`` table of ``DESCR``) or from the data's definition
(pixel range), never from the rows themselves.
"""

import re

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits

__all__ = ["load_breast_cancer_public", "load_digits_binary_public", "published_bounds"]


def published_bounds(descr):
    """Per-feature ``(lower, upper)`` from a DESCR's 'Summary Statistics' table.

    Parameters
    ----------
    descr : str
        The ``DESCR`` text of a scikit-learn dataset.

    Returns
    -------
    lower, upper : ndarray of shape (n_features,)
    """
    rows = re.findall(r"^[a-z][^:\n]*:\s+(-?[\d.]+)\s+(-?[\d.]+)\s*$", descr, flags=re.M)
    if not rows:
        raise ValueError("descr has no 'Summary Statistics' table of min/max rows.")
    bounds = np.array(rows, dtype=float)
    return bounds[:, 0], bounds[:, 1]


def load_breast_cancer_public(scale=True):
    """Breast cancer data with bounds from its published summary table.

    Parameters
    ----------
    scale : bool, default=True
        Map the published box onto ``[0, 1]^30`` (clipping), so that
        ``bounds=(0, 1)`` is the public box of the returned ``X``.

    Returns
    -------
    X : ndarray of shape (569, 30)
    y : ndarray of shape (569,)
    bounds : tuple (lower, upper)
        ``(0.0, 1.0)`` when ``scale``, else the published per-feature box.

    Examples
    --------
    >>> from sksmooth.datasets import load_breast_cancer_public
    >>> X, y, bounds = load_breast_cancer_public()
    >>> X.shape, bounds
    ((569, 30), (0.0, 1.0))
    """
    data = load_breast_cancer()
    lower, upper = published_bounds(data.DESCR)
    if len(lower) != data.data.shape[1]:
        raise RuntimeError("breast cancer DESCR table does not list every feature")
    if not scale:
        return data.data, data.target, (lower, upper)
    X = np.clip((data.data - lower) / (upper - lower), 0.0, 1.0)
    return X, data.target, (0.0, 1.0)


def load_digits_binary_public(scale=True):
    """Digits 0–4 (label 0) vs 5–9 (label 1); pixels have the public range [0, 16].

    Returns
    -------
    X : ndarray of shape (1797, 64)
    y : ndarray of shape (1797,)
    bounds : tuple
        ``(0.0, 1.0)`` when ``scale``, else ``(0.0, 16.0)``.
    """
    data = load_digits()
    y = (data.target >= 5).astype(int)
    if not scale:
        return data.data, y, (0.0, 16.0)
    return data.data / 16.0, y, (0.0, 1.0)
