"""Binary and multiclass perturbed ERM: how labels reach the oracle and how
the Gaussian perturbation becomes hallucinated examples.

Binary (``k = 2``): labels in {-1, +1} and the perturbation
``eta w(f)``, ``w(f) = m**-0.5 sum_j xi_j f(z_j)`` (module docstring of
``_perturbed_erm``).

Multiclass (``k > 2``): labels are indices ``0..k-1`` and the perturbation is
the one-hot process ``w(f) = m**-0.5 sum_j sum_c xi_{jc} 1[f(z_j) = c]``,
``xi_{jc} ~ N(0, 1)`` i.i.d. -- each ``w(f)`` is again N(0, 1), and
``E (w(f) - w(g))^2 = 2 D(f, g) / m`` with ``D`` the number of points where
``f`` and ``g`` disagree. With the 0-1 loss ``1[f(z) != c]``:

* ``xi_{jc} < 0``: ``xi 1[f = c] = |xi| 1[f != c] - |xi|``, i.e. the example
  ``(z_j, c)`` with weight ``|xi| eta / sqrt(m)``;
* ``xi_{jc} > 0``: since ``sum_{c' != c} 1[f != c'] = k - 2 + 1[f = c]``,
  ``xi 1[f = c] = xi sum_{c' != c} 1[f != c'] - const``, i.e. the examples
  ``(z_j, c')``, ``c' != c``, each with weight ``xi eta / sqrt(m)``:
  "the labels are chosen by the sign of the perturbation, per class".

So example ``(z_j, c')`` weighs ``eta / sqrt(m) (max(-xi_{jc'}, 0) +
sum_{c != c'} max(xi_{jc}, 0)) >= 0``, and the argmin over ``F`` is that
of ``L(f) + eta w(f)``. Privacy: Lemma 1 of Block and Shetty is stated for
the canonical process of a real-valued class; this process is the canonical
process of the embedded class ``f'(z, c) = 1[f(z) = c]`` on the ``m k``
points ``(z_j, c)`` scaled by ``sqrt(k)``, which changes Lemma 2's formula to
``epsilon = 32 / (eta rho^2) (G + sqrt(k) sqrt(2 log(2/delta)))`` with
``rho^2 = 2 D_min / m``. We calibrate with it, but the extension is our
derivation, not the paper's: multiclass fits are charged as *not certified*.
"""

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from .._untrusted import encode_private_labels
from .._validation import (BinaryLabels, check_binary_target, check_public_classes,
                           reads_data, refuse_unset)
from ._setup import hallucinate

__all__ = ["BinaryCodec", "MulticlassCodec", "label_codec", "online_codec", "MULTICLASS_NOTE"]

MULTICLASS_NOTE = (
    "multiclass: calibrated by Lemma 1 applied to the one-hot embedding of the class "
    "(epsilon = 32/(eta rho^2) (G + sqrt(k) sqrt(2 log(2/delta))), rho^2 = 2 D_min/m); "
    "the extension is this package's derivation, not a theorem of the paper")


class BinaryCodec:
    """Two labels: the oracle sees {-1, +1}."""

    multiclass = False

    def __init__(self, classes_):
        self.classes_ = classes_

    @property
    def n_classes(self):
        """Labels the oracle distinguishes (2 for binary, even with one seen label)."""
        return len(self.classes_) if self.multiclass else 2

    def encode(self, y):
        return np.where(encode_private_labels(y, self.classes_) == 1, 1.0, -1.0)

    def decode(self, pred):
        return BinaryLabels.decode(np.asarray(pred), self.classes_)

    def encode_known(self, y):
        """Online (not private): refuse labels outside ``classes_``, then encode."""
        y = np.asarray(y)
        if len(self.classes_) == 2:  # two comparisons: a fast path for small batches
            plus = y == self.classes_[1]
            if np.all(plus | (y == self.classes_[0])):
                return np.where(plus, 1.0, -1.0)
        return BinaryLabels.encode(y, self.classes_)  # refuses unknown labels

    def hallucinated_rows(self, Z):
        """The rows of the hallucinated examples (fixed by the public ``Z``)."""
        return Z

    def hallucinated_labels(self, Z, eta, rng):
        """Labels and weights of :meth:`hallucinated_rows` realising ``eta w(f)``."""
        return hallucinate(Z, eta, rng)

    def hallucinate(self, Z, eta, rng):
        """Rows, labels and weights realising ``eta w(f)`` (``xi_j`` from ``rng``)."""
        return (self.hallucinated_rows(Z), *self.hallucinated_labels(Z, eta, rng))

    def perturbed_rows(self, X, y_pm1, scale, rng):
        """The label-perturbation variant: ``1[f(x_s) != y_s] + (scale g_s / 2) f(x_s)``,
        ``g_s ~ N(0, 1)``, is (up to a constant) the weighted 0-1 loss with label
        ``sign(y_s - scale g_s)`` and weight ``|y_s - scale g_s|``."""
        perturbed = y_pm1 - scale * rng.standard_normal(len(y_pm1))
        return X, np.where(perturbed >= 0, 1.0, -1.0), np.abs(perturbed)

    def lemma2_complexity(self, G, delta):
        return G


class MulticlassCodec(BinaryCodec):
    """``k > 2`` labels: the oracle sees indices ``0..k-1`` (module docstring)."""

    multiclass = True

    def encode(self, y):
        return encode_private_labels(y, self.classes_).astype(float)

    def decode(self, pred):
        return self.classes_[np.asarray(pred).astype(np.intp)]

    def encode_known(self, y):
        y = np.asarray(y)
        if not np.all(np.isin(y, self.classes_)):
            BinaryLabels.encode(y, self.classes_)  # its error (no label echoed)
        return self.encode(y)

    def hallucinated_rows(self, Z):
        return np.repeat(Z, len(self.classes_), axis=0)

    def hallucinated_labels(self, Z, eta, rng):
        m, k = len(Z), len(self.classes_)
        xi = rng.standard_normal((m, k))
        pos, neg = np.maximum(xi, 0.0), np.maximum(-xi, 0.0)
        weights = eta / np.sqrt(m) * (neg + pos.sum(axis=1, keepdims=True) - pos)
        return np.tile(np.arange(k, dtype=float), m), weights.ravel()

    def perturbed_rows(self, X, codes, scale, rng):
        """The label-perturbation variant, one-hot: row ``s`` costs
        ``1[f(x_s) != y_s] + scale sum_c g_{sc} 1[f(x_s) = c]``, realised as
        ``k`` copies of the row with the weights of the module docstring plus 1
        on the row's own label."""
        n, k = len(X), len(self.classes_)
        g = rng.standard_normal((n, k))
        pos, neg = np.maximum(g, 0.0), np.maximum(-g, 0.0)
        weights = scale * (neg + pos.sum(axis=1, keepdims=True) - pos)
        weights[np.arange(n), np.asarray(codes, dtype=np.intp)] += 1.0
        return (np.repeat(X, k, axis=0), np.tile(np.arange(k, dtype=float), n),
                weights.ravel())

    def lemma2_complexity(self, G, delta):
        """``G`` such that Lemma 2's formula gives the one-hot calibration."""
        k = len(self.classes_)
        return G + (np.sqrt(k) - 1.0) * np.sqrt(2.0 * np.log(2.0 / delta))


_ONE_LABEL = ("y contains only one class; this classifier needs two or more. Pass the "
              "public label set with classes=[...] (on the first partial_fit call, or as "
              "the classes parameter).")


def online_codec(y, classes, max_classes):
    """The codec of an online run (not private: the label set may come from
    ``y``; labels outside the set are refused)."""
    check_classification_targets(y)
    labels = np.unique(y) if reads_data(classes) else check_public_classes(classes)
    if len(labels) < 2:
        raise ValueError(_ONE_LABEL)
    if len(labels) > max_classes:
        raise ValueError(f"classes lists {len(labels)} labels; the cap is {max_classes} "
                         "(the multiclass oracle's memory grows like k^2).")
    if len(labels) <= 2:
        codec = BinaryCodec(BinaryLabels.fit_classes(y, classes=classes))
    else:
        codec = MulticlassCodec(labels)
    codec.encode_known(y)  # unknown labels: refuse before any draw
    return codec


def label_codec(y, classes):
    """The codec for the public ``classes`` (or, with ``classes='data'``, not private,
    the labels of ``y``; ``None`` is refused: :func:`~sksmooth._validation.refuse_unset`)."""
    if refuse_unset(classes, "classes"):
        check_classification_targets(y)
        n_labels = len(np.unique(y))
        if n_labels < 2:
            raise ValueError(_ONE_LABEL)
        if n_labels == 2:
            check_binary_target(y)
            return BinaryCodec(BinaryLabels.fit_classes(y))
        return MulticlassCodec(np.unique(y))
    classes_ = np.unique(np.asarray(classes))
    return (BinaryCodec if len(classes_) <= 2 else MulticlassCodec)(classes_)
