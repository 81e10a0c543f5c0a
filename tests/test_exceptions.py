"""Every warning sksmooth emits is a SksmoothWarning (issue 36, item 4)."""

import ast
import builtins
import importlib
import pathlib
import warnings

import numpy as np
import pytest

import sksmooth
from sksmooth import (DefaultsWarning, PrivacyLeakWarning, PrivacyWarning,
                      PrivateProperClassifier, SksmoothWarning)
from sksmooth.classes import Parities
from sksmooth.exceptions import DataConversionWarning

PACKAGE = pathlib.Path(sksmooth.__file__).parent


def _warn_calls():
    """``(module, line, category expression)`` of each ``warnings.warn`` call."""
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        module = module.removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "warn"
                    and getattr(node.func.value, "id", None) == "warnings"):
                category = next((k.value for k in node.keywords if k.arg == "category"),
                                node.args[1] if len(node.args) > 1 else None)
                yield module, node.lineno, category


def test_every_warn_call_passes_a_sksmooth_category():
    calls = list(_warn_calls())
    assert len(calls) > 10  # the scan sees the package's warnings
    for module, line, category in calls:
        where = f"{module}:{line}"
        assert isinstance(category, ast.Name), f"{where}: pass a sksmooth warning class"
        cls = getattr(importlib.import_module(module), category.id, None) or getattr(
            builtins, category.id)
        assert issubclass(cls, SksmoothWarning), f"{where}: {cls.__name__} is not sksmooth's"


def test_hierarchy_and_exports():
    for cls in (PrivacyLeakWarning, PrivacyWarning, DefaultsWarning, DataConversionWarning):
        assert issubclass(cls, SksmoothWarning)
    assert issubclass(SksmoothWarning, UserWarning)
    # scikit-learn's checks and filters still see the column-vector warning as theirs
    from sklearn.exceptions import DataConversionWarning as SklearnDataConversionWarning
    assert issubclass(DataConversionWarning, SklearnDataConversionWarning)


def test_filtering_by_sksmooth_category_silences_a_cap_warning():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        Parities().cover(bounds=(0, 1), n_features=6, max_size=5, random_state=0)
    assert [w.category for w in seen] == [DefaultsWarning]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=SksmoothWarning)
        Parities().cover(bounds=(0, 1), n_features=6, max_size=5, random_state=0)


@pytest.mark.parametrize("name", ["SksmoothWarning", "DefaultsWarning"])
def test_exported_from_both_places(name):
    assert getattr(sksmooth, name) is getattr(sksmooth.exceptions, name)


def test_user_stacklevel_names_the_callers_line_through_scikit_learn_and_joblib():
    from sklearn.model_selection import cross_val_score

    from sksmooth import PrivateSearchCV

    X = np.random.default_rng(0).uniform(size=(60, 2))
    y = (X[:, 0] * 3).astype(int)
    two_label = PrivateProperClassifier(hypotheses="stumps", bounds=(0, 1), classes=[0, 1, 2])
    with pytest.warns(DefaultsWarning, match="names at most 2") as record:
        cross_val_score(two_label, X, y, cv=2)
        PrivateSearchCV(two_label, {"epsilon": [0.5, 1.0]}, epsilon_selection=0.5,
                        cv=2).fit(X, y)  # named joblib/parallel.py
    assert {w.filename for w in record} == {__file__}
