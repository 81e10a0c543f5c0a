"""Private query release: synthetic data that answers a query workload.

Unlike the learners (:mod:`sksmooth.proper`, :mod:`sksmooth.perturbed`), which
release one hypothesis for prediction, the synthesizers here release a whole
*distribution* over the data domain — answers to many counting queries at
once — and emit synthetic rows from it: ``sample`` and ``fit_resample``
(which imbalanced-learn's ``Pipeline`` calls). The grid family (e.g.
``SmoothMWEM``) is also a transformer (``transform``, ``fit_transform(X)``;
``as_sampler()`` for imbalanced-learn); ``AdaptiveMarginalSynthesizer`` is a
sampler only, an imbalanced-learn step as it is; the per-query baselines
release noisy answers, not rows. Unlike
:mod:`sksmooth.mechanisms` (single-shot noise), they compose mechanisms into
whole releases: MWEM, Smooth MWEM over a γ-cover of an infinite query
class, Projected Smooth MWEM (σ-smooth output), the Subsampled Net
Mechanism, and per-query baselines. The released distribution sits behind
one protocol (``ReleaseModel``: marginal, multiply, sample). Parameter objects:
``Workload`` (the queries), ``TableRounds`` / ``QueryRounds`` (MWEM's rounds).

References
----------
M. Hardt, K. Ligett and F. McSherry, "A simple and practical algorithm for
differentially private data release", NeurIPS 2012, arXiv:1012.4763 (MWEM).
N. Haghtalab, T. Roughgarden and A. Shetty, "Smoothed Analysis of Online and
Differentially Private Learning", NeurIPS 2020, arXiv:2006.10129, §4 and
App. E-G (Alg. 2-4), Thm 4.1-4.3.
R. McKenna, D. Sheldon and G. Miklau, "Graphical-model based estimation and
inference for differential privacy", ICML 2019, arXiv:1901.09136.
"""

from ._aim import AdaptiveMarginalSynthesizer
from ._baselines import GaussianPerQuery, LaplacePerQuery
from ._mwem import MWEM, ProjectedSmoothMWEM, SmoothMWEM
from ._projection import kl_project_smooth
from ._queries import Workload
from ._rounds import QueryRounds, TableRounds
from ._sampler import SyntheticSampler
from ._subsampled_net import SubsampledNetMechanism

__all__ = [
    "AdaptiveMarginalSynthesizer",
    "GaussianPerQuery",
    "LaplacePerQuery",
    "MWEM",
    "ProjectedSmoothMWEM",
    "QueryRounds",
    "SmoothMWEM",
    "SubsampledNetMechanism",
    "SyntheticSampler",
    "TableRounds",
    "Workload",
    "kl_project_smooth",
]
