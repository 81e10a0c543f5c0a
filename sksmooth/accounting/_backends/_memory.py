"""In-memory ledger driver: one process, one lock."""

import os
import threading

from ._protocol import CrossProcessLedgerError, Spend, add_spend, refuse_if_over, totals_of

__all__ = ["MemoryStorage"]


class MemoryStorage:
    """A ledger held in this process's memory.

    Shared by every clone, copy and unpickled copy *within* the owning
    process. A copy in another process (pickled to a joblib ``loky`` or
    Dask worker, or inherited through ``fork``) keeps a read-only snapshot:
    any spend or budget check there raises :class:`CrossProcessLedgerError`,
    because its owner would never see the spend.
    """

    def __init__(self, records=(), owner_pid=None):
        self._records = [Spend(*r) for r in records]
        self._totals = totals_of(self._records)  # kept up to date: O(1) appends
        self._owner_pid = os.getpid() if owner_pid is None else owner_pid
        self._lock = threading.Lock()

    def init(self, budget):
        """Nothing to create: a new in-memory ledger is empty."""

    def check_writable(self):
        """Raise :class:`CrossProcessLedgerError` outside the owning process."""
        if os.getpid() != self._owner_pid:
            raise CrossProcessLedgerError(
                "An in-memory BudgetAccountant was charged in a process other "
                f"than the one that owns it (pid {os.getpid()}, owner pid "
                f"{self._owner_pid}; e.g. a joblib worker with n_jobs > 1 or a "
                "Dask worker). Its owner would never see this spend, so it is "
                "refused and nothing is released. Create the accountant with "
                "BudgetAccountant(..., path='ledger.sqlite') (processes on one "
                "host) or BudgetAccountant(..., url='postgresql://...') "
                "(several hosts), or run with n_jobs=1."
            )

    def append_if_within_budget(self, record, budget):
        """Check and append under one lock."""
        self.check_writable()
        with self._lock:
            refuse_if_over(self._totals, record.epsilon, record.delta, budget)
            self._records.append(record)
            self._totals = add_spend(self._totals, record)

    def totals(self):
        """Totals of the records held here."""
        with self._lock:
            return self._totals

    def records(self):
        """A copy of the records held here."""
        with self._lock:
            return list(self._records)

    def describe(self):
        """``None``: the repr shows no location for memory."""
        return None

    def __getstate__(self):
        return {"records": [tuple(r) for r in self.records()], "owner_pid": self._owner_pid}

    def __setstate__(self, state):
        self.__init__(state["records"], state["owner_pid"])
