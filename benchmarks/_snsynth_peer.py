"""Run one smartnoise-synth AIM / MST release (executed in a separate venv).

Usage (called by bench_synthetic_tables.py)::

    /work/peervenv/bin/python _snsynth_peer.py METHOD DATA.npy OUT.npy EPS DELTA DEGREE SEED

mbi 1.1's ``MarkovRandomField.synthetic_data`` conditions each column only
on the already-drawn columns of the *measured* cliques that contain it;
when the measured cliques form cycles that is not a valid factorisation of
the model, and the emitted rows miss dependencies the model has. The
harness replaces it with an i.i.d. sampler that walks a junction tree of
the triangulated clique graph: the root clique's attributes are drawn
jointly from its calibrated marginal, every other clique draws its new
attributes conditioned on its separator (written for this benchmark).

Prints one JSON line: fit/sample wall time and peak RSS of this process.
"""

import json
import resource
import sys
import time

import numpy as np
import pandas as pd


def fixed_synthetic_data(self, rows=None, method="sample"):
    """i.i.d. rows conditioned on the triangulated junction-tree cliques."""
    import networkx as nx
    from mbi import Dataset, junction_tree, marginal_oracles

    total = max(1, int(rows or self.total))
    domain = self.domain
    jtree, _ = junction_tree.make_junction_tree(domain, [tuple(c) for c in self.cliques])
    nodes = list(jtree.nodes)
    potentials = self.potentials.expand(nodes)
    marginals = marginal_oracles.message_passing_stable(potentials)
    rng = np.random.default_rng()
    data = {}
    root = max(nodes, key=lambda c: domain.size(c))
    for clique in [root] + [v for _, v in nx.bfs_edges(jtree, root)]:
        clique = tuple(clique)
        known = tuple(a for a in clique if a in data)
        new = tuple(a for a in clique if a not in data)
        if not new:
            continue
        table = np.asarray(marginals.project(known + new).datavector(flatten=False), float)
        n_known = int(np.prod([domain[a] for a in known])) if known else 1
        table = table.reshape(n_known, -1)
        table = np.maximum(table, 0)
        cond = table / np.maximum(table.sum(axis=1, keepdims=True), 1e-300)
        cdf = np.cumsum(cond, axis=1)
        if known:
            key = np.ravel_multi_index(tuple(data[a] for a in known), [domain[a] for a in known])
        else:
            key = np.zeros(total, dtype=int)
        u = rng.random(total)[:, None] * cdf[key, -1:]
        flat = np.minimum((u >= cdf[key]).sum(axis=1), cdf.shape[1] - 1)
        for a, col in zip(new, np.unravel_index(flat, [domain[a] for a in new])):
            data[a] = col
    df = pd.DataFrame({a: data[a] for a in domain.attrs})
    return Dataset(df, domain)


def main():
    method, data_path, out_path, eps, delta, degree, seed = sys.argv[1:8]
    import mbi
    from snsynth import Synthesizer

    mbi.MarkovRandomField.synthetic_data = fixed_synthetic_data
    np.random.seed(int(seed))
    X = np.load(data_path)
    df = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    kwargs = {"degree": int(degree)} if method == "aim" else {}
    synth = Synthesizer.create(method, epsilon=float(eps), delta=float(delta), verbose=False, **kwargs)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_start = usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    synth.fit(df, categorical_columns=list(df.columns), preprocessor_eps=0.0)
    fit_time = time.perf_counter() - start
    rows = synth.sample(len(X))
    total_time = time.perf_counter() - start
    rows = np.asarray(pd.DataFrame(rows).values, dtype=np.int64)
    np.save(out_path, rows)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"fit_s": fit_time, "total_s": total_time,
                      "cpu_s": usage.ru_utime + usage.ru_stime - cpu_start,
                      "peak_mb": usage.ru_maxrss / 1024.0}))


if __name__ == "__main__":
    main()
