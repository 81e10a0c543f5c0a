"""In-memory ledger driver: one process, one lock."""

import os
import threading

from ._protocol import CrossProcessLedgerError, Spend, add_spend, refuse_if_over, totals_of

__all__ = ["MemoryStorage"]


class MemoryStorage:
    """A ledger held in this process's memory.

    Shared by every clone, copy and unpickled copy *within* the owning
    process (unpickling returns the live ledger). A copy inherited through
    ``fork`` and any storage rebuilt from a pickle (in a joblib ``loky`` or
    Dask worker, or in this process once the live ledger is gone) is a
    read-only snapshot: any spend or budget check there raises
    :class:`CrossProcessLedgerError`, because the owner would never see the
    spend, or the snapshot misses the spends made after it was pickled.
    A process id alone would not tell: a new process may get the owner's
    (the first process of a container is always 1).
    """

    def __init__(self, records=(), owner_pid=None, *, snapshot=False):
        self._records = [Spend(*r) for r in records]
        self._totals = totals_of(self._records)  # kept up to date: O(1) appends
        self._owner_pid = os.getpid() if owner_pid is None else owner_pid
        self._snapshot = snapshot
        self._lock = threading.Lock()

    def init(self, budget, neighbouring="substitution"):
        """Nothing to create: a new in-memory ledger is empty and holds ``budget``."""
        return budget, neighbouring

    def check_writable(self):
        """Raise :class:`CrossProcessLedgerError` in a snapshot or outside the owner."""
        if self._snapshot and os.getpid() == self._owner_pid:
            raise CrossProcessLedgerError(
                "This in-memory BudgetAccountant is a snapshot unpickled after its ledger "
                "was gone, blind to later spends, so charging it is refused. To keep one "
                "budget across pickling or processes, use BudgetAccountant(..., "
                "path='ledger.sqlite') or BudgetAccountant(..., url='postgresql://...')."
            )
        if os.getpid() != self._owner_pid:
            raise CrossProcessLedgerError(
                f"An in-memory BudgetAccountant was charged in process {os.getpid()}, "
                f"not its owner {self._owner_pid} (e.g. a joblib or Dask worker), so "
                "the spend is refused. Use BudgetAccountant(..., path='ledger.sqlite') "
                "on one host, BudgetAccountant(..., url='postgresql://...') across "
                "hosts, or n_jobs=1."
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
        self.__init__(state["records"], state["owner_pid"], snapshot=True)
