"""Bundled datasets with public domain bounds (no downloads).

Unlike :mod:`sklearn.datasets`, every loader here also returns the *public*
box of its features, taken from published documentation or the data's
definition, never from the rows: the box a private estimator in
:mod:`sksmooth` needs as ``bounds``. ``as_frame=True`` gives pandas objects
with feature names; :mod:`sksmooth.preprocessing` maps the box onto ``[0, 1]``.
"""

from ._bundled import (
    load_breast_cancer_public,
    load_digits_binary_public,
    load_iris_public,
    load_wine_public,
    published_bounds,
)

__all__ = [
    "load_breast_cancer_public",
    "load_digits_binary_public",
    "load_iris_public",
    "load_wine_public",
    "published_bounds",
]
