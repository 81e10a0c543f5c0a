"""The privacy ledger: :class:`BudgetAccountant` (SPEC §3.4).

A ``BudgetAccountant`` is a *shared handle* on one ledger of releases:

* ``copy.copy``, ``copy.deepcopy`` and therefore :func:`sklearn.base.clone`
  return the very same object, so a ``GridSearchCV`` over a private
  estimator records every fit in the ledger the user passed in (by contrast,
  a deep-copied accountant silently records into a throw-away copy);
* unpickling in a process that already holds the ledger returns that ledger;
* with ``path=...`` the ledger is an SQLite file (standard library
  ``sqlite3``, WAL journal, ``synchronous=FULL``, one ``BEGIN IMMEDIATE``
  transaction per spend). Spends made in joblib worker processes (loky) are
  written to the same file, and a spend is committed to disk before
  :meth:`BudgetAccountant.spend` returns, i.e. before the caller may return
  its private output; a process killed afterwards loses nothing.

Budgets compose by basic (sequential) composition: the total spent is the
sum of the epsilons and the sum of the deltas of all releases. Tighter
composition of *one* algorithm's internal steps is the algorithm's business
(see :mod:`sksmooth.accounting` for advanced composition and zCDP); the
ledger records what each release finally claims.
"""

import os
import sqlite3
import threading
import time
import uuid
import warnings
import weakref
from typing import NamedTuple

from .._guarantee import PrivacySpent
from .._validation import check_delta, check_epsilon, check_probability
from ..exceptions import BudgetError

__all__ = ["BudgetAccountant", "Spend", "charge", "check_accountant"]

# Relative slack when comparing sums of floats against a budget, so that
# e.g. ten spends of 0.1 fit a budget of 1.0. It is purely relative: a zero
# delta budget (pure DP) refuses every spend with delta > 0.
_RTOL = 1e-9

# Ledgers alive in this process, by id: unpickling returns the live object.
_LIVE_LEDGERS = weakref.WeakValueDictionary()
_LIVE_LOCK = threading.Lock()


class Spend(NamedTuple):
    """One release recorded in the ledger."""

    label: str
    epsilon: float
    delta: float
    time: float
    pid: int


def _exceeds(total, budget):
    return total > budget * (1 + _RTOL)


class BudgetAccountant:
    """A privacy budget and the ledger of every release charged to it.

    Parameters
    ----------
    epsilon : float, default=inf
        Total epsilon budget (``inf``: record only, never refuse).
    delta : float, default=1.0
        Total delta budget, in ``[0, 1]``.
    path : str or os.PathLike, default=None
        ``None`` keeps the ledger in memory (shared by every clone and deep
        copy in this process, but *not* across processes). A path makes it
        an SQLite file shared by all processes that open it, e.g. joblib
        workers with ``n_jobs > 1``. The budget is stored in the file on
        creation; reopening with a different budget raises ``ValueError``.

    Attributes
    ----------
    spent : PrivacySpent
        Total (epsilon, delta) spent so far (basic composition).
    ledger : list of Spend
        Every recorded release, in order.

    Notes
    -----
    :meth:`spend` is atomic: the check against the budget and the insertion
    happen in one transaction (one lock in memory), so concurrent spends
    can never jointly overrun the budget. Totals are floating-point sums,
    compared with the budget up to a relative tolerance of ``1e-9`` (so
    that e.g. ten spends of 0.1 fit 1.0): the recorded total may exceed the
    budget by at most that factor, never by an absolute amount (a zero
    ``delta`` budget admits no ``delta > 0``). In-memory ledgers are shared
    within one process only; a copy in another process (e.g. a joblib
    worker) warns when it records a spend. Use ``path=...`` there.

    Examples
    --------
    >>> from sksmooth import BudgetAccountant
    >>> acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    >>> acc.spend(0.4, 0.0, label="demo")
    >>> acc.spent
    PrivacySpent(epsilon=0.4, delta=0.0)
    >>> acc.remaining()
    PrivacySpent(epsilon=0.6, delta=1e-05)
    """

    def __init__(self, epsilon=float("inf"), delta=1.0, path=None):
        self.epsilon = check_epsilon(epsilon, "epsilon", allow_inf=True)
        self.delta = check_probability(delta, "delta", closed=True)
        self.path = None if path is None else os.fspath(path)
        self._id = uuid.uuid4().hex
        self._init_state()
        if self.path is not None:
            self._init_file()
        with _LIVE_LOCK:
            _LIVE_LEDGERS[self._id] = self

    def _init_state(self, records=()):
        self._lock = threading.Lock()
        self._records = list(records)
        self._pid = os.getpid()
        self._warned_foreign_process = False

    # ------------------------------------------------------------------ file
    def _connect(self):
        connection = sqlite3.connect(self.path, timeout=60.0, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
        return connection

    def _init_file(self):
        connection = self._connect()
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute(
                "CREATE TABLE IF NOT EXISTS budget (epsilon REAL, delta REAL)"
            )
            connection.execute(
                "CREATE TABLE IF NOT EXISTS spends (id INTEGER PRIMARY KEY "
                "AUTOINCREMENT, label TEXT, epsilon REAL, delta REAL, "
                "time REAL, pid INTEGER)"
            )
            row = connection.execute("SELECT epsilon, delta FROM budget").fetchone()
            if row is None:
                connection.execute(
                    "INSERT INTO budget VALUES (?, ?)", (self.epsilon, self.delta)
                )
            elif (float(row[0]), float(row[1])) != (self.epsilon, self.delta):
                connection.execute("ROLLBACK")
                raise ValueError(
                    f"path={self.path!r} holds a ledger with budget "
                    f"(epsilon={row[0]}, delta={row[1]}), not (epsilon="
                    f"{self.epsilon}, delta={self.delta}); open it with the same "
                    "budget or use a new path."
                )
            connection.execute("COMMIT")
        finally:
            connection.close()

    # ------------------------------------------------------------- internals
    def _totals(self, connection=None):
        if connection is not None:
            eps, delta = connection.execute(
                "SELECT COALESCE(SUM(epsilon), 0), COALESCE(SUM(delta), 0) FROM spends"
            ).fetchone()
            return float(eps), float(delta)
        eps = sum(record.epsilon for record in self._records)
        delta = sum(record.delta for record in self._records)
        return eps, delta

    def _refuse_if_over(self, spent, epsilon, delta):
        new_eps, new_delta = spent[0] + epsilon, spent[1] + delta
        if _exceeds(new_eps, self.epsilon) or _exceeds(new_delta, self.delta):
            raise BudgetError(
                f"Privacy budget exceeded: spending (epsilon={epsilon:.6g}, "
                f"delta={delta:.3g}) on top of (epsilon={spent[0]:.6g}, "
                f"delta={spent[1]:.3g}) would exceed the budget (epsilon="
                f"{self.epsilon:.6g}, delta={self.delta:.3g}). Lower the "
                "estimator's epsilon/delta or create a BudgetAccountant with a "
                "larger budget."
            )

    def _warn_if_foreign_process(self):
        if self.path is None and os.getpid() != self._pid and not self._warned_foreign_process:
            self._warned_foreign_process = True
            warnings.warn(
                "An in-memory BudgetAccountant is recording a spend in a process "
                "other than the one that created it (e.g. a joblib worker); that "
                "process will not see it, so the budget is not enforced across "
                "processes. Use BudgetAccountant(path=...) with n_jobs > 1.",
                UserWarning,
                stacklevel=3,
            )

    @staticmethod
    def _check_request(epsilon, delta):
        epsilon = check_epsilon(epsilon, "epsilon")
        delta = check_delta(delta, "delta")
        return epsilon, delta

    # ------------------------------------------------------------ public API
    def check(self, epsilon, delta=0.0):
        """Raise :class:`BudgetError` if spending ``(epsilon, delta)`` would exceed the budget.

        Records nothing. Private estimators call it before touching data.
        """
        epsilon, delta = self._check_request(epsilon, delta)
        self._refuse_if_over(tuple(self.spent), epsilon, delta)

    def spend(self, epsilon, delta=0.0, label=None, certified=True):
        """Record a release of ``(epsilon, delta)``; atomic and durable.

        Raises :class:`BudgetError` (and records nothing) if the budget would
        be exceeded. With ``path`` set, the record is committed to disk
        before this method returns.
        """
        epsilon, delta = self._check_request(epsilon, delta)
        label = "" if label is None else str(label)
        record = Spend(label, epsilon, delta, time.time(), os.getpid())
        if self.path is None:
            self._warn_if_foreign_process()
            with self._lock:
                self._refuse_if_over(self._totals(), epsilon, delta)
                self._records.append(record)
            return
        connection = self._connect()
        try:
            connection.execute("BEGIN IMMEDIATE")
            try:
                self._refuse_if_over(self._totals(connection), epsilon, delta)
            except BudgetError:
                connection.execute("ROLLBACK")
                raise
            connection.execute(
                "INSERT INTO spends (label, epsilon, delta, time, pid) "
                "VALUES (?, ?, ?, ?, ?)",
                record,
            )
            connection.execute("COMMIT")
        finally:
            connection.close()

    @property
    def ledger(self):
        """List of :class:`Spend` records, oldest first."""
        if self.path is None:
            with self._lock:
                return list(self._records)
        connection = self._connect()
        try:
            rows = connection.execute(
                "SELECT label, epsilon, delta, time, pid FROM spends ORDER BY id"
            ).fetchall()
        finally:
            connection.close()
        return [Spend(*row) for row in rows]

    @property
    def spent(self):
        """Total ``PrivacySpent`` so far, by basic composition."""
        if self.path is None:
            with self._lock:
                return PrivacySpent(*self._totals())
        connection = self._connect()
        try:
            return PrivacySpent(*self._totals(connection))
        finally:
            connection.close()

    def remaining(self, k=1):
        """Budget left for each of ``k`` further equal releases.

        Returns
        -------
        PrivacySpent
            ``((epsilon - spent.epsilon) / k, (delta - spent.delta) / k)``,
            floored at 0.
        """
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}.")
        spent = self.spent
        return PrivacySpent(
            max(self.epsilon - spent.epsilon, 0.0) / k,
            max(self.delta - spent.delta, 0.0) / k,
        )

    def __len__(self):
        return len(self.ledger)

    def __repr__(self):
        where = "memory" if self.path is None else repr(self.path)
        spent = self.spent
        return (
            f"BudgetAccountant(epsilon={self.epsilon}, delta={self.delta}, "
            f"path={where}; spent epsilon={spent.epsilon:.6g}, "
            f"delta={spent.delta:.3g} in {len(self)} releases)"
        )

    # ------------------------------------------------- sharing semantics
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        memo[id(self)] = self
        return self

    def __reduce__(self):
        records = () if self.path is not None else tuple(self.ledger)
        return (
            _restore_accountant,
            (self._id, self.epsilon, self.delta, self.path, records, self._pid),
        )


def _restore_accountant(ledger_id, epsilon, delta, path, records, owner_pid=None):
    """Unpickle: the live ledger of this process if any, else a copy.

    The copy remembers the pid of the process owning the ledger, so that an
    in-memory copy in another process (e.g. a loky worker) warns when it
    records a spend the owner will never see.
    """
    with _LIVE_LOCK:
        live = _LIVE_LEDGERS.get(ledger_id)
        if live is not None:
            return live
        accountant = BudgetAccountant.__new__(BudgetAccountant)
        accountant.epsilon, accountant.delta, accountant.path = epsilon, delta, path
        accountant._id = ledger_id
        accountant._init_state(Spend(*r) for r in records)
        if owner_pid is not None:
            accountant._pid = owner_pid
        _LIVE_LEDGERS[ledger_id] = accountant
        return accountant


def check_accountant(accountant):
    """Validate an estimator's ``accountant`` parameter (``None`` allowed)."""
    if accountant is not None and not isinstance(accountant, BudgetAccountant):
        raise TypeError(
            "accountant must be None or a sksmooth.BudgetAccountant, got "
            f"{type(accountant).__name__}; create one with "
            "BudgetAccountant(epsilon=..., delta=..., path=...)."
        )
    return accountant


def charge(accountant, epsilon, delta, label, certified=True):
    """Spend ``(epsilon, delta)`` on ``accountant`` (no-op when it is ``None``).

    Call it before the private output becomes visible (charge, then
    publish): it raises :class:`BudgetError` if the release does not fit,
    so nothing leaks. ``certified=False`` records a release whose claim the
    estimator could not certify (seeded noise, heuristic oracle, ...).
    """
    if check_accountant(accountant) is not None:
        accountant.spend(epsilon, delta, label=label, certified=certified)


