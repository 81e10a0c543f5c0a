"""Private query release: MWEM, Smooth MWEM, Projected Smooth MWEM,
Subsampled Net Mechanism, and per-query baselines (SPEC §7).

References: seeds/002_6ccc6583559482be.txt; seeds/000_08e60ac76481cbe2.txt,
§4 and App. E–G.
"""

from ._baselines import GaussianPerQuery, LaplacePerQuery
from ._mwem import SmoothMWEM
from ._projection import kl_project_smooth
from ._subsampled_net import SubsampledNetMechanism

__all__ = [
    "GaussianPerQuery",
    "LaplacePerQuery",
    "SmoothMWEM",
    "SubsampledNetMechanism",
    "kl_project_smooth",
]
