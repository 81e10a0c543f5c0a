"""Differentially private mechanisms (SPEC §3.3).

All samplers take a :class:`numpy.random.Generator` ``rng`` and validate their
inputs (a ``TypeError``/``ValueError`` names the parameter at fault).

- :func:`exponential_mechanism` / :func:`exponential_mechanism_log_probabilities`:
  exact Gumbel-max sampling, log-space probabilities (no overflow).
- :func:`report_noisy_max`: Laplace or exponential (permute-and-flip) noise.
- :func:`laplace_mechanism`, :func:`gaussian_mechanism`,
  :func:`gaussian_noise_std` (classic and analytic calibration).
- :func:`sparse_selection`: (eps, delta)-DP selection over an unbounded
  universe (seeds/001_f5510c59108e6780.txt, §5.2), dummies never materialised.

Floating-point caveat (Mironov 2012)
------------------------------------
The samplers draw from the stated continuous distributions with IEEE doubles
(numpy's Laplace, Gaussian, Gumbel and exponential generators). Mironov
("On significance of the least significant bits for differential privacy",
CCS 2012) showed that floating-point Laplace noise leaves "holes" in the set of
reachable outputs whose pattern depends on the true value, so an observer of
the exact bits can distinguish neighbouring datasets. The guarantees stated
here are those of the idealised real-valued mechanisms; **none of these
samplers is hardened against that attack**. Samplers that are safe: the
snapping mechanism (Mironov 2012: clamp, add noise, round to a power-of-two
grid with an accounted epsilon increase), exact discrete Laplace and discrete
Gaussian sampling with integer/rational arithmetic (Canonne, Kamath & Steinke,
NeurIPS 2020; as in OpenDP and Google's differential-privacy library), and the
base-2 exponential mechanism (Ilvento, CCS 2020). Rounding the released value
to a coarse public grid mitigates but does not remove the issue.
"""

from ._discrete import (
    discrete_gaussian_mechanism,
    discrete_laplace_mechanism,
    sample_discrete_gaussian,
    sample_discrete_laplace,
)
from ._exponential import (
    exponential_mechanism,
    exponential_mechanism_log_probabilities,
    report_noisy_max,
)
from ._gaussian import gaussian_mechanism, gaussian_noise_std
from ._laplace import laplace_mechanism
from ._sparse_selection import sparse_selection

__all__ = [
    "discrete_gaussian_mechanism",
    "discrete_laplace_mechanism",
    "exponential_mechanism",
    "exponential_mechanism_log_probabilities",
    "gaussian_mechanism",
    "gaussian_noise_std",
    "laplace_mechanism",
    "report_noisy_max",
    "sample_discrete_gaussian",
    "sample_discrete_laplace",
    "sparse_selection",
]
