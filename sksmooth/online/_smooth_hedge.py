"""SmoothHedgeClassifier: Hedge over a data-independent cover (000 App. C.1).

References
----------
seeds/000_08e60ac76481cbe2.txt, App. C.1, Alg. 1 (Smooth Online Learning:
Hedge on a gamma-cover, gamma = sigma / (4 sqrt(T))); App. C.2 (Lemma 3.2);
App. C.3 (proof of Thm 3.3).
seeds/003_a96633f97736c2ff.txt, §3.1, Thm 3.1 (non-adaptive) and Thm 3.3
(adaptive adversaries, bracketing numbers).
"""

import inspect
import numbers
import warnings

import numpy as np
from scipy.optimize import minimize_scalar
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .._guarantee import Guarantee
from .._validation import (BinaryLabels, check_bounds, check_generator,
                           check_positive_int, check_sigma, clip_to_bounds)
from ..classes import ConceptClass, FiniteConcepts, Thresholds, check_concept_class
from ._hedge import DenseHedge, StumpHedge, hedge_regret_bound

__all__ = ["SmoothHedgeClassifier", "lemma_3_2_bound"]

# rows per dense-engine call: (rows x experts) boolean matrix of ~4M entries
_DENSE_CHUNK_ELEMENTS = 1 << 22
# the vote is a tie when |p(+1) - 1/2| is within rounding error (the weights
# are summed in different orders by different code paths); ties -> classes_[0]
_TIE_TOLERANCE = 1e-12


def lemma_3_2_bound(log_n_functions, n_rounds, p):
    """Explicit form of 000 Lemma 3.2 (App. C.2).

    For ``N`` functions ``f`` with ``Pr_{x ~ D_t}[f(x) = 1] <= p`` at every
    round (even for adaptively chosen sigma-smooth ``D_t``; ``p = eps /
    sigma``), the proof of Lemma 3.2 gives, for every ``s > 0``,

    ``E[max_f sum_t f(x_t)] <= (ln N + T p (e^s - 1)) / s``.

    We return the minimum over ``s`` (computed numerically), capped at ``T``.
    """
    if n_rounds <= 0:
        return 0.0
    p = min(1.0, float(p))
    log_n = max(0.0, float(log_n_functions))

    def value(log_s):
        s = np.exp(log_s)
        return (log_n + n_rounds * p * np.expm1(s)) / s

    res = minimize_scalar(value, bounds=(-20.0, 5.0), method="bounded",
                          options={"xatol": 1e-10})
    return float(min(n_rounds, res.fun, value(0.0)))


def _learning_rate_auto(n_experts, n_rounds):
    # eta = sqrt(8 ln K / T) minimises ln K / eta + eta T / 8 (Cesa-Bianchi &
    # Lugosi 2006, Cor. 2.2); K = 1 is treated as K = 2
    return float(np.sqrt(8.0 * np.log(max(n_experts, 2)) / max(n_rounds, 1)))


class SmoothHedgeClassifier(ClassifierMixin, BaseEstimator):
    """Hedge over a data-independent cover: no-regret against smoothed adversaries.

    Each row of ``X`` passed to :meth:`partial_fit` (or :meth:`fit`) is one
    online round, in order: the learner predicts with its current weights,
    then sees the label and multiplies the weight of every wrong hypothesis
    by ``exp(-learning_rate)`` (Hedge, full information). The hypotheses are a
    gamma-cover of the class under the uniform measure on ``bounds``, built
    from public inputs only (bounds, sigma, horizon, random_state), with
    ``gamma = sigma / (4 sqrt(T))`` (000 App. C.1, Alg. 1).

    Against any (even adaptive) sequence of sigma-smooth distributions, the
    expected regret against the best hypothesis of the whole (infinite)
    class is ``O(sqrt(T ln N_[](H, U, sigma / (4 sqrt T))))`` (003 Thm 3.3);
    ``regret_bound_`` evaluates the explicit bound of the proof for the
    realised number of rounds (see Notes).

    Parameters
    ----------
    hypotheses : str, ConceptClass or FiniteConcepts, default='thresholds'
        The class: 'thresholds', 'stumps', 'halfspaces', 'boxes' (or any name
        accepted by :func:`sksmooth.classes.check_concept_class`), a concept
        class instance from :mod:`sksmooth.classes` (covered with
        ``gamma``), or a finite set of hypotheses (a cover or
        :class:`sksmooth.classes.FiniteClass`) used as is.
    sigma : float in (0, 1], default=0.1
        Smoothness of the adversary the cover is tuned for: the rounds'
        distributions have density at most ``1 / sigma`` times the uniform
        density on ``bounds``.
    horizon : int or None, default=None
        Number of rounds ``T``. ``None``: doubling trick (see Notes).
    gamma : 'auto' or float in (0, 1), default='auto'
        Cover radius; 'auto' is ``sigma / (4 sqrt(T))`` (``T`` = horizon or
        the epoch length). The cover is capped at ``max_experts`` concepts;
        when the cap binds, a ``UserWarning`` reports the achieved radius,
        which is stored in ``gamma_``.
    learning_rate : 'auto' or float > 0, default='auto'
        Hedge's eta; 'auto' is ``sqrt(8 ln K / T)``.
    bounds : tuple (lower, upper) or None, default=None
        Public domain box (scalars or per-feature arrays); the reference
        measure for smoothness and for the cover. Rows outside are clipped
        (counted in ``n_clipped_``). ``None`` takes the box of the first
        batch with a ``PrivacyLeakWarning`` (data-dependent cover).
    max_experts : int, default=2**21
        Memory cap on the cover size ``K``.
    random_state : None, int or Generator, default=None
        Seeds randomised covers (halfspaces); grid covers are deterministic.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    n_features_in_ : int
    bounds_ : tuple (lower, upper) of ndarray
    n_rounds_ : int
        Rounds played.
    mistakes_ : int
        Progressive mistakes of the deterministic weighted vote (:meth:`predict`)
        on the rounds played, each predicted before its label was seen.
    cumulative_loss_ : float
        Progressive expected 0-1 loss of the randomised Hedge learner (the
        loss the regret bound is about), ``sum_t sum_j w_tj 1[h_j(x_t) != y_t]``.
    cover_ : FiniteConcepts
        The current cover (current epoch under the doubling trick).
    n_experts_ : int
        Its size ``K``.
    gamma_ : float
        Its radius (certified for grid covers, estimated for halfspaces; see
        ``cover_.gamma_certified``).
    learning_rate_ : float
        Current eta.
    weights_ : ndarray of shape (n_experts,)
        Current normalised Hedge weights (computed from log-weights).
    expert_loss_ : ndarray of shape (n_experts,)
        Mistakes of each hypothesis of the current cover in the current epoch.
    epochs_ : list of dict
        One entry per epoch: ``start``, ``length`` (planned), ``n_rounds``,
        ``n_experts``, ``gamma``, ``learning_rate``, ``hedge_bound``,
        ``approximation_bound``.
    regret_bound_ : float
        Bound on the expected regret against the best hypothesis of the class
        after ``n_rounds_`` rounds (sum over epochs), or against the best
        hypothesis of the cover when the cover has no certified bracketing
        structure (then ``regret_bound_is_class_`` is False).
    regret_bound_is_class_ : bool
    n_clipped_ : int
        Rows clipped to ``bounds_``.
    guarantee_ : sksmooth.Guarantee
        The regret claim, its source, and what could not be certified (that
        the data are sigma-smooth).

    Notes
    -----
    **Regret bound** (adaptive adversaries, 003 Thm 3.3 with the constants of
    its proof in 000 App. C.3). With ``K`` hypotheses, learning rate
    ``eta`` and ``T`` rounds, Hedge's expected loss exceeds that of the best
    cover element by at most ``ln K / eta + eta T / 8`` for every loss
    sequence (``sqrt(T ln K / 2)`` with the 'auto' rate). The best cover
    element exceeds the best hypothesis of the class by at most the largest
    number of rounds falling in one disagreement region; these regions have
    upper brackets ``b`` of uniform measure ``eps``, so each round hits a
    fixed ``b`` with probability ``<= eps / sigma`` and 000 Lemma 3.2 bounds
    the expected maximum by ``min_s (ln N + T (eps / sigma)(e^s - 1)) / s``
    (:func:`lemma_3_2_bound`). For grid stumps/thresholds the disagreement
    region of a target and its bracketing neighbour lies in one grid cell of
    one feature: ``eps`` = cell width (``cover_.bracket_width``) and ``N``
    = number of cells. For other bracketing covers (boxes) we use 000 eq. (6):
    ``ln N <= 4 ln K`` and ``eps = 4 bracket_width``. Covers without a
    certified bracketing (sampled halfspaces, user-given finite sets) give a
    bound against the best element of the cover only.

    **Unknown horizon** (``horizon=None``): restarts in epochs of length
    ``1, 2, 4, ..., 2^k``; epoch ``k`` builds a fresh cover with
    ``gamma = sigma / (4 sqrt(2^k))`` and fresh weights with
    ``eta = sqrt(8 ln K_k / 2^k)``. Restarting (rather than an anytime rate
    ``eta_t``) is needed because the cover itself depends on ``T``: an
    anytime rate would keep the first, coarse cover forever. It costs a
    factor ``sqrt(2) / (sqrt(2) - 1) ~ 3.4`` on the leading term; the bound
    reported is the exact sum of the epochs' bounds.

    ``predict`` is the deterministic weighted majority vote (it is what the
    adaptive adversaries of :mod:`sksmooth.streams` attack); the regret bound
    is about the randomised learner, whose draw :meth:`sample_predict`
    returns and whose expected loss is ``cumulative_loss_``. The vote makes
    at most twice the randomised learner's expected mistakes.

    References
    ----------
    seeds/000_08e60ac76481cbe2.txt, App. C.1 Alg. 1, App. C.2 (Lemma 3.2),
    App. C.3 (Thm 3.3). seeds/003_a96633f97736c2ff.txt, §3 Thm 3.1, 3.3.

    Examples
    --------
    >>> from sksmooth.online import SmoothHedgeClassifier
    >>> from sksmooth.streams import SmoothedThresholdAdversary
    >>> clf = SmoothHedgeClassifier(sigma=0.1, horizon=500, bounds=(0.0, 1.0))
    >>> record = SmoothedThresholdAdversary(sigma=0.1, random_state=0).play(
    ...     clf, n_rounds=500, batch_size=10)
    >>> clf.n_rounds_, clf.cumulative_loss_ <= clf.regret_bound_ + 0
    (500, True)
    """

    def __init__(self, hypotheses="thresholds", sigma=0.1, horizon=None, gamma="auto",
                 learning_rate="auto", bounds=None, max_experts=2 ** 21, random_state=None):
        self.hypotheses = hypotheses
        self.sigma = sigma
        self.horizon = horizon
        self.gamma = gamma
        self.learning_rate = learning_rate
        self.bounds = bounds
        self.max_experts = max_experts
        self.random_state = random_state

    # ------------------------------------------------------------ sklearn
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.allow_nan = False
        return tags

    # --------------------------------------------------------- validation
    def _check_params(self):
        sigma = check_sigma(self.sigma)
        horizon = None if self.horizon is None else check_positive_int(self.horizon, "horizon")
        if isinstance(self.gamma, str):
            if self.gamma != "auto":
                raise ValueError(f"gamma must be 'auto' or a float in (0, 1), got {self.gamma!r}.")
            gamma = "auto"
        elif isinstance(self.gamma, numbers.Real) and not isinstance(self.gamma, bool):
            gamma = float(self.gamma)
            if not 0 < gamma < 1:
                raise ValueError(f"gamma must lie in (0, 1), got {self.gamma!r}.")
        else:
            raise TypeError(f"gamma must be 'auto' or a float in (0, 1), got {self.gamma!r}.")
        if isinstance(self.learning_rate, str):
            if self.learning_rate != "auto":
                raise ValueError(
                    f"learning_rate must be 'auto' or a float > 0, got {self.learning_rate!r}.")
            learning_rate = "auto"
        elif isinstance(self.learning_rate, numbers.Real) and not isinstance(
                self.learning_rate, bool):
            learning_rate = float(self.learning_rate)
            if not (learning_rate > 0 and np.isfinite(learning_rate)):
                raise ValueError(f"learning_rate must be > 0, got {self.learning_rate!r}.")
        else:
            raise TypeError(
                f"learning_rate must be 'auto' or a float > 0, got {self.learning_rate!r}.")
        max_experts = check_positive_int(self.max_experts, "max_experts", minimum=2)
        concepts = check_concept_class(self.hypotheses, "hypotheses")
        return sigma, horizon, gamma, learning_rate, max_experts, concepts

    def _validate_X(self, X, reset):
        X = validate_data(self, X, reset=reset, dtype=np.float64,
                          ensure_all_finite=True)
        return X

    # ---------------------------------------------------------------- epochs
    def _make_epoch(self, start, length, params, n_features, lower, upper, seed):
        """Build the cover and Hedge engine of an epoch (no mutation of self)."""
        sigma, horizon, gamma, learning_rate, max_experts, concepts = params
        target_gamma = sigma / (4.0 * np.sqrt(length)) if gamma == "auto" else gamma
        _check_hypotheses_fit_features(concepts, n_features)
        if isinstance(concepts, ConceptClass):
            cls = concepts
            kwargs = {}
            if "n_features" in inspect.signature(cls.cover).parameters:
                kwargs["n_features"] = n_features
            cover = cls.cover(bounds=(lower, upper), gamma=min(target_gamma, 0.5),
                              max_size=max_experts, random_state=seed, **kwargs)
        else:
            cover = concepts
        n_experts = int(cover.n_concepts)
        eta = _learning_rate_auto(n_experts, length) if learning_rate == "auto" else learning_rate
        if _is_stump_cover(cover):
            engine = StumpHedge(cover.feature, cover.threshold, cover.sign,
                                n_features, eta)
        else:
            engine = DenseHedge(n_experts, eta)
        epoch = {"start": start, "length": length, "n_rounds": 0, "n_experts": n_experts,
                 "gamma": cover.gamma, "learning_rate": eta,
                 "bracket_width": getattr(cover, "bracket_width", None),
                 "_lemma": self._lemma_parameters(cover, sigma)}
        return cover, engine, epoch

    # ------------------------------------------------------------------ fit
    def fit(self, X, y):
        """Reset and play every row of ``X`` as one online round, in order.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two labels.

        Returns
        -------
        self
        """
        for name in list(vars(self)):
            if name.endswith("_") and not name.startswith("__"):
                delattr(self, name)
        for name in ("_engine", "_epochs", "_cover_seed", "_horizon_warned", "_bounds_inferred"):
            self.__dict__.pop(name, None)
        return self._partial_fit(X, y, classes=None, first_call_from_fit=True)

    def partial_fit(self, X, y, classes=None):
        """Play the rows of ``X`` as online rounds, in order (predict, then update).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (2,), optional
            Both labels; needed on the first call unless ``y`` holds both.

        Returns
        -------
        self

        Notes
        -----
        Every check (shape, finiteness, labels, parameters) runs before any
        attribute changes: a failed call leaves the estimator as it was.
        """
        return self._partial_fit(X, y, classes=classes, first_call_from_fit=False)

    def _partial_fit(self, X, y, classes, first_call_from_fit):
        first = not hasattr(self, "classes_")
        params = self._check_params()
        had_n_features = hasattr(self, "n_features_in_")
        try:
            if first:
                X, y = validate_data(self, X, y, reset=True, dtype=np.float64,
                                     ensure_all_finite=True, y_numeric=False)
                check_classification_targets(y)
                if classes is None and type_of_target(y) not in ("binary", "unknown") and \
                        len(np.unique(y)) > 2:
                    raise ValueError(
                        "Only binary classification is supported: y has "
                        f"{len(np.unique(y))} labels. Use "
                        "sklearn.multiclass.OneVsRestClassifier.")
                labels = BinaryLabels.fit_classes(y, classes)
                if classes is None and len(labels) < 2 and not first_call_from_fit:
                    raise ValueError(
                        "partial_fit: the first call needs both labels; pass classes=[neg, pos].")
                y_pm = BinaryLabels.encode(y, labels)
                lower, upper = check_bounds(self.bounds, X.shape[1], X=X)
                if first_call_from_fit and len(labels) < 2:
                    raise ValueError(
                        "Classifier can't train when only one class is present: got "
                        f"{labels.tolist()}.")
            else:
                # same X / y rules as the first call (a column y is raveled with a
                # DataConversionWarning; other 2-D y and length mismatches fail)
                X, y = validate_data(self, X, y, reset=False, dtype=np.float64,
                                     ensure_all_finite=True, y_numeric=False)
                BinaryLabels.check_same_classes(classes, self.classes_)
                labels = self.classes_
                y_pm = BinaryLabels.encode(y, labels)
                lower, upper = self.bounds_
                # later epochs build their cover from the current parameters:
                # check now that it fits X, before any round is played
                _check_hypotheses_fit_features(params[-1], X.shape[1])
            X, n_clipped = clip_to_bounds(X, lower, upper)
            if first:
                # the first epoch's cover is built before any attribute is set, so
                # that a class / data mismatch fails without side effects
                cover_seed = int(check_generator(self.random_state).integers(2 ** 31 - 1))
                horizon = params[1]
                first_epoch = self._make_epoch(0, horizon if horizon is not None else 1, params,
                                               X.shape[1], lower, upper, cover_seed)
        except Exception:
            if first and not had_n_features:  # validate_data sets it early
                self.__dict__.pop("n_features_in_", None)
                self.__dict__.pop("feature_names_in_", None)
            raise

        # ---- all checks done: commit
        if first:
            self._cover_seed = cover_seed
            self._epochs = []
            self._horizon_warned = False
            # what the first call did, not the current (settable) parameter
            self._bounds_inferred = self.bounds is None
            self.classes_ = labels
            self.bounds_ = (lower, upper)
            self.n_rounds_ = 0
            self.mistakes_ = 0
            self.cumulative_loss_ = 0.0
            self.n_clipped_ = 0
            self._cover, self._engine, epoch = first_epoch
            self._epochs.append(epoch)
        self.n_clipped_ += n_clipped
        self._play(X, y_pm > 0, params)
        self._refresh_summary(params)
        return self

    def _play(self, X, y_positive, params):
        sigma, horizon, *_ = params
        n = X.shape[0]
        done = 0
        while done < n:
            if self._engine is None or self._epoch_full(horizon):
                length = horizon if horizon is not None else 2 ** len(self._epochs)
                cover, engine, epoch = self._make_epoch(
                    self.n_rounds_, length, params, X.shape[1], *self.bounds_,
                    seed=self._cover_seed + len(self._epochs))
                self._cover, self._engine = cover, engine
                self._epochs.append(epoch)
            epoch = self._epochs[-1]
            if horizon is None:
                take = min(n - done, epoch["length"] - epoch["n_rounds"])
            else:
                take = n - done
                if self.n_rounds_ + take > horizon and not self._horizon_warned:
                    warnings.warn(
                        f"SmoothHedgeClassifier: more than horizon={horizon} rounds; the "
                        "cover and learning rate stay those tuned for the horizon and "
                        "regret_bound_ is evaluated for the realised number of rounds.",
                        UserWarning, stacklevel=4)
                    self._horizon_warned = True
            self._play_epoch(X[done:done + take], y_positive[done:done + take])
            epoch["n_rounds"] += take
            self.n_rounds_ += take
            done += take

    def _epoch_full(self, horizon):
        if horizon is not None:
            return False
        epoch = self._epochs[-1]
        return epoch["n_rounds"] >= epoch["length"]

    def _play_epoch(self, X, y_positive):
        engine = self._engine
        if isinstance(engine, StumpHedge):
            proba, loss = engine.update(X, y_positive)
        else:
            rows = max(1, _DENSE_CHUNK_ELEMENTS // max(engine.n_experts, 1))
            proba = np.empty(X.shape[0])
            loss = np.empty(X.shape[0])
            for start in range(0, X.shape[0], rows):
                stop = min(start + rows, X.shape[0])
                positive = self._cover.evaluate(X[start:stop])
                proba[start:stop], loss[start:stop] = engine.update(
                    positive, y_positive[start:stop])
        vote_positive = proba > 0.5 + _TIE_TOLERANCE
        self.mistakes_ += int(np.count_nonzero(vote_positive != y_positive))
        self.cumulative_loss_ += float(loss.sum())

    # ------------------------------------------------------------- bounds
    def _lemma_parameters(self, cover, sigma):
        """``(ln N, p)`` of the approximation term (000 Lemma 3.2), or None.

        None when the cover has no certified bracketing structure (then only
        the regret against the best cover element is bounded).
        """
        if isinstance(check_concept_class(self.hypotheses), FiniteConcepts):
            return None  # a given finite set: no class around it to compare with
        width = getattr(cover, "bracket_width", None)
        if not getattr(cover, "is_bracketing", False) or width is None:
            return None
        if width <= 0:
            return (0.0, 0.0)
        if _is_stump_cover(cover):
            # disagreement of a target stump and its bracketing grid neighbour
            # lies in one grid cell (width w) of its feature
            n_live = len(np.unique(cover.feature)) if cover.n_concepts else 1
            n_cells = int(np.ceil(1.0 / width - 1e-9)) * max(n_live, 1)
            return (float(np.log(n_cells)), width / sigma)
        # 000 App. C.3 eq. (6): N_[](G, eps/2) <= N_[](H, eps/4)^4 with eps = 4 w
        return (4.0 * float(np.log(max(cover.n_concepts, 2))), 4.0 * width / sigma)

    def _refresh_summary(self, params):
        sigma = params[0]
        cover, engine = self._cover, self._engine
        self.cover_ = cover
        self.n_experts_ = int(cover.n_concepts)
        self.gamma_ = cover.gamma
        self.learning_rate_ = engine.learning_rate
        total_hedge, total_approx, class_level = 0.0, 0.0, True
        for epoch in self._epochs:
            if epoch.get("_bounds_at") != epoch["n_rounds"]:
                # only epochs that received rounds change (one numerical
                # minimisation each): finished epochs keep their bounds
                epoch["hedge_bound"] = hedge_regret_bound(
                    epoch["n_experts"], epoch["n_rounds"], epoch["learning_rate"])
                lemma = epoch["_lemma"]
                epoch["approximation_bound"] = None if lemma is None else lemma_3_2_bound(
                    lemma[0], epoch["n_rounds"], lemma[1])
                epoch["_bounds_at"] = epoch["n_rounds"]
            approx = epoch["approximation_bound"]
            total_hedge += min(epoch["hedge_bound"], epoch["n_rounds"])
            if approx is None:
                class_level = False
            else:
                total_approx += approx
        self.epochs_ = [{k: v for k, v in e.items() if not k.startswith("_")}
                        for e in self._epochs]
        self.regret_bound_is_class_ = class_level
        self.regret_bound_ = float(
            min(self.n_rounds_, total_hedge + (total_approx if class_level else 0.0)))
        self.guarantee_ = self._guarantee(sigma)

    def _guarantee(self, sigma):
        target = ("the best hypothesis of the class" if self.regret_bound_is_class_
                  else "the best hypothesis of the cover (no certified bracketing: "
                       "the approximation term is not bounded)")
        certified = ["Hedge's bound ln K / eta + eta T / 8 holds for every loss sequence"]
        if not self._bounds_inferred:
            certified.insert(0, "the cover depends on public inputs only (bounds, sigma, T, "
                                "seed)")
        if getattr(self._cover, "gamma_certified", False):
            certified.append(f"cover radius gamma={self.gamma_:.4g} is a proven bound")
        not_certified = [
            f"the rounds are drawn from sigma-smooth distributions (sigma={sigma:g}) "
            "w.r.t. the uniform measure on bounds_ (adaptive choice allowed)"]
        if not getattr(self._cover, "gamma_certified", True):
            not_certified.append("the cover radius is a Monte Carlo estimate")
        if self.n_clipped_:
            not_certified.append(f"{self.n_clipped_} rows fell outside bounds_ and were clipped")
        if self._bounds_inferred:
            not_certified.append("bounds_ were taken from the first batch (not public): "
                                 "the cover depends on the data")
        notes = ["the bound is on the expected regret of the randomised Hedge learner "
                 "(cumulative_loss_); predict() is the weighted vote, whose mistakes are "
                 "at most 2 x cumulative_loss_",
                 "adaptive-adversary bound: 003 Thm 3.3 with the explicit constants of "
                 "000 App. C.3 / Lemma 3.2"]
        if len(self._epochs) > 1:
            notes.append(f"doubling trick: {len(self._epochs)} epochs, bound summed over them")
        return Guarantee(
            claim=f"expected regret <= {self.regret_bound_:.6g} against {target} "
                  f"after T={self.n_rounds_} rounds",
            source="seeds/003_a96633f97736c2ff.txt §3.1 Thm 3.3; proof constants "
                   "seeds/000_08e60ac76481cbe2.txt App. C.2-C.3; Hedge: Cesa-Bianchi & "
                   "Lugosi (2006) Thm 2.2",
            certified=False,
            assumptions_certified=tuple(certified),
            assumptions_not_certified=tuple(not_certified),
            notes=tuple(notes),
        )

    # ------------------------------------------------------------ predict
    @property
    def weights_(self):
        check_is_fitted(self, "classes_")
        return self._engine.weights()

    @property
    def expert_loss_(self):
        check_is_fitted(self, "classes_")
        loss = self._engine.expert_loss
        return loss() if callable(loss) else loss.copy()

    def _proba_positive(self, X):
        check_is_fitted(self, "classes_")
        X = self._validate_X(X, reset=False)
        X, _ = clip_to_bounds(X, *self.bounds_)
        engine = self._engine
        if isinstance(engine, StumpHedge):
            return engine.proba_positive(X)
        rows = max(1, _DENSE_CHUNK_ELEMENTS // max(engine.n_experts, 1))
        out = np.empty(X.shape[0])
        for start in range(0, X.shape[0], rows):
            stop = min(start + rows, X.shape[0])
            out[start:stop] = engine.proba_positive(self._cover.evaluate(X[start:stop]))
        return out

    def predict_proba(self, X):
        """Weight of the hypotheses voting for each class.

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Column 1 is the weight on hypotheses predicting ``classes_[1]``.
        """
        p = self._proba_positive(X)
        return np.column_stack([1.0 - p, p])

    def decision_function(self, X):
        """Weighted vote ``2 p - 1`` in [-1, 1]; positive means ``classes_[1]``."""
        return 2.0 * self._proba_positive(X) - 1.0

    def predict(self, X):
        """Deterministic weighted majority vote (ties go to ``classes_[0]``)."""
        positive = self._proba_positive(X) > 0.5 + _TIE_TOLERANCE
        return BinaryLabels.decode(np.where(positive, 1, -1), self.classes_)

    def sample_predict(self, X, rng=None):
        """Predictions of one hypothesis drawn from the current Hedge weights.

        This is the randomised Hedge learner of 000 Alg. 1: the draw is
        exact (Gumbel-max on the log-weights).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        rng : numpy.random.Generator, int or None
            Source of the draw (``self.random_state`` is not used).

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "classes_")
        X = self._validate_X(X, reset=False)
        X, _ = clip_to_bounds(X, *self.bounds_)
        j = self._engine.sample_expert(check_generator(rng))
        positive = self._cover.subset([j]).evaluate(X)[:, 0]
        return BinaryLabels.decode(np.where(positive, 1, -1), self.classes_)


def _check_hypotheses_fit_features(concepts, n_features):
    """Raise if the class (or finite set) cannot be used on ``n_features`` features."""
    if isinstance(concepts, Thresholds) and n_features != 1:
        raise ValueError(
            f"hypotheses='thresholds' needs X with one feature, got {n_features}; "
            "use hypotheses='stumps' for several features.")
    if not isinstance(concepts, ConceptClass) and \
            getattr(concepts, "n_features", n_features) != n_features:
        raise ValueError(
            f"the finite hypotheses are defined on {concepts.n_features} features, "
            f"X has {n_features}.")


def _is_stump_cover(cover):
    return all(hasattr(cover, a) for a in ("feature", "threshold", "sign")) and \
        type(cover).__name__ == "StumpConcepts"
