"""Private model selection: :class:`PrivateSearchCV` fits candidates (each
charging its own fit), selects privately on held-out counts and publishes
the selection and refitted model, never a score.
"""

from ._search import PrivateSearchCV

__all__ = ["PrivateSearchCV"]
