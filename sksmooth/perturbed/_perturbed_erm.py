"""PerturbedERMClassifier: any sklearn classifier as the ERM oracle of
Gaussian-perturbed ERM (DP, ``fit``) and Gaussian FTPL (online, ``partial_fit``).

seeds/004_97dac565ce402d2d.txt (Block & Shetty): Def. 5 and Prop. 1
(rho-separation), Alg. 1 + Thm 1 (Gaussian FTPL, small-loss regret), Alg. 2 +
Lemma 1-2 (privacy of perturbed ERM).

From a Gaussian perturbation to hallucinated examples
------------------------------------------------------
Both algorithms minimise ``L(f) + eta * w(f)`` with
``w(f) = m**-0.5 * sum_j xi_j f(z_j)``, ``xi_j ~ N(0, 1)``, over ``f`` with
values in {-1, +1}. With 0-1 loss and +-1 labels,
``1[f(z) != y] = (1 - y f(z)) / 2``, so a hallucinated example ``(z_j, y_j)``
of weight ``c_j`` contributes ``c_j / 2 - (c_j y_j / 2) f(z_j)``. Choosing

    y_j = -sign(xi_j),    c_j = 2 * eta * |xi_j| / sqrt(m)

makes this ``c_j / 2 + eta * xi_j f(z_j) / sqrt(m)``: the perturbation term
plus a constant that does not depend on ``f``. So

    argmin_f  sum_i 1[f(x_i) != y_i] + eta w(f)
      = argmin_f  sum_i 1[f(x_i) != y_i] + sum_j c_j 1[f(z_j) != y_j],

a weighted 0-1 ERM problem with **non-negative** weights: real rows weigh 1,
hallucinated rows ``c_j >= 0``. Negative weights never reach the oracle
(many sklearn estimators silently accept them, which would be wrong here).

The hallucination-free online variant perturbs the labels of the past points
instead (Gaussian process indexed by the data): ``sum_s (1 - y_s f(x_s))/2 +
sum_s (G_s / 2) f(x_s)`` with ``G_s ~ N(0, noise**2)`` equals, up to a
constant, a weighted 0-1 loss with labels ``sign(y_s - G_s)`` and weights
``|y_s - G_s|``.
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier
from sklearn.dummy import DummyClassifier
from sklearn.utils.validation import check_is_fitted, has_fit_parameter, validate_data

from .._guarantee import Guarantee, PrivacySpent
from .._validation import (
    BinaryLabels,
    check_binary_target,
    check_bounds,
    check_delta,
    check_epsilon,
    check_generator,
    check_positive_int,
    clip_to_bounds,
    resolve_public_classes,
)
from ..accounting import charge, check_accountant
from ..exceptions import PrivacyLeakWarning, PrivacyWarning
from ._calibration import (
    finite_class_gaussian_complexity,
    ftpl_noise,
    ftpl_regret_bound,
    labelings_gaussian_complexity,
    lemma1_min_noise,
    perturbation_epsilon,
    perturbation_noise,
)
from ._oracles import StumpERMClassifier, _is_exact_oracle

__all__ = ["PerturbedERMClassifier"]

_SOURCE_DP = "seeds/004_97dac565ce402d2d.txt, Alg. 2, Lemma 2 (via Lemma 1 / Thm 3)"
_SOURCE_FTPL = "seeds/004_97dac565ce402d2d.txt, Alg. 1, Thm 1 (proof in App. C)"
# Number of separating points for heuristic oracles when n_hallucinated='auto'.
_HEURISTIC_N_POINTS = 16


class PerturbedERMClassifier(ClassifierMixin, BaseEstimator):
    """Gaussian-perturbed ERM with any scikit-learn classifier as the oracle.

    ``fit`` is the (epsilon, delta)-DP perturbed ERM of seed 004 (Alg. 2):
    one oracle call on the data plus ``m`` hallucinated examples that realise
    the Gaussian perturbation ``eta * w(f)`` (see the module docstring for
    the derivation; all weights are non-negative). ``partial_fit`` is
    Gaussian Follow-the-Perturbed-Leader (Alg. 1): **each call is one
    round** (its rows form the round's loss, bounded by the number of rows
    ``B``); it predicts the incoming rows with the current leader, then draws
    a fresh perturbation and refits the oracle on all past rows plus the
    hallucinated examples. ``partial_fit`` after ``fit`` starts a new online
    run (``fit`` keeps no data); ``fit`` discards an online run.

    The privacy claim is **certified** when the oracle is an exact 0-1 ERM
    over a fixed finite class (the oracles of :mod:`sksmooth.perturbed`), the
    class and the separating points do not depend on the data (public
    ``bounds``, public ``classes``), the separation ``rho > 0`` is computed
    on the separating points (minimum pairwise empirical L2 distance, which
    is at least Prop. 1's ``sigma_min sqrt(2/m)``), and condition (6) of
    Lemma 1 holds. A heuristic oracle (e.g. ``LogisticRegression``) gets the
    same treatment calibrated *as if* the class were all labelings of the
    ``m`` separating points (``|F| = 2^m``, ``rho = 2 / sqrt(m)``,
    ``G = sqrt(2 m / pi)``): the claim is then **not certified** and a
    :class:`~sksmooth.PrivacyWarning` is emitted.

    Parameters
    ----------
    estimator : classifier or None, default=None
        The ERM oracle; its ``fit`` must accept ``sample_weight``. It is
        cloned, never modified. ``None`` = ``StumpERMClassifier(n_thresholds=8)``
        (exact, certifiable).
    epsilon : float, default=1.0
        Privacy budget of ``fit``. Lemma 2 certifies only ``epsilon <= 1``:
        larger values get the noise of ``epsilon = 1`` (more private than
        asked) and ``privacy_spent_`` reports what is guaranteed.
    delta : float in (0, 1), default=1e-5
    noise : 'auto' or float > 0, default='auto'
        The perturbation scale ``eta``. ``fit``: 'auto' solves Lemma 2 for
        ``eta``; a number is used as is and its implied epsilon is reported
        (not certified if it violates condition (6)). ``partial_fit``: 'auto'
        is the smallest ``eta`` allowed by Thm 1's condition (13) (the
        small-loss choice) at the horizon; for
        ``online_perturbation='labels'`` 'auto' means label noise of scale 1.
    n_hallucinated : 'auto' or int, default='auto'
        Number ``m`` of separating points. 'auto': the exact oracle's default
        (e.g. ``64 (n_thresholds + 1)`` for stumps, ``2^k`` for parities), or
        16 for a heuristic oracle (the heuristic calibration grows like
        ``m^1.5``). Ignored when ``separating_points`` is an array.
    separating_points : 'uniform', 'oracle', array or callable, default='uniform'
        Data-independent separating points ``Z``: 'uniform' = ``m`` i.i.d.
        uniform points of the domain (the ``bounds`` box, or the finite domain
        of a parity / finite-class oracle); 'oracle' = the exact oracle's
        separating design (Latin design on the stump grid, the whole cube for
        parities, the whole domain for a finite class); an array of shape
        ``(m, n_features)``; or ``callable(m, rng) -> array``.
    online_perturbation : {'hallucinated', 'labels'}, default='hallucinated'
        ``partial_fit`` variant: Alg. 1 with hallucinated examples, or the
        hallucination-free variant that perturbs past labels (no separating
        points; heuristic, no regret bound certified).
    horizon : int or None, default=None
        ``T`` for the online 'auto' noise and the regret bound; ``None`` =
        anytime (``T`` = current number of rounds + 1). Thm 1 is for one
        fixed ``eta``: when the noise changes across rounds (anytime 'auto'
        noise, or batches of growing size), ``regret_bound_`` is ``inf`` and
        the online guarantee is not certified.
    bounds : tuple (lower, upper) or None, default=None
        Public box of the features (rows are clipped to it). ``None`` takes
        it from the data with a :class:`~sksmooth.PrivacyLeakWarning` (then
        not certified), unless the oracle has its own finite domain.
    classes : array-like of two labels or None, default=None
        Public label set. ``None`` reads it from ``y`` in ``fit``, which
        leaks (``PrivacyLeakWarning``; not certified).
    accountant : BudgetAccountant or None, default=None
        Ledger charged with ``privacy_spent_`` before ``fit`` returns.
    random_state : int, Generator, RandomState or None, default=None

    Attributes
    ----------
    estimator_ : classifier
        The fitted oracle (trained on +-1 labels).
    classes_ : ndarray of shape (2,)
    bounds_ : tuple of ndarray or None
    separating_points_ : ndarray of shape (m, n_features)
        The points ``Z`` (public randomness; the perturbation ``xi`` is not kept).
    n_hallucinated_ : int
    rho_ : float
        Separation used in the calibration (computed, or 2/sqrt(m) if heuristic).
    gaussian_complexity_ : float
        ``G`` used (upper bound on ``E sup_f w(f)``).
    noise_ : float
        ``eta`` used (last round's, online).
    privacy_spent_ : PrivacySpent
        Set by ``fit`` only (``partial_fit`` is not private).
    guarantee_ : Guarantee
    n_rounds_, cumulative_loss_, regret_bound_ : int, float, float
        Online only: rounds (calls), progressive 0-1 loss of the rows before
        each update, and Thm 1's expected-regret bound when ``L* = 0``.
    n_features_in_ : int

    References
    ----------
    A. Block, A. Shetty. Small loss bounds for online learning separated
    function classes: a Gaussian process perspective (seeds/004).

    Examples
    --------
    >>> import numpy as np
    >>> from sksmooth.perturbed import PerturbedERMClassifier, ParityERMClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(20000, 6))
    >>> y = (X[:, 0] + X[:, 3]) % 2
    >>> clf = PerturbedERMClassifier(ParityERMClassifier(), epsilon=1.0,
    ...                              separating_points='oracle', classes=[0, 1],
    ...                              random_state=0).fit(X, y)
    >>> clf.guarantee_.certified, clf.estimator_.subset_
    (True, 9)
    """

    def __init__(
        self,
        estimator=None,
        epsilon=1.0,
        delta=1e-5,
        noise="auto",
        n_hallucinated="auto",
        separating_points="uniform",
        online_perturbation="hallucinated",
        horizon=None,
        bounds=None,
        classes=None,
        accountant=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.epsilon = epsilon
        self.delta = delta
        self.noise = noise
        self.n_hallucinated = n_hallucinated
        self.separating_points = separating_points
        self.online_perturbation = online_perturbation
        self.horizon = horizon
        self.bounds = bounds
        self.classes = classes
        self.accountant = accountant
        self.random_state = random_state

    # ------------------------------------------------------------------ setup
    def _check_noise(self):
        if isinstance(self.noise, str):
            if self.noise != "auto":
                raise ValueError(f"noise must be 'auto' or a float > 0, got {self.noise!r}.")
            return "auto"
        try:
            noise = float(self.noise)
        except (TypeError, ValueError):
            raise TypeError(f"noise must be 'auto' or a float > 0, got {self.noise!r}.") from None
        if not (noise > 0 and np.isfinite(noise)) or isinstance(self.noise, bool):
            raise ValueError(f"noise must be 'auto' or a finite float > 0, got {self.noise!r}.")
        return noise

    def _make_oracle(self):
        est = StumpERMClassifier(n_thresholds=8) if self.estimator is None else self.estimator
        name = type(est).__name__
        if not is_classifier(est):
            raise TypeError(
                f"estimator must be a scikit-learn classifier, got {name}; pass e.g. "
                "estimator=StumpERMClassifier() or LogisticRegression()."
            )
        if not has_fit_parameter(est, "sample_weight"):
            raise TypeError(
                f"estimator {name} does not accept sample_weight in fit, but "
                "PerturbedERMClassifier realises the Gaussian perturbation as weighted "
                "hallucinated examples. Use a classifier whose fit takes sample_weight "
                "(e.g. StumpERMClassifier, LogisticRegression, DecisionTreeClassifier)."
            )
        return clone(est)

    def _resolve_bounds(self, oracle, X, n_features):
        """Return (lower, upper) or None, and whether they are public."""
        own_domain = _is_exact_oracle(oracle) and getattr(oracle, "_erm_own_domain", False)
        if self.bounds is None and own_domain:
            return None, True
        lower_upper = check_bounds(self.bounds, n_features, X)
        return lower_upper, self.bounds is not None

    def _separating_points(self, oracle, exact, n_features, lower_upper, rng):
        sp, m = self.separating_points, self.n_hallucinated
        if not isinstance(m, str):
            m = check_positive_int(m, "n_hallucinated")
        else:
            if m != "auto":
                raise ValueError(f"n_hallucinated must be 'auto' or an int >= 1, got {m!r}.")
            m = oracle._erm_default_n_points(n_features) if exact else _HEURISTIC_N_POINTS
        lower, upper = lower_upper if lower_upper is not None else (
            np.zeros(n_features), np.ones(n_features))
        if isinstance(sp, str):
            if sp == "uniform":
                Z = (oracle._erm_sample_domain(m, rng, lower, upper) if exact
                     else rng.uniform(lower, upper, size=(m, n_features)))
            elif sp == "oracle":
                if not exact:
                    raise ValueError(
                        "separating_points='oracle' needs an exact oracle from "
                        "sksmooth.perturbed; use 'uniform' or pass points."
                    )
                Z = oracle._erm_design(m, rng, lower, upper)
            else:
                raise ValueError(
                    "separating_points must be 'uniform', 'oracle', an array or a "
                    f"callable(m, rng), got {sp!r}."
                )
        elif callable(sp):
            Z = sp(m, rng)
        else:
            Z = sp
        Z = np.asarray(Z, dtype=float)
        if Z.ndim != 2 or Z.shape[1] != n_features or len(Z) == 0 or not np.all(np.isfinite(Z)):
            raise ValueError(
                f"separating_points must give a finite array of shape (m, {n_features}), "
                f"got shape {Z.shape}."
            )
        return Z

    def _calibrate(self, oracle, exact, Z, n_features):
        """Return rho, G, log|F|, certified reasons and problems."""
        m = len(Z)
        problems, certified = [], []
        size = oracle._erm_class_size(n_features) if exact else None
        rho = 0.0
        if exact and size is not None:
            rho = oracle._erm_separation(Z)
            if not np.isfinite(rho):  # a single function: any rho works
                rho = 2.0
        if exact and size is not None and rho > 0:
            certified += [
                f"oracle {type(oracle).__name__} is an exact weighted 0-1 ERM over a "
                f"fixed finite class, |F| = {size}",
                f"rho = {rho:.4g} computed as the minimum pairwise empirical L2 distance "
                f"of F on the m = {m} separating points (Def. 5)",
                "G <= sqrt(2 ln |F|) (each w(f) ~ N(0, 1))",
            ]
            return rho, finite_class_gaussian_complexity(size), np.log(size), certified, problems
        if not exact:
            problems.append(
                f"oracle {type(oracle).__name__} is a heuristic, not an exact 0-1 ERM "
                "over a finite class: calibrated as if F were all labelings of the m "
                f"separating points (|F| = 2^{m}, rho = 2/sqrt(m), G = sqrt(2m/pi))"
            )
        elif size is None:
            problems.append(f"{type(oracle).__name__} has an infinite class (rho = 0); "
                            "calibrated as for a heuristic oracle")
        else:
            problems.append(
                "the class is not separated by the separating points (rho = 0: two "
                "hypotheses agree on all of them); calibrated as for a heuristic oracle. "
                "Use separating_points='oracle' or a larger n_hallucinated."
            )
        return (2.0 / np.sqrt(m), labelings_gaussian_complexity(m), m * np.log(2.0),
                certified, problems)

    @staticmethod
    def _fit_oracle(oracle, X, y_pm1, weights):
        weights = np.asarray(weights, dtype=float)
        if not np.all(np.isfinite(weights) & (weights >= 0)):  # invariant, never user input
            raise RuntimeError("internal error: a non-finite or negative weight was produced.")
        keep = weights > 0
        if not keep.all():
            X, y_pm1, weights = X[keep], y_pm1[keep], weights[keep]
        if _is_exact_oracle(oracle):
            return oracle._fit_validated(X, y_pm1, weights)
        y_pm1 = y_pm1.astype(int)
        if len(np.unique(y_pm1)) < 2:
            # heuristic oracles refuse one class; the ERM is then that constant
            oracle = DummyClassifier(strategy="constant", constant=int(y_pm1[0]) if len(y_pm1)
                                     else 1)
            y_pm1 = y_pm1 if len(y_pm1) else np.array([1])
            X = X if len(X) else np.zeros((1, X.shape[1]))
            weights = weights if len(weights) else np.ones(1)
        return oracle.fit(X, y_pm1, sample_weight=weights)

    @staticmethod
    def _hallucinate(Z, noise, rng):
        xi = rng.standard_normal(len(Z))
        weights = 2.0 * noise * np.abs(xi) / np.sqrt(len(Z))
        labels = np.where(xi > 0, -1, 1)
        return labels, weights

    # -------------------------------------------------------------------- fit
    def fit(self, X, y):
        """Private fit: Gaussian-perturbed ERM (seed 004, Alg. 2).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Binary labels.

        Returns
        -------
        self
        """
        epsilon = check_epsilon(self.epsilon)
        delta = check_delta(self.delta, allow_zero=False)
        noise = self._check_noise()
        accountant = check_accountant(self.accountant)
        X, y = validate_data(self, X, y, dtype=float)
        check_binary_target(y)
        n_features = X.shape[1]
        classes, _ = resolve_public_classes(y, self.classes)
        y_pm1 = BinaryLabels.encode(y, classes)
        rng = check_generator(self.random_state)
        oracle = self._make_oracle()
        exact = _is_exact_oracle(oracle)
        lower_upper, bounds_public = self._resolve_bounds(oracle, X, n_features)
        if exact and oracle._erm_uses_bounds and oracle.get_params().get("bounds") is None:
            oracle.set_params(bounds=lower_upper)
        Z = self._separating_points(oracle, exact, n_features, lower_upper, rng)

        # ---- calibration: uses only public inputs (Z, class, epsilon, delta)
        rho, G, log_size, certified, problems = self._calibrate(oracle, exact, Z, n_features)
        notes = []
        min_noise = lemma1_min_noise(rho, delta, G)
        if noise == "auto":
            eta = perturbation_noise(epsilon, rho, delta, G)
            if eta < min_noise:
                eta = min_noise
                notes.append(
                    f"epsilon={epsilon:g} > 1 is outside Lemma 1's condition (6); the "
                    "noise of epsilon = 1 is used, so the release is (1, delta)-DP"
                )
        else:
            eta = noise
            if eta < min_noise * (1 - 1e-12):
                problems.append(
                    f"noise={eta:.4g} < {min_noise:.4g} violates Lemma 1's condition (6); "
                    "the reported epsilon is the formula's value, not a guarantee"
                )
        spent_epsilon = perturbation_epsilon(eta, rho, delta, G)
        if not bounds_public:
            problems.append("bounds=None: the domain box was read from the data")
        if self.classes is None:
            problems.append("classes=None: the label set was read from the data")
        else:
            certified.append("label set given publicly (classes)")
        if lower_upper is None or bounds_public:
            certified.append("separating points drawn independently of the data"
                             + (" and class fixed by public inputs" if exact else ""))
        if not problems:
            certified.append(f"noise {eta:.4g} satisfies Lemma 1's condition (6)")
        if accountant is not None:
            accountant.check(spent_epsilon, delta)

        # ---- the private computation
        if lower_upper is not None:
            X, _ = clip_to_bounds(X, *lower_upper)
        z_labels, z_weights = self._hallucinate(Z, eta, rng)
        X_aug = np.vstack([X, Z])
        y_aug = np.concatenate([y_pm1, z_labels])
        w_aug = np.concatenate([np.ones(len(X)), z_weights])
        estimator = self._fit_oracle(oracle, X_aug, y_aug, w_aug)

        is_certified = not problems
        if not is_certified:
            warnings.warn(
                "PerturbedERMClassifier: the privacy claim is NOT certified: "
                + "; ".join(problems) + ". See guarantee_.",
                PrivacyWarning,
                stacklevel=2,
            )
        self.estimator_ = estimator
        self.classes_ = classes
        self.bounds_ = lower_upper
        self.separating_points_ = Z
        self.n_hallucinated_ = len(Z)
        self.rho_ = float(rho)
        self.gaussian_complexity_ = float(G)
        self.noise_ = float(eta)
        self.privacy_spent_ = PrivacySpent(spent_epsilon, delta)
        self.guarantee_ = Guarantee(
            claim=f"({spent_epsilon:.4g}, {delta:.3g})-differential privacy",
            source=_SOURCE_DP,
            certified=is_certified,
            assumptions_certified=tuple(certified),
            assumptions_not_certified=tuple(problems),
            notes=tuple(notes) + (
                "epsilon = 32/(eta rho^2) (G + sqrt(2 log(2/delta))) (Lemma 1 at delta/2: "
                "its proof doubles the additive delta); Lemma 2 is valid only for "
                "epsilon <= 1 (condition (6))",
                "neighbouring datasets: one row replaced, added or removed "
                "(the 0-1 loss sum moves by at most 1)",
            ),
        )
        for name in ("_online_X", "_online_y", "_online_n", "n_rounds_", "cumulative_loss_",
                     "regret_bound_", "_online_B", "_noise_range"):
            self.__dict__.pop(name, None)
        charge(accountant, spent_epsilon, delta, type(self).__name__)
        return self

    # ------------------------------------------------------------ partial_fit
    def partial_fit(self, X, y, classes=None):
        """One round of Gaussian FTPL (seed 004, Alg. 1). Not private.

        The rows of ``X`` are first predicted by the current leader (their
        0-1 loss is added to ``cumulative_loss_``), then a fresh ``xi`` is
        drawn and the oracle is refitted on all past rows plus the
        hallucinated examples (or the label-perturbed past rows).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of two labels, default=None
            Needed in the first call unless the constructor's ``classes`` is
            set (or ``y`` holds both labels).

        Returns
        -------
        self
        """
        snapshot = dict(self.__dict__)
        # the run's generator, and a Generator random_state (the first call
        # draws the separating points from it before validating the labels)
        generators = [g for g in (snapshot.get("_rng"), self.random_state)
                      if isinstance(g, np.random.Generator)]
        if len(generators) == 2 and generators[0] is generators[1]:
            generators = generators[:1]
        states = [g.bit_generator.state for g in generators]
        try:
            return self._partial_fit(X, y, classes)
        except BaseException:
            # a failed call leaves the estimator exactly as it was
            self.__dict__.clear()
            self.__dict__.update(snapshot)
            for generator, state in zip(generators, states):
                generator.bit_generator.state = state
            raise

    def _partial_fit(self, X, y, classes):
        if self.online_perturbation not in ("hallucinated", "labels"):
            raise ValueError(
                "online_perturbation must be 'hallucinated' or 'labels', got "
                f"{self.online_perturbation!r}."
            )
        noise = self._check_noise()
        first = not hasattr(self, "_online_X")
        if first:
            X, y = validate_data(self, X, y, dtype=float, reset=True)
        else:
            X, y = validate_data(self, X, y, dtype=float, reset=False)
        if first:  # later calls: labels are checked against classes_ by encode
            check_binary_target(y)
        n_features = X.shape[1]
        if first:
            given = classes if classes is not None else self.classes
            labels = (BinaryLabels.fit_classes(y) if given is None
                      else BinaryLabels.fit_classes(None, classes=given))
            rng = check_generator(self.random_state)
            oracle = self._make_oracle()
            exact = _is_exact_oracle(oracle)
            with warnings.catch_warnings():
                # partial_fit makes no privacy claim: a data-derived box is fine
                warnings.simplefilter("ignore", PrivacyLeakWarning)
                lower_upper, _ = self._resolve_bounds(oracle, X, n_features)
            if exact and oracle._erm_uses_bounds and oracle.get_params().get("bounds") is None:
                oracle.set_params(bounds=lower_upper)
            if self.online_perturbation == "hallucinated":
                Z = self._separating_points(oracle, exact, n_features, lower_upper, rng)
                rho, G, log_size, certified, problems = self._calibrate(
                    oracle, exact, Z, n_features)
            else:
                Z, rho, G, log_size = np.empty((0, n_features)), np.nan, np.nan, np.nan
                certified, problems = [], ["hallucination-free variant: no regret bound"]
            state = dict(classes_=labels, bounds_=lower_upper, separating_points_=Z,
                         n_hallucinated_=len(Z), rho_=float(rho), gaussian_complexity_=float(G),
                         _log_size=float(log_size), _oracle=oracle, _rng=rng,
                         _certified=certified, _problems=problems, _online_X=np.empty((0, n_features)), _online_y=np.empty(0), _online_n=0,
                         _online_B=0, n_rounds_=0, cumulative_loss_=0.0, estimator_=None,
                         _noise_range=(np.inf, -np.inf))
        else:
            BinaryLabels.check_same_classes(classes, self.classes_)
            state = {k: getattr(self, k) for k in (
                "classes_", "bounds_", "separating_points_", "n_hallucinated_", "rho_",
                "gaussian_complexity_", "_log_size", "_oracle", "_rng", "_certified",
                "_problems", "_online_X", "_online_y", "_online_n", "_online_B", "n_rounds_",
                "cumulative_loss_", "estimator_", "_noise_range")}
        y_pm1 = BinaryLabels.encode(y, state["classes_"])
        if state["bounds_"] is not None:
            X, _ = clip_to_bounds(X, *state["bounds_"])
        rng = state["_rng"]
        n_rounds = state["n_rounds_"] + 1
        B = max(state["_online_B"], len(X))

        def leader(X_hist, y_hist, n_done):
            if self.online_perturbation == "labels":
                if len(y_hist) == 0:
                    return None, np.nan
                scale = 1.0 if noise == "auto" else noise
                perturbed = y_hist - scale * rng.standard_normal(len(y_hist))
                labels = np.where(perturbed >= 0, 1, -1)
                return self._fit_oracle(clone(state["_oracle"]), X_hist, labels,
                                        np.abs(perturbed)), scale
            T = self.horizon if self.horizon is not None else n_done + 1
            T = check_positive_int(T, "horizon")
            eta = noise if noise != "auto" else ftpl_noise(
                state["rho_"], state["gaussian_complexity_"], state["_log_size"], T,
                loss_bound=max(B, 1))
            Z = state["separating_points_"]
            z_labels, z_weights = self._hallucinate(Z, eta, rng)
            return self._fit_oracle(
                clone(state["_oracle"]),
                np.vstack([X_hist, Z]),
                np.concatenate([y_hist, z_labels]),
                np.concatenate([np.ones(len(y_hist)), z_weights]),
            ), eta

        # every eta used by a leader that plays (Thm 1 assumes one fixed eta)
        noise_range = state["_noise_range"]

        def track(eta):
            if np.isfinite(eta):
                return (min(noise_range[0], eta), max(noise_range[1], eta))
            return noise_range

        current = state["estimator_"]
        if current is None and n_rounds == 1:
            current, eta0 = leader(np.empty((0, n_features)), np.empty(0), 0)
            noise_range = track(eta0)
        pred = (current.predict(X) if current is not None else np.ones(len(X)))
        loss = float(np.sum(np.asarray(pred) != y_pm1))
        # history in an amortised-doubling buffer; rows past _online_n are
        # scratch space (zero-initialised, so that equal runs have equal
        # state), restored if the refit fails: a failed call changes nothing
        n_old, n_new = state["_online_n"], state["_online_n"] + len(X)
        buf_X, buf_y = state["_online_X"], state["_online_y"]
        if n_new > len(buf_X):
            size = max(n_new, 2 * len(buf_X), 64)
            buf_X = np.concatenate([buf_X[:n_old], np.zeros((size - n_old, n_features))])
            buf_y = np.concatenate([buf_y[:n_old], np.zeros(size - n_old)])
        scratch = buf_X[n_old:n_new].copy(), buf_y[n_old:n_new].copy()
        buf_X[n_old:n_new], buf_y[n_old:n_new] = X, y_pm1
        X_hist, y_hist = buf_X[:n_new], buf_y[:n_new]
        try:
            estimator, eta = leader(X_hist, y_hist, n_rounds)
        except BaseException:
            buf_X[n_old:n_new], buf_y[n_old:n_new] = scratch
            raise
        noise_range = track(eta)

        state.update(_online_X=buf_X, _online_y=buf_y, _online_n=n_new,
                     _online_B=B, n_rounds_=n_rounds,
                     cumulative_loss_=state["cumulative_loss_"] + loss, estimator_=estimator,
                     noise_=float(eta), _noise_range=noise_range)
        for key, value in state.items():
            setattr(self, key, value)
        self.regret_bound_ = self.regret_bound(best_loss=0.0)
        problems = list(state["_problems"])
        if self._noise_varied():
            problems.append(
                f"the noise changed across rounds (eta from {noise_range[0]:.4g} to "
                f"{noise_range[1]:.4g}: anytime horizon=None or growing batch size) but "
                "Thm 1 assumes one fixed eta; pass horizon=T and equal-size batches, or "
                "a numeric noise"
            )
        self.guarantee_ = Guarantee(
            claim=(f"expected regret <= {self.regret_bound_:.4g} over {n_rounds} rounds "
                   "if the best hypothesis has zero loss (L* = 0)"),
            source=_SOURCE_FTPL,
            certified=not problems,
            assumptions_certified=tuple(state["_certified"]),
            assumptions_not_certified=tuple(problems) + (
                "L* = 0 (realizable data); use regret_bound(best_loss) otherwise",),
            notes=(f"a round is one partial_fit call; loss per round bounded by B = {B} rows",
                   "partial_fit is not differentially private"),
        )
        for name in ("privacy_spent_",):
            self.__dict__.pop(name, None)
        return self

    def regret_bound(self, best_loss=0.0, n_rounds=None):
        """Thm 1's expected-regret bound for the online run so far.

        Parameters
        ----------
        best_loss : float, default=0.0
            ``L*``, the cumulative loss of the best hypothesis.
        n_rounds : int or None
            ``T`` (default: rounds so far, or ``horizon`` if set).

        Returns
        -------
        float
            ``inf`` if the noise used violates Thm 1's condition (13), the
            noise changed across rounds (Thm 1 is for one fixed ``eta``), or
            the variant has no bound.
        """
        check_is_fitted(self, "n_rounds_")
        if (self.online_perturbation == "labels" or not np.isfinite(self.rho_)
                or self._noise_varied()):
            return float("inf")
        # rounds played beyond the horizon count: (13) is checked at the real T
        T = n_rounds or max(self.horizon or 0, self.n_rounds_)
        B = max(self._online_B, 1)
        return ftpl_regret_bound(self.noise_, self.rho_, self.gaussian_complexity_,
                                 self._log_size, T, best_loss, loss_bound=B)

    def _noise_varied(self):
        low, high = getattr(self, "_noise_range", (self.noise_, self.noise_))
        return bool(high > low * (1 + 1e-12))

    # ---------------------------------------------------------------- predict
    def predict(self, X):
        """Predict labels with the fitted (perturbed) leader."""
        check_is_fitted(self, "estimator_")
        X = validate_data(self, X, dtype=float, reset=False)
        if self.bounds_ is not None:
            X, _ = clip_to_bounds(X, *self.bounds_)
        if self.estimator_ is None:
            return BinaryLabels.decode(np.ones(len(X)), self.classes_)
        return BinaryLabels.decode(np.asarray(self.estimator_.predict(X)), self.classes_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.classifier_tags.poor_score = True
        return tags
