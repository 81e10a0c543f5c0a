"""PolyPriPropLearn on thresholds over 64 points: a printed table.

Thresholds on ``N = 64`` ordered points (``h_t(x) = +1`` iff ``x >= x_t``,
65 hypotheses) have Littlestone dimension ``floor(log2 65) = 6``
(Ghazi, Golowich, Kumar, Manurangsi, STOC 2021, §2.4). ``PrivateProperClassifier(method='littlestone')`` runs
PolyPriPropLearn (Alg. 3): ReduceTree on disjoint chunks, sparse selection of
an SOA hypothesis ((epsilon, delta)-DP), the Lemma 6.2 minimax set ``H``
(an LP), and the exponential mechanism over ``H`` on a fresh split. The
released hypothesis is always a threshold (proper). Thm 6.4's sample size
(constant C = 1) is astronomically larger than what the algorithm needs here.

Usage::

    python examples/littlestone_thresholds_demo.py
"""

import time
import warnings

import numpy as np

from sksmooth.exceptions import PrivacyWarning
from sksmooth.proper import (
    Littlestone,
    PrivateProperClassifier,
    irreducibility_order,
    littlestone_dimension,
    soa,
)

N, TARGET = 64, 23
domain = np.arange(N) / N
F = np.where(domain[None, :] >= np.append(domain, np.inf)[:, None], 1, -1)
truth = (domain >= domain[TARGET]).astype(int)

print(f"thresholds on N={N} points: |F| = {len(F)}")
print(f"  Littlestone dimension  = {littlestone_dimension(F)} (floor(log2(N+1)) = "
      f"{int(np.log2(N + 1))})")
print(f"  irreducibility order   = {irreducibility_order(F)}")
print(f"  SOA_F = threshold at x >= {domain[np.argmax(soa(F).values > 0)]:.4f}")
print(f"  target: x >= {domain[TARGET]:.4f}, epsilon=1, delta=1e-6\n")

header = (f"{'n':>6s} {'run':>4s} {'selected hypothesis':>30s} {'error':>6s} "
          f"{'SOA error':>9s} {'|H|':>4s} {'chunks':>6s} {'sec':>6s}")
print(header)
print("-" * len(header))
rng = np.random.default_rng(0)
for n in (200, 500, 1000, 4000, 16000):
    for seed in range(2):
        x = rng.choice(domain, n)
        clf = PrivateProperClassifier(
            hypotheses="thresholds", method=Littlestone(domain=domain), epsilon=1.0,
            delta=1e-6, classes=[0, 1],  # no random_state: fresh noise every run
        )
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyWarning)  # n << Thm 6.4's n
            clf.fit(x[:, None], (x >= domain[TARGET]).astype(int))
        sec = time.perf_counter() - t0
        err = np.mean(clf.predict(domain[:, None]) != truth)
        soa_err = np.mean((clf.soa_values_ > 0).astype(int) != truth)
        print(f"{n:6d} {seed:4d} {clf.hypothesis_.description:>30s} {err:6.3f} "
              f"{soa_err:9.3f} {len(clf.candidate_indices_):4d} "
              f"{clf.parameters_['n_chunks']:6d} {sec:6.2f}")
print(f"\nThm 6.4 sample size (C=1): {clf.theoretical_sample_size_:.3g}")
print(clf.guarantee_)
