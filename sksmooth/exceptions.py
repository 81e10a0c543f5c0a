"""Warnings and errors raised by sksmooth.

See SPEC §3.5: every message names the parameter at fault and the fix.
"""

__all__ = ["PrivacyLeakWarning", "PrivacyWarning", "BudgetError"]


class PrivacyLeakWarning(UserWarning):
    """A choice was made from the private data itself (e.g. ``bounds=None``).

    Whatever the estimator then releases is *not* covered by its stated
    privacy guarantee, because the data-dependent choice was not accounted.
    """


class PrivacyWarning(UserWarning):
    """A privacy or accuracy guarantee could not be certified.

    Raised, for instance, when a heuristic scikit-learn estimator stands in
    for an exact ERM oracle: the calibration is applied, but the theorem's
    assumptions are not met, and the fitted ``guarantee_`` says so.
    """


class BudgetError(ValueError):
    """A release would exceed the privacy budget of a ``BudgetAccountant``.

    Raised *before* any private output is produced or returned.
    """
