"""Littlestone-dimension tools for finite classes (Ghazi, Golowich, Kumar,
Manurangsi, STOC 2021, arXiv:2012.03893).

Public functions: :func:`littlestone_dimension`, :func:`soa`,
:func:`irreducibility_order`, :func:`is_k_irreducible` and
:func:`theoretical_sample_size`; :class:`LittlestoneOracle` exposes the
memoised bitmask machinery (restrictions, SOA, reducing arrays) behind them.
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
