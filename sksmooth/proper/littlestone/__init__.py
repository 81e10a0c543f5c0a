"""Littlestone-dimension tools for finite classes (Ghazi, Golowich, Kumar,
Manurangsi, STOC 2021, arXiv:2012.03893).

Unlike the estimators around it, nothing here touches private data: these are
exact combinatorial computations on a finite class given as a sign matrix.
Public functions: :func:`littlestone_dimension`, :func:`soa`,
:func:`irreducibility_order`, :func:`is_k_irreducible` and
:func:`theoretical_sample_size`; :class:`LittlestoneOracle` exposes the
memoised bitmask machinery (restrictions, SOA, reducing arrays) behind them,
used by ``PrivateProperClassifier(method="littlestone")``.

References
----------
B. Ghazi, N. Golowich, R. Kumar and P. Manurangsi, "Sample-efficient proper
PAC learning with approximate differential privacy", STOC 2021,
arXiv:2012.03893, §2.4 and §4 (Littlestone dimension, SOA, k-irreducibility),
Alg. 1 (ReduceTree).
"""

from ._ldim import (
    LittlestoneOracle,
    irreducibility_order,
    is_k_irreducible,
    littlestone_dimension,
    soa,
)
from ._polypri import theoretical_sample_size

__all__ = [
    "LittlestoneOracle",
    "irreducibility_order",
    "is_k_irreducible",
    "littlestone_dimension",
    "soa",
    "theoretical_sample_size",
]
