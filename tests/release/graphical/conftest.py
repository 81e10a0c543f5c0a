"""Shared fixture: a spy on the mechanisms the graphical selection loops really call."""

import math

import pytest

import sksmooth.release.graphical._budget as budget


class Spy:
    """Records the privacy parameters the mechanisms were really called with."""

    def __init__(self, monkeypatch):
        self.epsilons, self.sigmas = [], []
        em, noise = budget.exact_exponential_mechanism, budget.add_discrete_gaussian

        def spy_em(scores, epsilon, sensitivity, rng, **kw):
            self.epsilons.append((epsilon, sensitivity))
            return em(scores, epsilon, sensitivity, rng, **kw)

        def spy_noise(counts, sigma, rng):
            self.sigmas.append(sigma)
            return noise(counts, sigma, rng)

        monkeypatch.setattr(budget, "exact_exponential_mechanism", spy_em)
        monkeypatch.setattr(budget, "add_discrete_gaussian", spy_noise)

    def rho(self, l2):
        """zCDP cost of the draws, recomputed from first principles.

        Redraws of the exponential mechanism within one round (ineligible
        tables) are one selection; the spy sees them as repeats of the same
        epsilon, so rounds are counted by measurements after the 1-way ones.
        """
        return math.fsum(l2**2 / (2 * s**2) for s in self.sigmas)


@pytest.fixture
def spy(monkeypatch):
    """The privacy parameters of every exponential-mechanism and noise draw."""
    return Spy(monkeypatch)
