"""Differentially private mechanisms: stateless noise and selection primitives.

Unlike :mod:`sksmooth.accounting` (which only counts what releases cost) and
the estimators (which decide what to release), the functions here take
scores or values and a Generator and return one noisy output; they know
nothing of ledgers or estimators.

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

Why the exact samplers are the safe ones (Mironov 2012): ``docs/derivations.rst``,
section "Floating-point safety".
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
