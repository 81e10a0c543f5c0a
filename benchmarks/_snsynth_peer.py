"""Run one smartnoise-synth AIM / MST release (executed in a separate venv).

Usage (called by bench_synthetic_tables.py)::

    /work/peervenv/bin/python _snsynth_peer.py METHOD DATA.npy OUT.npy EPS DELTA DEGREE SEED

METHOD is ``aim``, ``mst`` (smartnoise's MST with the record count
estimated as the reference does, below), ``mst_systematic`` (the same MST,
rows drawn by systematic sampling within each separator configuration, as
sksmooth's ``sample`` does by default: the sampler-matched comparison) or
``mst_known_total`` (smartnoise's MST as shipped, exact record count; kept
for the earlier numbers).

mbi 1.1's ``MarkovRandomField.synthetic_data`` conditions each column only
on the already-drawn columns of the *measured* cliques that contain it;
when the measured cliques form cycles that is not a valid factorisation of
the model, and the emitted rows miss dependencies the model has. The
harness replaces it with an i.i.d. sampler that walks a junction tree of
the triangulated clique graph: the root clique's attributes are drawn
jointly from its calibrated marginal, every other clique draws its new
attributes conditioned on its separator (written for this benchmark). The
junction tree mbi builds joins only cliques that share attributes, so it is
a forest when the measured cliques fall into disconnected groups (AIM can
end that way); every tree of the forest is walked from its own root.

smartnoise's MST port differs from the reference mechanism (private-pgm,
``mechanisms/mst.py``, McKenna, Miklau & Sheldon, "Winning the NIST
Contest", JPC 2021, arXiv:2108.04978) in how it gets the record count:

* it passes ``known_total=len(data)`` to ``estimation.mirror_descent`` in
  its selection step and its final estimation: the exact count of records,
  which is private under add/remove neighbours (so its claimed epsilon does
  not cover it). The reference calls ``mirror_descent`` without
  ``known_total``; mbi then estimates the total from the noisy measurements
  (``minimum_variance_unbiased_total``: inverse-variance weighted mean of
  the sums of the identity-query measurements).
* after domain compression it divides the merged level's noisy sum by
  ``sqrt(k)`` (``k`` merged levels, to keep one noise std per cell) but
  keeps the identity query, so the model is fitted to ``1/sqrt(k)`` of the
  merged level's mass. The reference divides the query's cell by the same
  ``sqrt(k)``; such a measurement is not an identity query, so it also does
  not enter the total estimate.

``reference_mst_estimation`` patches both, as the sampler is patched. The
number of emitted rows is the same rule for every method of the benchmark:
the harness asks for ``len(data)`` rows (the reference would emit its
estimated total; the metrics are fractions of the emitted rows).

Prints one JSON line: fit/sample wall time and peak RSS of this process.
"""

import json
import resource
import sys
import time

import importlib.util
import os

import numpy as np
import pandas as pd

SAMPLING_SCHEME = "iid"  # 'systematic' for METHOD mst_systematic


def _row_uniforms():
    """sksmooth's ``row_uniforms``, loaded from its file (numpy only; the peer
    venv does not install sksmooth)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "sksmooth",
                        "release", "_systematic.py")
    spec = importlib.util.spec_from_file_location("_systematic", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.row_uniforms


def fixed_synthetic_data(self, rows=None, method="sample"):
    """Rows conditioned on the triangulated junction-tree cliques: i.i.d., or
    systematic within each separator configuration (``SAMPLING_SCHEME``)."""
    import networkx as nx
    from mbi import Dataset, junction_tree, marginal_oracles

    total = max(1, int(rows or self.total))
    domain = self.domain
    jtree, _ = junction_tree.make_junction_tree(domain, [tuple(c) for c in self.cliques])
    nodes = list(jtree.nodes)
    potentials = self.potentials.expand(nodes)
    marginals = marginal_oracles.message_passing_stable(potentials)
    rng = np.random.default_rng()
    row_uniforms = _row_uniforms()
    data = {}
    order = []
    for component in nx.connected_components(jtree):  # a forest when cliques are disjoint
        root = max(component, key=lambda c: domain.size(c))
        order += [root] + [v for _, v in nx.bfs_edges(jtree, root)]
    for clique in order:
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
        u = row_uniforms(key, rng, SAMPLING_SCHEME)[:, None] * cdf[key, -1:]
        flat = np.minimum((u >= cdf[key]).sum(axis=1), cdf.shape[1] - 1)
        for a, col in zip(new, np.unravel_index(flat, [domain[a] for a in new])):
            data[a] = col
    df = pd.DataFrame({a: data[a] for a in domain.attrs})
    return Dataset(df, domain)


def reference_mst_estimation():
    """smartnoise's MST with the record count estimated as the reference's (docstring)."""
    from mbi import LinearMeasurement, estimation
    from snsynth.mst import mst as sn_mst

    class EstimatedTotal:
        """``estimation`` as smartnoise's MST module sees it, ``known_total`` dropped."""

        @staticmethod
        def mirror_descent(domain, measurements, known_total=None, **kwargs):
            return estimation.mirror_descent(domain, measurements, **kwargs)

    shipped_compress = sn_mst.MSTSynthesizer.compress_domain

    def compress_domain(self, data, measurements):
        data, compressed, undo = shipped_compress(self, data, measurements)
        out = []
        for before, m in zip(measurements, compressed):
            merged = np.asarray(before.noisy_measurement).size - np.asarray(m.noisy_measurement).size + 1
            if merged > 1:  # the last cell is the merged levels' sum, divided by sqrt(merged)
                scale = np.ones(np.asarray(m.noisy_measurement).size)
                scale[-1] = 1.0 / np.sqrt(merged)
                m = LinearMeasurement(m.noisy_measurement, m.clique, m.stddev,
                                      query=lambda f, s=scale: f.datavector() * s)
            out.append(m)
        return data, out, undo

    sn_mst.estimation = EstimatedTotal
    sn_mst.MSTSynthesizer.compress_domain = compress_domain


def main():
    method, data_path, out_path, eps, delta, degree, seed = sys.argv[1:8]
    import mbi
    from snsynth import Synthesizer

    mbi.MarkovRandomField.synthetic_data = fixed_synthetic_data
    global SAMPLING_SCHEME
    if method in ("mst", "mst_systematic"):
        reference_mst_estimation()
    if method == "mst_systematic":
        SAMPLING_SCHEME = "systematic"
    method = "mst" if method in ("mst_known_total", "mst_systematic") else method
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
