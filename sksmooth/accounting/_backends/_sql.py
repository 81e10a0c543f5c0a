"""SQL shared by the SQLite and PostgreSQL drivers: one schema, one set of queries.

Statements use ``{p}`` for a bind parameter; each driver formats it with its
DB-API placeholder (``?`` for ``sqlite3``, ``%s`` for ``psycopg``). Only the
column types of the ``CREATE TABLE`` statements differ between the two.
"""

import uuid
import warnings

from ...exceptions import DefaultsWarning, user_stacklevel
from ._protocol import Budget, LedgerIntegrityError, LedgerTotals, Spend

__all__ = [
    "LEDGER_ID_SQL",
    "LedgerWitness",
    "NEIGHBOURING_SQL",
    "add_budget_columns",
    "add_missing_columns",
    "new_ledger_id",
    "store_or_read_budget",
    "REQUIRED_COLUMNS",
    "SPEND_COLUMNS",
    "insert_spend_sql",
    "spend_row",
    "records_from_rows",
    "RECORDS_SQL",
    "SELECT_BUDGET_SQL",
    "totals_sql",
    "totals_from_row",
]

SPEND_COLUMNS = ("label", "epsilon", "delta", "time", "pid", "certified", "private")

# columns an existing table must have to be taken for a ledger's ("certified"
# and "private" are added to a ledger written before they were recorded)
REQUIRED_COLUMNS = {"budget": {"epsilon", "delta"},
                    "spends": {"id", "label", "epsilon", "delta", "time", "pid"}}

SELECT_BUDGET_SQL = "SELECT epsilon, delta FROM budget"
LEDGER_ID_SQL = "SELECT ledger_id FROM budget"
# the neighbouring relation the budget is read in (NULL: a ledger written before it
# was stored, when every ledger was read under substitution)
NEIGHBOURING_SQL = "SELECT COALESCE(neighbouring, 'substitution') FROM budget"


def store_or_read_budget(execute, placeholder, budget, neighbouring, witness, where):
    """In the caller's transaction: store ``budget`` and ``neighbouring`` with a new
    identity in an empty ledger; return the stored budget and relation (the caller
    compares them); the witness sees the identity."""
    row = execute(SELECT_BUDGET_SQL).fetchone()
    if row is None:
        values = ", ".join([placeholder] * 4)
        execute(f"INSERT INTO budget (epsilon, delta, ledger_id, neighbouring) VALUES ({values})",
                (*budget, new_ledger_id(), neighbouring))
        row = budget
        if budget == (float("inf"),) * 2:  # often a mistyped path opened only to read
            warnings.warn(
                f"BudgetAccountant({where}) created a new, empty ledger with no budget: it "
                "records spends but never refuses one. To read an existing ledger, check the "
                "path or URL; to cap spending, create it with BudgetAccountant(epsilon=..., "
                "delta=..., ...).", DefaultsWarning, stacklevel=user_stacklevel())
    identity = execute(LEDGER_ID_SQL).fetchone()[0]
    if witness.identity is None:  # this handle opens its ledger
        witness.identity = identity
    witness.saw_identity(identity, where)
    return Budget(float(row[0]), float(row[1])), execute(NEIGHBOURING_SQL).fetchone()[0]


def add_missing_columns(execute, placeholder, present, true_by_default):
    """In the caller's transaction: the columns a ledger written by an older version
    lacks (``present``: each table's columns), ``spends.certified`` and
    ``spends.private`` declared as ``true_by_default`` (the driver's boolean, true
    by default: what every spend written before them was), then the budget's."""
    for column in ("certified", "private"):
        if column not in present.get("spends", set()):  # written before it was recorded
            execute(f"ALTER TABLE spends ADD COLUMN {column} {true_by_default}")
    add_budget_columns(execute, placeholder, present.get("budget", set()))


def add_budget_columns(execute, placeholder, budget_columns):
    """In the caller's transaction: the budget's identity and relation columns, which
    a ledger written before them lacks, and an identity where it has none."""
    for column in ("ledger_id", "neighbouring"):
        if column not in budget_columns:
            execute(f"ALTER TABLE budget ADD COLUMN {column} TEXT")
    execute(f"UPDATE budget SET ledger_id = {placeholder} WHERE ledger_id IS NULL",
            (new_ledger_id(),))


def new_ledger_id():
    """A ledger's identity, stored with its budget when it is created."""
    return uuid.uuid4().hex


class LedgerWitness:
    """What one handle has seen of its ledger: its identity, its spend count and
    the last spend it appended (id and time).

    Checked in every spend's transaction: another identity (the ledger was
    deleted and created again), fewer spends, or the last spend appended gone
    or changed (restored from an older copy, spends deleted, even if other
    handles appended as many since) raise :class:`LedgerIntegrityError`.
    Pickled with the handle, so a worker's copy checks against what its
    owner had seen.
    """

    def __init__(self, identity=None, n_spends=0, last=None):
        self.identity, self.n_spends, self.last = identity, n_spends, last

    def state(self):
        return {"identity": self.identity, "n_spends": self.n_spends, "last": self.last}

    @classmethod
    def from_state(cls, state):
        """From a pickled handle's state."""
        last = state["last"]
        return cls(state["identity"], state["n_spends"], None if last is None else tuple(last))

    def saw_identity(self, identity, where):
        if identity != self.identity:
            raise LedgerIntegrityError(
                f"{where}: the ledger this handle was charging has been replaced (deleted "
                "and created again), so its spends are no longer counted and this spend "
                "is refused. Open the new ledger with a new BudgetAccountant, or restore "
                "the old one.")

    def saw_totals(self, totals, where):
        if totals.n_spends < self.n_spends:
            raise _rolled_back(where, f"holds {totals.n_spends} spends, but this handle saw "
                                      f"{self.n_spends}")
        self.n_spends = totals.n_spends
        return totals

    def before_append(self, execute, placeholder, totals_query, where, lock=""):
        """The checks, in the spend's transaction; returns the totals read."""
        row = execute(LEDGER_ID_SQL + lock).fetchone()
        self.saw_identity(None if row is None else row[0], where)
        if self.last is not None:
            row = execute(f"SELECT time FROM spends WHERE id = {placeholder}",
                          (self.last[0],)).fetchone()
            if row is None or float(row[0]) != self.last[1]:
                raise _rolled_back(where, "no longer holds the last spend this handle "
                                          "appended")
        return self.saw_totals(totals_from_row(execute(totals_query).fetchone()), where)

    def appended(self, totals, spend_id, record):
        """After the commit (under the handle's lock): the spend is the newest seen."""
        self.n_spends = max(self.n_spends, totals.n_spends + 1)
        self.last = (int(spend_id), float(record.time))


def _rolled_back(where, what):
    return LedgerIntegrityError(
        f"{where}: the ledger {what}: it was rolled back (restored from an older copy, or "
        "spends were deleted), so the spends removed are no longer counted; this spend "
        "is refused and nothing is released. Restore the newer ledger.")


def totals_sql(sum_type):
    """The totals query, summing in ``sum_type``.

    SQLite sums ``REAL`` (an overflowing sum is ``inf``); PostgreSQL raises
    on a ``DOUBLE PRECISION`` overflow, so it sums in ``NUMERIC`` (exact,
    unbounded; the driver converts the result to float, ``inf`` if huge).
    """
    eps, delta = f"CAST(epsilon AS {sum_type})", f"CAST(delta AS {sum_type})"
    return (
        f"SELECT COALESCE(SUM({eps}), 0), COALESCE(SUM({delta}), 0), "
        f"COALESCE(SUM(CASE WHEN certified THEN 0 ELSE {eps} END), 0), "
        f"COALESCE(SUM(CASE WHEN certified THEN 0 ELSE {delta} END), 0), "
        "COUNT(*), COALESCE(SUM(CASE WHEN certified THEN 0 ELSE 1 END), 0), "
        "COALESCE(SUM(CASE WHEN private THEN 0 ELSE 1 END), 0) FROM spends"
    )


RECORDS_SQL = f"SELECT {', '.join(SPEND_COLUMNS)} FROM spends ORDER BY id"


def insert_spend_sql(placeholder):
    """``INSERT`` of one spend with the driver's bind ``placeholder``, returning its id."""
    values = ", ".join([placeholder] * len(SPEND_COLUMNS))
    return f"INSERT INTO spends ({', '.join(SPEND_COLUMNS)}) VALUES ({values}) RETURNING id"


def spend_row(record):
    """The values of :func:`insert_spend_sql` for ``record`` (SQLite stores a bool as
    0 or 1)."""
    return (*record[:5], bool(record.certified), bool(record.private))


def totals_from_row(row):
    """:class:`LedgerTotals` from a row of :data:`TOTALS_SQL`."""
    eps, delta, nc_eps, nc_delta, count, nc_count, np_count = row
    return LedgerTotals(float(eps), float(delta), float(nc_eps), float(nc_delta), int(count),
                        int(nc_count), int(np_count))


def records_from_rows(rows):
    """:class:`Spend` records from rows of :data:`RECORDS_SQL`."""
    return [
        Spend(str(label), float(eps), float(delta), float(t), int(pid), bool(certified),
              bool(private))
        for label, eps, delta, t, pid, certified, private in rows
    ]
