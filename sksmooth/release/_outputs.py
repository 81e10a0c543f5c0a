"""Synthetic-data outputs of the grid-family releases (``ReleaseMixin``).

``sample``, ``transform``, ``fit_resample``, ``answer`` and the universe:
post-processing of the released model with the sampling stream. Pipeline
contract (SPEC §7): ``fit_transform(X)`` / ``transform(X)`` emit synthetic
rows; with a ``y`` they raise and point to ``fit_resample`` / ``as_sampler``,
so fitting through them never pairs synthetic X with real y (a release
frozen into a supervised ``Pipeline`` is the one route this cannot close).
"""

import copy

import numpy as np
from sklearn import get_config
from sklearn.base import TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._randomness import sampling_generator
from .._validation import call_user_function
from ._base import ReleaseData
from ._columns import check_n_samples, format_labels
from ._sampler import SyntheticSampler
from ._systematic import check_scheme
from ._columns import is_dataframe

__all__ = ["ReleaseMixin"]


_SUPERVISED_MISUSE = (
    "{name}.{method} was called with a y: the release emits synthetic rows, and a "
    "supervised Pipeline or a ColumnTransformer would pair them with the REAL y (or "
    "swap real columns for synthetic ones). Use fit_resample(X, y), which returns "
    "synthetic (X, y) together, and inside an imblearn.pipeline.Pipeline use "
    "{name}(...).as_sampler()."
)


class ReleaseMixin(TransformerMixin, ReleaseData):
    """Synthetic-data outputs shared by :class:`SmoothMWEM` and :class:`SubsampledNetMechanism`.

    The fitted release is ``model_`` (a
    :class:`~sksmooth.release._model.ReleaseModel` over ``_universe``);
    everything here is post-processing of it with the *sampling* stream,
    independent of the mechanism's noise.
    """

    def __init_subclass__(cls, **kwargs):
        # no wrapping by scikit-learn: it would give synthetic rows X's index
        super().__init_subclass__(auto_wrap_output_keys=None, **kwargs)

    def set_output(self, *, transform=None):
        """Container of :meth:`transform`'s synthetic rows, as scikit-learn's
        ``set_output``: ``'pandas'`` (a fresh ``0 .. n-1`` index, never
        ``X``'s), ``'default'``, or ``None`` (unchanged)."""
        if transform not in (None, "default", "pandas"):
            raise ValueError(f"transform must be 'default', 'pandas' or None, got {transform!r}"
                             " (for polars, convert the pandas output: polars.from_pandas).")
        if transform is not None:
            self._transform_output = transform
        return self

    def __sklearn_clone__(self):
        clone = super().__sklearn_clone__()
        if "_transform_output" in vars(self):
            clone._transform_output = self._transform_output
        return clone

    def sample(self, n_samples, random_state=None, *, scheme="systematic"):
        """Draw synthetic rows from the released distribution (post-processing, free).

        Parameters
        ----------
        n_samples : int
        random_state : None, int or Generator
            Randomness of the draw only (never the fit's noise stream);
            ``None`` is fresh OS entropy. Seeding a draw costs no privacy.
        scheme : {'systematic', 'iid'}, default='systematic'
            ``'systematic'``: every row has exactly the released
            distribution and the rows' counts are within one of their
            expectation on each point of a dense model, on each clique
            given its separator for a factored one (systematic sampling,
            Madow & Madow 1944; rows exchangeable, not independent).
            ``'iid'``: independent rows.

        Returns
        -------
        X_syn : ndarray or DataFrame of shape (n_samples, n_features)
            Synthetic rows in the input's format (a DataFrame with the
            original column names when a DataFrame was fitted). Dtypes come
            from the public schema, not the input's: a column with declared
            levels gets its levels' dtype (``levels={c: int}``: integers), a
            ``Categorical`` its dtype, a continuous column float64 (an
            ``int64`` or ``Int64`` column given only ``bounds`` comes back as
            floats).
            Continuous coordinates are drawn uniformly inside their grid bin
            (``jitter=True``) or at its centre.
        y_syn : ndarray or Series of shape (n_samples,)
            Only when labels were fitted: returned as ``(X_syn, y_syn)``; a
            pandas Series with the fitted ``y``'s name when ``y`` was one, and its
            dtype when that is public (a Categorical).
        """
        check_is_fitted(self, "model_")
        return self._emit(check_n_samples(n_samples), sampling_generator(random_state),
                          check_scheme(scheme))

    def _emit(self, n_samples, rng, scheme="systematic"):
        codes = self.model_.sample(n_samples, rng, scheme)
        X_num, y_syn = self._universe.decode_codes(codes, rng=rng,
                                                   jitter=getattr(self, "jitter", False))
        X_syn = self._schema.decode(X_num)
        if y_syn is None:
            return X_syn
        return X_syn, format_labels(y_syn, self._y_name, self._y_dtype)

    def fit_transform(self, X, y=None, **fit_params):
        """Fit, then emit ``len(X)`` synthetic rows; refuses a ``y`` (see class doc)."""
        if y is not None:
            raise ValueError(_SUPERVISED_MISUSE.format(name=type(self).__name__,
                                                       method="fit_transform"))
        return self.fit(X, **fit_params).transform(X)

    def transform(self, X):
        """``len(X)`` fresh synthetic rows (the values of ``X`` are not used).

        Drawn from fresh OS entropy (post-processing); a release fitted with a
        seed draws them reproducibly instead: the same rows for the same
        ``len(X)``, from a copy of its sampling stream (so ``fit_transform``
        and a seeded Pipeline repeat). When labels were fitted, the synthetic
        labels are dropped: use :meth:`sample` or :meth:`fit_resample` to get
        rows and labels drawn together.
        """
        check_is_fitted(self, "model_")
        n = self._numeric(X, self._schema, reset=False).shape[0]
        rng = copy.deepcopy(self._sampling_rng) if self._seeded else sampling_generator(None)
        out = self._emit(n, rng)
        out = out[0] if isinstance(out, tuple) else out
        container = vars(self).get("_transform_output", get_config()["transform_output"])
        if isinstance(out, np.ndarray) and container == "pandas":
            import pandas as pd  # noqa: PLC0415 (set_output(transform='pandas') needs it)

            out = pd.DataFrame(out, columns=self.get_feature_names_out())
        return out

    def fit_resample(self, X, y):
        """Fit on ``(X, y)`` and return a synthetic ``(X_syn, y_syn)`` of ``len(X)`` rows.

        imbalanced-learn's sampler contract; ``y`` is one more attribute. The
        rows are drawn from the release's sampling stream (independent of its
        noise). Inside ``imblearn.pipeline.Pipeline`` use :meth:`as_sampler`
        (imbalanced-learn refuses steps that also have ``transform``).
        """
        self.fit(X, y)
        n = X.shape[0] if is_dataframe(X) else np.shape(X)[0]
        return self._emit(n, self._sampling_rng)

    def as_sampler(self):
        """This release as an imbalanced-learn sampler (``fit_resample`` only).

        Returns
        -------
        SyntheticSampler
        """

        return SyntheticSampler(self)

    def get_feature_names_out(self, input_features=None):
        """Column names of the synthetic rows (those of the fitted input)."""
        check_is_fitted(self, "model_")
        return self._schema.feature_names(input_features)

    def answer(self, queries=None):
        """Answer queries from the released distribution (post-processing).

        Parameters
        ----------
        queries : None, object with ``evaluate(X)``, or callable
            ``None``: the fitted workload (``n_queries_`` answers). Otherwise
            any finite query set evaluated on the universe points (in the
            internal numeric coding): ``queries.evaluate(X)`` or
            ``queries(X)`` (``queries(X, y)`` when labels were fitted)
            returning a boolean matrix ``(n_points, k)``.

        Returns
        -------
        answers : ndarray of shape (k,)
        """
        check_is_fitted(self, "model_")
        p = self.distribution_
        if queries is None and p is None:  # a factored model: from its table marginals
            wl = self.workload_
            return wl.answers_from_marginals(self.model_.marginals(wl.tables))
        if queries is None:
            return self.workload_.answers(p)
        if not (hasattr(queries, "evaluate") or callable(queries)):
            raise TypeError("queries must be None, an object with evaluate(X) or a callable.")
        if p is None:
            raise ValueError("answer(queries) evaluates queries on every universe point, but "
                             "this release is a factored model over a grid larger than "
                             "max_universe_size; answer the fitted workload (queries=None), "
                             "use model_.marginal(attrs), or evaluate on sample(n) rows.")
        uni = self._universe
        total = None
        for start in range(0, uni.size, 200_000):
            flat = np.arange(start, min(start + 200_000, uni.size))
            keep = p[flat] > 0
            if not np.any(keep):
                continue
            Xs, ys = uni.points(flat[keep])
            if hasattr(queries, "evaluate"):
                vals = queries.evaluate(Xs)
            else:
                args = (Xs,) if ys is None else (Xs, ys)
                vals = call_user_function(queries, "queries", *args)
            vals = np.asarray(vals, dtype=float)
            vals = vals[:, None] if vals.ndim == 1 else vals
            part = p[flat[keep]] @ vals
            total = part if total is None else total + part
        return total

    @property
    def universe_(self):
        """Universe points ``(X_points, y_points)``; for a grid, bin centres."""
        check_is_fitted(self, "model_")
        if self.distribution_ is None:  # AttributeError: hasattr() and dir() keep working
            raise AttributeError("universe_ lists every universe point, but this release is a "
                             "factored model over a grid larger than max_universe_size "
                             f"({self._universe.size:.3g} points); use "
                             "model_.marginal(attrs) or sample(n) rows.")
        return self._universe.points()

    def _remember_input(self, stream):
        """Public facts about the input needed to format outputs."""
        self._schema = stream.frame.schema
        self._sampling_rng = stream.randomness.sampling
        self._seeded = stream.randomness.seeded
        self._y_name, self._y_dtype = stream.y_name, stream.y_dtype
