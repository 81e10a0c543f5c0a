"""Out-of-core release: counting throughput, wall time and peak memory.

A generated table of 15 categorical columns (levels 2..12, 2-way
correlations) is released without ever being held in memory:

``chunks``
    One process feeds chunks of ``--chunk`` rows, generated on the fly, to
    ``partial_fit`` of a :class:`~sksmooth.release.GaussianPerQuery` answering
    all 1- and 2-way marginals from noisy count tables
    (``sensitivity='structured'``), then calls ``release()`` once. Time spent
    generating a chunk is measured and excluded; ``partial_fit`` time (the
    public mapping of the rows + exact counting) gives the rows/s.
``counting``
    The counting kernel alone (:class:`MarginalCounts.update` on level codes
    already encoded), for the same tables.
``dask``
    ``fit`` of the same estimator on a ``dask.dataframe`` whose partitions are
    generated inside the workers of a ``LocalCluster`` (2 worker processes,
    1 thread each). The same graph's generation alone is timed too, and
    subtracted for the counting rate (stated as such).
``first_chunk``
    Peak allocation (``tracemalloc``) of ``partial_fit`` on one chunk of
    ``--chunk`` rows of the table's first 14 columns with the 15th as ``y``,
    against the chunk's size: GaussianPerQuery and AdaptiveMarginalSynthesizer
    with the label set declared (``classes``) and read from ``y``
    (``classes=None``, leak-warned), and GaussianPerQuery's box declared and
    read from the rows (``bounds=None``). A chunk whose labels or box are read
    is searched block by block for the rows realising them, then counted in
    blocks like any other (before, it was read whole: 2-5 times the chunk).
``release``
    Wall time of the charged release from the accumulated counts:
    GaussianPerQuery (noise on 105 tables) and AdaptiveMarginalSynthesizer
    (AIM, workload all 2-way tables); independent of the number of rows.

Every configuration runs in a fresh subprocess, so its peak resident memory
(``VmHWM`` of ``/proc/self/status``; for dask the driver and each worker)
is its own. The machine is shared: the load average at the start of each
run is recorded.

Run from the repository root::

    PYTHONPATH=$PWD nice -n 10 python benchmarks/bench_out_of_core.py [--quick]
        [--rows 1e6,1e7,1e8] [--no-dask]

Writes ``benchmarks/results/out_of_core.json`` (``out_of_core_quick.json``
with ``--quick``: 10^5 and 10^6 rows).
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

LEVELS = np.array([4, 6, 8, 10, 3, 5, 7, 9, 2, 12, 4, 6, 8, 10, 5])
RESULTS = Path(__file__).resolve().parent / "results"


# ------------------------------------------------------------------ data
def generate(n_rows, seed):
    """``n_rows`` rows of level codes; column j+1 copies column j with prob. 1/2."""
    rng = np.random.default_rng(seed)
    codes = (rng.random((n_rows, len(LEVELS))) * LEVELS).astype(np.int64)
    copy = rng.random((n_rows, len(LEVELS) - 1)) < 0.5
    codes[:, 1:] = np.where(copy, np.minimum(codes[:, :-1], LEVELS[1:] - 1), codes[:, 1:])
    return codes


def estimator():
    from sksmooth.release import GaussianPerQuery, Workload

    return GaussianPerQuery(epsilon=1.0, delta=1e-9, sensitivity="structured", levels=int,
                            bounds=(np.zeros(15), LEVELS - 1.0), queries=Workload(kind="marginals", marginal_width=2))


def peak_rss_mib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


# --------------------------------------------------------------- workers
def run_chunks(n_rows, chunk):
    est = estimator()
    generating = counting = 0.0
    for i, start in enumerate(range(0, n_rows, chunk)):
        t0 = time.perf_counter()
        X = generate(min(chunk, n_rows - start), seed=i)
        t1 = time.perf_counter()
        est.partial_fit(X)
        counting += time.perf_counter() - t1
        generating += t1 - t0
        del X
    t0 = time.perf_counter()
    est.release()
    release = time.perf_counter() - t0
    return {"rows": n_rows, "chunk_rows": chunk, "partial_fit_seconds": round(counting, 2),
            "rows_per_second": round(n_rows / counting),
            "generation_seconds_excluded": round(generating, 2),
            "release_seconds": round(release, 3),
            "wall_seconds_without_generation": round(counting + release, 2),
            "peak_rss_mib": round(peak_rss_mib(), 1)}


def run_counting(n_rows, chunk):
    from sksmooth.release._statistics import MarginalCounts

    tables = [(a, b) for a in range(15) for b in range(a + 1, 15)]
    counts = MarginalCounts(tuple(LEVELS), tables)
    X = generate(chunk, seed=0)
    seconds = 0.0
    for start in range(0, n_rows, chunk):
        block = X[: min(chunk, n_rows - start)]
        for sub in range(0, len(block), 2**16):  # cache-sized blocks, as partial_fit does
            t0 = time.perf_counter()
            counts.update(block[sub:sub + 2**16])
            seconds += time.perf_counter() - t0
    assert counts.n == n_rows
    return {"rows": n_rows, "joint_tables": len(counts.joints), "tables": len(tables),
            "seconds": round(seconds, 2), "rows_per_second": round(n_rows / seconds),
            "peak_rss_mib": round(peak_rss_mib(), 1)}


_POOL = []


def _partition(seed, n_rows):
    """A partition generated in the worker: rows of a per-process pool of 2^18
    generated rows, in a seed-dependent order (cheap, so that the dask timing
    is not dominated by the random generator)."""
    import pandas as pd

    if not _POOL:
        _POOL.append(generate(2**18, seed=12345))
    pool = _POOL[0]
    rng = np.random.default_rng(seed)
    start, stride = rng.integers(0, len(pool)), 2 * rng.integers(0, len(pool) // 2) + 1
    rows = (start + stride * np.arange(n_rows, dtype=np.int64)) % len(pool)
    return pd.DataFrame(pool[rows], columns=[f"c{j}" for j in range(15)])


def run_dask(n_rows, chunk):
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client, LocalCluster

    sizes = [min(chunk, n_rows - s) for s in range(0, n_rows, chunk)]
    meta = pd.DataFrame({f"c{j}": pd.Series(dtype=np.int64) for j in range(15)})
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", memory_limit="4GiB") as cluster, \
            Client(cluster) as client:
        ddf = dd.from_map(_partition, range(len(sizes)), sizes, meta=meta)
        t0 = time.perf_counter()
        total = int(ddf.map_partitions(len).sum().compute())
        generation = time.perf_counter() - t0
        assert total == n_rows
        est = estimator()
        t0 = time.perf_counter()
        est.fit(ddf)
        wall = time.perf_counter() - t0
        workers = client.run(peak_rss_mib)
    counting = max(wall - generation, 1e-9)
    return {"rows": n_rows, "partition_rows": chunk, "workers": 2,
            "fit_wall_seconds_with_generation": round(wall, 2),
            "generation_only_seconds": round(generation, 2),
            "rows_per_second_with_generation": round(n_rows / wall),
            "rows_per_second_counting_estimate": round(n_rows / counting),
            "peak_rss_mib_driver": round(peak_rss_mib(), 1),
            "peak_rss_mib_workers": [round(v, 1) for v in workers.values()]}


def run_dask_synchronous(n_rows, chunk):
    """The dask path in one process (synchronous scheduler): its own overhead."""
    import dask
    import dask.dataframe as dd
    import pandas as pd

    sizes = [min(chunk, n_rows - s) for s in range(0, n_rows, chunk)]
    meta = pd.DataFrame({f"c{j}": pd.Series(dtype=np.int64) for j in range(15)})
    ddf = dd.from_map(_partition, range(len(sizes)), sizes, meta=meta)
    with dask.config.set(scheduler="synchronous"):
        t0 = time.perf_counter()
        assert int(ddf.map_partitions(len).sum().compute()) == n_rows
        generation = time.perf_counter() - t0
        t0 = time.perf_counter()
        estimator().fit(ddf)
        wall = time.perf_counter() - t0
    counting = max(wall - generation, 1e-9)
    return {"rows": n_rows, "partition_rows": chunk, "scheduler": "synchronous",
            "fit_wall_seconds_with_generation": round(wall, 2),
            "generation_only_seconds": round(generation, 2),
            "rows_per_second_counting_estimate": round(n_rows / counting),
            "peak_rss_mib": round(peak_rss_mib(), 1)}


def run_release(n_rows, chunk):
    from sksmooth.release import AdaptiveMarginalSynthesizer

    out = {}
    for name, est in [("GaussianPerQuery", estimator()),
                      ("AdaptiveMarginalSynthesizer",
                       AdaptiveMarginalSynthesizer(epsilon=1.0, delta=1e-9, levels=list(LEVELS),
                                                   workload=2))]:
        for start in range(0, n_rows, chunk):
            est.partial_fit(generate(min(chunk, n_rows - start), seed=start))
        t0 = time.perf_counter()
        est.release()
        out[name] = {"rows_counted": n_rows, "release_seconds": round(time.perf_counter() - t0, 2)}
    out["peak_rss_mib"] = round(peak_rss_mib(), 1)
    return out


def run_first_chunk(n_rows, chunk):
    import tracemalloc

    from sksmooth.release import AdaptiveMarginalSynthesizer, GaussianPerQuery, Workload

    codes = generate(chunk, seed=0)
    X, y = codes[:, :-1].astype(float), codes[:, -1]
    labels, d = list(range(LEVELS[-1])), X.shape[1]
    makes = {
        "GaussianPerQuery": lambda classes, bounds: GaussianPerQuery(
            epsilon=1.0, delta=1e-9, sensitivity="structured", levels=int,
            bounds=bounds, classes=classes, queries=Workload(kind="marginals", marginal_width=2)),
        "AdaptiveMarginalSynthesizer": lambda classes, bounds: AdaptiveMarginalSynthesizer(
            epsilon=1.0, delta=1e-9, levels=list(LEVELS[:-1]), classes=classes, workload=2),
    }
    box = (np.zeros(d), LEVELS[:-1] - 1.0)
    cases = [("GaussianPerQuery", "labels declared", labels, box),
             ("GaussianPerQuery", "labels read", None, box),
             ("GaussianPerQuery", "box read", labels, None),
             ("AdaptiveMarginalSynthesizer", "labels declared", labels, None),
             ("AdaptiveMarginalSynthesizer", "labels read", None, None)]
    out = {"chunk_rows": chunk, "chunk_mib": round((X.nbytes + y.nbytes) / 2**20, 1)}
    for name, what, classes, bounds in cases:
        est = makes[name](classes, bounds)
        tracemalloc.start()
        t0 = time.perf_counter()
        est.partial_fit(X, y)
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        out[f"{name}, {what}"] = {"peak_mib": round(peak / 2**20, 1),
                                  "peak_over_chunk": round(peak / (X.nbytes + y.nbytes), 3),
                                  "partial_fit_seconds": round(seconds, 2)}
    return out


WORKERS = {"chunks": run_chunks, "first_chunk": run_first_chunk, "counting": run_counting, "dask": run_dask,
           "dask_synchronous": run_dask_synchronous, "release": run_release}


# ---------------------------------------------------------------- driver
def _in_subprocess(kind, n_rows, chunk, timeout):
    cmd = [sys.executable, __file__, "--worker", kind, str(n_rows), str(chunk)]
    load = os.getloadavg()[0]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "PYTHONWARNINGS": "ignore"})
    except subprocess.TimeoutExpired:
        return {"rows": n_rows, "skipped": f"timed out after {timeout} s"}
    if proc.returncode != 0:
        return {"rows": n_rows, "error": proc.stderr.strip().splitlines()[-1:]}
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["load_average_at_start"] = round(load, 2)
    print(kind, json.dumps(result), flush=True)
    return result


def _linearity(rows):
    done = [r for r in rows if "partial_fit_seconds" in r]
    if len(done) < 2:
        return None
    base = done[0]
    return [{"rows": r["rows"], "rows_ratio": r["rows"] / base["rows"],
             "time_ratio": round(r["partial_fit_seconds"] / base["partial_fit_seconds"], 2)}
            for r in done[1:]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rows", default=None, help="comma-separated, e.g. 1e6,1e7,1e8")
    parser.add_argument("--chunk", type=float, default=1e6)
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--only", default=None,
                        help="comma-separated kinds to (re)measure, e.g. dask; the other "
                             "entries of the results file are kept")
    parser.add_argument("--timeout", type=float, default=1500)
    parser.add_argument("--worker", nargs=3, metavar=("KIND", "ROWS", "CHUNK"))
    args = parser.parse_args()
    if args.worker:
        warnings.simplefilter("ignore")
        kind, n_rows, chunk = args.worker
        print(json.dumps(WORKERS[kind](int(float(n_rows)), int(float(chunk)))))
        return
    sizes = ([1e5, 1e6] if args.quick else [1e6, 1e7, 1e8]) if args.rows is None else \
        [float(v) for v in args.rows.split(",")]
    sizes = [int(v) for v in sizes]
    chunk = int(args.chunk)
    out = RESULTS / ("out_of_core_quick.json" if args.quick else "out_of_core.json")
    kinds = ["chunks", "counting", "first_chunk", "release"] + ([] if args.no_dask else ["dask"])
    if args.only:
        kinds = args.only.split(",")
    result = json.loads(out.read_text()) if args.only and out.exists() else {}
    result.update({
        "what": "release of a generated table, 15 categorical columns (levels "
                f"{LEVELS.tolist()}), workload: all 1- and 2-way marginals (105 tables)",
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "numpy": np.__version__},
    })
    for kind in kinds:
        if kind == "first_chunk":  # one chunk of --chunk rows
            result[kind] = _in_subprocess(kind, chunk, chunk, min(args.timeout, 900))
        elif kind == "release":  # independent of the row count: once, on 10^6 rows
            result[kind] = _in_subprocess(kind, min(sizes[-1], 10**6), chunk,
                                          min(args.timeout, 900))
        else:  # new rows replace old entries of the same size, others are kept
            new = [_in_subprocess(kind, n, chunk, args.timeout) for n in sizes]
            kept = [r for r in result.get(kind, []) if r.get("rows") not in sizes]
            result[kind] = sorted(kept + new, key=lambda r: r.get("rows", 0))
    result["linearity_chunks"] = _linearity(result.get("chunks", []))
    RESULTS.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
