"""What the exponential-mechanism strategies publish beside the hypothesis.

Both the cover strategy (:mod:`._exponential`) and the interval strategy
(:mod:`._intervals`) select with the exponential mechanism over a finite,
data-independent class of size ``|H|`` on a public box, so they share the
excess-error bound and the public attributes of a release.
"""

import math

import numpy as np

__all__ = ["ExponentialSelectionBound"]


class ExponentialSelectionBound:
    """Mixin: needs ``log_n_hypotheses()``, ``add_remove``, ``lower``, ``upper``."""

    def excess_error_bound(self, epsilon, beta, n):
        """``c (ln|H| + ln(1/beta)) / (epsilon n)``, ``c = 2`` (substitution) or 1
        (the exponential mechanism's utility, Dwork & Roth 2014, Thm 3.11; error counts
        have sensitivity 1)."""
        if n == 0:
            return 1.0
        c = 1.0 if self.add_remove else 2.0
        with np.errstate(over="ignore"):
            value = c * (self.log_n_hypotheses() - math.log(beta)) / epsilon / n
        return float(min(1.0, value))

    def public_attributes(self, details, params, n):
        """Fitted attributes published with a release (public values only)."""
        return {
            "bounds_": (self.lower, self.upper),
            "excess_error_bound_": self.excess_error_bound(params["epsilon"], params["beta"], n),
        }
