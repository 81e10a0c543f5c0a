"""The ``guarantee_`` report of fitted estimators (SPEC §1.1–1.2, §3.4): the
claim, the theorem it comes from, and which assumptions the code certified.
"""

from dataclasses import dataclass, field, replace
from typing import NamedTuple

__all__ = ["Guarantee", "PrivacySpent", "read_from_data_reason", "mark_read_from_data",
           "spent_as_set"]


class PrivacySpent(NamedTuple):
    """An (epsilon, delta) pair spent by one release."""

    epsilon: float
    delta: float

    def __str__(self):
        return f"({self.epsilon:.6g}, {self.delta:.3g})-DP"


def spent_as_set(params):
    """``(epsilon, delta)`` a release charges when it spends the budget its parameters
    set (from the parameters alone)."""
    return PrivacySpent(params["epsilon"], params["delta"])


def read_from_data_reason(*, bounds=False, classes=False):
    """Why a release whose public inputs were read from its rows (the opt-in
    ``'data'``, :func:`sksmooth._validation.refuse_unset`) has no differential-privacy
    guarantee; ``""`` when nothing was read."""
    read = [what for what, flag in (("the box (bounds)", bounds),
                                    ("the label set (classes)", classes)) if flag]
    if not read:
        return ""
    return (f"{' and '.join(read)} {'was' if len(read) == 1 else 'were'} read from the "
            "private rows, and the release depends on them")


def mark_read_from_data(guarantee, *, bounds=False, classes=False):
    """``guarantee`` whose claim is "no differential-privacy guarantee" with the reason
    when anything was read from the rows (it is then never certified)."""
    reason = read_from_data_reason(bounds=bounds, classes=classes)
    if not reason:
        return guarantee
    return replace(guarantee, claim=f"no differential-privacy guarantee: {reason}",
                   certified=False)


@dataclass(frozen=True)
class Guarantee:
    """What a fitted estimator can state about itself.

    Parameters
    ----------
    claim : str
        The statement, e.g. ``"(1, 1e-05)-differential privacy"`` or
        ``"expected regret <= 412.3"``.
    source : str
        The paper and theorem it comes from, e.g.
        ``"Block and Shetty, arXiv:2502.10292, Lemma 2"``.
    certified : bool
        True when every assumption the *claim* needs was verified by the
        code. For a private estimator the claim is its privacy guarantee;
        assumptions that only its accuracy needs (e.g. sigma-smooth data)
        are reported in ``notes``.
    assumptions_certified : tuple of str
        Assumptions the code verified (e.g. "oracle is an exact ERM").
    assumptions_not_certified : tuple of str
        Assumptions the code could not verify (e.g. "data are sigma-smooth").
    notes : tuple of str
        Anything else a user needs to read the claim correctly.
    """

    claim: str
    source: str
    certified: bool
    assumptions_certified: tuple = field(default_factory=tuple)
    assumptions_not_certified: tuple = field(default_factory=tuple)
    notes: tuple = field(default_factory=tuple)

    def __post_init__(self):
        if self.certified and self.assumptions_not_certified:
            raise ValueError("a certified Guarantee lists assumptions the code could not "
                             f"verify: {self.assumptions_not_certified!r}")

    def __str__(self):
        status = "CERTIFIED" if self.certified else "NOT CERTIFIED"
        lines = [f"{self.claim} [{status}]", f"  source: {self.source}"]
        lines += [f"  certified: {a}" for a in self.assumptions_certified]
        lines += [f"  not certified: {a}" for a in self.assumptions_not_certified]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)
