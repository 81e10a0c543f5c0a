"""sksmooth._values: missing values and level comparison."""
from decimal import Decimal

import numpy as np
import pytest

from sksmooth._values import as_floats, is_missing, same_values

pd = pytest.importorskip("pandas")


@pytest.mark.parametrize("value", [None, np.nan, np.float32("nan"), pd.NA, pd.NaT,
                                   np.datetime64("NaT"), Decimal("NaN"), Decimal("sNaN")])
def test_every_kind_of_missing_value_is_missing(value):
    assert is_missing(value)


@pytest.mark.parametrize("value", [0, 0.0, "", False, "nan", Decimal(1), np.array([1, 2]),
                                   (1, 2), object()])
def test_values_are_not_missing(value):
    # an array or a tuple level is a value: its comparison is element-wise or raises
    assert not is_missing(value)


def test_same_values_treats_missing_levels_as_equal_and_compares_others_by_value():
    assert same_values(["p", np.nan], ["p", np.nan])  # np.array_equal says False
    assert same_values([1, "a", None], [True, "a", pd.NA])
    assert not same_values(["1"], [1])
    assert not same_values([np.array([1, 2])], [np.array([1, 3])])
    assert not same_values(["p"], ["p", None])


@pytest.mark.parametrize("stamp", [np.timedelta64(7, "s"), np.datetime64("2020-01-01"),
                                   np.timedelta64("NaT")])
def test_a_time_value_reads_as_missing_whatever_another_row_holds(stamp):
    # found by attack reviews: a numpy time value in an object column read as its count
    # of units when every entry converted, as NaN once another row held a text; dates
    # and durations are no numbers: missing, whatever the other rows hold
    pd = pytest.importorskip("pandas")
    for column in (np.array([0.1, stamp, 0.4], dtype=object),
                   np.array([0.1, stamp, "n/a"], dtype=object),
                   pd.Series([0.1, stamp, 0.4], dtype=object),
                   pd.Series([0.1, stamp, "n/a"], dtype=object)):
        floats = as_floats(column)
        assert np.isnan(floats[1]) and floats[0] == 0.1
    assert np.isnan(as_floats(pd.Series(pd.to_datetime(["2020-01-01", None])))).all()


def test_one_masked_entry_warns_nothing():
    # numpy warned "converting a masked element to nan" for that row alone, in every
    # private estimator: a warning told the row was there (found by a review)
    import warnings

    from sksmooth import PrivateProperClassifier

    values = np.array([0.1, 0.2, 0.3], dtype=object)
    values[1] = np.ma.masked
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(as_floats(values), [0.1, np.nan, 0.3])
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (50, 2)).astype(object)
    y = (rng.random(50) > 0.5).astype(int)
    caught = []
    for entry in (0.5, np.ma.masked):
        X[3, 0] = entry
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            PrivateProperClassifier(bounds=(0, 1), classes=[0, 1]).fit(X, y)
        caught.append(sorted(str(w.message) for w in seen))
    assert caught[0] == caught[1]


def test_reading_values_leaves_the_warning_filters_alone():
    # as_floats silenced warnings with catch_warnings, which is not thread-safe: under
    # dask's threaded scheduler an 'ignore' filter was left behind for the whole
    # process, and PrivacyLeakWarning stopped showing (found by a review)
    import threading
    import warnings

    before = list(warnings.filters)
    column = np.array([0.5, np.ma.masked, 2 + 0j, "x", 1], dtype=object)
    long = np.tile(column, 20_000)  # long enough for threads to switch mid-conversion
    errors = []

    def read():
        try:
            for _ in range(4):
                as_floats(long)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and warnings.filters == before
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        np.testing.assert_array_equal(as_floats(column), [0.5, np.nan, 2.0, np.nan, 1.0])
        np.testing.assert_array_equal(as_floats(list(column)), [0.5, np.nan, 2.0, np.nan, 1.0])
    assert not seen  # and nothing warns


@pytest.mark.parametrize("other", ["0", "abc", 2 + 0j, np.ma.masked])
def test_each_entry_reads_the_same_whatever_the_other_rows_hold(other):
    # read through numpy's complex conversion, '1+0j' was 1 beside '0' and NaN beside
    # 'abc'; a masked 0-d array read its hidden value beside numbers (a review)
    hidden = np.ma.array(5.0, mask=True)
    for entry, expected in (("1+0j", np.nan), (hidden, np.nan), (np.ma.masked, np.nan),
                            (np.array(2.0), 2.0), (np.array([2.0]), np.nan), ("2.5", 2.5),
                            (np.array(1 + 1j), np.nan),
                            (np.array(np.datetime64("2020-01-02")), np.nan)):
        column = np.empty(2, dtype=object)
        column[:] = [entry, other]
        np.testing.assert_array_equal(as_floats(column)[0], expected)
