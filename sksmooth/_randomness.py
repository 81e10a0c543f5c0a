"""Where the randomness of a private release comes from (SPEC §1.4).

Three independent streams: ``public`` (data-independent choices), ``noise``
(fresh OS entropy per release unless seeded) and ``sampling`` (synthetic rows).
A seeded release is marked not certified (docs/privacy.rst).
"""

import warnings
from dataclasses import dataclass

import numpy as np

from ._validation import check_random_state
from .exceptions import PrivacyLeakWarning, user_stacklevel

__all__ = ["ReleaseRandomness", "release_randomness", "SEEDED_NOISE_NOTE"]

SEEDED_NOISE_NOTE = (
    "seeded noise: random_state was given, so whoever knows it can replay the "
    "privacy noise (and so can every clone or copy of a Generator); leave "
    "random_state=None for a certified release"
)


@dataclass(frozen=True)
class ReleaseRandomness:
    """The three independent streams of one release (see module docstring)."""

    public: np.random.Generator
    noise: np.random.Generator
    sampling: np.random.Generator
    seeded: bool


def _seed_sequence(random_state, name):
    """``(SeedSequence, seeded)`` for ``random_state`` (:func:`check_random_state`)."""
    random_state = check_random_state(random_state, name)
    if random_state is None:
        return np.random.SeedSequence(), False  # fresh OS entropy
    if isinstance(random_state, np.random.Generator):
        # Draw the child entropy from the Generator: reproducible from its
        # state, and it advances the Generator like any other use would.
        entropy = random_state.integers(0, 2**63, size=4, dtype=np.int64)
    elif isinstance(random_state, np.random.RandomState):
        entropy = random_state.randint(0, 2**31 - 1, size=4)
    else:
        return np.random.SeedSequence(random_state), True
    return np.random.SeedSequence([int(e) for e in entropy]), True


def release_randomness(random_state, *, warn=True, name="random_state", stacklevel=None):
    """Split ``random_state`` into the public, noise and sampling streams.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        ``None`` (default everywhere in sksmooth): fresh OS entropy.
        Anything else makes the release *seeded* (not certified).
    warn : bool, default=True
        Emit a :class:`PrivacyLeakWarning` for a seeded release.
    stacklevel : int or None, default=None
        Of that warning; ``None`` names the user's line
        (:func:`~sksmooth.exceptions.user_stacklevel`).

    Returns
    -------
    ReleaseRandomness
    """
    sequence, seeded = _seed_sequence(random_state, name)
    public, noise, sampling = (np.random.default_rng(s) for s in sequence.spawn(3))
    if seeded and warn:
        warnings.warn(
            f"{name} is set: the privacy noise of this release is reproducible "
            "from it, so the release is marked not certified. Leave "
            f"{name}=None (fresh OS entropy) for a certified release.",
            PrivacyLeakWarning,
            stacklevel=user_stacklevel() if stacklevel is None else stacklevel,
        )
    return ReleaseRandomness(public=public, noise=noise, sampling=sampling, seeded=seeded)


def sampling_generator(random_state, name="random_state"):
    """Generator for drawing rows from an already released model.

    Sampling from a release is post-processing, so a seed here costs no
    privacy; ``None`` is fresh OS entropy.
    """
    sequence, _ = _seed_sequence(random_state, name)
    return np.random.default_rng(sequence)
