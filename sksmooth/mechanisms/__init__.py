"""Differentially private mechanisms (SPEC §3.3).

All samplers take a :class:`numpy.random.Generator` ``rng`` and validate their
inputs (a ``TypeError``/``ValueError`` names the parameter at fault).

Exact samplers (integer arithmetic only; use these for certified releases):

- :func:`discrete_laplace_mechanism`, :func:`sample_discrete_laplace`:
  integer noise ``∝ exp(-|x|/scale)``, ``epsilon``-DP for integer statistics.
- :func:`discrete_gaussian_mechanism`, :func:`sample_discrete_gaussian`:
  ``N_Z(0, sigma^2)``, ``Delta^2/(2 sigma^2)``-zCDP for integer statistics.
- :func:`exact_exponential_mechanism`, :func:`permute_and_flip`: selection
  with integer scores (counts), ``epsilon``-DP.

Floating-point samplers (guarantee of the idealised real-valued mechanism):

- :func:`exponential_mechanism` / :func:`exponential_mechanism_log_probabilities`:
  Gumbel-max sampling, log-space probabilities (no overflow).
- :func:`report_noisy_max`: Laplace or exponential (permute-and-flip) noise.
- :func:`laplace_mechanism`, :func:`gaussian_mechanism`,
  :func:`gaussian_noise_std` (classic and analytic calibration).
- :func:`sparse_selection`: (eps, delta)-DP selection over an unbounded
  universe (Ghazi, Golowich, Kumar & Manurangsi, STOC 2021, §5.2), dummies
  never materialised.

Floating-point safety (Mironov 2012)
------------------------------------
Mironov ("On significance of the least significant bits for differential
privacy", CCS 2012) showed that floating-point Laplace noise leaves "holes"
in the set of reachable outputs whose pattern depends on the true value, so
an observer of the exact bits can distinguish neighbouring datasets; more
generally a float sampler's law only approximates the distribution the
proof is about.

*Safe* (the implementation's output law is exactly the analysed one):
the discrete Laplace and discrete Gaussian samplers and mechanisms
(Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential
Privacy", NeurIPS 2020, arXiv:2004.00010, Algorithms 1–3), and
:func:`exact_exponential_mechanism` / :func:`permute_and_flip` for integer
scores. They use only uniform integers from ``rng.integers`` and exact
rational arithmetic (``epsilon``, ``scale``, ``sigma`` are the exact
rationals of their binary floats). Release counts through them.

*Not hardened* (the guarantee is that of the idealised real-valued
mechanism): :func:`laplace_mechanism`, :func:`gaussian_mechanism` (released
floats are open to Mironov's attack), :func:`exponential_mechanism`,
:func:`report_noisy_max` and :func:`sparse_selection` (only an index is
released, but the float noise has a bounded range and a grid, so the law is
not exactly the exponential mechanism's: see :data:`FLOAT_SELECTION_NOTE`,
which releases built on them quote in ``guarantee_``). Other remedies: the
snapping mechanism (Mironov 2012) and the base-2 exponential mechanism
(Ilvento, "Implementing the exponential mechanism with base-2 differential
privacy", CCS 2020).
"""

from ._discrete import (
    discrete_gaussian_delta,
    discrete_gaussian_mechanism,
    discrete_laplace_mechanism,
    sample_discrete_gaussian,
    sample_discrete_laplace,
)
from ._exact_selection import exact_exponential_mechanism, permute_and_flip
from ._exponential import (
    FLOAT_SELECTION_NOTE,
    GUMBEL_NOISE_RANGE,
    exponential_mechanism,
    exponential_mechanism_log_probabilities,
    report_noisy_max,
)
from ._gaussian import gaussian_mechanism, gaussian_noise_std
from ._laplace import laplace_mechanism
from ._sparse_selection import sparse_selection

__all__ = [
    "FLOAT_SELECTION_NOTE",
    "GUMBEL_NOISE_RANGE",
    "discrete_gaussian_delta",
    "discrete_gaussian_mechanism",
    "discrete_laplace_mechanism",
    "exact_exponential_mechanism",
    "exponential_mechanism",
    "exponential_mechanism_log_probabilities",
    "gaussian_mechanism",
    "gaussian_noise_std",
    "laplace_mechanism",
    "permute_and_flip",
    "report_noisy_max",
    "sample_discrete_gaussian",
    "sample_discrete_laplace",
    "sparse_selection",
]
