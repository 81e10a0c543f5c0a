"""Privacy-ledger throughput: spends per second with 8 concurrent writers.

Backends: memory (8 threads of one process: an in-memory ledger is one
process's), SQLite (8 processes, one file; WAL, ``synchronous=FULL``) and
PostgreSQL (8 processes, one throwaway local server started here, with its
durable defaults ``fsync=on``/``synchronous_commit=on`` and with the test
suite's ``fsync=off`` settings). Every spend is one atomic
check-and-append transaction against one budget that admits them all.

Run from the repository root::

    PYTHONPATH=$PWD python benchmarks/bench_ledger.py [--quick]

Writes ``benchmarks/results/ledger.json``. The PostgreSQL rows need the
server binaries (``.ci/install-services.sh``) and ``psycopg``; they are left
out, with the reason in the JSON, when either is missing.
"""

import argparse
import json
import multiprocessing
import os
import platform
import sys
import tempfile
import threading
import time
from pathlib import Path

from sksmooth.accounting import BudgetAccountant

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "accounting"))
from _postgres_server import ThrowawayPostgres, find_postgres_bin, psycopg  # noqa: E402

N_WRITERS = 8
RESULTS = Path(__file__).resolve().parent / "results" / "ledger.json"


def _spend_loop(accountant, n_spends, barrier, label):
    barrier.wait()
    start = time.perf_counter()
    for i in range(n_spends):
        accountant.spend(1e-3, label=f"{label}-{i}")
    return start, time.perf_counter()


def _process_writer(location, n_spends, barrier, queue, label):
    accountant = BudgetAccountant(1e6, **location)
    queue.put(_spend_loop(accountant, n_spends, barrier, label))


def _throughput(intervals, n_total, accountant):
    assert len(accountant) == n_total, "a spend was lost"
    wall = max(end for _, end in intervals) - min(start for start, _ in intervals)
    return {"writers": N_WRITERS, "spends": n_total, "seconds": round(wall, 3),
            "spends_per_second": round(n_total / wall, 1)}


def bench_threads(n_spends):
    """8 threads on one in-memory ledger."""
    accountant = BudgetAccountant(1e6)
    barrier = threading.Barrier(N_WRITERS)
    intervals = [None] * N_WRITERS

    def run(k):
        intervals[k] = _spend_loop(accountant, n_spends, barrier, f"t{k}")

    threads = [threading.Thread(target=run, args=(k,)) for k in range(N_WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return _throughput(intervals, N_WRITERS * n_spends, accountant)


def bench_processes(location, n_spends):
    """8 forked processes on one file or server ledger."""
    accountant = BudgetAccountant(1e6, **location)  # create it before the race
    context = multiprocessing.get_context("fork")
    barrier, queue = context.Barrier(N_WRITERS), context.Queue()
    writers = [context.Process(target=_process_writer,
                               args=(location, n_spends, barrier, queue, f"p{k}"))
               for k in range(N_WRITERS)]
    for writer in writers:
        writer.start()
    intervals = [queue.get(timeout=600) for _ in writers]
    for writer in writers:
        writer.join()
    return _throughput(intervals, N_WRITERS * n_spends, accountant)


def bench_postgres(n_spends, durable):
    bin_dir = find_postgres_bin()
    if bin_dir is None or psycopg is None:
        return {"skipped": "PostgreSQL server binaries or psycopg not installed"}
    server = ThrowawayPostgres(bin_dir, durable=durable).start()
    try:
        return bench_processes({"url": server.url}, n_spends)
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="25 spends per writer")
    args = parser.parse_args()
    n_spends = 25 if args.quick else 100
    load_at_start = os.getloadavg()[0]  # the machine may be shared: say how busy
    results = {"memory (8 threads)": bench_threads(n_spends * 10)}
    with tempfile.TemporaryDirectory() as tmp:
        results["sqlite (8 processes)"] = bench_processes(
            {"path": os.path.join(tmp, "ledger.sqlite")}, n_spends)
    results["postgresql (8 processes, fsync on)"] = bench_postgres(n_spends, durable=True)
    results["postgresql (8 processes, fsync off)"] = bench_postgres(n_spends, durable=False)
    report = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                          "platform": platform.platform(),
                          "load_average_1min_at_start": round(load_at_start, 2)},
              "spends_per_writer": n_spends, "results": results}
    # a quick run never overwrites the results the docs cite
    out = RESULTS.with_name("ledger_quick.json") if args.quick else RESULTS
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    for name, row in results.items():
        print(f"{name:40s} {row.get('spends_per_second', row.get('skipped'))}")


if __name__ == "__main__":
    main()
