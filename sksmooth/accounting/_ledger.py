"""The privacy ledger: :class:`BudgetAccountant` (SPEC §3.4), a shared handle on
one ledger of releases (``clone`` and pickling return it), stored by a driver
of :mod:`._backends`, totals by basic composition (docs/privacy_ledger.rst).
"""

import contextlib
import numbers
import os
import threading
import time
import uuid
import weakref
from typing import NamedTuple

import numpy as np

from .._constraints import Check
from .._guarantee import PrivacySpent
from ..exceptions import BudgetError
from .._validation import check_delta, check_epsilon, check_flag, check_probability
from ._backends import (
    Budget,
    LedgerSpent,
    LedgerTotals,
    NotPrivateCount,
    Spend,
    budget_text,
    open_storage,
    refuse_if_over,
    releases_text,
)

__all__ = [
    "BudgetAccountant", "LedgerSpent", "LedgerTotals", "RemainingBudget", "Spend", "charge",
    "charge_not_private", "check_accountant",
]

# Ledgers alive in this process, by id: unpickling returns the live object.
_LIVE_LEDGERS = weakref.WeakValueDictionary()
_LIVE_LOCK = threading.Lock()


def _check_budget_delta(delta):
    if delta is None:
        return float("inf")
    return check_probability(delta, "delta", closed=True)


class _Pair(NamedTuple):
    epsilon: float
    delta: float


class RemainingBudget(NotPrivateCount, _Pair):
    """The ``(epsilon, delta)`` still available per release (not an amount spent).

    Returned by :meth:`BudgetAccountant.remaining`; ``inf`` where the budget
    is unlimited (its text says "unlimited"). Unpacks as the pair;
    ``n_not_private`` counts the ledger's releases with no differential-privacy
    guarantee, which the pair does not cover.
    """

    def __str__(self):
        text = (f"(epsilon {budget_text(self.epsilon, '.6g')}, delta "
                f"{budget_text(self.delta, '.3g')}) left per release")
        if self.n_not_private:
            text += f"; {releases_text(self.n_not_private)} with no DP guarantee recorded"
        return text


def _mismatch_message(where, stored, asked):
    """The ``ValueError`` text for reopening a ledger with another budget or relation."""
    def text(budget):
        return f"(epsilon={budget_text(budget[0], '')}, delta={budget_text(budget[1], '')})"

    what = [f"budget {text(stored[0])}, not {text(asked[0])}"] if stored[0] != asked[0] else []
    if stored[1] != asked[1]:
        what.append(f"its budget read under neighbouring={stored[1]!r}, not {asked[1]!r}")
    return (f"{where} holds a ledger with {' and '.join(what)}; open it with the same budget "
            "and neighbouring to spend (delta=None is an unlimited delta), with no budget to "
            "read it only, or use a new ledger.")


def _left(limit, spent):
    return float("inf") if limit == float("inf") else max(limit - spent, 0.0)


class BudgetAccountant:
    """A privacy budget and the ledger of every release charged to it.

    Parameters
    ----------
    epsilon : float, default=inf
        Total epsilon budget (``inf``: record only, never refuse).
    delta : float or None, default=None
        Total delta budget, in ``[0, 1]``; ``None`` leaves delta unlimited
        (record only). ``0`` admits pure-DP releases only.
    path : str or os.PathLike, default=None
        An SQLite file holding the ledger, shared by every process of this
        host that opens it (e.g. joblib workers with ``n_jobs > 1``). Its
        directory must exist; the file is created if absent. Not for
        network file systems: use ``url`` across hosts.
    url : str, default=None
        A database URL: ``"postgresql://user@host:5432/dbname"`` (needs the
        ``postgres`` extra, ``psycopg`` 3) shares the ledger across hosts,
        e.g. Dask workers; ``"sqlite:///ledger.sqlite"`` is the same as
        ``path="ledger.sqlite"``. At most one of ``path`` and ``url``;
        neither keeps the ledger in this process's memory.
    neighbouring : {"substitution", "add_remove"}, default="substitution"
        The neighbouring relation the budget is read under (stored with a
        file or server ledger). A release private under the other relation
        is converted when charged: an ``(epsilon, delta)``-DP release under
        addition/removal of one record is charged ``(2 epsilon, (1 +
        e^epsilon) delta)`` to a substitution ledger (a substitution is a
        removal and an addition: group privacy); a release private under
        substitution only (``n`` public) has no guarantee under
        addition/removal and is refused by an ``"add_remove"`` ledger.

    Attributes
    ----------
    spent : LedgerSpent
        Total (epsilon, delta) of *all* private spends, certified or not,
        and ``spent.n_not_private``, the number of releases recorded with
        no differential-privacy guarantee (:func:`charge_not_private`),
        which the pair does not cover.
    spent_not_certified : PrivacySpent
        Total of the spends recorded with ``certified=False``.
    ledger : list of Spend
        Every recorded release, oldest first.

    Notes
    -----
    :meth:`spend` is atomic: the check against the budget and the insertion
    happen in one transaction (one lock in memory), so concurrent spends
    can never jointly overrun the budget; not-certified spends count like
    certified ones. Totals are floating-point sums compared with the budget
    up to a relative tolerance of ``1e-9`` (ten spends of 0.1 fit 1.0),
    never an absolute one (a zero ``delta`` budget admits no ``delta > 0``).
    A file or server ledger stores its budget on creation; reopening it
    with another budget raises ``ValueError``; opening it with no budget
    reads it (the stored budget) and refuses to spend (``BudgetError``).

    An in-memory ledger lives in one process. A copy of it in another
    process (a joblib ``loky`` worker, a Dask worker), or unpickled once the
    live ledger is gone, raises :class:`CrossProcessLedgerError` when
    charged, so a parallel search cannot spend without the owner seeing it,
    nor a checkpoint spend again what was spent after it: pass ``path`` or
    ``url``.

    Examples
    --------
    >>> from sksmooth import BudgetAccountant
    >>> acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    >>> acc.spend(0.4, 0.0, label="demo")
    >>> acc.spend(0.1, 0.0, label="seeded demo", certified=False)
    >>> acc.spent
    LedgerSpent(epsilon=0.5, delta=0.0, n_not_private=0)
    >>> acc.spent_not_certified
    PrivacySpent(epsilon=0.1, delta=0.0)
    >>> acc.remaining()
    RemainingBudget(epsilon=0.5, delta=1e-05, n_not_private=0)
    >>> acc.record_not_private("tree", reason="a decision tree's thresholds are row values")
    >>> print(acc.spent)
    (0.5, 0)-DP, and 1 release with no DP guarantee
    """

    def __init__(self, epsilon=float("inf"), delta=None, *, path=None, url=None,
                 neighbouring="substitution"):
        epsilon = check_epsilon(epsilon, "epsilon", allow_inf=True)
        asked = (Budget(epsilon, _check_budget_delta(delta)),
                 _check_neighbouring(neighbouring, "neighbouring"))
        storage = open_storage(path=path, url=url)
        stored = storage.init(*asked)
        if stored != asked and asked[0] != (float("inf"),) * 2:
            raise ValueError(_mismatch_message(storage.describe(), stored, asked))
        # the stored budget: the one asked, or (opened with no budget) the one it reads
        (epsilon, delta), neighbouring = stored
        with _LIVE_LOCK:
            self._hold(uuid.uuid4().hex, epsilon, None if delta == float("inf") else delta,
                       storage, neighbouring, reads_only=stored != asked)

    def _hold(self, ledger_id, epsilon, delta, storage, neighbouring, reads_only):
        """Make this handle the live one of ``ledger_id`` (a new ledger, or one
        unpickled); the caller holds ``_LIVE_LOCK``."""
        self.epsilon, self.delta, self.neighbouring = epsilon, delta, neighbouring
        self.budget = Budget(epsilon, _check_budget_delta(delta))
        self._storage, self._id, self._reads_only = storage, ledger_id, reads_only
        _LIVE_LEDGERS[ledger_id] = self
        return self

    @property
    def path(self):
        """The SQLite file of the ledger, or ``None``."""
        return getattr(self._storage, "path", None)

    @property
    def url(self):
        """The database URL of a server ledger, or ``None``."""
        return getattr(self._storage, "url", None)

    def _check_request(self, epsilon, delta, neighbouring=None):
        """``(epsilon, delta)`` of a release under ``neighbouring``, in the ledger's
        relation (see the class doc)."""
        epsilon, delta = check_epsilon(epsilon, "epsilon"), check_delta(delta, "delta")
        relation = (self.neighbouring if neighbouring is None
                    else _check_neighbouring(neighbouring, "neighbouring"))
        if relation == self.neighbouring:
            return epsilon, delta
        if relation == "add_remove":  # substitution = removal then addition
            converted = (1.0 + np.exp(min(epsilon, 700.0))) * delta
            if converted >= 1.0:
                raise BudgetError(
                    f"This release is ({epsilon:.6g}, {delta:.3g})-DP under addition/removal, "
                    f"which is (2 epsilon, (1 + e^epsilon) delta) = ({2 * epsilon:.6g}, "
                    f"{converted:.3g}) under substitution, the relation this ledger's budget "
                    "is read under: no guarantee (delta >= 1). Lower the estimator's "
                    "epsilon or delta, or use BudgetAccountant(neighbouring='add_remove').")
            return 2.0 * epsilon, float(converted)
        raise ValueError(
            "This release is private under substitution, which gives no guarantee under "
            "addition/removal, the relation of this ledger (neighbouring='add_remove'). "
            "Use an estimator with neighbouring='add_remove', or a ledger with "
            "neighbouring='substitution'.")

    def _params(self):
        params = [f"epsilon={self.epsilon}"] + ([] if self.delta is None else
                                                [f"delta={self.delta}"])
        if self.neighbouring != "substitution":
            params.append(f"neighbouring={self.neighbouring!r}")
        location = self._storage.describe()
        return ", ".join(params + ([location] if location else []))

    # ------------------------------------------------------------ public API
    def check_can_record(self):
        """Raise if this handle cannot record a release, whatever its size.

        :class:`BudgetError` if it was opened with no budget (it only reads
        the ledger); :class:`CrossProcessLedgerError` if it is a copy of an
        in-memory ledger in another process, or a snapshot unpickled after
        its ledger was gone. Records nothing.
        """
        if self._reads_only:
            raise BudgetError(
                f"This BudgetAccountant was opened with no budget on a ledger that stores one, "
                f"so it only reads it: spending needs the budget. Open it with "
                f"BudgetAccountant({self._params()}).")
        self._storage.check_writable()

    def check(self, epsilon, delta=0.0, neighbouring=None):
        """Raise :class:`BudgetError` if spending ``(epsilon, delta)`` would exceed the budget.

        Records nothing. Private estimators call it before touching data.
        An in-memory ledger in a process that does not own it raises
        :class:`CrossProcessLedgerError`. ``neighbouring`` is the release's
        relation (default: the ledger's), converted as :meth:`spend` does.
        """
        request = self._check_request(epsilon, delta, neighbouring)
        self.check_can_record()
        with _conversion_said(request, (epsilon, delta)):
            refuse_if_over(self._storage.totals(), *request, self.budget)

    def spend(self, epsilon, delta=0.0, label=None, certified=True, neighbouring=None):
        """Record a release of ``(epsilon, delta)``; atomic and durable.

        Parameters
        ----------
        epsilon : float
            The release's epsilon, finite and ``> 0``.
        delta : float, default=0.0
            The release's delta, in ``[0, 1)``.
        label : str, default=None
            What was released (estimators pass their class name).
        certified : bool, default=True
            ``False`` when the releasing code could not certify its claim
            (seeded noise, heuristic oracle, ...). Counted against the
            budget all the same; reported in :attr:`spent_not_certified`.
        neighbouring : {"substitution", "add_remove"}, default=None
            The release's neighbouring relation (``None``: the ledger's). A
            release under addition/removal charged to a substitution ledger
            is recorded as ``(2 epsilon, (1 + e^epsilon) delta)``, its label
            saying so; one under substitution is refused by an
            ``"add_remove"`` ledger (``ValueError``).

        Raises
        ------
        BudgetError
            If the budget would be exceeded; nothing is recorded.
        CrossProcessLedgerError
            If this is a copy of an in-memory ledger in another process.
        """
        converted = self._check_request(epsilon, delta, neighbouring)
        certified = check_flag(certified, "certified")
        self.check_can_record()
        label = "" if label is None else str(label)
        if converted != (epsilon, delta):
            label += (f" (add/remove ({epsilon:.6g}, {delta:.3g})-DP, charged as "
                      f"substitution)")
        record = Spend(label, *converted, time.time(), os.getpid(), certified)
        with _conversion_said(converted, (epsilon, delta)):
            self._storage.append_if_within_budget(record, self.budget)

    def record_not_private(self, label, reason):
        """Record a release that has no differential-privacy guarantee.

        It spends ``(0, 0)``: it is never refused and never counted in the
        headline ``(epsilon, delta)`` (no budget covers it), but the ledger
        keeps it, ``spent.n_not_private`` and every summary count it, and it
        is counted as not certified too.

        Parameters
        ----------
        label : str
            What was released (estimators pass their class name).
        reason : str
            Why it is not private, e.g. ``"bounds read from the data"``;
            recorded in the label.

        Raises
        ------
        CrossProcessLedgerError
            If this is a copy of an in-memory ledger in another process.
        """
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError(
                f"reason must be a non-empty str saying why the release is not private, got "
                f"{reason!r}; e.g. reason='bounds read from the data'.")
        self.check_can_record()
        label = "" if label is None else str(label)
        record = Spend(f"{label} (not private: {reason})", 0.0, 0.0, time.time(), os.getpid(),
                       certified=False, private=False)
        self._storage.append_if_within_budget(record, self.budget)

    def totals(self):
        """All totals in one consistent read.

        Returns
        -------
        LedgerTotals
            Sums of epsilon and delta over all spends and over the
            not-certified ones, the counts of both, and the count of
            releases with no differential-privacy guarantee.
        """
        return self._storage.totals()

    @property
    def ledger(self):
        """List of :class:`Spend` records, oldest first."""
        return self._storage.records()

    @property
    def spent(self):
        """Total :class:`LedgerSpent` of all spends (certified or not): unpacks as
        ``(epsilon, delta)``; ``n_not_private`` counts the releases it does not cover."""
        return self.totals().total

    @property
    def spent_not_certified(self):
        """Total ``PrivacySpent`` of the spends recorded with ``certified=False``."""
        return self.totals().not_certified

    def remaining(self, k=1):
        """Budget left for each of ``k`` further equal releases.

        Returns
        -------
        RemainingBudget
            The per-release budget left (not an amount spent):
            ``((epsilon - spent.epsilon) / k, (delta - spent.delta) / k)``,
            floored at 0; ``inf`` where the budget is unlimited (its text
            says "unlimited"); ``n_not_private`` as in :attr:`spent`.
        """
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}.")
        k = int(k)
        spent = self.spent
        return RemainingBudget(
            _left(self.budget.epsilon, spent.epsilon) / k,
            _left(self.budget.delta, spent.delta) / k,
            spent.n_not_private,
        )

    def __len__(self):
        return self.totals().n_spends

    def __repr__(self):
        totals = self.totals()
        return (
            f"BudgetAccountant({self._params()}{', read only' * self._reads_only}; spent "
            f"{PrivacySpent(*totals.total)} in "
            f"{totals.n_spends} releases, {totals.n_not_certified} not certified, "
            f"{totals.n_not_private} not private)"
        )

    # ------------------------------------------------- sharing semantics
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        memo[id(self)] = self
        return self

    def __reduce__(self):
        return (_restore_accountant, (self._id, self.epsilon, self.delta, self._storage,
                                      self.neighbouring, self._reads_only))


def _restore_accountant(ledger_id, epsilon, delta, storage, neighbouring, reads_only=False):
    """Unpickle: the live ledger of this process if any, else a handle on ``storage``.

    An unpickled in-memory storage keeps the pid of its owner, so a copy in
    another process (e.g. a loky worker) refuses to spend.
    """
    with _LIVE_LOCK:
        live = _LIVE_LEDGERS.get(ledger_id)
        if live is not None:
            return live
        return BudgetAccountant.__new__(BudgetAccountant)._hold(
            ledger_id, epsilon, delta, storage, neighbouring, reads_only)


def check_accountant(accountant):
    """Validate an estimator's ``accountant`` parameter (``None`` allowed)."""
    if accountant is not None and not isinstance(accountant, BudgetAccountant):
        raise TypeError(
            "accountant must be None or a sksmooth.BudgetAccountant, got "
            f"{type(accountant).__name__}; create one with "
            "BudgetAccountant(epsilon=..., delta=..., path=...)."
        )
    return accountant


#: The ``accountant`` entry of an estimator's parameter table.
ACCOUNTANT = Check(lambda value, name: check_accountant(value), "None or a BudgetAccountant")


@contextlib.contextmanager
def _conversion_said(charged, claimed):
    """A refusal of a converted release says what was converted, and the fix."""
    try:
        yield
    except BudgetError as exc:
        if type(exc) is not BudgetError or tuple(charged) == tuple(claimed):
            raise
        raise BudgetError(
            f"{exc} The release is ({claimed[0]:.6g}, {claimed[1]:.3g})-DP under addition/"
            f"removal, charged as ({charged[0]:.6g}, {charged[1]:.3g}) under this ledger's "
            "substitution: use BudgetAccountant(neighbouring='add_remove'), or the "
            "estimator with neighbouring='substitution'.") from None


def _check_neighbouring(value, name):
    """``'substitution'`` or ``'add_remove'``."""
    if value not in ("substitution", "add_remove"):
        raise ValueError(f"{name} must be 'substitution' or 'add_remove', got {value!r}.")
    return value


def charge(accountant, epsilon, delta, label, certified=True, neighbouring="substitution"):
    """Spend ``(epsilon, delta)`` on ``accountant`` (no-op when it is ``None``).

    Call it before the private output becomes visible (charge, then
    publish): it raises :class:`BudgetError` if the release does not fit,
    so nothing leaks. ``certified=False`` records a release whose claim the
    estimator could not certify (seeded noise, heuristic oracle, ...).
    ``neighbouring`` is the release's relation (substitution for every
    estimator without a ``neighbouring`` parameter).
    """
    if check_accountant(accountant) is not None:
        accountant.spend(epsilon, delta, label=label, certified=certified,
                         neighbouring=neighbouring)


def charge_not_private(accountant, label, reason):
    """Record on ``accountant`` a release with no DP guarantee (no-op when ``None``).

    Call it before the release becomes visible, like :func:`charge`. The
    ledger keeps the record (``reason`` in its label) and counts it in
    ``spent.n_not_private``, never in the headline ``(epsilon, delta)``;
    it is never refused for lack of budget. See
    :meth:`BudgetAccountant.record_not_private`.
    """
    if check_accountant(accountant) is not None:
        accountant.record_not_private(label, reason)


def charge_release(accountant, label, epsilon, delta, *, not_private, certified,
                   neighbouring="substitution"):
    """:func:`charge_not_private` when ``not_private`` gives a reason (the release read
    its box or labels from the rows: the opt-in ``'data'``), else :func:`charge`."""
    if not_private:
        charge_not_private(accountant, label, not_private)
    else:
        charge(accountant, epsilon, delta, label, certified=certified,
               neighbouring=neighbouring)


@contextlib.contextmanager
def refusal_recorded(accountant, label, reason):
    """Record a refusal raised inside as a release without guarantee when ``reason``
    (:func:`~sksmooth._guarantee.read_from_data_reason`: what was read from the rows)
    is not empty: whether it is raised, and its message, depend on what was read.
    A ledger that could not record it (read only, or a snapshot) is refused first:
    its error would otherwise carry the refusal unrecorded (``__context__``)."""
    if reason and check_accountant(accountant) is not None:
        accountant.check_can_record()
    try:
        yield
    except Exception:  # any error (a user oracle's too) may depend on the rows
        if reason:
            charge_not_private(accountant, label,
                               f"a refusal whose message may show them: {reason}")
        raise
