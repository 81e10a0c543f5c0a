"""The ``method`` objects of :class:`PrivateProperClassifier`: one per strategy.

Each holds the parameters only its strategy reads (``method=NoisyMeans(projection=4)``);
a method's name (``method='noisy_means'``) stands for its object with the defaults.
"""

from sklearn.base import BaseEstimator

from .._constraints import ArrayLike, Integer, NoneValue, Options, Real, check_parameter_object

__all__ = ["Exponential", "NoisyMeans", "Littlestone", "method_params"]

_AUTO = Options("auto")


class Exponential(BaseEstimator):
    """``method='exponential'``: the exponential mechanism over a public cover.

    Parameters
    ----------
    cover_size : int or 'auto', default='auto'
        Cap on the number of concepts of the cover (``'auto'`` = 20000); the
        class holds ``cover_size * k (k - 1)`` hypotheses for ``k > 2``
        labels (half of it for stumps). A class of more than ``2**25``
        hypotheses (and an ``'intervals'`` grid of more than ``2**25`` log
        weights per feature, ``(cells + 1)^2 k``) is refused before any data
        is counted, naming the fix.
    gamma : float in (0, 1) or 'auto', default='auto'
        Requested cover radius (``'auto'`` = 1/128; the ``'intervals'`` grid
        has ``ceil(1 / (2 gamma))`` cells, at most 1024, which bounds its
        memory; ``method='auto'`` picks the finest listed grid of 16 to 64
        cells).
    """

    name = "exponential"
    _parameter_constraints = {
        "cover_size": (_AUTO, Integer(2, high=2_000_000, cap_reason=(
            "the label counts hold cover_size x n_classes integers"))),
        "gamma": (_AUTO, Real(0.0, 1.0, closed="neither")),
    }

    def __init__(self, *, cover_size="auto", gamma="auto"):
        self.cover_size = cover_size
        self.gamma = gamma


class NoisyMeans(BaseEstimator):
    """``method='noisy_means'``: nearest class prototypes from noisy class sums and counts.

    Parameters
    ----------
    gamma : float in (0, 1) or 'auto', default='auto'
        Rows are rounded to ``ceil(1 / (2 gamma))`` cells per feature (64 for
        ``'auto'``, at most 65536; the noise scales with it, so accuracy
        barely depends on it).
    prototypes_per_label : int or 'auto', default='auto'
        Prototypes per label, from the Voronoi cells of public random anchors
        (see :mod:`sksmooth.proper._prototypes`). ``'auto'``: the largest
        number up to 16 that leaves each prototype a noise of about 0.1 box
        widths per coordinate, from public inputs and the first batch's
        ``n`` (1 for small data or small ``epsilon``).
    projection : int, None or 'auto', default='auto'
        The public map from a row to the summed vector (see
        :mod:`sksmooth.proper._prototype_maps`). ``None``: the row rounded to
        the grid of the box (L1 sensitivity ``n_features x G``). ``k``: the
        centred row projected by a public random ``k x n_features`` matrix
        with orthonormal rows, then shrunk onto the L1 ball of radius
        ``sqrt(2/pi) k``: L1 sensitivity independent of the number of
        features. ``'auto'``: ``None`` when ``delta > 0``; when ``delta = 0``
        the largest ``k`` whose noise per prototype coordinate is at most 0.1
        box widths for the first batch's ``n`` (at least ``n_classes - 1``,
        at most ``n_features``; public inputs only).
    """

    name = "noisy_means"
    _parameter_constraints = {
        "gamma": (_AUTO, Real(0.0, 1.0, closed="neither")),
        "prototypes_per_label": (_AUTO, Integer(1, high=4096, cap_reason=(
            "the statistics hold prototypes_per_label x n_classes x n_features integers"))),
        "projection": (_AUTO, NoneValue(), Integer(1, high=65_536, cap_reason=(
            "the public projection holds projection x n_features floats and the statistics "
            "projection x n_groups integers"))),
    }

    def __init__(self, *, gamma="auto", prototypes_per_label="auto", projection="auto"):
        self.gamma = gamma
        self.prototypes_per_label = prototypes_per_label
        self.projection = projection


class Littlestone(BaseEstimator):
    """``method='littlestone'``: PolyPriPropLearn (Ghazi et al. 2021, Alg. 3).

    Parameters
    ----------
    domain : array-like of shape (n_domain_points, n_features) or None
        The finite domain (required). Rows of ``X`` off it are mapped to the
        nearest domain point.
    alpha : float in (0, 1), default=0.1
        Target error (the accuracy statement and the ``'auto'`` rules).
    n_generic, n_chunks, alpha_delta, k_prime, max_set_size, h_size : 'auto' or number
        Internals of PolyPriPropLearn (see
        :func:`~sksmooth.proper.littlestone._polypri.resolve_parameters`);
        ``'auto'`` rules use public inputs only. Capped to bound memory and
        time (the constraints table gives each cap and its reason).
    """

    name = "littlestone"
    _parameter_constraints = {
        "domain": (NoneValue(), ArrayLike(description=(
            "an array of finite numbers of shape (n_domain_points, n_features)"))),
        "alpha": Real(0.0, 1.0, closed="neither"),
        "n_generic": (_AUTO, Integer(0, high=10**9, cap_reason="at most the number of samples")),
        "n_chunks": (_AUTO, Integer(1, high=10**6, cap_reason="one ReduceTree run per chunk")),
        "alpha_delta": (_AUTO, Real(0.0, 1.0, closed="neither")),
        "k_prime": (_AUTO, Integer(1, high=10**12, cap_reason=(
            "irreducibility parameter; larger values change nothing"))),
        "max_set_size": (_AUTO, Integer(1, high=10**5, cap_reason=(
            "every user's candidate set is held in memory"))),
        "h_size": (_AUTO, Integer(1, high=10**6, cap_reason=(
            "draws from the Lemma 6.2 distribution, held in memory"))),
    }

    def __init__(self, *, domain=None, alpha=0.1, n_generic="auto", n_chunks="auto",
                 alpha_delta="auto", k_prime="auto", max_set_size="auto", h_size="auto"):
        self.domain = domain
        self.alpha = alpha
        self.n_generic = n_generic
        self.n_chunks = n_chunks
        self.alpha_delta = alpha_delta
        self.k_prime = k_prime
        self.max_set_size = max_set_size
        self.h_size = h_size


METHODS = {cls.name: cls for cls in (Exponential, NoisyMeans, Littlestone)}
_DEFAULTS = {name: value for cls in METHODS.values() for name, value in cls().get_params().items()}


def method_params(method):
    """``(name, params)``: the method's name ('auto' stays) and every method parameter
    (the chosen method's, checked; the other methods' defaults)."""
    params = dict(_DEFAULTS)
    if isinstance(method, str):
        return method, params
    params.update(check_parameter_object(method, "method"))
    return method.name, params
