"""Scaling by a public box, so that preprocessing leaks nothing (SPEC §3.1)."""

import sys

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._domain import box_position
from .._untrusted import input_columns, read_numbers, sanitize_rows
from .._validation import check_bounds

__all__ = ["PublicBoundsScaler"]


class PublicBoundsScaler(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    r"""Map the public box ``bounds`` affinely onto ``feature_range``, clipping.

    Unlike :class:`sklearn.preprocessing.MinMaxScaler`, whose minimum and
    maximum are read from the (private) training data, this scaler uses only
    public bounds, so it can precede a private estimator in a
    :class:`~sklearn.pipeline.Pipeline` without weakening its guarantee.
    Rows are read by the private estimators' rule
    (:mod:`sksmooth._untrusted`), a fixed row-wise map that costs no
    privacy: values outside the box are clipped, ``+-inf`` goes to the
    bound, NaN and non-numbers to the box centre; nothing about the rows
    (e.g. how many were clipped) is stored or refused.

    Parameters
    ----------
    bounds : tuple (lower, upper), dict, 'data' or None, default=None
        Public box, scalars or per-feature arrays, or ``{column: (lower,
        upper)}`` for every column: from a source independent
        of the rows (:func:`sksmooth.datasets.published_bounds`, units, a data
        dictionary) or a private estimate
        (:class:`~sksmooth.preprocessing.PrivateBounds`). ``None`` is
        refused at ``fit``; the opt-in ``'data'`` reads it from the rows, as
        :class:`~sklearn.preprocessing.MinMaxScaler` does, with a
        :class:`~sksmooth.PrivacyLeakWarning` (what follows is then not
        private).
    feature_range : tuple (min, max), default=(0.0, 1.0)
        Target interval of every feature.

    Attributes
    ----------
    bounds_ : tuple of ndarray of shape (n_features,)
        The validated box.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of str of shape (n_features,)
        Column names of a DataFrame seen in ``fit`` (their order is the order
        of ``bounds_``); ``get_feature_names_out`` returns them.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.preprocessing import PublicBoundsScaler
    >>> PublicBoundsScaler(bounds=(0, 10)).fit_transform(np.array([[5.0], [12.0]]))
    array([[0.5],
           [1. ]])
    """

    def __init__(self, bounds=None, *, feature_range=(0.0, 1.0)):
        self.bounds = bounds
        self.feature_range = feature_range

    def fit(self, X, y=None):
        """Validate the bounds against ``X``'s number of features."""
        low, high = self._check_feature_range()
        X = read_numbers(self, X, dtype=np.float64)
        lower, upper = check_bounds(self.bounds, X.shape[1], X, columns=input_columns(self))
        self.bounds_ = (lower, upper)
        self._feature_range = (low, high)
        return self

    def _check_feature_range(self):
        try:
            low, high = (float(v) for v in self.feature_range)
        except (TypeError, ValueError):
            raise ValueError(
                f"feature_range must be a pair (min, max), got {self.feature_range!r}."
            ) from None
        if not (low < high and np.isfinite(low) and np.isfinite(high)):
            raise ValueError(
                f"feature_range must be finite with min < max, got {self.feature_range!r}; "
                "pass e.g. feature_range=(0.0, 1.0)."
            )
        return low, high

    def transform(self, X):
        """Clip ``X`` to ``bounds_`` and scale it to ``feature_range``.

        A pandas DataFrame comes back as a DataFrame with the same columns and
        index (so a private estimator after the scaler in a pipeline records
        ``feature_names_in_`` and names features in its descriptions); other
        inputs come back as an ndarray, or as ``set_output`` asks.
        """
        check_is_fitted(self)
        X_in = X
        X = read_numbers(self, X, dtype=np.float64, reset=False)
        lower, upper = self.bounds_
        low, high = self._feature_range
        # box_position clips and works on halves: no overflow for bounds such as
        # (-1e308, 1e308); a zero-width feature maps to the middle of the range
        position = box_position(sanitize_rows(X, lower, upper), lower, upper)
        half_width = upper / 2 - lower / 2
        half_range = high / 2 - low / 2  # in halves: (-1e308, 1e308) does not overflow
        mapped = (low + position * half_range) + position * half_range
        mapped = np.clip(mapped, low, high)  # rounding may pass an end by one float step
        return _like_input(np.where(half_width > 0, mapped, low / 2 + high / 2), X_in)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # mapped to the box centre, never refused
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    def inverse_transform(self, X):
        """Map scaled values back into the box (clipped values stay clipped)."""
        check_is_fitted(self)
        X_in = X
        X = validate_data(self, X, dtype=np.float64, reset=False)
        lower, upper = self.bounds_
        low, high = self._feature_range
        half_width = upper / 2 - lower / 2
        position = (X / 2 - low / 2) / (high / 2 - low / 2)  # in halves, as transform
        half = lower / 2 + position * half_width
        return _like_input(np.where(half_width > 0, 2 * half, lower / 2 + upper / 2), X_in)


def _like_input(values, X):
    """``values`` as a DataFrame with ``X``'s columns and index when ``X`` is one;
    float32 when every column of ``X`` is (as scikit-learn's scalers keep it)."""
    dtypes = getattr(X, "dtypes", [getattr(X, "dtype", None)])
    if len(dtypes) and all(dtype == np.float32 for dtype in dtypes):
        values = values.astype(np.float32)
    pd = sys.modules.get("pandas")  # a DataFrame implies pandas is imported
    if pd is not None and isinstance(X, pd.DataFrame):
        return pd.DataFrame(values, columns=X.columns, index=X.index)
    return values
