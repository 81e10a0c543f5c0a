"""The ledger storage protocol and the one budget rule every driver applies.

A driver stores a *budget* row and one *spends* row per release, and offers
one write, :meth:`LedgerStorage.append_if_within_budget`, which checks the
budget and appends in one atomic step; everything else is a read.
"""

import contextlib
import functools
from datetime import datetime, timezone
from typing import NamedTuple, Protocol, runtime_checkable

from ..._guarantee import PrivacySpent
from ...exceptions import BudgetError

__all__ = [
    "Budget",
    "CrossProcessLedgerError",
    "EMPTY_TOTALS",
    "LedgerSpent",
    "LedgerIntegrityError",
    "LedgerStorage",
    "LedgerTotals",
    "Spend",
    "add_spend",
    "budget_text",
    "refuse_if_over",
    "totals_of",
]

# Relative slack when comparing sums of floats against a budget, so that
# e.g. ten spends of 0.1 fit a budget of 1.0. It is purely relative: a zero
# delta budget (pure DP) refuses every spend with delta > 0.
_RTOL = 1e-9


class LedgerIntegrityError(BudgetError, RuntimeError):
    """A file or server ledger went back in time, or was replaced, under a handle.

    Every handle on a ledger remembers the ledger's identity (a random id
    stored with the budget when the ledger was created) and the number of
    spends it has seen. A ledger restored from an older copy holds fewer
    spends; a ledger deleted and created again (perhaps with another budget)
    has another identity. Either way the spends this handle saw are no
    longer all counted, so charging it is refused and nothing is released.
    Nothing can detect a rollback that no handle saw: keep the ledger where
    it cannot be edited (a PostgreSQL role without ``DELETE`` rights, a
    backed-up append-only copy).
    """


class CrossProcessLedgerError(BudgetError, RuntimeError):
    """An in-memory ledger was charged from a process that does not own it.

    A copy of an in-memory :class:`~sksmooth.accounting.BudgetAccountant`
    in another process (e.g. a joblib ``loky`` worker with ``n_jobs > 1``,
    or a Dask worker) cannot record anything its owner will see, so the
    spend is refused and nothing is released. Use a ledger that every
    process can reach: ``BudgetAccountant(..., path="ledger.sqlite")`` on
    one host, ``url="postgresql://..."`` across hosts.
    """


class Budget(NamedTuple):
    """A total privacy budget; ``inf`` means unlimited."""

    epsilon: float
    delta: float


class Spend(NamedTuple):
    """One release recorded in the ledger.

    ``certified`` is ``False`` when the releasing estimator could not
    certify the claimed ``(epsilon, delta)`` (seeded noise, heuristic
    oracle, data-dependent bounds, ...): the spend is still counted
    against the budget, and reported separately. ``private`` is ``False``
    for a release with no differential-privacy guarantee at all (recorded
    with :func:`~sksmooth.accounting.charge_not_private`): it spends
    ``(0, 0)``, is never refused, and is counted apart (``n_not_private``).
    """

    label: str
    epsilon: float
    delta: float
    time: float
    pid: int
    certified: bool = True
    private: bool = True

    def __repr__(self):  # the time (seconds since the epoch, as stored) read in UTC
        fields = [f"{name}={value!r}" for name, value in zip(self._fields, self)]
        with contextlib.suppress(OverflowError, ValueError, OSError):
            when = datetime.fromtimestamp(self.time, timezone.utc)
            fields[3] = f"time={when:%Y-%m-%d %H:%M:%S} UTC"
        return f"Spend({', '.join(fields)})"


def budget_text(value, spec):
    """``value`` formatted with ``spec``, or ``"unlimited"`` for an infinite budget."""
    return "unlimited" if value == float("inf") else format(value, spec)


class NotPrivateCount:
    """Mixin of an ``(epsilon, delta)`` pair that also counts the releases recorded
    with no differential-privacy guarantee (``n_not_private``), which the pair
    does not cover; it unpacks and compares as the pair."""

    n_not_private = 0

    def __new__(cls, epsilon, delta, n_not_private=0):
        self = super().__new__(cls, epsilon, delta)
        self.n_not_private = int(n_not_private)
        return self

    def __repr__(self):
        return (f"{type(self).__name__}(epsilon={self.epsilon!r}, delta={self.delta!r}, "
                f"n_not_private={self.n_not_private})")


def releases_text(count):
    """``"1 release"``, ``"3 releases"``."""
    return f"{count} release{'' if count == 1 else 's'}"


class LedgerSpent(NotPrivateCount, PrivacySpent):
    """A ledger's headline ``(epsilon, delta)`` and its count of non-private releases.

    Unpacks and compares as the pair ``(epsilon, delta)`` (``eps, delta =
    acc.spent``), which sums the private releases only. ``n_not_private``
    counts the releases recorded with no differential-privacy guarantee
    (:func:`~sksmooth.accounting.charge_not_private`): whatever the pair
    says, those releases are not covered by it.
    """

    def __str__(self):
        pair = super().__str__()
        if not self.n_not_private:
            return pair
        return f"{pair}, and {releases_text(self.n_not_private)} with no DP guarantee"


class LedgerTotals(NamedTuple):
    """Totals of a ledger by basic composition, split by certification.

    Attributes
    ----------
    epsilon, delta : float
        Sums over *all* spends (certified or not): what the budget counts.
    not_certified_epsilon, not_certified_delta : float
        Sums over the spends recorded with ``certified=False``.
    n_spends : int
        Number of spends.
    n_not_certified : int
        Number of spends recorded with ``certified=False`` (non-private
        releases included).
    n_not_private : int
        Number of releases recorded with no differential-privacy guarantee
        (they spend ``(0, 0)``: not in the sums above).
    """

    epsilon: float
    delta: float
    not_certified_epsilon: float
    not_certified_delta: float
    n_spends: int
    n_not_certified: int
    n_not_private: int = 0

    @property
    def total(self):
        """All spends, as a :class:`LedgerSpent` (the pair, and ``n_not_private``)."""
        return LedgerSpent(self.epsilon, self.delta, self.n_not_private)

    @property
    def not_certified(self):
        """Spends recorded with ``certified=False``, as a ``PrivacySpent``."""
        return PrivacySpent(self.not_certified_epsilon, self.not_certified_delta)

    @property
    def certified(self):
        """Spends whose claim was certified, as a ``PrivacySpent``."""
        return PrivacySpent(
            self.epsilon - self.not_certified_epsilon,
            self.delta - self.not_certified_delta,
        )


EMPTY_TOTALS = LedgerTotals(0.0, 0.0, 0.0, 0.0, 0, 0, 0)


def add_spend(totals, record):
    """``totals`` plus one :class:`Spend` (plain float sums, like SQL ``SUM``)."""
    uncertified = not record.certified
    return LedgerTotals(
        totals.epsilon + record.epsilon,
        totals.delta + record.delta,
        totals.not_certified_epsilon + (record.epsilon if uncertified else 0.0),
        totals.not_certified_delta + (record.delta if uncertified else 0.0),
        totals.n_spends + 1,
        totals.n_not_certified + int(uncertified),
        totals.n_not_private + int(not record.private),
    )


def totals_of(records):
    """:class:`LedgerTotals` of an iterable of :class:`Spend` records."""
    return functools.reduce(add_spend, records, EMPTY_TOTALS)


def _exceeds(total, limit):
    return total > limit * (1 + _RTOL)


def refuse_if_over(totals, epsilon, delta, budget):
    """Raise :class:`BudgetError` if ``totals`` plus one spend exceed ``budget``.

    The one home of the budget rule: every driver calls it inside its
    atomic append, and :meth:`BudgetAccountant.check` before a release.
    Certified and not-certified spends count alike; a spend of ``(0, 0)`` (a
    non-private release's record) is never refused.
    """
    if epsilon == 0 and delta == 0:
        return
    new_epsilon, new_delta = totals.epsilon + epsilon, totals.delta + delta
    over = [name for name, exceeds in (("epsilon", _exceeds(new_epsilon, budget.epsilon)),
                                       ("delta", _exceeds(new_delta, budget.delta))) if exceeds]
    if over:
        left_epsilon = max(budget.epsilon - totals.epsilon, 0.0)
        left_delta = max(budget.delta - totals.delta, 0.0)
        raise BudgetError(
            f"Privacy budget exceeded: spending (epsilon={epsilon:.6g}, "
            f"delta={delta:.3g}) on top of (epsilon={totals.epsilon:.6g}, "
            f"delta={totals.delta:.3g}) would exceed the budget (epsilon="
            f"{budget_text(budget.epsilon, '.6g')}, delta="
            f"{budget_text(budget.delta, '.3g')}) in {' and '.join(over)}; left: "
            f"(epsilon={budget_text(left_epsilon, '.6g')}, "
            f"delta={budget_text(left_delta, '.3g')}). Lower the "
            f"estimator's {'/'.join(over)} or create a BudgetAccountant with a "
            "larger budget."
        )


@runtime_checkable
class LedgerStorage(Protocol):
    """Where a :class:`~sksmooth.accounting.BudgetAccountant` keeps its ledger.

    Drivers: :class:`MemoryStorage` (one process), :class:`SQLiteStorage`
    (one host), :class:`PostgresStorage` (a database server). A driver must
    be picklable; an unpickled file or server driver reaches the same
    ledger from another process.
    """

    def init(self, budget, neighbouring="substitution"):
        """Create the ledger with ``budget`` and ``neighbouring`` if absent; return the
        stored ``(Budget, neighbouring)``."""

    def append_if_within_budget(self, record, budget):
        """Atomically append ``record`` unless it would exceed ``budget`` (then raise)."""

    def check_writable(self):
        """Raise :class:`CrossProcessLedgerError` if a spend here would be lost."""

    def totals(self):
        """Current :class:`LedgerTotals`."""

    def records(self):
        """All :class:`Spend` records, oldest first."""

    def describe(self):
        """Short public description for ``repr`` (never a password)."""
