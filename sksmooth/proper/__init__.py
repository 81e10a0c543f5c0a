"""Private proper learning (SPEC §6; seeds/001_f5510c59108e6780.txt, seeds/000 §4)."""

from ._private_proper import PrivateProperClassifier, SelectedHypothesis
from .littlestone import (
    LittlestoneOracle,
    irreducibility_order,
    is_k_irreducible,
    littlestone_dimension,
    soa,
    theoretical_sample_size,
)

__all__ = [
    "PrivateProperClassifier",
    "SelectedHypothesis",
    "LittlestoneOracle",
    "irreducibility_order",
    "is_k_irreducible",
    "littlestone_dimension",
    "soa",
    "theoretical_sample_size",
]
