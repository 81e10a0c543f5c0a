from types import SimpleNamespace

import numpy as np

from sksmooth.release._workload import GridWorkload


def test_box_query_counts_are_the_rows_inside_each_box():
    # the private counts every MWEM round scores and measures (summed-area corners):
    # a count off by any factor is a sensitivity the charge does not cover
    rng = np.random.default_rng(0)
    shape, tables = (3, 4, 2), [(0,), (1, 2), (0, 1, 2)]
    codes = np.column_stack([rng.integers(0, k, 50) for k in shape])
    lows, highs = [], []
    for t in tables:
        a, b = (np.column_stack([rng.integers(0, shape[i], 6) for i in t]) for _ in range(2))
        lows.append(np.minimum(a, b))
        highs.append(np.maximum(a, b))
    workload = GridWorkload(SimpleNamespace(shape=shape), tables, lows, highs)
    expected = [np.all((codes[:, list(t)] >= lo) & (codes[:, list(t)] <= hi), axis=1).sum()
                for t, los, his in zip(tables, lows, highs) for lo, hi in zip(los, his)]
    counts = workload.counts_data(codes)
    assert counts.dtype.kind == "i"
    np.testing.assert_array_equal(counts, expected)
