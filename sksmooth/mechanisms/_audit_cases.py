"""Audit cases of the mechanisms for the catalog :mod:`sksmooth.audits`.

Each case fixes a neighbouring pair and an event on which the mechanism's
analysis is tight (the event's probability ratio reaches ``e^epsilon``, or
the threshold is found on held-out runs), states the fraction of the claim
the correct mechanism reaches, and has a broken variant (twice the epsilon,
half the noise, or too little padding) that the same audit, at the same
number of trials, must catch. :func:`overspending` makes the estimators'
broken variants: their releases call these samplers at a multiple of the
budget they charge.
"""

import contextlib
import dataclasses
import sys

import numpy as np

from .. import _randomness
from ..metrics import (
    AuditCase,
    audit_delta,
    audit_epsilon,
    audit_epsilon_search,
)
from ._discrete import (
    discrete_gaussian_delta,
    discrete_gaussian_mechanism,
    discrete_laplace_mechanism,
    sample_discrete_gaussian,
    sample_discrete_laplace,
)
from ._exact_selection import (
    exact_exponential_mechanism,
    permute_and_flip,
    rational_permute_and_flip,
)
from ._exponential import exponential_mechanism, report_noisy_max
from ._gaussian import gaussian_noise_std
from ._laplace import laplace_mechanism
from ._sparse_selection import (
    _count_candidates,
    _sparse_selection_sample,
    sparse_selection,
    sparse_selection_log_padding,
)

__all__ = ["mechanism_audit_cases", "overspending", "sparse_selection_padding_audit"]


def _scaled_argument(function, position, name, scale):
    """``function`` with its argument ``position``/``name`` multiplied by ``scale``."""

    def overspent(*args, **kwargs):
        if len(args) > position:
            args = (*args[:position], args[position] * scale, *args[position + 1:])
        else:
            kwargs[name] = kwargs[name] * scale
        return function(*args, **kwargs)

    overspent.__wrapped__ = function
    return overspent


class _OverspentNoise(np.random.Generator):
    """The noise stream with Gaussian draws shrunk by ``1 / factor``."""

    def __init__(self, generator, factor):
        super().__init__(generator.bit_generator)
        self._factor = factor

    def standard_normal(self, *args, **kwargs):
        return super().standard_normal(*args, **kwargs) / self._factor

    def normal(self, loc=0.0, scale=1.0, size=None):
        return super().normal(loc, np.asarray(scale) / self._factor, size)


def _overspent_randomness(release_randomness, factor):
    def overspent(*args, **kwargs):
        randomness = release_randomness(*args, **kwargs)
        return dataclasses.replace(randomness,
                                   noise=_OverspentNoise(randomness.noise, factor))

    return overspent


@contextlib.contextmanager
def overspending(factor=2.0):
    """Every release made inside spends ``factor`` times the epsilon it charges.

    The broken variant of the estimators' audit cases: wherever a module of
    the package (outside :mod:`sksmooth.mechanisms` itself) holds one of the
    mechanisms' samplers, it calls it at ``factor`` times its epsilon (the
    Gaussian and Laplace samplers at ``1 / factor`` times their scale), and
    the Gaussian draws of a release's noise stream (the perturbation of
    :class:`~sksmooth.PerturbedERMClassifier`) shrink by ``1 / factor``. The
    charge, ``privacy_spent_`` and ``guarantee_`` are left as they were. Not
    thread-safe: for audits only.
    """
    f = float(factor)
    replacements = {
        discrete_gaussian_mechanism: _scaled_argument(discrete_gaussian_mechanism, 1, "sigma",
                                                      1 / f),
        sample_discrete_gaussian: _scaled_argument(sample_discrete_gaussian, 0, "sigma2",
                                                   1 / f**2),
        discrete_laplace_mechanism: _scaled_argument(discrete_laplace_mechanism, 1, "epsilon",
                                                     f),
        sample_discrete_laplace: _scaled_argument(sample_discrete_laplace, 0, "scale", 1 / f),
        laplace_mechanism: _scaled_argument(laplace_mechanism, 1, "epsilon", f),
        exact_exponential_mechanism: _scaled_argument(exact_exponential_mechanism, 1,
                                                      "epsilon", f),
        permute_and_flip: _scaled_argument(permute_and_flip, 1, "epsilon", f),
        rational_permute_and_flip: _scaled_argument(rational_permute_and_flip, 1, "epsilon", f),
        exponential_mechanism: _scaled_argument(exponential_mechanism, 1, "epsilon", f),
        report_noisy_max: _scaled_argument(report_noisy_max, 1, "epsilon", f),
        sparse_selection: _scaled_argument(sparse_selection, 2, "epsilon", f),
        _randomness.release_randomness: _overspent_randomness(_randomness.release_randomness, f),
    }
    by_id = {id(original): new for original, new in replacements.items()}
    patched = []
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith("sksmooth") or (
                name.startswith("sksmooth.mechanisms.")):
            continue
        for attribute, value in list(vars(module).items()):
            if id(value) in by_id and callable(value):
                patched.append((module, attribute, value))
                setattr(module, attribute, by_id[id(value)])
    try:
        yield
    finally:
        for module, attribute, value in patched:
            setattr(module, attribute, value)


def _audit_pair(mechanism, dataset0, dataset1, event, delta=0.0):
    """``run(n_trials, random_state)`` of a batched audit on a fixed event."""

    def run(n_trials, random_state):
        return audit_epsilon(mechanism, dataset0, dataset1, event, n_trials,
                             random_state=random_state, batch=True, delta=delta)

    return run


def _laplace_case(epsilon=1.0):
    # Values 0 and 1 (sensitivity 1), event {output > 1}: P_1 = 1/2 and
    # P_0 = e^-eps / 2, a ratio of exactly e^eps.
    def above_one(outs):
        return outs > 1.0

    def correct(value, rng, n):
        return laplace_mechanism(value, epsilon, 1.0, rng, size=n)

    def half_noise(value, rng, n):
        return value + rng.laplace(scale=0.5 / epsilon, size=n)

    return AuditCase(
        f"laplace_mechanism (eps={epsilon}, values 0 vs 1, output > 1)", epsilon, 0.0,
        _audit_pair(correct, 0.0, 1.0, above_one), 400_000, min_fraction=0.9,
        run_broken=_audit_pair(half_noise, 0.0, 1.0, above_one), broken="half the noise",
    )


def _discrete_laplace_case(epsilon=1.0):
    # Counts 0 and 1, event {output >= 1}: the ratio is exactly e^eps.
    def at_least_one(outs):
        return outs >= 1

    def correct(value, rng, n):
        return discrete_laplace_mechanism(value, epsilon, 1, rng, size=n)

    def double_epsilon(value, rng, n):
        return discrete_laplace_mechanism(value, 2 * epsilon, 1, rng, size=n)

    return AuditCase(
        f"discrete_laplace_mechanism (eps={epsilon}, counts 0 vs 1, output >= 1)",
        epsilon, 0.0, _audit_pair(correct, 0, 1, at_least_one), 400_000, min_fraction=0.9,
        run_broken=_audit_pair(double_epsilon, 0, 1, at_least_one), broken="2x epsilon",
    )


def _searched_threshold(mechanism, delta):
    """``run`` of a threshold audit whose threshold is chosen on held-out runs."""

    def run(n_trials, random_state):
        return audit_epsilon_search(mechanism, 0, 1, n_trials, random_state=random_state,
                                    batch=True, delta=delta)

    return run


def _gaussian_noise(noise_std):
    return lambda value, rng, n: value + rng.normal(scale=noise_std, size=n)


def _classic_gaussian_case(epsilon=0.9, delta=1e-3):
    # The classic calibration sqrt(2 ln(1.25/delta))/eps is loose: the best
    # threshold event of the pair 0 vs 1 has a ratio of e^{0.56} (computed
    # from the normal tails), 62% of the claim; with half the noise it is
    # e^{1.28}.
    std = gaussian_noise_std(epsilon, delta, 1.0, calibration="classic")
    return AuditCase(
        f"gaussian_mechanism classic (eps={epsilon}, delta={delta}), threshold search",
        epsilon, delta, _searched_threshold(_gaussian_noise(std), delta), 2_000_000,
        min_fraction=0.4,
        run_broken=_searched_threshold(_gaussian_noise(std / 2), delta),
        broken="half the noise",
    )


def _analytic_gaussian_case(epsilon=1.0, delta=1e-3):
    # The analytic calibration is exact: on the pair 0 vs 1 the event
    # {output > eps s^2 + 1/2} (privacy loss >= eps) has
    # P_1 - delta = e^eps P_0 exactly (Balle & Wang 2018, Thm 8); the
    # held-out threshold search finds it (and the broken variant's).
    std = gaussian_noise_std(epsilon, delta, 1.0)
    return AuditCase(
        f"gaussian_mechanism analytic (eps={epsilon}, delta={delta}), threshold search",
        epsilon, delta, _searched_threshold(_gaussian_noise(std), delta), 2_000_000,
        min_fraction=0.75,
        run_broken=_searched_threshold(_gaussian_noise(std / 2), delta),
        broken="half the noise",
    )


def _discrete_gaussian_case(epsilon=1.0, sigma=2.5):
    # Exact (eps, delta) of CKS Thm 7; on counts 0 vs 1 the event
    # {output > eps sigma^2 + 1/2} attains it; the threshold search finds it.
    delta = discrete_gaussian_delta(epsilon, sigma)

    def noise(noise_sigma):
        return lambda value, rng, n: discrete_gaussian_mechanism(value, noise_sigma, rng, size=n)

    return AuditCase(
        f"discrete_gaussian_mechanism (sigma={sigma}: eps={epsilon}, delta={delta:.3g} "
        "by CKS Thm 7), threshold search",
        epsilon, delta, _searched_threshold(noise(sigma), delta), 1_000_000,
        min_fraction=0.75,
        run_broken=_searched_threshold(noise(sigma / 2), delta),
        broken="half the noise",
    )


# Worst-case neighbours for selection (sensitivity 1): candidate 0 gains a
# point while the ten others lose one; the event {candidate 0} then has a
# ratio close to e^eps for every sampler below.
_SCORES0 = np.r_[1, np.zeros(10, dtype=np.int64)]
_SCORES1 = np.r_[0, np.ones(10, dtype=np.int64)]


def _chose_first(outs):
    return np.asarray(outs) == 0


def _selection_case(name, sampler, epsilon=1.0, min_fraction=0.7):
    def at(eps):
        return lambda scores, rng, n: sampler(scores, eps, 1.0, rng, size=n)

    return AuditCase(
        f"{name} (eps={epsilon}, 11 candidates, one gains / ten lose)", epsilon, 0.0,
        _audit_pair(at(epsilon), _SCORES0, _SCORES1, _chose_first), 400_000,
        min_fraction=min_fraction,
        run_broken=_audit_pair(at(2 * epsilon), _SCORES0, _SCORES1, _chose_first),
        broken="2x epsilon",
    )


def _report_noisy_max(noise):
    def sampler(scores, epsilon, sensitivity, rng, size):
        return report_noisy_max(scores, epsilon, sensitivity, rng, noise=noise, size=size)

    return sampler


def _sparse_sampler(epsilon, delta, max_set_size, weight_epsilon=None, log_padding=None):
    """Batched sparse selection; the keyword arguments build broken variants."""
    weight_epsilon = epsilon if weight_epsilon is None else weight_epsilon
    if log_padding is None:
        log_padding = sparse_selection_log_padding(max_set_size, epsilon, delta)

    def mechanism(users, rng, n):
        candidates, counts = _count_candidates(users, max_set_size, "raise")
        index = _sparse_selection_sample(counts, weight_epsilon, log_padding, rng, n)
        lookup = np.empty(len(candidates) + 1, dtype=object)
        lookup[: len(candidates)] = candidates
        return lookup[index]

    return mechanism


def _sparse_selection_case(epsilon=1.0, delta=1e-3, crowd=30):
    # max_set_size 10. User 0 holds {"u"} in D0 and {"v0".."v9"} in D1; 30
    # other users hold {"u"} and 30 hold {"v0".."v9"}. The counts are large,
    # so the dummies carry no weight and this is the exponential mechanism's
    # worst case: P_D0(u) = a/(a+10), P_D1(u) = 1/(1+10a), a = e^{eps/2}, a
    # ratio e^{0.91 eps}. Broken: weights e^{eps s} (2x in the exponent).
    vs = frozenset(f"v{i}" for i in range(10))
    others = [{"u"}] * crowd + [vs] * crowd
    users0, users1 = [{"u"}] + others, [vs] + others

    def chose_u(outs):
        return outs == "u"

    return AuditCase(
        f"sparse_selection (eps={epsilon}, delta={delta}, l=10), large counts, output u",
        epsilon, delta,
        _audit_pair(_sparse_sampler(epsilon, delta, 10), users0, users1, chose_u, delta),
        400_000, min_fraction=0.7,
        run_broken=_audit_pair(
            _sparse_sampler(epsilon, delta, 10, weight_epsilon=2 * epsilon),
            users0, users1, chose_u, delta,
        ),
        broken="weights exp(eps s) instead of exp(eps s / 2)",
    )


def _padding_pair(epsilon, delta):
    # User 0 alone holds "x" (D0) or nothing (D1): P_D0(x) = a/(K + a) is
    # the delta of the analysis exactly, and P_D1(x) = 0.
    return [{"x"}], [set()]


def _chose_x(outs):
    return outs == "x"


def _short_padding(epsilon, delta):
    """log K with the e^{eps/2} factor's exponent halved (e^{eps/4})."""
    return sparse_selection_log_padding(1, epsilon, delta) - epsilon / 4


def _sparse_padding_case(epsilon=1.0, delta=1e-2):
    # The padding is tight in delta, not in epsilon: on this pair the epsilon
    # audit of the correct mechanism is ~0 by construction (P_D0(x) = delta
    # is all delta), so min_fraction = 0; its power is the broken padding
    # (K / e^{eps/4}), and sparse_selection_padding_audit shows the delta
    # audit reaching most of delta.
    users0, users1 = _padding_pair(epsilon, delta)
    short = _sparse_sampler(epsilon, delta, 1, log_padding=_short_padding(epsilon, delta))
    return AuditCase(
        f"sparse_selection padding (eps={epsilon}, delta={delta}, l=1), output x",
        epsilon, delta,
        _audit_pair(_sparse_sampler(epsilon, delta, 1), users0, users1, _chose_x, delta),
        400_000, min_fraction=0.0,
        run_broken=_audit_pair(short, users0, users1, _chose_x, delta),
        broken="padding K e^{-eps/4} (exponent eps/4 instead of eps/2)",
    )


def sparse_selection_padding_audit(n_trials, random_state, epsilon=1.0, delta=1e-2,
                                   broken=False):
    """Delta audit at ``epsilon`` of sparse selection on the padding pair.

    Returns a :class:`sksmooth.metrics.DeltaAuditResult`: the correct
    padding gives ``delta_lower`` close to ``delta``; ``broken=True`` uses
    the padding of :func:`_short_padding` (delta above the claim).
    """
    users0, users1 = _padding_pair(epsilon, delta)
    log_padding = _short_padding(epsilon, delta) if broken else None
    mechanism = _sparse_sampler(epsilon, delta, 1, log_padding=log_padding)
    return audit_delta(mechanism, users0, users1, _chose_x, n_trials, epsilon,
                       random_state=random_state, batch=True)


def mechanism_audit_cases():
    """The audit cases of :mod:`sksmooth.mechanisms` (each with a broken variant)."""
    return [
        _laplace_case(),
        _discrete_laplace_case(),
        _classic_gaussian_case(),
        _analytic_gaussian_case(),
        _discrete_gaussian_case(),
        _selection_case("exponential_mechanism (Gumbel-max)", exponential_mechanism),
        _selection_case("exact_exponential_mechanism", exact_exponential_mechanism),
        _selection_case("permute_and_flip", permute_and_flip),
        _selection_case("report_noisy_max laplace", _report_noisy_max("laplace")),
        _selection_case("report_noisy_max exponential", _report_noisy_max("exponential")),
        _sparse_selection_case(),
        _sparse_padding_case(),
    ]
