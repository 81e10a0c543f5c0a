"""SQL shared by the SQLite and PostgreSQL drivers: one schema, one set of queries.

Statements use ``{p}`` for a bind parameter; each driver formats it with its
DB-API placeholder (``?`` for ``sqlite3``, ``%s`` for ``psycopg``). Only the
column types of the ``CREATE TABLE`` statements differ between the two.
"""

from ._protocol import LedgerTotals, Spend

__all__ = [
    "budget_mismatch_message",
    "REQUIRED_COLUMNS",
    "SPEND_COLUMNS",
    "insert_spend_sql",
    "records_from_rows",
    "RECORDS_SQL",
    "SELECT_BUDGET_SQL",
    "totals_sql",
    "totals_from_row",
]

SPEND_COLUMNS = ("label", "epsilon", "delta", "time", "pid", "certified")

# columns an existing table must have to be taken for a ledger's ("certified"
# is added to a ledger written before it was recorded)
REQUIRED_COLUMNS = {"budget": {"epsilon", "delta"},
                    "spends": {"id", "label", "epsilon", "delta", "time", "pid"}}

SELECT_BUDGET_SQL = "SELECT epsilon, delta FROM budget"



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
        "COUNT(*), COALESCE(SUM(CASE WHEN certified THEN 0 ELSE 1 END), 0) "
        "FROM spends"
    )


RECORDS_SQL = f"SELECT {', '.join(SPEND_COLUMNS)} FROM spends ORDER BY id"


def insert_spend_sql(placeholder):
    """``INSERT`` of one spend with the driver's bind ``placeholder``."""
    values = ", ".join([placeholder] * len(SPEND_COLUMNS))
    return f"INSERT INTO spends ({', '.join(SPEND_COLUMNS)}) VALUES ({values})"


def totals_from_row(row):
    """:class:`LedgerTotals` from a row of :data:`TOTALS_SQL`."""
    eps, delta, nc_eps, nc_delta, count, nc_count = row
    return LedgerTotals(
        float(eps), float(delta), float(nc_eps), float(nc_delta), int(count), int(nc_count)
    )


def records_from_rows(rows):
    """:class:`Spend` records from rows of :data:`RECORDS_SQL`."""
    return [
        Spend(str(label), float(eps), float(delta), float(t), int(pid), bool(certified))
        for label, eps, delta, t, pid, certified in rows
    ]


def budget_mismatch_message(where, stored, budget):
    """The ``ValueError`` text for reopening a ledger with another budget."""
    return (
        f"{where} holds a ledger with budget (epsilon={stored[0]}, "
        f"delta={stored[1]}), not (epsilon={budget.epsilon}, delta="
        f"{budget.delta}); open it with the same budget (delta=None means "
        "an unlimited delta, stored as inf) or use a new ledger."
    )
