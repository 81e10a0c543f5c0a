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


def _check_flag(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}.")
    return bool(value)


def _as_frame(X, y, feature_names):
    """``X`` as a DataFrame with ``feature_names`` and ``y`` as a Series (pandas needed)."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(
            "as_frame=True needs pandas; install it (pip install 'sksmooth[frame]') "
            "or use as_frame=False for numpy arrays."
        ) from None
    return pd.DataFrame(X, columns=list(feature_names)), pd.Series(y, name="target")


def load_breast_cancer_public(scale=True, *, as_frame=False):
    """Breast cancer data with bounds from its published summary table.

    The table (the dataset's ``DESCR``) is public, but it lists the minimum
    and maximum of these very rows, rounded: 17 of the 30 lower and 17 of the
    30 upper bounds are a row's value exactly (23 and 29 within 0.5%), so a
    release "certified" with this box treats statistics of the data as
    public. Where the table rounded inward, rows lie outside the box and are
    clipped onto it (14 of the 569 rows, on 9 features). It is a
    demonstration of public bounds; on real private data, take the box from
    a source independent of the rows (units, instrument ranges, a data
    dictionary).

    Parameters
    ----------
    scale : bool, default=True
        Map the published box onto ``[0, 1]^30`` (clipping), so that
        ``bounds=(0, 1)`` is the public box of the returned ``X``.
    as_frame : bool, default=False
        Return ``X`` as a pandas DataFrame whose columns are the feature
        names (``"mean radius"``, ...) and ``y`` as a Series named
        ``"target"``. Estimators fitted on it record ``feature_names_in_``.
        Needs pandas.

    Returns
    -------
    X : ndarray of shape (569, 30), or DataFrame with ``as_frame=True``
    y : ndarray of shape (569,), or Series with ``as_frame=True``
    bounds : tuple (lower, upper)
        ``(0.0, 1.0)`` when ``scale``, else the published per-feature box.

    Examples
    --------
    >>> from sksmooth.datasets import load_breast_cancer_public
    >>> X, y, bounds = load_breast_cancer_public()
    >>> X.shape, bounds
    ((569, 30), (0.0, 1.0))
    """
    scale = _check_flag(scale, "scale")
    as_frame = _check_flag(as_frame, "as_frame")
    data = load_breast_cancer()
    lower, upper = published_bounds(data.DESCR)
    if len(lower) != data.data.shape[1]:
        raise RuntimeError("breast cancer DESCR table does not list every feature")
    if scale:
        X, bounds = np.clip((data.data - lower) / (upper - lower), 0.0, 1.0), (0.0, 1.0)
    else:
        X, bounds = data.data, (lower, upper)
    y = data.target
    if as_frame:
        X, y = _as_frame(X, y, data.feature_names)
    return X, y, bounds


def load_digits_binary_public(scale=True, *, as_frame=False):
    """Digits 0–4 (label 0) vs 5–9 (label 1); pixels have the public range [0, 16].

    Parameters
    ----------
    scale : bool, default=True
        Divide by 16 so that ``bounds=(0, 1)`` is the public box.
    as_frame : bool, default=False
        Return ``X`` as a pandas DataFrame with columns ``"pixel_0_0"`` ...
        ``"pixel_7_7"`` and ``y`` as a Series named ``"target"``. Needs pandas.

    Returns
    -------
    X : ndarray of shape (1797, 64), or DataFrame with ``as_frame=True``
    y : ndarray of shape (1797,), or Series with ``as_frame=True``
    bounds : tuple
        ``(0.0, 1.0)`` when ``scale``, else ``(0.0, 16.0)``.
    """
    scale = _check_flag(scale, "scale")
    as_frame = _check_flag(as_frame, "as_frame")
    data = load_digits()
    y = (data.target >= 5).astype(int)
    X, bounds = (data.data / 16.0, (0.0, 1.0)) if scale else (data.data, (0.0, 16.0))
    if as_frame:
        X, y = _as_frame(X, y, data.feature_names)
    return X, y, bounds
