"""Private proper learning: the released model is a member of the class.

Differs from :mod:`sksmooth.perturbed` (which releases the output of an ERM
oracle on perturbed data) in that the private step *selects* a hypothesis
of a fixed, public class; the methods are strategies
(:mod:`._exponential`, :mod:`._littlestone`) behind one estimator.

References: Ghazi, Golowich, Kumar, Manurangsi, "Sample-efficient proper PAC
learning with approximate differential privacy", STOC 2021, arXiv:2012.03893;
Kasiviswanathan, Lee, Nissim, Raskhodnikova, Smith, "What can we learn
privately?", FOCS 2008; Haghtalab, Roughgarden, Shetty, "Smoothed Analysis of
Online and Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129.
"""

from ._private_proper import PrivateProperClassifier, ProperRelease, SelectedHypothesis
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
    "ProperRelease",
    "LittlestoneOracle",
    "irreducibility_order",
    "is_k_irreducible",
    "littlestone_dimension",
    "soa",
    "theoretical_sample_size",
]
