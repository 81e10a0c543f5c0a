"""What the exponential-mechanism strategies publish beside the hypothesis.

Both the cover strategy (:mod:`._exponential`) and the interval strategy
(:mod:`._intervals`) select with the exponential mechanism over a finite,
data-independent class of size ``|H|`` on a public box, so they share the
excess-error bound, the public attributes of a release, the (pure epsilon)
accounting and the common part of the guarantee.
"""

import math
from dataclasses import replace

import numpy as np

from .._guarantee import PrivacySpent
from ..classes import FiniteConcepts, user_code_notes

__all__ = ["ExponentialSelectionBound", "MAX_TABLE_ENTRIES", "check_table_size"]


# entries of the largest table a selection holds (its scores or log weights): 256 MiB
# of float64 (the selection holds a few such arrays at once), past which a public
# class is refused before any data is counted
MAX_TABLE_ENTRIES = 2**25


def check_table_size(entries, what, fix):
    """Refuse a public class whose selection table would exceed :data:`MAX_TABLE_ENTRIES`
    (public parameters only: the classes, the cover, the grid)."""
    if entries > MAX_TABLE_ENTRIES:
        raise ValueError(f"the hypothesis class needs a table of {entries:.3g} entries "
                         f"({what}), above the cap of {MAX_TABLE_ENTRIES:.3g}: use "
                         f"{fix}.")


class ExponentialSelectionBound:
    """Mixin for a dataclass with ``log_n_hypotheses()``, ``add_remove``,
    ``bounds_inferred``, ``lower``, ``upper``."""

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

    @staticmethod
    def substitution_epsilon(add_remove, epsilon, delta=0.0):
        """The add/remove calibration is ``2 epsilon``-DP under substitution
        (public parameters only: the ledger is checked with it before any data)."""
        return 2.0 * epsilon if add_remove else epsilon

    def epsilon_under_substitution(self, epsilon, delta=0.0):
        return self.substitution_epsilon(self.add_remove, epsilon, delta)

    @staticmethod
    def spent(params):
        """``(epsilon, delta)`` a release charges, from its parameters alone."""
        return PrivacySpent(params["epsilon"], 0.0)

    def with_neighbouring(self, neighbouring):
        return replace(self, add_remove=neighbouring == "add_remove")

    def selection_facts(self, params, n, structure, class_note):
        """``(certified, not_certified, notes)`` of the guarantee; ``structure``
        names the public class (cover, grid), ``class_note`` describes it."""
        certified, not_certified = [], user_code_notes(params["hypotheses"], "hypotheses")
        if self.bounds_inferred:
            not_certified.append(f"{structure} is data independent (bounds taken from data)")
        elif isinstance(params["hypotheses"], FiniteConcepts):
            certified.append("class given explicitly (hypotheses=...)")
        else:
            certified.append(f"{structure} built from public bounds only")
        bound = self.excess_error_bound(params["epsilon"], params["beta"], n)
        notes = [
            class_note,
            f"w.p. >= 1 - beta the empirical error is within {bound:.4g} of the best "
            "hypothesis of the class (agnostic)",
            "pure epsilon-DP: this method spends delta = 0 whatever delta is set to",
        ]
        return certified, not_certified, notes
