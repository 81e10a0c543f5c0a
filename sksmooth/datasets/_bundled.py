"""scikit-learn's bundled datasets with *public* domain bounds (SPEC §3.1).

A private estimator needs the box of its inputs to be public. For the
bundled datasets the box is taken from published documentation (the
``Summary Statistics`` table of ``DESCR``) or from the data's definition
(pixel range), never from the rows themselves. Diabetes has no such table
(its features are published centred and scaled), so it has no loader here.
"""

import re

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

from .._validation import check_flag

__all__ = [
    "load_breast_cancer_public",
    "load_digits_binary_public",
    "load_iris_public",
    "load_wine_public",
    "published_bounds",
]


_RULE = re.compile(r"^\s*=+(\s+=+)+\s*$")
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_ROW = re.compile(rf"^\s*(\S.*?):\s+({_NUMBER})\s+({_NUMBER})(?:\s.*)?$")


def published_bounds(descr):
    """Per-feature ``(lower, upper)`` from a DESCR's 'Summary Statistics' table.

    Reads the table whose first two columns are ``Min`` and ``Max`` (further
    columns, such as the mean, the standard deviation or remarks, are
    ignored), one row per feature, in the order of ``feature_names``. Among
    scikit-learn's bundled datasets, breast cancer, wine and iris have one;
    diabetes and digits do not (diabetes is published already centred and
    scaled, digits' pixels have the public range ``[0, 16]``).

    Parameters
    ----------
    descr : str
        The ``DESCR`` text of a scikit-learn dataset.

    Returns
    -------
    lower, upper : ndarray of shape (n_features,)

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sksmooth.datasets import published_bounds
    >>> lower, upper = published_bounds(load_iris().DESCR)
    >>> lower.tolist(), upper.tolist()
    ([4.3, 2.0, 1.0, 0.1], [7.9, 4.4, 6.9, 2.5])
    """
    if not isinstance(descr, str):
        raise TypeError(f"descr must be a dataset's DESCR text, got {type(descr).__name__}.")
    lines = descr.splitlines()
    start = next((i for i, line in enumerate(lines) if "Summary Statistics" in line), None)
    rules = [] if start is None else [i for i in range(start, len(lines)) if _RULE.match(lines[i])]
    if len(rules) < 3 or lines[rules[0] + 1].split()[:2] != ["Min", "Max"]:
        raise ValueError("descr has no 'Summary Statistics' table whose first columns are "
                         "Min and Max; take the bounds from another public source (units, "
                         "a data dictionary) or estimate them with "
                         "sksmooth.preprocessing.PrivateBounds.")
    rows = [_ROW.match(line) for line in lines[rules[1] + 1:rules[2]] if line.strip()]
    if not rows or not all(rows):
        raise ValueError("descr's 'Summary Statistics' table has a row that is not "
                         "'name: min max ...'.")
    bounds = np.array([row.groups()[1:] for row in rows], dtype=float)
    return bounds[:, 0], bounds[:, 1]


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


def _load_with_published_bounds(load, scale, as_frame):
    """``load()``'s data with the box of its DESCR table (scaled onto ``[0, 1]``)."""
    scale = check_flag(scale, "scale")
    as_frame = check_flag(as_frame, "as_frame")
    data = load()
    lower, upper = published_bounds(data.DESCR)
    if len(lower) != data.data.shape[1]:
        raise RuntimeError(f"{load.__name__}'s DESCR table does not list every feature")
    if scale:
        X, bounds = np.clip((data.data - lower) / (upper - lower), 0.0, 1.0), (0.0, 1.0)
    else:
        X, bounds = data.data, (lower, upper)
    y = data.target
    if as_frame:
        X, y = _as_frame(X, y, data.feature_names)
    return X, y, bounds


_PARAMETERS = """
    Parameters
    ----------
    scale : bool, default=True
        Map the published box onto ``[0, 1]^d`` (clipping), so that
        ``bounds=(0, 1)`` is the public box of the returned ``X``.
    as_frame : bool, default=False
        Return ``X`` as a pandas DataFrame whose columns are the feature
        names and ``y`` as a Series named ``"target"``. Estimators fitted on
        it record ``feature_names_in_``. Needs pandas.
"""


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
    dictionary), or estimate it privately with
    :class:`~sksmooth.preprocessing.PrivateBounds`.
    {parameters}
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
    return _load_with_published_bounds(load_breast_cancer, scale, as_frame)


def load_wine_public(scale=True, *, as_frame=False):
    """Wine data (3 classes) with bounds from its published summary table.

    As for :func:`load_breast_cancer_public`, the table lists the rounded
    minimum and maximum of these rows, so it demonstrates public bounds
    rather than providing bounds independent of the data; where it rounded
    inward (alcohol up to 14.83 against 14.8, colour intensity down to 1.28
    against 1.3), 2 of the 178 rows are clipped.
    {parameters}
    Returns
    -------
    X : ndarray of shape (178, 13), or DataFrame with ``as_frame=True``
    y : ndarray of shape (178,), labels 0, 1, 2, or Series with ``as_frame=True``
    bounds : tuple (lower, upper)
        ``(0.0, 1.0)`` when ``scale``, else the published per-feature box.

    Examples
    --------
    >>> from sksmooth.datasets import load_wine_public
    >>> X, y, bounds = load_wine_public()
    >>> X.shape, bounds
    ((178, 13), (0.0, 1.0))
    """
    return _load_with_published_bounds(load_wine, scale, as_frame)


def load_iris_public(scale=True, *, as_frame=False):
    """Iris data (3 classes) with bounds from its published summary table.

    The table lists the minimum and maximum of these 150 rows (no row is
    clipped), so, as for :func:`load_breast_cancer_public`, it demonstrates
    public bounds rather than providing bounds independent of the data.
    {parameters}
    Returns
    -------
    X : ndarray of shape (150, 4), or DataFrame with ``as_frame=True``
    y : ndarray of shape (150,), labels 0, 1, 2, or Series with ``as_frame=True``
    bounds : tuple (lower, upper)
        ``(0.0, 1.0)`` when ``scale``, else the published per-feature box.

    Examples
    --------
    >>> from sksmooth.datasets import load_iris_public
    >>> X, y, bounds = load_iris_public(scale=False)
    >>> bounds[0].tolist(), bounds[1].tolist()
    ([4.3, 2.0, 1.0, 0.1], [7.9, 4.4, 6.9, 2.5])
    """
    return _load_with_published_bounds(load_iris, scale, as_frame)


for _loader in (load_breast_cancer_public, load_wine_public, load_iris_public):
    _loader.__doc__ = _loader.__doc__.replace("    {parameters}\n", _PARAMETERS + "\n")


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
    scale = check_flag(scale, "scale")
    as_frame = check_flag(as_frame, "as_frame")
    data = load_digits()
    y = (data.target >= 5).astype(int)
    X, bounds = (data.data / 16.0, (0.0, 1.0)) if scale else (data.data, (0.0, 16.0))
    if as_frame:
        X, y = _as_frame(X, y, data.feature_names)
    return X, y, bounds
