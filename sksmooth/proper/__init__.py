"""Private proper learning: the released hypothesis belongs to the class.

Unlike :mod:`sksmooth.perturbed` (an oracle on perturbed data, which may
return any classifier the oracle can) this subpackage releases a member of
the hypothesis class itself, selected privately: the exponential mechanism
over a data-independent cover (``method="exponential"``), or
PolyPriPropLearn for finite classes of small Littlestone dimension
(``method="littlestone"``, tools in :mod:`sksmooth.proper.littlestone`).
Each method is a strategy behind one estimator.

References
----------
B. Ghazi, N. Golowich, R. Kumar and P. Manurangsi, "Sample-efficient proper
PAC learning with approximate differential privacy", STOC 2021,
arXiv:2012.03893, Alg. 1-3, Lemma 6.2, 6.3, Thm 6.4.
N. Haghtalab, T. Roughgarden and A. Shetty, "Smoothed Analysis of Online and
Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129, §4.
S. P. Kasiviswanathan, H. K. Lee, K. Nissim, S. Raskhodnikova and A. Smith,
"What Can We Learn Privately?", FOCS 2008, arXiv:0803.0924.
"""

from ._methods import Exponential, Littlestone, NoisyMeans
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
    "Exponential",
    "NoisyMeans",
    "Littlestone",
    "SelectedHypothesis",
    "ProperRelease",
    "LittlestoneOracle",
    "irreducibility_order",
    "is_k_irreducible",
    "littlestone_dimension",
    "soa",
    "theoretical_sample_size",
]
