"""Private model selection, above the learners.

Where :mod:`sklearn.model_selection` scores candidates exactly on held-out
folds and publishes those scores, this subpackage treats the held-out rows
as private too: :class:`PrivateSearchCV` fits every candidate (each fit a
private release charged by the candidate itself), selects among them with
an exact private selection on held-out counts, and publishes only the
selection, the chosen parameters and the refitted model — never a score.
It sits above :mod:`sksmooth.proper`, :mod:`sksmooth.perturbed` and the
other learners, which it only calls through the scikit-learn API.
"""

from ._search import PrivateSearchCV

__all__ = ["PrivateSearchCV"]
