"""Exponential mechanism (Gumbel-max) and report-noisy-max, floating-point samplers.

Exact integer-arithmetic samplers for integer scores are in
:mod:`sksmooth.mechanisms._exact_selection`.
"""

import numpy as np
from scipy.special import logsumexp

from .._validation import check_epsilon, check_flag
from ._common import check_noise_scale, check_scores, check_selection_inputs, check_sensitivity

__all__ = [
    "FLOAT_SELECTION_NOTE",
    "GUMBEL_NOISE_RANGE",
    "exponential_mechanism",
    "exponential_mechanism_log_probabilities",
    "report_noisy_max",
]

# numpy's Gumbel sampler returns -log(-log(U)) with U = 1 - k 2^-53,
# k in {1, ..., 2^53 - 1}: its noise lies in this interval.
GUMBEL_NOISE_RANGE = (  # (lower, upper)
    float(-np.log(-np.log(2.0 ** -53))),  # -3.6038
    float(-np.log(-np.log(1.0 - 2.0 ** -53))),  # 36.7368
)

# Quote in ``guarantee_`` (assumptions not certified) of a release that
# selects with the floating-point samplers of this module.
FLOAT_SELECTION_NOTE = (
    "selection sampled with floating-point Gumbel/Laplace/exponential noise: the "
    "epsilon-DP guarantee is that of the idealised real-valued mechanism; the "
    "float sampler's law differs (e.g. its Gumbel noise lies in [-3.60, 36.74], so "
    "a candidate more than 40.34 below the best in scaled log-weight is never "
    "drawn although the ideal mechanism draws it with probability up to "
    "e^-40.34 = 3.0e-18: pure epsilon-DP fails at delta >= 3e-18 per candidate) "
    "and no complete bound on the difference is certified; use "
    "exact_exponential_mechanism or permute_and_flip on integer scores for a "
    "certified guarantee"
)

# Largest number of noise draws held in memory at once when size > 1.
_CHUNK_ELEMENTS = 1 << 22


def _scaled_log_weights(scores, epsilon, sensitivity, monotonic):
    """Unnormalised log-weights ``eps * (u - max u) / (2 Delta)`` (or ``/Delta``).

    Shifting by the maximum keeps every weight in ``[-inf, 0]`` so nothing
    overflows for any finite scores; the distribution is unchanged. If the
    scale itself overflows (``inf``), the maximisers keep log-weight 0 (the
    limit law, uniform on them) instead of ``inf * 0 = NaN``.
    """
    with np.errstate(over="ignore"):  # -inf is the exact log of a vanishing weight
        scale = epsilon / (sensitivity if monotonic else 2.0 * sensitivity)
        shifted = scores - scores.max()
        log_weights = scale * np.where(shifted == 0.0, 1.0, shifted)
    log_weights[shifted == 0.0] = 0.0
    return log_weights


def _argmax_with_noise(log_weights, rng, size, draw):
    """``argmax(log_weights + noise)`` for one or ``size`` independent draws."""
    n = log_weights.shape[0]
    if size is None:
        return int(np.argmax(log_weights + draw(rng, n)))
    out = np.empty(size, dtype=np.intp)
    rows = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, size, rows):
        stop = min(size, start + rows)
        noise = draw(rng, (stop - start, n))
        noise += log_weights
        out[start:stop] = np.argmax(noise, axis=1)
    return out


def _gumbel(rng, shape):
    return rng.gumbel(size=shape)


def exponential_mechanism(scores, epsilon, sensitivity, rng, monotonic=False, size=None):
    """Sample a candidate index with probability proportional to exp(eps u / (2 Delta)).

    The exponential mechanism (McSherry & Talwar 2007) outputs candidate
    ``r`` with probability ``exp(eps * u_r / (2 Delta)) / Z``; it is
    ``epsilon``-DP when every score ``u_r`` changes by at most ``Delta``
    between neighbouring datasets. With ``monotonic=True`` (all scores move
    in the same direction between neighbours, e.g. counts under add/remove)
    the exponent is ``eps * u_r / Delta``, which is still ``epsilon``-DP.

    Sampling is Gumbel-max: ``argmax_r (log w_r + G_r)`` with i.i.d.
    real-valued standard Gumbel ``G_r`` has exactly the law ``w_r / sum w``
    (in floating point only approximately, see Notes). Log-weights
    are shifted by their maximum, so there is no overflow for any number of
    candidates or size of scores (e.g. 10^6 candidates with scores ~ 10^6).

    Parameters
    ----------
    scores : array-like of shape (n_candidates,)
        Finite utility of each candidate (higher is better).
    epsilon : float
        Privacy parameter, > 0.
    sensitivity : float
        Largest change of any score between neighbouring datasets, > 0.
    rng : numpy.random.Generator
        Source of randomness (an int or None is turned into a Generator).
    monotonic : bool, default=False
        Use ``eps/Delta`` instead of ``eps/(2 Delta)``; only valid for
        monotonic score functions.
    size : int, optional
        Number of independent draws. ``None`` returns one int. Each draw
        is one ``epsilon``-DP release; all ``size`` draws together cost
        ``size * epsilon`` (composition). Meant for audits and simulation.

    Returns
    -------
    index : int or ndarray of shape (size,)
        Index (indices) of the chosen candidate(s).

    Notes
    -----
    The exponential mechanism is also ``eps^2/8``-zCDP (Cesar & Rogers 2021),
    see :func:`sksmooth.accounting.zcdp_exponential`.

    Floating-point guarantee (honest statement): ``epsilon``-DP is proved
    for the idealised sampler with real-valued Gumbel noise. numpy's Gumbel
    noise is a double in ``GUMBEL_NOISE_RANGE = [-3.60, 36.74]`` on a grid,
    so the implementation's law differs from the exponential mechanism: a
    candidate whose scaled log-weight is more than 40.34 below the best is
    never drawn, while the ideal mechanism gives it up to ``e^-40.34 =
    3.0e-18``; on neighbouring inputs this breaks pure DP (a ``delta`` of at
    least ``3e-18`` per such candidate), and the rounding of ``log w + G``
    is not analysed, so no ``(epsilon, delta)`` is certified for the float
    sampler (:data:`FLOAT_SELECTION_NOTE` says so in a ``guarantee_``). For
    integer scores (counts), :func:`exact_exponential_mechanism` samples
    this exact law with integer arithmetic only, and
    :func:`permute_and_flip` is an exact ``epsilon``-DP alternative.

    References
    ----------
    McSherry & Talwar, "Mechanism design via differential privacy", FOCS 2007.
    Dwork & Roth, "The Algorithmic Foundations of Differential Privacy", §3.4.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms import exponential_mechanism
    >>> exponential_mechanism([0.0, 10.0, 1.0], epsilon=5.0, sensitivity=1.0,
    ...                       rng=np.random.default_rng(0))
    1
    """
    scores, epsilon, sensitivity, rng, monotonic, size = check_selection_inputs(
        scores, epsilon, sensitivity, rng, monotonic, size
    )
    log_weights = _scaled_log_weights(scores, epsilon, sensitivity, monotonic)
    return _argmax_with_noise(log_weights, rng, size, _gumbel)


def exponential_mechanism_log_probabilities(scores, epsilon, sensitivity, monotonic=False):
    """Exact log-probabilities of :func:`exponential_mechanism`.

    Computed as ``log w_r - logsumexp(log w)``, stable for any finite scores.

    Parameters
    ----------
    scores, epsilon, sensitivity, monotonic
        As in :func:`exponential_mechanism`.

    Returns
    -------
    log_probabilities : ndarray of shape (n_candidates,)

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms import exponential_mechanism_log_probabilities
    >>> np.exp(exponential_mechanism_log_probabilities([0.0, 2.0], 1.0, 1.0)).round(3)
    array([0.269, 0.731])
    """
    scores = check_scores(scores)
    epsilon = check_epsilon(epsilon)
    sensitivity = check_sensitivity(sensitivity)
    monotonic = check_flag(monotonic, "monotonic")
    log_weights = _scaled_log_weights(scores, epsilon, sensitivity, monotonic)
    return log_weights - logsumexp(log_weights)


def report_noisy_max(
    scores, epsilon, sensitivity, rng, noise="laplace", monotonic=False, size=None
):
    """Return the index of the largest noisy score.

    Guarantees (each score changes by at most ``Delta`` between neighbours):

    * ``noise="laplace"``: Laplace noise of scale ``2 Delta / eps`` is
      ``epsilon``-DP for arbitrary scores (fix the other noises; the winning
      threshold of the chosen candidate moves by at most ``2 Delta``);
      with ``monotonic=True`` the scale ``Delta / eps`` suffices
      (Dwork & Roth, Claim 3.9).
    * ``noise="exponential"``: one-sided exponential noise of scale
      ``2 Delta / eps`` (``Delta / eps`` if monotonic) is ``epsilon``-DP; it
      is exactly the permute-and-flip mechanism (McKenna & Sheldon 2020;
      Ding et al. 2021), whose expected error is never worse than the
      exponential mechanism's. sksmooth accounts it as pure ``epsilon``-DP
      (zCDP ``eps^2/2``); the ``eps^2/8`` bound of
      :func:`sksmooth.accounting.zcdp_exponential` is claimed only for the
      exponential mechanism.

    (Gumbel noise of scale ``2 Delta / eps`` is exactly the exponential
    mechanism, see :func:`exponential_mechanism`.)

    Parameters
    ----------
    scores : array-like of shape (n_candidates,)
    epsilon : float
    sensitivity : float
    rng : numpy.random.Generator
    noise : {"laplace", "exponential"}, default="laplace"
    monotonic : bool, default=False
    size : int, optional
        Number of independent draws. Each draw is one ``epsilon``-DP
        release; all ``size`` draws together cost ``size * epsilon``.

    Returns
    -------
    index : int or ndarray of shape (size,)

    Notes
    -----
    Floating-point caveat: the Laplace/exponential noise is drawn in IEEE
    doubles, so the guarantee is that of the idealised real-valued mechanism
    (see :data:`FLOAT_SELECTION_NOTE`); for integer scores
    :func:`permute_and_flip` samples the ``noise="exponential"`` law exactly.

    References
    ----------
    Dwork & Roth (2014), §3.3. McKenna & Sheldon, "Permute-and-flip",
    NeurIPS 2020. Ding, Kifer, Steinke et al., "The permute-and-flip
    mechanism is identical to report-noisy-max with exponential noise", 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.mechanisms import report_noisy_max
    >>> report_noisy_max([0.0, 50.0, 1.0], epsilon=1.0, sensitivity=1.0,
    ...                  rng=np.random.default_rng(0), noise="exponential")
    1
    """
    scores, epsilon, sensitivity, rng, monotonic, size = check_selection_inputs(
        scores, epsilon, sensitivity, rng, monotonic, size
    )
    if noise not in ("laplace", "exponential"):
        raise ValueError(
            f"noise must be 'laplace' or 'exponential', got {noise!r}."
        )
    with np.errstate(over="ignore"):
        scale = check_noise_scale((sensitivity if monotonic else 2.0 * sensitivity) / epsilon,
                                  "2 sensitivity / epsilon")
    # Shift scores by their maximum (distribution unchanged) so noise and
    # score differences stay on a comparable floating-point scale.
    with np.errstate(over="ignore"):
        shifted = scores - scores.max()
    if noise == "laplace":
        def draw(g, shape):
            return g.laplace(scale=scale, size=shape)
    else:
        def draw(g, shape):
            return g.exponential(scale=scale, size=shape)
    return _argmax_with_noise(shifted, rng, size, draw)
