"""Input checks shared by the mechanisms (thin layer over sksmooth._validation), and
the float bisection their calibrations use."""

import numbers

import numpy as np

from .._validation import (_is_real, check_epsilon, check_flag, check_generator,
                           check_positive_int)


def check_sensitivity(sensitivity, name="sensitivity"):
    """Return a finite float ``> 0``."""
    if not _is_real(sensitivity) or np.isnan(sensitivity):
        raise TypeError(
            f"{name} must be a real number > 0, got {sensitivity!r}; pass the "
            f"largest change of the score/value between neighbouring datasets, "
            f"e.g. {name}=1.0."
        )
    sensitivity = float(sensitivity)
    if not 0 < sensitivity < np.inf:
        raise ValueError(
            f"{name} must be finite and > 0, got {sensitivity!r}; pass e.g. {name}=1.0."
        )
    return sensitivity


def check_scores(scores, name="scores"):
    """Return ``scores`` as a finite 1-D float array with at least one entry.

    Integer scores are first shifted by their maximum, exactly (every selection
    here depends on the differences only): converted as they are, scores past
    2^53 are rounded, and neighbouring score vectors one apart could differ by
    hundreds (the sensitivity broken). Real-valued scores are the caller's.
    """
    scores = _shifted_if_integer(scores)
    try:
        arr = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be a 1-D array of real numbers, got {type(scores).__name__}."
        ) from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-D array (one score per candidate), got "
            f"shape {arr.shape}."
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError(
            f"{name} must be finite (no NaN or inf). Drop excluded candidates "
            "instead of scoring them -inf."
        )
    return arr


def _shifted_if_integer(scores):
    """``scores - max(scores)`` in exact integer arithmetic when they are integers
    (an integer array, or Python ints, whatever dtype numpy would pick for them:
    float64 for 2^64 - 1 beside -1), else ``scores`` unchanged."""
    if isinstance(scores, (str, bytes)):
        return scores
    if isinstance(scores, (list, tuple)):
        entries = list(scores)
    else:
        try:
            ints = np.asarray(scores)
        except ValueError:  # ragged: check_scores refuses it with its own message
            return scores
        if ints.ndim != 1 or ints.size == 0 or ints.dtype.kind not in "iuO":
            return scores
        if ints.dtype.kind != "O":
            top = int(ints.max())
            if top <= 2**62 and int(ints.min()) >= -(2**62):  # no int64 overflow
                return ints.astype(np.int64) - top
        entries = ints.tolist()
    if not entries or not all(isinstance(v, numbers.Integral) for v in entries):  # bools too
        return scores
    top = max(int(v) for v in entries)
    return np.array([int(v) - top for v in entries], dtype=object)


def check_noise_scale(scale, formula):
    """``scale`` if finite, else a ``ValueError`` naming epsilon and the sensitivity
    (noise of infinite scale returns +-inf, or ties broken by the noise's overflow)."""
    if not np.isfinite(scale):
        raise ValueError(f"the noise scale {formula} overflows: epsilon is too small for "
                         "this sensitivity; pass a larger epsilon or a smaller sensitivity.")
    return scale


def check_value(value, name="value"):
    """Return ``(array, is_scalar)`` for a finite real scalar or array."""
    is_scalar = np.ndim(value) == 0
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be a real number or an array of real numbers, got "
            f"{type(value).__name__}."
        ) from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf).")
    return arr, is_scalar


def check_rng(rng, name="rng"):
    """Return a ``numpy.random.Generator`` (``None``/int are seeded through it)."""
    try:
        return check_generator(rng)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}: {exc} Pass e.g. {name}=np.random.default_rng(0).") from None


def check_size(size, name="size"):
    """Return ``None`` or a positive int."""
    if size is None:
        return None
    if not isinstance(size, numbers.Integral):
        raise TypeError(f"{name} must be None or an int >= 1, got {size!r}.")
    return check_positive_int(size, name)


def check_selection_inputs(scores, epsilon, sensitivity, rng, monotonic, size,
                           score_check=check_scores):
    """The checked arguments of a selection mechanism, in its signature's order.

    ``score_check`` validates the scores (real-valued by default; the exact
    samplers pass their integer check).
    """
    return (
        score_check(scores),
        check_epsilon(epsilon),
        check_sensitivity(sensitivity),
        check_rng(rng),
        check_flag(monotonic, "monotonic"),
        check_size(size),
    )


def add_noise(value, is_scalar, size, draw):
    """``value`` plus ``draw(n)`` (``n`` i.i.d. noises, in C order), shaped like
    ``value`` or ``(size, *value.shape)``; a Python scalar for scalar input."""
    shape = value.shape if size is None else (size,) + value.shape
    noisy = value + draw(int(np.prod(shape, dtype=np.int64))).reshape(shape)
    if is_scalar and size is None:
        return noisy.item()
    return noisy


def bisect_float(holds, lo, hi):
    """``(lo, hi)`` with ``holds(lo)`` (assumed, not evaluated) and not ``holds(hi)``,
    adjacent floats or 200 halvings apart, for ``holds`` true up to some point:
    ``hi`` doubles until it fails, then the bracket is halved."""
    while holds(hi):
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if holds(mid):
            lo = mid
        else:
            hi = mid
    return lo, hi
