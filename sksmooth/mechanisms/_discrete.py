"""Exact discrete Laplace and discrete Gaussian samplers and mechanisms.

The samplers follow Canonne, Kamath & Steinke, "The Discrete Gaussian for
Differential Privacy", NeurIPS 2020 (arXiv:2004.00010), Algorithms 1–3. They
use only uniform integer draws (``rng.integers``) and exact integer/rational
arithmetic, so every output is an exact function of uniform integers and the
output law is exactly the stated one: no floating-point number is involved,
which closes Mironov's (CCS 2012) attack on floating-point noise.

Vectorisation. Each algorithm is a rejection or counting loop; here every
round runs on the whole array of still-undecided samples at once, so the
number of Python-level rounds is ``O(log n)`` for ``n`` samples. Integers
stay ``int64`` while they provably fit (the common case: integer scales and
variances, or binary-float scales of moderate size) and switch to arrays of
Python integers (``dtype=object``, unbounded) when a product could overflow,
so exactness never depends on a range assumption.
"""

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from scipy.special import logsumexp

from .._validation import check_epsilon
from ._common import add_noise, check_rng, check_size

__all__ = [
    "discrete_gaussian_delta",
    "discrete_gaussian_mechanism",
    "discrete_laplace_mechanism",
    "sample_discrete_gaussian",
    "sample_discrete_laplace",
]

# Largest bound handed to rng.integers / largest value kept in int64 arithmetic.
_INT64_SAFE = 1 << 62
# Bits per word when drawing uniform integers below a bound >= 2^62.
_WORD_BITS = 62
# Public ceiling on the output magnitude's scale: samples must fit in int64.
_MAX_SCALE = 2.0 ** 40
# Bernoulli(exp(-1)) from one uniform on [0, 20!) (20! < 2^62).
_FACTORIAL_RADIX = 20
_FACTORIAL = math.factorial(_FACTORIAL_RADIX)
# 20!/k! for k = 20, 19, ..., 2 (ascending)
_CONTINUE_THRESHOLDS = np.array(
    [_FACTORIAL // math.factorial(k) for k in range(_FACTORIAL_RADIX, 1, -1)],
    dtype=np.int64,
)


def _uniform_below(bound, size, rng):
    """``size`` i.i.d. uniform integers in ``[0, bound)`` for a Python int ``bound``.

    ``int64`` when ``bound <= 2^62``; otherwise Python integers (object array)
    built from 62-bit words by rejection (exact: each accepted value is
    uniform on ``[0, bound)``).
    """
    if bound <= _INT64_SAFE:
        return rng.integers(0, bound, size=size, dtype=np.int64)
    n_low_words, top_bits = divmod(bound.bit_length(), _WORD_BITS)
    out = np.empty(size, dtype=object)
    todo = np.arange(size)
    while todo.size:  # each round accepts with probability > 1/2
        value = rng.integers(0, 1 << top_bits, size=todo.size, dtype=np.int64).astype(object)
        for _ in range(n_low_words):
            word = rng.integers(0, 1 << _WORD_BITS, size=todo.size, dtype=np.int64)
            value = value * (1 << _WORD_BITS) + word.astype(object)
        ok = value < bound
        out[todo[ok]] = value[ok]
        todo = todo[~ok]
    return out


def _bernoulli_exp_minus_fraction(numerators, denominator, rng):
    """Bernoulli(exp(-r/d)) for each ``r`` in ``numerators`` with ``0 <= r < d``.

    CKS Algorithm 1 (case ``gamma in [0, 1]``): ``K = 1``; while
    Bernoulli(gamma/K) succeeds, ``K += 1``; return ``K`` odd. Every sample
    still running in round ``K`` has the same ``K``, and Bernoulli(r/(d K)) is
    "uniform in [0, d) is < r" and "uniform in [0, K) is 0".
    """
    n = len(numerators)
    stop_k = np.zeros(n, dtype=np.int64)
    active = np.arange(n)
    k = 1
    while active.size:
        success = _uniform_below(denominator, active.size, rng) < numerators[active]
        if k > 1:
            success &= rng.integers(0, k, size=active.size) == 0
        success = np.asarray(success, dtype=bool)
        stop_k[active[~success]] = k
        active = active[success]
        k += 1
    return stop_k % 2 == 1


def _bernoulli_exp_minus_one(n, rng):
    """``n`` i.i.d. Bernoulli(exp(-1)) draws (CKS Algorithm 1 with gamma = 1).

    Algorithm 1 draws ``u_k ~ Unif{0..k-1}`` for ``k = 2, 3, ...`` (the
    ``k = 1`` trial always succeeds), stops at the first ``k`` with
    ``u_k != 0`` and returns ``[k odd]``. One uniform ``u`` on ``[0, 20!)``
    holds ``u_2, ..., u_20`` as its mixed-radix digits (most significant
    first), and ``u_2 = ... = u_k = 0`` iff ``u < 20!/k!``; so the stop is
    ``k = 2 + #{k <= 20 : u < 20!/k!}``. ``u_2`` is one random bit: half the
    draws stop at ``k = 2`` (failure) on it, and only the others draw
    ``u_3, ..., u_20`` as a uniform on ``[0, 20!/2)`` (``u`` given
    ``u_2 = 0``); ``k = 3`` (success) when that is ``>= 20!/6``, and only a
    third of those is located among the thresholds. Only ``u = 0``
    (probability ``1/20!``) leaves it open, and those draws continue the
    loop at 21.
    """
    success = np.zeros(n, dtype=bool)
    past_two = np.flatnonzero(rng.integers(0, 2, size=n, dtype=bool))  # u_2 == 0
    success[past_two] = _exp_minus_one_past_two(past_two.size, rng)
    return success


def _exp_minus_one_past_two(n, rng):
    """``n`` Bernoulli(exp(-1)) trials of :func:`_bernoulli_exp_minus_one` given
    ``u_2 = 0`` (the rest of each trial: ``u_3, u_4, ...``)."""
    u = rng.integers(0, _FACTORIAL // 2, size=n, dtype=np.int64)
    late = np.flatnonzero(u < _FACTORIAL // 6)
    success = u >= _FACTORIAL // 6
    stop_k = 2 + (_CONTINUE_THRESHOLDS.size
                  - np.searchsorted(_CONTINUE_THRESHOLDS, u[late], side="right"))
    active = np.flatnonzero(u[late] == 0)
    k = _FACTORIAL_RADIX + 1
    while active.size:
        still = rng.integers(0, k, size=active.size) == 0
        stop_k[active[~still]] = k
        active = active[still]
        k += 1
    success[late] = stop_k % 2 == 1
    return success


def _geometric_exp_minus_one(n, rng, cap=None):
    """Number of successes before the first failure of Bernoulli(exp(-1)) trials.

    ``P(V >= v) = e^{-v}``. One trial per still-running sample and round
    (a sample stops with probability ``1 - e^{-1}`` per trial, so the rounds
    are ``O(log n)`` and the trials ``1.6 n`` in expectation); every sample
    still running after ``v`` rounds has ``V >= v``. With ``cap`` (an int
    or int array), counting stops once ``cap`` is reached (only ``V >= cap``
    matters to the caller), which bounds the work.
    """
    counts = np.zeros(n, dtype=np.int64)
    if cap is not None and np.ndim(cap) == 0:
        counts[survivors_exp_minus_one(n, int(cap), rng)] = cap
        return counts
    active = np.arange(n) if cap is None else np.flatnonzero(cap > 0)
    v = 0
    while active.size:
        active = active[_bernoulli_exp_minus_one(active.size, rng)]
        v += 1
        counts[active] = v
        if cap is not None:
            active = active[cap[active] > v]
    return counts


def survivors_exp_minus_one(n, trials, rng):
    """Indices of the ``n`` samples whose first ``trials`` Bernoulli(exp(-1)) draws all succeed.

    Each index is kept independently with probability exactly ``e^{-trials}``.
    A trial fails outright when its digit ``u_2`` is 1
    (:func:`_bernoulli_exp_minus_one`), so every sample's ``u_2`` digits are
    drawn first, 64 trials to a random word, and only the samples whose
    digits are all 0 (probability ``2^-trials``) run the rest of their
    trials: the same independent uniforms in another order, the same law.
    """
    alive = np.arange(n)
    for start in range(0, max(trials, 0), 64):
        if not alive.size:
            break
        words = rng.integers(0, 1 << min(64, trials - start), size=alive.size, dtype=np.uint64)
        alive = alive[words == 0]
    for _ in range(max(trials, 0)):
        if not alive.size:
            break
        alive = alive[_exp_minus_one_past_two(alive.size, rng)]
    return alive


def _bernoulli_fraction_tail(remainder, denominator, rng):
    """One exact Bernoulli(remainder/denominator) draw, 62 random bits at a time.

    ``U < x`` for a uniform real ``U`` is decided digit by digit in base
    ``2^62``: a uniform digit below (above) ``x``'s digit decides success
    (failure); equality (probability ``2^-62``) moves to the next digit.
    """
    while True:
        scaled = remainder << _WORD_BITS
        digit = scaled // denominator
        word = int(rng.integers(0, 1 << _WORD_BITS))
        if word != digit:
            return word < digit
        remainder = scaled - digit * denominator


def _bernoulli_fraction_lookup(index, first_digits, remainders, denominator, rng):
    """Bernoulli(r_j/d) for ``j = index[i]`` (``r_j < d``), vectorised over ``i``.

    ``first_digits[j] = floor(r_j 2^62 / d)`` (int64) and
    ``remainders[j] = r_j 2^62 - first_digits[j] d`` (Python ints): the first
    base-``2^62`` digit decides all but a ``2^-62`` fraction of the draws,
    the rest are finished exactly by :func:`_bernoulli_fraction_tail`.
    """
    words = rng.integers(0, 1 << _WORD_BITS, size=index.size, dtype=np.int64)
    digits = first_digits[index]
    success = words < digits
    for i in np.flatnonzero(words == digits):
        success[i] = _bernoulli_fraction_tail(remainders[index[i]], denominator, rng)
    return success


@dataclass(frozen=True)
class ExpMinusTable:
    """Exact Bernoulli(exp(-N_j/d)) draws for a table of rationals ``N_j/d >= 0``.

    CKS Algorithm 1: ``exp(-N/d) = exp(-1)^floor(N/d) exp(-(N mod d)/d)``;
    the first factor is "``floor(N/d)`` Bernoulli(exp(-1)) trials all
    succeed" (a geometric count reaching ``floor(N/d)``), the second the
    ``K``-loop with Bernoulli((N mod d)/(d K)) = Bernoulli((N mod d)/d) and
    Bernoulli(1/K). The exact quantities are computed once per table entry
    (Python integers), the draws are vectorised in int64. A ``floor(N/d)``
    above ``2^62`` is capped there: reaching it would take ``2^62`` successive
    successes (probability ``e^{-2^62}``, and as many loop rounds), so the cap
    never changes an output that can be computed.

    Attributes
    ----------
    whole : ndarray of int64
        ``floor(N_j/d)`` (capped at ``2^62``).
    first_digits : ndarray of int64
        First base-``2^62`` digit of ``(N_j mod d)/d``.
    remainders : ndarray of object
        ``(N_j mod d) 2^62 - first_digits[j] d``, for the rare ties.
    denominator : int
    """

    whole: np.ndarray
    first_digits: np.ndarray
    remainders: np.ndarray
    denominator: int

    @classmethod
    def from_rationals(cls, numerators, denominator):
        """Table of ``numerators[j] / denominator`` (Python ints, ``>= 0``)."""
        numerators = np.asarray(numerators, dtype=object)
        whole = numerators // denominator
        scaled = (numerators - whole * denominator) * (1 << _WORD_BITS)
        first_digits = (scaled // denominator).astype(np.int64)
        remainders = scaled - first_digits.astype(object) * denominator
        whole = np.minimum(whole, _INT64_SAFE).astype(np.int64)
        return cls(whole, first_digits, remainders, denominator)

    def bernoulli(self, index, rng):
        """One Bernoulli(exp(-N_j/d)) draw per ``j`` in the int array ``index``."""
        cap = self.whole[index]
        passed = _geometric_exp_minus_one(index.size, rng, cap=cap) >= cap
        stop_k = np.zeros(index.size, dtype=np.int64)
        active = np.flatnonzero(passed)
        k = 1
        while active.size:
            success = _bernoulli_fraction_lookup(
                index[active], self.first_digits, self.remainders, self.denominator, rng
            )
            if k > 1:
                success &= rng.integers(0, k, size=active.size) == 0
            stop_k[active[~success]] = k
            active = active[success]
            k += 1
        return stop_k % 2 == 1


def _bernoulli_exp_minus_lookup(index, numerators, denominator, rng):
    """Bernoulli(exp(-N_j/d)) for ``j = index[i]`` (see :class:`ExpMinusTable`)."""
    return ExpMinusTable.from_rationals(numerators, denominator).bernoulli(index, rng)


def _fill_by_rejection(size, propose):
    """``size`` int64 samples: ``propose(m) -> (values, keep)`` until all are kept."""
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        values, keep = propose(todo.size)
        out[todo[keep]] = np.asarray(values[keep], dtype=np.int64)
        todo = todo[~keep]
    return out


def _discrete_laplace_rational(numerator, denominator, size, rng):
    """Exact discrete Laplace of scale ``numerator/denominator`` (CKS Algorithm 2).

    With scale ``t/s``: ``U ~ Unif{0..t-1}``, accept w.p. ``exp(-U/t)``;
    ``V`` geometric (``P(V >= v) = e^{-v}``); ``X = U + t V`` is then
    geometric with ``P(X = x) ∝ exp(-x/t)``; ``Y = floor(X/s)`` has
    ``P(Y = y) ∝ exp(-y s/t)``; a random sign, rejecting ``-0``.
    """
    t, s = numerator, denominator

    def propose(m):
        u = _uniform_below(t, m, rng)
        keep = _bernoulli_exp_minus_fraction(u, t, rng)
        v = _geometric_exp_minus_one(m, rng)
        if t * (int(v.max(initial=0)) + 1) >= _INT64_SAFE or s >= _INT64_SAFE:
            u, v = u.astype(object), v.astype(object)
        y = (u + t * v) // s
        negative = rng.integers(0, 2, size=m) == 1
        keep &= ~(negative & (y == 0))
        return np.where(negative, -y, y), keep

    return _fill_by_rejection(size, propose)


def _check_sample_size(size):
    if isinstance(size, (bool, np.bool_)) or not isinstance(size, numbers.Integral):
        raise TypeError(f"size must be an int >= 0, got {size!r}.")
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size!r}.")
    return int(size)


def _exact_positive_rational(value, name, upper=None):
    """``value`` (float, int or Fraction, finite, > 0) as an exact Fraction."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (numbers.Real, Fraction)
    ):
        raise TypeError(f"{name} must be a positive real number, got {value!r}.")
    if isinstance(value, float) or isinstance(value, np.floating):
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite and > 0, got {value!r}.")
    exact = Fraction(value)  # exact for binary floats, ints and Fractions
    if exact <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}.")
    if upper is not None and exact > upper:
        raise ValueError(
            f"{name} must be <= {upper:g} so that the samples fit in int64, got {value!r}."
        )
    return exact


def sample_discrete_laplace(scale, size, rng):
    """Exact samples of the discrete Laplace distribution on the integers.

    ``P(X = x) = (1 - e^{-1/scale}) / (1 + e^{-1/scale}) * e^{-|x|/scale}``
    for every integer ``x``.

    ``scale`` is used exactly: a float is the rational ``Fraction(scale)``
    (every binary float is one), and the sampler (Canonne, Kamath & Steinke
    2020, Algorithm 2, with Algorithm 1 for the Bernoulli(exp(-gamma))
    trials) uses only uniform integers from ``rng.integers`` and integer
    arithmetic, so the law is exact (no floating point anywhere).

    Parameters
    ----------
    scale : float, int or fractions.Fraction
        ``> 0`` and ``<= 2^40``.
    size : int
        Number of samples, ``>= 0``.
    rng : numpy.random.Generator

    Returns
    -------
    samples : ndarray of shape (size,), dtype int64

    References
    ----------
    Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential
    Privacy", NeurIPS 2020, arXiv:2004.00010, Algorithms 1 and 2.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms import sample_discrete_laplace
    >>> x = sample_discrete_laplace(2.0, 5, np.random.default_rng(0))
    >>> x.dtype, x.shape
    (dtype('int64'), (5,))
    """
    scale = _exact_positive_rational(scale, "scale", upper=_MAX_SCALE)
    size = _check_sample_size(size)
    rng = check_rng(rng)
    return _discrete_laplace_rational(scale.numerator, scale.denominator, size, rng)


def _distinct(values):
    """``(distinct, index)`` with ``values == distinct[index]`` for ints ``>= 0``."""
    top = int(values.max(initial=0))
    if top <= 2 * values.size:  # small range: a direct table beats sorting
        return np.arange(top + 1), values
    distinct, index = np.unique(values, return_inverse=True)
    return distinct, index.ravel()


def _discrete_gaussian_rational(sigma2, size, rng):
    """Exact ``N_Z(0, sigma2)`` for a Fraction ``sigma2 = p/q`` (CKS Algorithm 3).

    ``t = floor(sigma) + 1``; ``Y ~ DLap(t)``; accept with probability
    ``exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2))``, i.e. ``exp(-N/d)`` with
    ``N = (|Y| q t - p)^2`` and the common denominator ``d = 2 p q t^2``
    (exact Python integers, computed once per distinct ``|Y|``).
    """
    p, q = sigma2.numerator, sigma2.denominator
    t = math.isqrt(p // q) + 1  # floor(sqrt(p/q)) = isqrt(floor(p/q))
    denominator = 2 * p * q * t * t

    def propose(m):
        y = _discrete_laplace_rational(t, 1, m, rng)
        magnitudes, index = _distinct(np.abs(y))
        numerators = (magnitudes.astype(object) * (q * t) - p) ** 2
        return y, _bernoulli_exp_minus_lookup(index, numerators, denominator, rng)

    return _fill_by_rejection(size, propose)


def sample_discrete_gaussian(sigma2, size, rng):
    """Exact samples of the discrete Gaussian ``N_Z(0, sigma2)``.

    ``P(X = x) ∝ exp(-x^2 / (2 sigma2))`` for every integer ``x``. ``sigma2``
    is used exactly (``Fraction(sigma2)``); sampling is Canonne, Kamath &
    Steinke (2020), Algorithm 3: rejection from a discrete Laplace of scale
    ``t = floor(sigma) + 1``, with exact Bernoulli(exp(-gamma)) trials.

    Parameters
    ----------
    sigma2 : float, int or fractions.Fraction
        The variance parameter, ``> 0`` and ``<= 2^80``.
    size : int
    rng : numpy.random.Generator

    Returns
    -------
    samples : ndarray of shape (size,), dtype int64

    References
    ----------
    Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential
    Privacy", NeurIPS 2020, arXiv:2004.00010, Algorithm 3.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms import sample_discrete_gaussian
    >>> sample_discrete_gaussian(4.0, 3, np.random.default_rng(0)).shape
    (3,)
    """
    sigma2 = _exact_positive_rational(sigma2, "sigma2", upper=_MAX_SCALE ** 2)
    size = _check_sample_size(size)
    rng = check_rng(rng)
    return _discrete_gaussian_rational(sigma2, size, rng)


def _check_integer_value(value):
    """Return ``(int64 array, is_scalar)`` for integer-valued ``value``."""
    is_scalar = np.ndim(value) == 0
    arr = np.asarray(value)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(
            "value must be an integer or an array of integers (e.g. counts), got "
            f"{type(value).__name__} with dtype {arr.dtype}."
        )
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise ValueError(
                "value must be integer-valued (the discrete mechanisms add integer "
                "noise to counts); round or use the continuous mechanism."
            )
    if np.any(np.abs(arr.astype(float)) >= 2.0 ** 62):
        raise ValueError("value must be smaller than 2^62 in magnitude.")
    return arr.astype(np.int64), is_scalar


def _check_integer_sensitivity(sensitivity):
    if isinstance(sensitivity, (bool, np.bool_)) or not isinstance(
        sensitivity, numbers.Integral
    ):
        raise TypeError(
            f"sensitivity must be an int >= 1 (the L1 sensitivity of an "
            f"integer-valued statistic), got {sensitivity!r}."
        )
    if sensitivity < 1:
        raise ValueError(f"sensitivity must be >= 1, got {sensitivity!r}.")
    return int(sensitivity)


def discrete_laplace_mechanism(value, epsilon, sensitivity, rng, size=None):
    """Add exact discrete Laplace noise of scale ``sensitivity / epsilon``.

    ``epsilon``-DP for an integer-valued statistic whose L1 change between
    neighbouring datasets is at most ``sensitivity`` (Canonne, Kamath &
    Steinke 2020, §2 / Ghosh, Roughgarden & Sundararajan 2012): the noise
    pmf ``∝ exp(-epsilon |x| / sensitivity)`` changes by at most ``e^epsilon``
    under a shift of ``sensitivity``. The scale ``sensitivity/epsilon`` is the
    exact rational ``sensitivity / Fraction(epsilon)``; the output is an
    exact function of uniform integers, so no floating-point attack applies.

    Parameters
    ----------
    value : int or array-like of int
        The exact integer statistic (e.g. counts).
    epsilon : float
        ``> 0``.
    sensitivity : int
        L1 sensitivity of ``value``, ``>= 1``.
    rng : numpy.random.Generator
    size : int, optional
        Number of independent noisy copies (prepended axis); each copy is one
        ``epsilon``-DP release (meant for audits).

    Returns
    -------
    noisy : int or ndarray of int64
        Same shape as ``value`` (a Python int for scalar input), or
        ``(size, *value.shape)``.

    References
    ----------
    Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential
    Privacy", NeurIPS 2020, arXiv:2004.00010. Ghosh, Roughgarden &
    Sundararajan, "Universally utility-maximizing privacy mechanisms", SIAM
    J. Comput. 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms import discrete_laplace_mechanism
    >>> isinstance(discrete_laplace_mechanism(10, 1.0, 1, np.random.default_rng(0)), int)
    True
    """
    arr, is_scalar = _check_integer_value(value)
    epsilon = check_epsilon(epsilon)
    sensitivity = _check_integer_sensitivity(sensitivity)
    rng = check_rng(rng)
    size = check_size(size)
    scale = Fraction(sensitivity) / Fraction(epsilon)
    if scale > _MAX_SCALE:
        raise ValueError(
            f"sensitivity/epsilon must be <= {_MAX_SCALE:g}; increase epsilon."
        )
    return add_noise(
        arr, is_scalar, size,
        lambda n: _discrete_laplace_rational(scale.numerator, scale.denominator, n, rng),
    )


def discrete_gaussian_mechanism(value, sigma, rng, size=None):
    """Add exact discrete Gaussian noise ``N_Z(0, sigma^2)`` to an integer value.

    For an integer-valued statistic of L2 sensitivity ``Delta`` this is
    ``rho``-zCDP with ``rho = Delta^2 / (2 sigma^2)`` (Canonne, Kamath &
    Steinke 2020, Theorem 4), hence ``(eps, delta)``-DP for every
    ``delta > 0`` with ``eps`` from the zCDP conversion
    (:func:`sksmooth.accounting.zcdp_to_dp`, CKS Corollary 13), or exactly by
    CKS Theorem 7: ``delta = P[Z > eps sigma^2/Delta - Delta/2] - e^eps
    P[Z > eps sigma^2/Delta + Delta/2]`` with ``Z ~ N_Z(0, sigma^2)``.
    ``sigma^2`` is the exact rational ``Fraction(sigma)**2``.

    Parameters
    ----------
    value : int or array-like of int
    sigma : float
        ``> 0``.
    rng : numpy.random.Generator
    size : int, optional
        Number of independent noisy copies (prepended axis), for audits.

    Returns
    -------
    noisy : int or ndarray of int64

    References
    ----------
    Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential
    Privacy", NeurIPS 2020, arXiv:2004.00010, Theorems 4 and 7.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms import discrete_gaussian_mechanism
    >>> discrete_gaussian_mechanism([3, 5], 2.0, np.random.default_rng(0)).shape
    (2,)
    """
    arr, is_scalar = _check_integer_value(value)
    sigma2 = _exact_positive_rational(sigma, "sigma", upper=_MAX_SCALE) ** 2
    rng = check_rng(rng)
    size = check_size(size)
    return add_noise(
        arr, is_scalar, size, lambda n: _discrete_gaussian_rational(sigma2, n, rng)
    )


def discrete_gaussian_delta(epsilon, sigma, sensitivity=1):
    """The exact delta of the discrete Gaussian mechanism at ``epsilon``.

    Canonne, Kamath & Steinke (2020), Theorem 7: adding ``N_Z(0, sigma^2)``
    to an integer statistic of sensitivity ``Delta`` is ``(eps, delta)``-DP
    for exactly ``delta = P[Y > eps sigma^2/Delta - Delta/2] - e^eps P[Y >
    eps sigma^2/Delta + Delta/2]``, ``Y ~ N_Z(0, sigma^2)`` (the pair
    ``value, value + Delta`` and the event ``output > eps sigma^2/Delta +
    Delta/2`` attain it). The normaliser is summed over ``|y| <= 40 sigma +
    10`` and each tail over the ``40 sigma + 10`` integers past its threshold
    (what lies beyond is below ``e^-800`` of the sum), so time and memory are
    ``O(sigma)`` whatever ``epsilon``; each tail starts at the first integer
    past its threshold, found in exact arithmetic (a threshold rounded onto an
    integer dropped that integer's mass); the difference of the two tails is
    rounded up by ``1e-12`` of their sum (floating-point cancellation) and by
    ``1e-300`` (the truncated mass), and capped at 1. This is an accounting
    number, not a sampler.

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    sigma : float
        ``> 0``.
    sensitivity : int, default=1

    Returns
    -------
    delta : float

    Examples
    --------
    >>> round(discrete_gaussian_delta(1.0, 2.5), 6)
    0.001346
    """
    epsilon = check_epsilon(epsilon)
    sigma = float(_exact_positive_rational(sigma, "sigma", upper=_MAX_SCALE))
    sensitivity = _check_integer_sensitivity(sensitivity)
    sigma2 = sigma * sigma
    reach = int(np.ceil(40.0 * sigma + 10.0))  # past it, below e^-800 of the mass
    support = np.arange(-reach, reach + 1, dtype=float)
    log_norm = logsumexp(-support * support / (2.0 * sigma2))
    centre = Fraction(epsilon) * Fraction(sigma) ** 2 / sensitivity  # exact

    def log_tail(threshold):
        start = math.floor(threshold) + 1  # the first integer above it, exactly
        if start > reach:  # the whole tail lies past the reach
            return -np.inf
        start = max(start, -reach)
        y = np.arange(start, reach + 1, dtype=float)
        return logsumexp(-y * y / (2.0 * sigma2)) - log_norm

    low = np.exp(log_tail(centre - Fraction(sensitivity, 2)))
    with np.errstate(over="ignore"):
        high = np.exp(epsilon + log_tail(centre + Fraction(sensitivity, 2)))
    return float(min(1.0, max(0.0, low - high) + 1e-12 * (low + high) + 1e-300))
