"""PrivateSearchCV: hyperparameter search whose every output is private."""

import inspect
import numbers
import warnings
from dataclasses import dataclass

import joblib
import numpy as np
from numpy.ma import MaskedArray
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.model_selection import ParameterGrid
from sklearn.pipeline import Pipeline
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, indexable

from .._atomic import forget_fit
from .._constraints import EPSILON, RANDOM_STATE, Boolean, Check, Integer, validate_params
from .._guarantee import Guarantee, PrivacySpent
from .._untrusted import labels_equal
from .._progress import VERBOSE, Progress
from .._randomness import SEEDED_NOISE_NOTE, release_randomness
from .._validation import call_user_function, reads_data
from ..accounting import BudgetAccountant
from ..accounting._ledger import ACCOUNTANT, charge
from ..exceptions import BudgetError
from ..mechanisms._exact_selection import rational_permute_and_flip
from ..preprocessing import PublicBoundsScaler

__all__ = ["PrivateSearchCV"]

_MAX_CANDIDATES = 10_000
_MAX_FOLDS = 100

_SELECTION_SOURCE = (
    "permute-and-flip on held-out counts (McKenna & Sheldon, NeurIPS 2020, "
    "Thm 1), sampled exactly (Canonne, Kamath & Steinke, NeurIPS 2020, Alg. 1); "
    "adaptive sequential composition (Dwork & Roth 2014, Thm 3.16)"
)
_PUBLIC_STEPS_NOTE = (
    "pipeline steps before the final estimator learn nothing from the data "
    "(only PublicBoundsScaler with declared bounds and 'passthrough' are recognised as such)"
)


def _check_estimator(estimator, name):
    if not isinstance(estimator, BaseEstimator) or not hasattr(estimator, "fit"):
        raise TypeError(
            f"{name} must be a scikit-learn estimator (e.g. a sksmooth private "
            f"classifier or a Pipeline ending in one), got {type(estimator).__name__}."
        )
    final = _final_step(estimator)
    if "accountant" not in final.get_params(deep=False):
        wraps = bool(_ledger_keys(final))
        raise TypeError(
            f"{name} must be a private sksmooth estimator (one with an "
            f"'accountant' parameter, possibly the last step of a Pipeline), got "
            f"{type(final).__name__}; "
            + (f"{type(final).__name__} wraps one but has no accountant of its own, so "
               "the search cannot account its fits: make the private estimator the last "
               "step (sksmooth classifiers are multiclass; flatten nested Pipelines)."
               if wraps else
               "a non-private estimator fitted on private folds would release the data.")
        )
    if isinstance(estimator, Pipeline):
        private = [step_name for step_name, step in estimator.steps[:-1]
                   if step not in (None, "passthrough") and _ledger_keys(step)]
        if private:
            raise TypeError(
                f"{name} has a private step before its last one ({private[0]!r}), whose "
                "fits the search would not account. Make the private estimator the last "
                "step after public preprocessing only (e.g. PublicBoundsScaler); for "
                "synthetic data, fit the release and sample from it first.")
    return estimator


def _check_scoring(scoring, name):
    if isinstance(scoring, str):
        if scoring == "accuracy":
            return scoring
        raise ValueError(f"{name} must be 'accuracy' (the one per-row metric by name) or a "
                         "callable scoring(estimator, X, y) returning one utility per row, "
                         f"got {scoring!r}.")
    if not callable(scoring) or isinstance(scoring, type):
        raise TypeError(f"{name} must be 'accuracy' or a callable scoring(estimator, X, y) "
                        f"returning one utility per row, got {type(scoring).__name__}.")
    if not inspect.isfunction(scoring) and type(scoring).__module__.startswith("sklearn."):
        # make_scorer / get_scorer objects (their class is not public API)
        raise TypeError(
            f"{name} must return one value per held-out row, but a scikit-learn scorer "
            "returns one per fold. Use 'accuracy' or a callable scoring(estimator, X, y) "
            "returning per-row utilities in [0, 1]."
        )
    try:  # checked here, before any fit is charged (a wrong signature failed after one)
        inspect.signature(scoring, follow_wrapped=False).bind(None, None, None)
    except TypeError:
        raise TypeError(f"{name} must be called as scoring(estimator, X, y); "
                        f"{getattr(scoring, '__name__', type(scoring).__name__)} does not "
                        "take these three arguments.") from None
    except ValueError:  # no signature to read (some builtins): called as documented
        pass
    return scoring


def _check_param_grid(param_grid, name):
    grids = [param_grid] if isinstance(param_grid, dict) else param_grid
    if not isinstance(grids, (list, tuple)) or not grids or not all(
        isinstance(g, dict) for g in grids
    ):
        raise TypeError(
            f"{name} must be a dict (or a non-empty list of dicts) mapping parameter "
            "names to lists of values, e.g. {'epsilon': [0.5, 1.0]}."
        )
    for grid in grids:
        for key, values in grid.items():
            if not isinstance(key, str):
                raise TypeError(f"{name} keys must be parameter names (str), got {key!r}.")
            if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") or (
                isinstance(values, np.ndarray) and values.ndim != 1
            ):
                raise TypeError(
                    f"{name}[{key!r}] must be a list of candidate values, e.g. [0.5, 1.0]."
                )
            if len(values) == 0:
                raise ValueError(f"{name}[{key!r}] is empty; give at least one value.")
    size = len(ParameterGrid(grids))
    if size > _MAX_CANDIDATES:
        raise ValueError(
            f"{name} has {size} candidates; the cap is {_MAX_CANDIDATES} (every "
            "candidate is fitted cv times and charged). Use a smaller grid."
        )
    return grids


def _check_n_jobs(n_jobs, name):
    if n_jobs is None:
        return None
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"{name} must be None or a non-zero int, got {type(n_jobs).__name__}.")
    if n_jobs == 0 or abs(n_jobs) > 4096:
        raise ValueError(f"{name} must be a non-zero int in [-4096, 4096], got {n_jobs}.")
    return int(n_jobs)


@dataclass(frozen=True)
class _FoldResult:
    """What one (candidate, fold) fit hands back: no model, no per-row value."""

    candidate: int
    utility: float
    spent: PrivacySpent
    certified: bool


def _final_step(estimator):
    return estimator.steps[-1][1] if isinstance(estimator, Pipeline) else estimator


def _preprocessing_is_public(estimator):
    if not isinstance(estimator, Pipeline):
        return True
    return all(step == "passthrough" or step is None
               or (isinstance(step, PublicBoundsScaler) and not reads_data(step.bounds))
               for _, step in estimator.steps[:-1])


def _release_report(fitted):
    """``(privacy_spent_, certified)`` of a fitted private estimator or pipeline."""
    final = _final_step(fitted)
    spent = getattr(final, "privacy_spent_", None)
    if not isinstance(spent, tuple) or len(spent) != 2:
        raise TypeError(
            f"{type(final).__name__} does not report privacy_spent_ after fit, so the "
            "search cannot account its fits; use a private sksmooth estimator."
        )
    if not np.isfinite(float(spent[0])):
        raise ValueError(
            f"{type(final).__name__} released with no differential-privacy guarantee, "
            "so the search cannot account its fits; search over private candidates only.")
    guarantee = getattr(final, "guarantee_", None)
    certified = bool(getattr(guarantee, "certified", False))
    return PrivacySpent(float(spent[0]), float(spent[1])), certified


def _utility_step(n_rows):
    """``2^-(52 - bit_length(n))``: utilities on this dyadic grid have exact
    float sums over ``n`` rows (every partial sum is a multiple of the step
    below ``2^bit_length(n)``, under ``2^53`` steps), so the computed scores
    of neighbouring datasets differ by at most 1 exactly, as the exact
    selection sampler (which reads them as rationals) requires."""
    return 2.0 ** -(52 - int(n_rows).bit_length())


def _row_utility(scoring, estimator, X, y, n_rows):
    """Per-row utility in ``[0, 1]`` on the grid of :func:`_utility_step`: the
    clipping makes each row's sensitivity 1, the grid keeps it 1 in the sums."""
    if scoring == "accuracy":
        values = labels_equal(estimator.predict(X), y)
    else:
        values = call_user_function(scoring, "scoring", estimator, X, y, private=True)
    values = np.asarray(values, dtype=float).reshape(-1)
    if values.shape[0] != len(y):
        raise ValueError(
            f"scoring must return one value per held-out row ({len(y)}), got "
            f"{values.shape[0]}."
        )
    values = np.clip(np.nan_to_num(values, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    step = _utility_step(n_rows)
    return np.rint(values / step) * step


def _take(data, indices):
    if hasattr(data, "iloc"):  # a DataFrame or Series: by position, as the folds are
        return data.iloc[indices]
    if isinstance(data, (list, tuple)):
        return [data[i] for i in indices]
    return data[indices]  # arrays, sparse matrices


def _is_ledger_key(name):
    return name == "accountant" or name.endswith("__accountant")


def _ledger_keys(model):
    return [k for k in model.get_params(deep=True) if _is_ledger_key(k)]


def _candidate(estimator, params):
    """``estimator`` with ``params``; the grid's own objects are copied (``clone``
    of the whole), never fitted or changed."""
    return clone(clone(estimator).set_params(**params))


def _fit_and_count(model, X, y, train, test, scoring, candidate):
    model = clone(model)  # the ledger is shared, not copied (BudgetAccountant.__deepcopy__)
    model.fit(_take(X, train), _take(y, train))
    spent, certified = _release_report(model)
    utility = _row_utility(scoring, model, _take(X, test), _take(y, test), len(y))
    return _FoldResult(candidate, float(utility.sum()), spent, certified)


def _refuse_grid_ledgers(candidates):
    """A grid that sets an accountant would send fits to another ledger."""
    for params in candidates:
        ledgers = [k for k in params if _is_ledger_key(k)]
        if ledgers:
            raise ValueError(
                f"param_grid sets {ledgers[0]!r}: every fit of the search is charged to "
                "the search's ledger (its accountant parameter); remove it from the grid.")


def _check_candidates(models):
    """Refuse, before anything is fitted or charged, a candidate the search could
    not account: one whose final step is not a private estimator (a grid may swap
    it), or one released under add/remove neighbours (the search composes its
    fits under substitution of one row, where such a release can cost twice its
    epsilon); and check every candidate's public parameters.

    Returns the ``(epsilon, delta)`` one fit of each candidate charges, from its
    public parameters (rows of an array), or ``None`` when a candidate's charge
    depends on the data (an estimator without ``_planned_spend``, or one that
    returns ``None``)."""
    spends = []
    for model in models:
        final = _final_step(model)
        _check_estimator(model, "a candidate of param_grid")  # a grid may swap a step
        if final.get_params(deep=False).get("neighbouring") == "add_remove":
            raise ValueError(
                "PrivateSearchCV composes its fits under substitution of one row, where a "
                "release calibrated for add/remove neighbours can cost twice its epsilon; "
                "use neighbouring='substitution' for the searched estimator.")
        validated = None
        if hasattr(type(final), "_parameter_constraints") \
                and type(final).__module__.startswith("sksmooth."):  # its own table
            validated = validate_params(final)
        plan = getattr(final, "_planned_spend", None)
        spend = None if plan is None or validated is None else plan(validated)
        if spend is not None and not np.isfinite(spend[0]):
            raise ValueError(
                f"{type(final).__name__} would release with no differential-privacy "
                "guarantee (allow_non_private=True with a heuristic oracle), so the search "
                "could not account its fits; search over private candidates only.")
        spends.append(spend)
    return None if any(s is None for s in spends) else np.array(spends, dtype=float)


class _ReachedTheCharge(Exception):
    """A rehearsal fit got to its charge: everything before it passed."""


class _RehearsalLedger(BudgetAccountant):
    """Accepts every check and stops a fit at its charge: nothing is spent and
    nothing of the fit is published."""

    def check(self, epsilon, delta=0.0, neighbouring=None):
        return None

    def spend(self, epsilon, delta=0.0, label=None, certified=True, neighbouring=None):
        raise _ReachedTheCharge


def _rehearse(models, X, y, train):
    """Fit every candidate on the first training fold up to its charge, so that a
    candidate refused before its charge (a parameter the data's shape rules
    out, a class too large to build) is refused before *any* fit of the search
    is charged. Private: a fit's errors before its charge depend on public
    inputs only, and a rehearsal publishes nothing else."""
    X_train, y_train = _take(X, train), _take(y, train)
    for model in models:
        model = clone(model)
        model.set_params(**{k: _RehearsalLedger() for k in _ledger_keys(model)})
        # in this process: the rehearsal ledger does not travel to workers
        model.set_params(**{k: 1 for k in model.get_params(deep=True)
                            if k == "n_jobs" or k.endswith("__n_jobs")})
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the real fits warn
                model.fit(X_train, y_train)
        except _ReachedTheCharge:
            pass


def _estimator_has(attr):
    def check(self):
        if hasattr(self, "best_estimator_"):
            return hasattr(self.best_estimator_, attr)
        return hasattr(self.estimator, attr)

    return check


class PrivateSearchCV(MetaEstimatorMixin, BaseEstimator):
    """Grid search whose selection, chosen parameters and refitted model are private.

    Like :class:`sklearn.model_selection.GridSearchCV`, every candidate of
    ``param_grid`` is fitted on ``cv`` training folds and scored on the
    held-out folds; unlike it, the best candidate is chosen by a private
    selection on held-out *counts*, the whole search is charged to the
    ledger before anything is published, and no exact score is ever
    released (a plain ``GridSearchCV`` over private estimators publishes
    exact held-out scores in ``cv_results_`` and ``best_score_``, which
    are not private).

    Parameters
    ----------
    estimator : estimator
        A private sksmooth estimator (it has an ``accountant`` parameter), or
        a :class:`~sklearn.pipeline.Pipeline` ending in one (a wrapper such as
        ``OneVsRestClassifier`` is refused: its fits report no privacy spent).
    param_grid : dict or list of dict
        Candidate parameters, as for ``GridSearchCV``. Refused before any fit:
        a grid that sets an accountant (the fits would bypass the search's
        ledger), a candidate with ``neighbouring='add_remove'`` (the search
        composes under substitution, where it can cost twice its epsilon), and
        invalid parameter values. Then every candidate is rehearsed: fitted on
        the first training fold up to its charge (nothing is charged or
        published), so a candidate the data's shape rules out (e.g.
        ``hypotheses='thresholds'`` on several features) is refused before
        any fit of the search is charged; this costs one extra fit per
        candidate.
    epsilon_selection : float
        Epsilon of the private selection step (> 0).
    cv : int, default=3
        Number of folds ``K >= 2``. Folds are a uniformly random partition of
        the row indices drawn from public randomness (never stratified by the
        private labels).
    scoring : "accuracy" or callable, default="accuracy"
        Per-row utility summed over held-out rows. ``"accuracy"`` counts
        correct predictions. A callable ``scoring(estimator, X, y)`` must
        return one value per row; values are clipped to ``[0, 1]`` (NaN -> 0)
        and rounded to multiples of ``2^-(52 - bit_length(n_samples))``
        (below ``1e-9`` for up to 8 million rows), which keeps the sums
        exact. Each score then has sensitivity 1 only if every row's value
        depends on that row alone (not a fold-level metric spread over the
        rows), which the code cannot check: a search with a callable is
        *not certified*. A scikit-learn scorer (one number per fold) is
        refused.
    refit : bool, default=True
        Refit the selected candidate on all rows as ``best_estimator_``. The
        refit is a further release, charged at the largest candidate cost
        whatever is selected (see Notes). With ``refit=False`` there is no
        ``best_estimator_`` (as in scikit-learn).
    n_jobs : int, default=None
        Parallel (candidate, fold) fits via joblib. With ``n_jobs != 1`` the
        ledger must be shared: a file (``BudgetAccountant(path=...)``, one
        machine) or a PostgreSQL server (``BudgetAccountant(url=...)``, also a
        Dask cluster), so that worker charges are recorded.
    accountant : BudgetAccountant, default=None
        The ledger of the whole search. It is set as the ``accountant`` of
        every private step of every candidate, so each fit charges it. If
        ``None``, the estimator's own accountant (if any) is used.
    random_state : None, int or numpy.random.Generator, default=None
        ``None`` draws the fold partition and the selection noise from fresh
        OS entropy (certified). A seed makes the search reproducible but the
        selection is then marked *not certified* (whoever knows the seed can
        replay its noise); it does not seed the candidates.
    verbose : int or bool, default=0
        ``>= 1``: the number of (candidate, fold) fits on stderr and a
        progress bar over them (tqdm when installed). Only counts of fits
        are printed, never a score.

    Attributes
    ----------
    best_index_ : int
        Index (into ``cv_results_["params"]``) of the privately selected candidate.
    best_params_ : dict
        Its parameters.
    best_estimator_ : estimator
        The selected candidate refitted on all rows (only with ``refit=True``).
    cv_results_ : dict
        ``params``, ``param_<name>`` (masked arrays) and the privacy spent per
        candidate over its fold fits (``epsilon_spent``, ``delta_spent``). It
        holds **no score**: held-out scores are private and never released.
    n_splits_ : int
        Number of folds.
    privacy_spent_ : PrivacySpent
        Total (epsilon, delta) of the search, as charged to the ledger.
    guarantee_ : Guarantee
        The privacy statement of the search and what it rests on.

    Notes
    -----
    **Privacy statement** (neighbouring datasets differ by the substitution of
    one row; ``n`` is public). Let candidate ``c`` spend ``(eps_c, delta_c)``
    per fit, ``C`` the number of candidates, ``K = cv``. Then ``fit``
    releasing ``(best_index_, best_params_, best_estimator_)`` is
    ``(eps_total, delta_total)``-DP with

    ``eps_total = K * sum_c eps_c + epsilon_selection + refit * max_c eps_c``,
    ``delta_total = K * sum_c delta_c + refit * max_c delta_c``.

    Proof. (i) The fold partition is public. The ``K C`` fold fits are
    private releases; by basic composition they are
    ``(K sum eps_c, K sum delta_c)``-DP (a row lies in only ``K - 1``
    training folds, so this is conservative). (ii) Given the fitted fold
    models, candidate ``c``'s score is the sum over all rows of a utility in
    ``[0, 1]`` computed by the model that did not train on that row; every
    row is held out exactly once, so substituting one row moves every score
    by at most 1. Permute-and-flip with ``epsilon_selection / 2`` per unit
    of score is then ``epsilon_selection``-DP (McKenna & Sheldon 2020,
    Thm 1), sampled exactly, without floating-point noise. (iii) The refit of
    whichever candidate is selected is ``(max eps_c, max delta_c)``-DP. By
    adaptive sequential composition the release is
    ``(eps_total, delta_total)``-DP. The ledger records exactly these terms:
    every fit is charged by the candidate estimator itself, then one
    "selection" record of ``epsilon_selection`` and, when the selected
    candidate is cheaper than the dearest one, one "refit padding" record of
    the difference, so that the total charged does not depend on the
    selection. Both are charged before ``best_*`` attributes exist and before
    the refit; a ``BudgetError`` leaves no selection published. When every
    candidate's charge follows from its parameters (the sksmooth estimators;
    not a ``PerturbedERMClassifier`` given ``noise``), ``fit`` first checks
    that the ledger can pay ``(eps_total, delta_total)`` and otherwise
    refuses before any fit is charged.

    The statement is *certified* when every fit's own ``guarantee_`` is
    certified, ``random_state`` is ``None``, ``scoring='accuracy'`` and the
    pipeline steps before the final estimator are data-independent
    (``PublicBoundsScaler``).

    Publish ``best_params_`` and the released hypothesis of
    ``best_estimator_`` (e.g. its ``to_release()`` object where available),
    not anything computed from the private data afterwards.

    References
    ----------
    .. [1] R. McKenna and D. Sheldon, "Permute-and-Flip: A new mechanism for
       differentially private selection", NeurIPS 2020, arXiv:2010.12603.
    .. [2] C. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
       Differential Privacy", NeurIPS 2020, arXiv:2004.00010, Algorithm 1.
    .. [3] J. Liu and K. Talwar, "Private selection from private candidates",
       STOC 2019, arXiv:1811.07971 (cheaper random-stopping alternatives).
    .. [4] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", Found. Trends Theor. Comput. Sci. 9(3-4), 2014, Thm 3.16.

    Examples
    --------
    >>> from sksmooth import BudgetAccountant, PrivateProperClassifier
    >>> from sksmooth.datasets import load_breast_cancer_public
    >>> from sksmooth.model_selection import PrivateSearchCV
    >>> X, y, bounds = load_breast_cancer_public()
    >>> ledger = BudgetAccountant(epsilon=10.0)
    >>> search = PrivateSearchCV(
    ...     PrivateProperClassifier(bounds=(0, 1), classes=[0, 1]),
    ...     {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5, cv=3,
    ...     accountant=ledger).fit(X, y)
    >>> round(ledger.spent.epsilon, 6)  # 3 * (0.5 + 1.0) + 0.5 + 1.0
    6.0
    """

    _parameter_constraints = {
        "estimator": Check(_check_estimator, "a private sksmooth estimator"),
        "param_grid": Check(_check_param_grid, "a dict or list of dicts"),
        "epsilon_selection": EPSILON,
        "cv": Integer(2, high=_MAX_FOLDS,
                      cap_reason="every candidate is fitted and charged once per fold"),
        "scoring": Check(_check_scoring, "'accuracy' or a per-row callable"),
        "refit": Boolean(),
        "n_jobs": Check(_check_n_jobs, "None or a non-zero int"),
        "accountant": ACCOUNTANT,
        "random_state": RANDOM_STATE,
        "verbose": VERBOSE,
    }

    def __init__(self, estimator, param_grid, *, epsilon_selection, cv=3,
                 scoring="accuracy", refit=True, n_jobs=None, accountant=None,
                 random_state=None, verbose=0):
        self.estimator = estimator
        self.param_grid = param_grid
        self.epsilon_selection = epsilon_selection
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.n_jobs = n_jobs
        self.accountant = accountant
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        sub = self.estimator.__sklearn_tags__()
        tags.estimator_type = sub.estimator_type
        tags.classifier_tags = sub.classifier_tags
        tags.non_deterministic = True
        return tags

    # ------------------------------------------------------------- helpers
    def _ledger(self, estimators):
        """The search's ledger: its ``accountant``, else the one ledger the
        estimator or the candidates (a grid may swap in a step holding one) hold
        (``None`` if none does)."""
        if self.accountant is not None:
            return self.accountant
        found = {}
        for model in estimators:
            found.update({id(v): v for k, v in model.get_params(deep=True).items()
                          if _is_ledger_key(k) and v is not None})
        if len(found) > 1:
            raise ValueError(
                "estimator holds several different accountants; pass "
                "accountant=... to PrivateSearchCV so one ledger records the search."
            )
        return next(iter(found.values()), None)

    def _check_ledger_reaches_workers(self, ledger):
        if (ledger is not None and ledger.path is None and ledger.url is None
                and joblib.effective_n_jobs(self.n_jobs) != 1):
            raise ValueError(
                "n_jobs != 1 with an in-memory BudgetAccountant: worker processes "
                "would charge copies of the ledger. Create it with "
                "BudgetAccountant(path=...) (a file) or BudgetAccountant(url=...) "
                "(PostgreSQL, also across machines), or use n_jobs=1."
            )

    def _folds(self, n_samples, public_rng):
        if n_samples < self.cv:
            raise ValueError(f"cv={self.cv} folds need at least {self.cv} rows, got {n_samples}.")
        folds = np.array_split(public_rng.permutation(n_samples), self.cv)
        return [(np.sort(np.concatenate(folds[:j] + folds[j + 1:])), np.sort(folds[j]))
                for j in range(self.cv)]

    def _fit_folds(self, models, X, y, splits, scoring, verbose):
        tasks = [(model, X, y, train, test, scoring, c)
                 for c, model in enumerate(models) for train, test in splits]
        with Progress(type(self).__name__, verbose, total=len(tasks),
                      unit="fits") as progress:
            progress.log(f"{len(models)} candidates x {len(splits)} folds = "
                         f"{len(tasks)} private fits")
            if joblib.effective_n_jobs(self.n_jobs) == 1:
                results = (_fit_and_count(*task) for task in tasks)
            else:
                results = joblib.Parallel(n_jobs=self.n_jobs, return_as="generator")(
                    joblib.delayed(_fit_and_count)(*task) for task in tasks)
            collected = []
            for result in results:
                collected.append(result)
                progress.update(1)
            return collected

    # ---------------------------------------------------------------- fit
    def fit(self, X, y, **fit_params):
        """Run the private search; see the class Notes for what it costs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        **fit_params : not supported (raises if given).

        Returns
        -------
        self
        """
        params = validate_params(self)
        forget_fit(self)  # a refit that fails leaves no half-old, half-new result
        if y is None:
            raise ValueError(
                f"{type(self).__name__} needs y: every candidate is scored on held-out "
                "rows with scoring(estimator, X, y). Pass the labels (any per-row "
                "values your scoring reads).")
        if fit_params:
            raise TypeError(
                "PrivateSearchCV.fit takes no fit parameters: their effect on the "
                "privacy of each fit could not be accounted."
            )
        candidates = list(ParameterGrid(params["param_grid"]))
        _refuse_grid_ledgers(candidates)
        models = [_candidate(params["estimator"], c) for c in candidates]
        ledger = self._ledger([params["estimator"]] + models)
        self._check_ledger_reaches_workers(ledger)
        for model in models:  # every fit is charged to the search's ledger
            model.set_params(**{k: ledger for k in _ledger_keys(model)})
        spends = _check_candidates(models)  # before any fit is charged
        if ledger is not None:
            self._check_whole_search(ledger, spends, params)
        randomness = release_randomness(self.random_state, name="random_state")
        X, y = indexable(X, y)
        splits = self._folds(len(y), randomness.public)
        _rehearse(models, X, y, splits[0][0])  # before any fit is charged
        results = self._fit_folds(models, X, y, splits, params["scoring"], params["verbose"])

        counts = np.zeros(len(candidates))
        eps = np.zeros(len(candidates))
        delta = np.zeros(len(candidates))
        max_fit = np.zeros((len(candidates), 2))
        certified = all(r.certified for r in results)
        for r in results:
            counts[r.candidate] += r.utility
            eps[r.candidate] += r.spent.epsilon
            delta[r.candidate] += r.spent.delta
            max_fit[r.candidate] = np.maximum(max_fit[r.candidate], r.spent)

        if ledger is not None and params["refit"]:
            # the selection and the refit (padded to the costliest candidate) together,
            # before the selection is charged: a refit refused afterwards would waste it
            worst_eps, worst_delta = max_fit.max(axis=0)
            try:
                ledger.check(params["epsilon_selection"] + float(worst_eps), float(worst_delta),
                             neighbouring="substitution")
            except BudgetError as exc:
                raise BudgetError(
                    f"{exc} The search's fold fits were charged; the selection "
                    f"(epsilon {params['epsilon_selection']:g}) and the refit (up to "
                    f"({float(worst_eps):g}, {float(worst_delta):g})) would exceed the "
                    "budget, so neither was run: raise the budget, or pass refit=False."
                ) from None
        best = rational_permute_and_flip(counts, params["epsilon_selection"], 1.0, randomness.noise)
        public_steps = all(_preprocessing_is_public(m) for m in models)  # a grid may swap one
        certified = (certified and not randomness.seeded and public_steps
                     and params["scoring"] == "accuracy")
        charge(ledger, params["epsilon_selection"], 0.0,
               label=f"{type(self).__name__} selection", certified=certified)
        total = PrivacySpent(eps.sum() + params["epsilon_selection"], delta.sum())
        if params["refit"]:
            best_estimator, total, certified = self._refit(
                models[best], X, y, ledger, max_fit, best, total, certified)
        # publish only now: everything above has been charged
        self.n_splits_ = self.cv
        self.cv_results_ = self._results(candidates, eps, delta)
        self.best_index_ = int(best)
        self.best_params_ = candidates[best]
        if params["refit"]:
            self.best_estimator_ = best_estimator
        self.privacy_spent_ = total
        self.guarantee_ = self._guarantee(total, certified, randomness.seeded, public_steps,
                                          params["scoring"])
        return self

    def _check_whole_search(self, ledger, spends, params):
        """Refuse, before any fit, a search the ledger cannot pay to the end: the
        folds, the selection and the padded refit (when every candidate's charge
        is known from its parameters; else the selection alone is checked, and
        the fits are checked one by one as they are charged)."""
        if spends is None:
            ledger.check(params["epsilon_selection"], neighbouring="substitution")
            return
        fits = self.cv * spends.sum(axis=0)
        refit = spends.max(axis=0) if params["refit"] else np.zeros(2)
        epsilon = float(fits[0] + params["epsilon_selection"] + refit[0])
        delta = float(fits[1] + refit[1])
        try:  # a delta of 1 or more exceeds every finite delta budget; capped to be checkable
            ledger.check(epsilon, min(delta, float(np.nextafter(1.0, 0.0))),
                         neighbouring="substitution")
        except BudgetError as exc:
            raise BudgetError(
                f"{exc} The whole search would charge ({epsilon:g}, {delta:g}): "
                f"{len(spends)} candidates x {self.cv} folds, the selection"
                f"{' and the refit' if params['refit'] else ''}; nothing was fitted or "
                "charged. Raise the budget, or search fewer candidates, folds or "
                "smaller epsilons.") from None

    def _refit(self, model, X, y, ledger, max_fit, best, total, certified):
        """Charge the worst-case refit padding, then refit the selected candidate.

        The padding makes the refit's charge ``max_c eps_c`` whatever is
        selected (class Notes, step iii).
        """
        pad_eps, pad_delta = max_fit.max(axis=0) - max_fit[best]
        if pad_eps > 0 or pad_delta > 0:
            # the ledger refuses epsilon = 0; a delta-only padding gets the
            # smallest positive epsilon instead (a negligible overcharge)
            pad_eps = max(float(pad_eps), np.finfo(float).tiny)
            charge(ledger, pad_eps, float(pad_delta),
                   label=f"{type(self).__name__} refit padding", certified=certified)
        model = clone(model).fit(X, y)
        spent, refit_certified = _release_report(model)
        total = PrivacySpent(total.epsilon + float(pad_eps) + spent.epsilon,
                             total.delta + float(pad_delta) + spent.delta)
        return model, total, certified and refit_certified

    @staticmethod
    def _results(candidates, eps, delta):
        results = {"params": candidates}
        names = sorted({k for c in candidates for k in c})
        for name in names:
            column = MaskedArray(np.empty(len(candidates), dtype=object),
                                 mask=[name not in c for c in candidates])
            for i, c in enumerate(candidates):
                if name in c:
                    column[i] = c[name]
            results[f"param_{name}"] = column
        results["epsilon_spent"] = eps
        results["delta_spent"] = delta
        return results

    def _guarantee(self, total, certified, seeded, public_steps, scoring):
        not_certified = []
        if seeded:
            not_certified.append(SEEDED_NOISE_NOTE)
        if not public_steps:
            not_certified.append(_PUBLIC_STEPS_NOTE)
        per_row = "per-row utility clipped to [0, 1] on a dyadic grid (exact float sums)"
        if scoring == "accuracy":
            per_row += ": each score has sensitivity 1"
        else:
            not_certified.append(
                "scoring is a callable: the scores have sensitivity 1 only if each "
                "row's utility depends on that row alone (a fold-level metric spread "
                "over the rows does not), which the code cannot check")
        if not certified and not not_certified:
            not_certified.append("some candidate fit's own guarantee_ is not certified")
        return Guarantee(
            claim=f"{total} for the whole search (selection, chosen parameters"
                  + (", refitted model)" if self.refit else ")"),
            source=_SELECTION_SOURCE,
            certified=bool(certified),
            assumptions_certified=(
                "fold partition drawn from public randomness (never from labels)",
                per_row,
                "no exact held-out score is released",
            ),
            assumptions_not_certified=tuple(not_certified),
            notes=("neighbouring datasets: substitution of one row (n public)",),
        )

    # -------------------------------------------------------- delegation
    def _check_refitted(self):
        check_is_fitted(self, "best_index_")
        if not hasattr(self, "best_estimator_"):
            raise AttributeError(
                "This PrivateSearchCV was fitted with refit=False; refit=True gives a "
                "best_estimator_ to predict with."
            )

    @available_if(_estimator_has("predict"))
    def predict(self, X):
        self._check_refitted()
        return self.best_estimator_.predict(X)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        self._check_refitted()
        return self.best_estimator_.predict_proba(X)

    @available_if(_estimator_has("predict_log_proba"))
    def predict_log_proba(self, X):
        self._check_refitted()
        return self.best_estimator_.predict_log_proba(X)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        self._check_refitted()
        return self.best_estimator_.decision_function(X)

    @available_if(_estimator_has("transform"))
    def fit_transform(self, X, y=None, **fit_params):
        """Fit, then ``transform``; a search over a release refuses a ``y``, as the
        release does: a supervised Pipeline would pair its synthetic rows with the
        real ``y``."""
        if y is not None and hasattr(_final_step(self.estimator), "fit_resample"):
            raise ValueError(
                f"{type(self).__name__}.fit_transform was called with a y over a release "
                f"({type(_final_step(self.estimator)).__name__}), whose synthetic rows "
                "would be paired with the REAL y. Use fit(X, y), then draw synthetic "
                "(X, y) together with best_estimator_.sample(n).")
        return self.fit(X, y, **fit_params).transform(X)

    @available_if(_estimator_has("transform"))
    def transform(self, X):
        self._check_refitted()
        return self.best_estimator_.transform(X)

    @available_if(_estimator_has("score"))
    def score(self, X, y=None):
        """Score of ``best_estimator_`` on the data you pass (your own call)."""
        self._check_refitted()
        return self.best_estimator_.score(X, y)

    @property
    def classes_(self):
        self._check_refitted()
        return self.best_estimator_.classes_

    @property
    def n_features_in_(self):
        self._check_refitted()
        return self.best_estimator_.n_features_in_

    @property
    def feature_names_in_(self):
        self._check_refitted()
        return self.best_estimator_.feature_names_in_
