"""``method='noisy_means'``: nearest-prototype classifiers from noisy class sums.

One prototype (or ``m`` per label) from exact integer noise on per-label sums
and counts; discrete Gaussian for ``delta > 0``, discrete Laplace for ``delta =
0``. Class, sensitivities and privacy proof: ``docs/derivations.rst``,
section "Noisy means".
"""

import math
import warnings
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from .._guarantee import spent_as_set
from .._domain import grid_threshold
from .._domain import box_coordinates
from .._untrusted import sanitize_rows
from .._validation import public_box, reads_data
from ..accounting import zcdp_from_dp_budget, zcdp_to_dp
from ..exceptions import DefaultsWarning, user_stacklevel
from ..mechanisms import sample_discrete_gaussian, sample_discrete_laplace
from ._hypothesis import SelectedHypothesis, row_blocks
from ._prototype_maps import BoxCodes, BoxPrototypeRule, ProjectedL1Codes, random_projection

__all__ = ["PrototypeStrategy", "ClassSums", "PrototypeRule"]

PrototypeRule = BoxPrototypeRule  # the released rule of the box map (projection=None)

# the exact samplers' public ceilings (variance 2^80, Laplace scale 2^40)
_MAX_SIGMA2 = 2.0 ** 80
_MAX_LAPLACE_SCALE = 2.0 ** 40
# sums of n rows stay far inside int64 (n G < 2^62 for n < 2^46); a finer grid
# changes nothing (the noise scales with G)
MAX_CELLS = 2 ** 16
# 'auto' prototypes per label: target noise per prototype coordinate (box
# widths) and cap
AUTO_PROTOTYPE_NOISE = 0.1
AUTO_MAX_PROTOTYPES = 16

PROTOTYPE_SOURCE = (
    "Canonne, Kamath, Steinke, 'The Discrete Gaussian for Differential Privacy', "
    "NeurIPS 2020, arXiv:2004.00010 (exact discrete Gaussian/Laplace, Thm 14, Cor. 13): "
    "noisy per-label sums and counts of grid-rounded, centred rows; nearest class "
    "prototype by post-processing"
)


@dataclass(frozen=True)
class ClassSums:
    """Private running statistics: per-label sums of centred grid codes, and counts."""

    sums: np.ndarray  # (n_groups, n_features) int64; group = label * m + cell
    counts: np.ndarray  # (n_groups,) int64

    @property
    def n(self):
        return int(self.counts.sum())

    def __add__(self, other):
        return ClassSums(self.sums + other.sums, self.counts + other.counts)


@dataclass(frozen=True)
class NoiseCalibration:
    """The public noise of one release (a function of epsilon, delta, d, G only)."""

    kind: str  # 'discrete Gaussian' or 'discrete Laplace'
    sum_scale: Fraction  # variance sigma^2 (Gaussian) or scale b (Laplace)
    count_scale: Fraction
    rho: float  # zCDP of the Gaussian release (0 for Laplace)

    @property
    def mean_noise_std(self):
        """Standard deviation of the noise of one sum coordinate (in grid units)."""
        s = float(self.sum_scale)
        return math.sqrt(s) if self.kind == "discrete Gaussian" else math.sqrt(2.0) * s


@dataclass(frozen=True)
class PrototypeStrategy:
    """Nearest class prototype from noisy class sums (public structure only)."""

    n_cells: int
    n_classes: int
    lower: np.ndarray
    upper: np.ndarray
    add_remove: bool
    bounds_inferred: bool
    anchors: np.ndarray = None  # (m, n_features) public anchors; None: one prototype per label
    row_map: object = None  # BoxCodes or ProjectedL1Codes (public); None: BoxCodes

    name = "noisy_means"

    @classmethod
    def build(cls, params, X, n_classes, public_rng):
        """The public grid (``X`` is read only when ``bounds=None``: flagged)."""
        cls.check_public_params(params)
        lower, upper = public_box(params["bounds"], X.shape[1], X)
        gamma = 1.0 / 128 if params["gamma"] == "auto" else float(params["gamma"])
        n_cells = max(1, min(MAX_CELLS, math.ceil(1.0 / (2.0 * gamma) - 1e-12)))
        strategy = cls(n_cells, n_classes, lower, upper,
                       params["neighbouring"] == "add_remove", reads_data(params["bounds"]))
        k = strategy.projection_dim(params, X.shape[0])
        if k is not None:
            strategy = replace(strategy, row_map=ProjectedL1Codes(
                n_cells, lower, upper, random_projection(k, len(lower), public_rng)))
        noise = strategy.calibration(params)  # refuse an unrepresentable noise before any data
        m = params["prototypes_per_label"]
        if m == "auto":
            m = strategy.auto_prototypes_per_label(noise, X.shape[0])
        if m == 1:
            return strategy
        anchors = grid_threshold(lower, upper, public_rng.random(size=(int(m), len(lower))), 1)
        return replace(strategy, anchors=anchors)

    @staticmethod
    def check_public_params(params):
        """The checks of the parameters alone, before any data is read."""
        hyp = params["hypotheses"]
        if not (isinstance(hyp, str) and hyp == "prototypes"):
            raise ValueError(
                "method='noisy_means' learns nearest-prototype classifiers: pass "
                f"hypotheses='prototypes' (got hypotheses={hyp!r})."
            )

    def projection_dim(self, params, n):
        """``k`` of the projected L1 map, or ``None`` for the box map (public inputs only).

        ``'auto'``: the box map when ``delta > 0`` (the Gaussian pays the L2
        norm, which the box already bounds by ``sqrt(d) G``); when ``delta =
        0`` the largest ``k <= d`` whose noise per prototype coordinate, with
        about ``n / K`` rows per label, is at most 0.1 box widths (the target
        of ``prototypes_per_label='auto'``), and at least ``K - 1`` (``K``
        class means span ``K - 1`` dimensions).
        """
        projection, d = params["projection"], self.n_features
        if projection is None or (projection == "auto" and params["delta"] > 0):
            return None
        if projection != "auto":
            if projection > d:
                raise ValueError(
                    f"projection={projection} exceeds the {d} features; pass at most "
                    f"n_features={d}, 'auto', or None (no projection).")
            return int(projection)
        rows_per_label = max(n, 1) / self.n_classes
        low, high = min(d, max(1, self.n_classes - 1)), d
        while low < high:  # the noise grows with k: largest k under the target
            mid = (low + high + 1) // 2
            if self._projected_noise(params, mid) / rows_per_label <= AUTO_PROTOTYPE_NOISE:
                low = mid
            else:
                high = mid - 1
        return low

    def _projected_noise(self, params, k):
        """Noise of a sum coordinate (box widths) under the projected map to ``k`` dims."""
        shape_only = np.broadcast_to(np.zeros(1), (k, self.n_features))  # bounds need k only
        candidate = replace(self, row_map=ProjectedL1Codes(
            self.n_cells, self.lower, self.upper, shape_only))
        return candidate.sum_noise_in_box_widths(candidate.calibration(params))

    @property
    def codes_map(self):
        """The public row map (:mod:`sksmooth.proper._prototype_maps`)."""
        if self.row_map is None:
            return BoxCodes(self.n_cells, self.lower, self.upper)
        return self.row_map

    @property
    def projection_dim_(self):
        return None if self.row_map is None else self.row_map.dim

    def auto_prototypes_per_label(self, noise, n):
        """Largest ``m <= 16`` leaving ``sigma_S / 0.1`` rows per prototype (public inputs)."""
        rows_needed = self.sum_noise_in_box_widths(noise) / AUTO_PROTOTYPE_NOISE
        return int(min(AUTO_MAX_PROTOTYPES, max(1, n // (self.n_classes * rows_needed))))

    def sum_noise_in_box_widths(self, noise):
        return noise.mean_noise_std / (2.0 * self.n_cells)

    @property
    def prototypes_per_label(self):
        return 1 if self.anchors is None else len(self.anchors)

    @property
    def n_groups(self):
        return self.n_classes * self.prototypes_per_label

    def _cells(self, X):
        """Index of the nearest public anchor of every (mapped) row."""
        if self.anchors is None:
            return np.zeros(X.shape[0], dtype=np.int64)
        Z = box_coordinates(X, self.lower, self.upper)
        A = box_coordinates(self.anchors, self.lower, self.upper)
        return np.argmin((A * A).sum(axis=1)[None, :] - 2.0 * Z @ A.T, axis=1)

    @property
    def n_features(self):
        return len(self.lower)

    @property
    def n_hypotheses(self):
        """``(2G + 1)^(d k)``, or ``((2G + 1)^d + 1)^(k m)`` for ``m > 1`` (Python ints)."""
        points = self.codes_map.radix ** self.codes_map.dim
        if self.anchors is None:
            return points ** self.n_classes
        return (points + 1) ** self.n_groups

    def empty_statistics(self):
        g, d = self.n_groups, self.codes_map.dim
        return ClassSums(np.zeros((g, d), np.int64), np.zeros(g, np.int64))

    def accumulate(self, statistics, X, y_codes):
        """New statistics with ``(X, y)`` added (``statistics`` is not mutated)."""
        y_codes = np.asarray(y_codes, dtype=np.int64)
        g, d = statistics.sums.shape
        sums = np.zeros(g * d, np.int64)
        counts = np.zeros(g, np.int64)
        for rows in row_blocks(X.shape[0]):
            block = sanitize_rows(X[rows], self.lower, self.upper)
            u = self.codes_map.codes(block)
            groups = y_codes[rows] * self.prototypes_per_label + self._cells(block)
            # per block |sum| <= rows x max |code| < 2^53: the float sums are exact
            sums += np.rint(np.bincount((groups[:, None] * d + np.arange(d)).ravel(),
                                        weights=u.ravel(), minlength=g * d)).astype(np.int64)
            counts += np.bincount(groups, minlength=g)
        return statistics + ClassSums(sums.reshape(g, d), counts)

    # --------------------------------------------------------------- noise
    def calibration(self, params):
        """:class:`NoiseCalibration` for ``(epsilon, delta)`` (module docstring)."""
        epsilon, delta = params["epsilon"], params["delta"]
        # the row map's bounds: ||u||_2^2 <= B2 and ||u||_1 <= B1 for every code
        # (d G^2 and d G on the box; R^2 and R after the projected L1 map)
        dG2, l1 = self.codes_map.l2sq_bound, self.codes_map.l1_bound
        if delta > 0:
            rho = zcdp_from_dp_budget(epsilon, delta)
            # rho = c d G^2 / sigma^2, c = 2 (substitution) or 1 (addition/removal);
            # sigma^2 is rounded up, so the actual rho is at most the budget's
            c = 1 if self.add_remove else 2
            sigma2 = Fraction(np.nextafter(c * dG2 / rho, np.inf))
            if sigma2 > _MAX_SIGMA2:
                raise ValueError(self._too_small(epsilon))
            return NoiseCalibration("discrete Gaussian", sigma2, sigma2 / dG2,
                                    float(c * dG2 / sigma2))
        loss = (l1 + self.count_weight) * (1 if self.add_remove else 2)
        scale = Fraction(loss) / Fraction(epsilon)
        if scale > _MAX_LAPLACE_SCALE:
            raise ValueError(self._too_small(epsilon))
        return NoiseCalibration("discrete Laplace", scale, scale / self.count_weight, 0.0)

    @property
    def count_weight(self):
        """``W = G ceil(sqrt(d))`` (``d``: the map's dimension): the counts' coordinate."""
        return self.codes_map.count_weight

    def _too_small(self, epsilon):
        return (f"epsilon={epsilon!r} is too small for method='noisy_means' on "
                f"{self.n_features} features: the noise exceeds what the exact sampler "
                "represents (and would drown every mean); increase epsilon or gamma.")

    def select(self, statistics, params, randomness):
        """Noisy sums and counts (exact samplers, noise stream only) -> prototype codes."""
        noise = self.calibration(params)
        self._warn_if_noise_dominates(noise, statistics.n, params)
        sums, counts = self.noisy_statistics(statistics, noise, randomness.noise)
        choice = (self.prototype_codes(sums, counts), self.kept_groups(counts, noise))
        return choice, (noise, sums, counts)

    def kept_groups(self, weighted_counts, noise):
        """Post-processing: groups whose noisy count is at least twice its noise std,
        and the largest group of every label."""
        counts = (weighted_counts / self.count_weight).reshape(self.n_classes, -1)
        scale = float(noise.count_scale)
        count_std = math.sqrt(scale) if noise.kind == "discrete Gaussian" else math.sqrt(2) * scale
        keep = counts >= max(1.0, 2.0 * count_std)
        keep[np.arange(self.n_classes), np.argmax(counts, axis=1)] = True
        return keep.ravel()

    def _warn_if_noise_dominates(self, noise, n, params):
        """Warn when a prototype's noise exceeds half the box (public inputs and n only).

        The noise of one prototype coordinate is the sum's noise divided by the
        label's count, about ``n / k`` rows (n is public under substitution).
        """
        per_sum = self.sum_noise_in_box_widths(noise)
        rows_per_label = max(n, 1) / self.n_groups
        if per_sum / rows_per_label <= 0.5:
            return
        needed = int(math.ceil(self.n_groups * per_sum / 0.1))
        hint = ("" if params["delta"] > 0 or self.row_map is not None else
                " Pure DP (delta=0) on the box map (projection=None) adds L1 noise that "
                "grows with the features; projection='auto' (or delta > 0, discrete "
                "Gaussian) needs far less in many dimensions.")
        warnings.warn(
            f"PrivateProperClassifier(method='noisy_means'): each prototype coordinate "
            f"gets noise of about {per_sum / rows_per_label:.3g} box widths with about "
            f"{rows_per_label:.0f} rows per prototype: expect near-chance accuracy. About n = "
            f"{needed} rows bring it to 0.1; or use a larger epsilon.{hint}",
            DefaultsWarning, stacklevel=user_stacklevel())

    def prototype_codes(self, sums, weighted_counts):
        """Post-processing: means, back to the box, clipped, rounded to the grid.

        ``weighted_counts`` are ``W N_c`` (as released by :meth:`noisy_statistics`);
        the codes ``j`` in ``0..2G`` are the grid points ``lower + width j / (2G)``.
        """
        means = sums / np.maximum(weighted_counts / self.count_weight, 1.0)[:, None]
        return self.codes_map.prototype_codes(means)

    def noisy_statistics(self, statistics, noise, rng, size=None):
        """The private release: ``(sums + noise, W counts + noise)``, integers.

        The counts are returned as the coordinate ``W N_c`` (``W`` =
        :attr:`count_weight`) with noise of scale ``W`` times the count noise,
        which is the same law as noise on ``N_c`` scaled by ``W``. ``size``
        prepends that many independent copies (for audits).
        """
        k, d = self.n_groups, self.codes_map.dim
        copies = 1 if size is None else int(size)
        if noise.kind == "discrete Gaussian":
            sum_noise = sample_discrete_gaussian(noise.sum_scale, copies * k * d, rng)
            count_noise = self.count_weight * sample_discrete_gaussian(
                noise.count_scale, copies * k, rng)
        else:
            sum_noise = sample_discrete_laplace(noise.sum_scale, copies * k * d, rng)
            count_noise = sample_discrete_laplace(noise.sum_scale, copies * k, rng)
        sums = statistics.sums + sum_noise.reshape(copies, k, d)
        counts = self.count_weight * statistics.counts + count_noise.reshape(copies, k)
        return (sums[0], counts[0]) if size is None else (sums, counts)

    def release(self, choice, classes, feature_names):
        codes, kept = choice
        labels = np.arange(self.n_groups)[kept] // self.prototypes_per_label
        rule = self.codes_map.rule(codes[kept], labels)
        return SelectedHypothesis(self._index(codes, kept), rule, classes, feature_names)

    def _index(self, codes, kept):
        """Mixed-radix code of the hypothesis in ``[0, |H|)`` (a Python int).

        One digit per group: its grid point, or ``(2G + 1)^d`` when dropped
        (``m > 1`` only).
        """
        base = self.codes_map.radix
        points = base ** self.codes_map.dim
        radix = points if self.anchors is None else points + 1
        index = 0
        for group_codes, present in zip(np.asarray(codes).tolist(), kept.tolist()):
            digit = 0
            for c in group_codes:
                digit = digit * base + c
            index = index * radix + (digit if present else points)
        return index

    @staticmethod
    def substitution_epsilon(add_remove, epsilon, delta=0.0):
        """An addition/removal calibration doubles the loss (Laplace) or rho (Gaussian).

        For the Gaussian the budget's ``rho`` bounds the calibrated one (sigma^2 is
        rounded up), so ``zcdp_to_dp(2 rho, delta)`` is a valid substitution epsilon.
        Public parameters only: the ledger is checked with it before any data.
        """
        if not add_remove:
            return epsilon
        if delta > 0:
            return zcdp_to_dp(2.0 * zcdp_from_dp_budget(epsilon, delta), delta)
        return 2.0 * epsilon

    def epsilon_under_substitution(self, epsilon, delta=0.0):
        return self.substitution_epsilon(self.add_remove, epsilon, delta)

    def with_neighbouring(self, neighbouring):
        return replace(self, add_remove=neighbouring == "add_remove")

    def public_attributes(self, details, params, n):
        noise, sums, counts = details
        return {"bounds_": (self.lower, self.upper),
                "noisy_statistics_": (sums, counts),
                "noise_std_": self.sum_noise_in_box_widths(noise),
                "prototypes_per_label_": self.prototypes_per_label,
                "projection_dim_": self.projection_dim_}

    def guarantee_facts(self, params, n, details):
        details = details[0]  # the noise calibration
        certified, not_certified = [], []
        if self.bounds_inferred:
            not_certified.append("grid is data independent (bounds taken from data)")
        else:
            certified.append("grid (and anchors, projection) built from public bounds and "
                             "public randomness only")
        if details.kind == "discrete Gaussian":
            privacy = (f"{details.rho:.4g}-zCDP (discrete Gaussian, sigma^2 = "
                       f"{float(details.sum_scale):.4g} grid units), converted at delta")
        else:
            privacy = ("pure epsilon-DP (discrete Laplace, scale "
                       f"{float(details.sum_scale):.4g} grid units); delta = 0")
        notes = [
            f"class: nearest of up to {self.prototypes_per_label} prototype(s) per label "
            f"({self.n_classes} labels) {self.codes_map.describe()}"
            + ("" if self.anchors is None else "; groups from public random anchors"),
            privacy,
            f"noise per coordinate of a group's sum, in box widths: "
            f"{self.sum_noise_in_box_widths(details):.4g} (divide by the group's size for "
            "a prototype); no excess-error bound is claimed",
        ]
        return PROTOTYPE_SOURCE, certified, not_certified, notes

    spent = staticmethod(spent_as_set)
