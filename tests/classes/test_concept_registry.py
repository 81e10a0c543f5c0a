import pytest

from sksmooth.classes import FiniteClass, Halfspaces, Stumps, check_concept_class


def test_check_concept_class():
    assert isinstance(check_concept_class("stumps"), Stumps)
    h = check_concept_class("halfspaces_origin")
    assert isinstance(h, Halfspaces) and h.fit_intercept is False
    F = FiniteClass(matrix=[[1, -1]])
    assert check_concept_class(F) is F
    s = Stumps()
    assert check_concept_class(s) is s
    with pytest.raises(ValueError, match="queries must be one of"):
        check_concept_class("trees", name="queries")
    with pytest.raises(ValueError, match="hypotheses"):
        check_concept_class(3)
