"""Warnings and errors raised by sksmooth.

Every warning the package emits is a :class:`SksmoothWarning`, so
``warnings.filterwarnings("ignore", category=SksmoothWarning)`` (or one of its
subclasses) filters exactly sksmooth's warnings. See SPEC §3.5: every message
names the parameter at fault and the fix, and points at the user's line
(:func:`user_stacklevel`).
"""

import os
import sys

import joblib
import sklearn
from sklearn.exceptions import DataConversionWarning as _SklearnDataConversionWarning

__all__ = [
    "SksmoothWarning",
    "PrivacyLeakWarning",
    "PrivacyWarning",
    "DefaultsWarning",
    "DataConversionWarning",
    "BudgetError",
]


class SksmoothWarning(UserWarning):
    """Base class of every warning sksmooth emits."""


class PrivacyLeakWarning(SksmoothWarning):
    """A choice was made from the private data itself (e.g. ``bounds=None``).

    Whatever the estimator then releases is *not* covered by its stated
    privacy guarantee, because the data-dependent choice was not accounted.
    """


class PrivacyWarning(SksmoothWarning):
    """A privacy or accuracy guarantee could not be certified.

    Raised, for instance, when a heuristic scikit-learn estimator stands in
    for an exact ERM oracle: the calibration is applied, but the theorem's
    assumptions are not met, and the fitted ``guarantee_`` says so; or when
    a ``delta`` at or above ``1/n`` makes the guarantee too weak to protect
    a row.
    """


class DefaultsWarning(SksmoothWarning):
    """A parameter's value (chosen or default) is poor for this input.

    For instance a cover capped by ``max_size`` above the requested radius, a
    ``delta`` the method does not use, or a calibrated noise that leaves
    near-chance accuracy. Computed from public
    inputs only; the result is valid, but another value would serve better.
    """


class DataConversionWarning(SksmoothWarning, _SklearnDataConversionWarning):
    """Input was converted (e.g. a column-vector ``y`` raveled).

    Also a :class:`sklearn.exceptions.DataConversionWarning`, so scikit-learn's
    filters and checks see it as theirs.
    """


class BudgetError(ValueError):
    """A release would exceed the privacy budget of a ``BudgetAccountant``.

    Raised *before* any private output is produced or returned.
    """


def user_stacklevel():
    """``stacklevel`` for a ``warnings.warn`` in the caller that names the first frame
    outside this package, scikit-learn and joblib (the user's line, however deep the
    call came from: a ``Pipeline``, ``cross_val_score``, ``PrivateSearchCV``)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            _LIBRARY_DIRECTORIES):
        frame, level = frame.f_back, level + 1
    return level


_LIBRARY_DIRECTORIES = tuple(os.path.dirname(os.path.abspath(module.__file__)) + os.sep
                             for module in (sys.modules[__package__], sklearn, joblib))
