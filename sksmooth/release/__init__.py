"""Private query release: MWEM, Smooth MWEM, Projected Smooth MWEM,
Subsampled Net Mechanism, and per-query baselines (SPEC §7).

How it differs from its neighbours: ``mechanisms/`` holds the single-shot
noise samplers, ``release/`` composes them into whole data releases over a
public universe (a released *model* of the data, from which synthetic rows
are drawn); ``release/graphical/`` is the factored representation of that
model.

References
----------
Hardt, Ligett, McSherry, "A simple and practical algorithm for
differentially private data release", NeurIPS 2012.
Haghtalab, Roughgarden, Shetty, "Smoothed Analysis of Online and
Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129, §4 and
App. E–G.
"""

from ._baselines import GaussianPerQuery, LaplacePerQuery
from ._mwem import SmoothMWEM
from ._projection import kl_project_smooth
from ._sampler import SyntheticSampler
from ._subsampled_net import SubsampledNetMechanism

__all__ = [
    "GaussianPerQuery",
    "LaplacePerQuery",
    "SmoothMWEM",
    "SubsampledNetMechanism",
    "SyntheticSampler",
    "kl_project_smooth",
]
