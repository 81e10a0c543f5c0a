"""MWEM's rounds objects (TableRounds, QueryRounds) and the variants' own knobs."""

import re
import warnings

import numpy as np
import pytest

from sksmooth.accounting import BudgetAccountant
from sksmooth.release import MWEM, ProjectedSmoothMWEM, QueryRounds, SmoothMWEM, TableRounds
from sksmooth.release._dense_model import DenseModel
from sksmooth.release._privacy import measure_counts, round_parameters
from sksmooth.release._rounds import MWRun, _fit_to_noise


def _fit(estimator, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded; smoothness assumed
        return estimator.fit(X)


def test_table_rounds_on_a_workload_without_tables_measure_single_queries():
    # a sampled universe has no tables: the query rounds' values apply, except those
    # the table rounds object changed from its defaults
    X = np.random.default_rng(0).uniform(size=(300, 2))
    common = dict(universe=200, bounds=(0, 1), random_state=0)
    default = _fit(MWEM(**common), X)
    query = _fit(MWEM(rounds="query", **common), X)
    assert default.measurement_ == "query" and default.output_ == "average"
    assert default.selection_fraction_ == 0.5 and default.learning_rate_ == 0.5
    np.testing.assert_array_equal(default.distribution_, query.distribution_)
    changed = _fit(MWEM(rounds=TableRounds(output="last", n_iter=3), **common), X)
    assert changed.output_ == "last" and changed.n_iter_ == 3 and changed.n_passes_ == 0


def test_each_variant_reports_its_theorem_and_keeps_its_knobs():
    X = ((np.arange(400) + 0.5) / 400 * 0.5)[:, None]
    common = dict(queries="thresholds", n_bins=16, bounds=(0, 1), rounds="query",
                  random_state=0)
    plain = _fit(MWEM(**common), X)
    smooth = _fit(SmoothMWEM(sigma=0.5, **common), X)
    projected = _fit(ProjectedSmoothMWEM(sigma=0.5, **common), X)
    assert "sigma" not in MWEM().get_params()
    for est, theorem in [(plain, "Thm 4.1"), (smooth, "Thm 4.2"), (projected, "Thm 4.3")]:
        assert theorem in est.guarantee_.source
        assert any(theorem in note for note in est.guarantee_.notes)
    # the smooth variants' T comes from log(1/sigma), MWEM's from log N
    assert smooth.n_iter_ < plain.n_iter_
    assert projected.distribution_.max() <= 1 / (0.5 * 16) * (1 + 1e-9)


def test_a_changed_rounds_parameter_between_chunks_is_refused():
    X = np.random.default_rng(0).random((40, 2))
    est = MWEM(bounds=(0, 1), n_bins=4, rounds=TableRounds(n_iter=2)).partial_fit(X)
    est.set_params(rounds__n_iter=3)  # changes the object in place
    with pytest.raises(ValueError, match="rounds__n_iter was changed"):
        est.partial_fit(X)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
@pytest.mark.parametrize("rounds", [QueryRounds, TableRounds])
def test_rounds_whose_noise_drowns_every_count_are_refused_before_any_charge(rounds, delta):
    # 30 rows: 5000 rounds at epsilon=0.01 give every count noise of std > 100 n; the message names n_iter and the largest one that measures
    X = np.random.default_rng(0).uniform(size=(30, 2))
    common = dict(bounds=(0, 1), n_bins=4, epsilon=0.01, delta=delta, random_state=0)
    accountant = BudgetAccountant()
    estimator = ProjectedSmoothMWEM(sigma=0.5, accountant=accountant, **common,
                                    rounds=rounds(n_iter=5000, exclude_measured=False))
    with pytest.raises(ValueError, match=r"n_iter=5000 .* Use n_iter <= (\d+)") as info:
        _fit(estimator, X)
    assert accountant.spent.epsilon == 0 and not hasattr(estimator, "guarantee_")
    most = int(info.value.args[0].rsplit("n_iter <= ", 1)[1].split(",")[0])
    assert 1 <= most < 5000
    fitted = _fit(MWEM(rounds=rounds(n_iter=most, exclude_measured=False), **common), X)
    assert fitted.n_iter_ == most
    with pytest.raises(ValueError, match="n_iter"):
        _fit(MWEM(rounds=rounds(n_iter=most + 1 + most // 100, exclude_measured=False),
                  **common), X)


def _discrepancy_bound(noisy_counts, scale):
    """``TableRounds(n_passes='auto')``'s bound for discrete Laplace noise of ``scale``:
    the true data's expected squared residual plus two standard deviations."""
    cells = sum(c.size for c in noisy_counts)
    return cells * 2 * scale ** 2 * (1 + 2 * np.sqrt(5 / cells))


def test_fit_to_noise_stops_at_the_first_iterate_within_the_discrepancy_bound():
    rng = np.random.default_rng(0)
    n = 2000
    counts = np.bincount(rng.integers(0, 8, n) * 8 + rng.binomial(7, 0.3, n),
                         minlength=64).reshape(8, 8)
    params = round_parameters(1.0, 0.0, 1, 0.3, n, True)
    noisy = measure_counts(counts, params, rng)

    class Tables:
        tables, n_groups, structured = [(0, 1)], 1, True

    rounds = TableRounds().for_workload(Tables).candidates(Tables, [counts], n)
    run = MWRun(selected=[0], noisy_counts=[noisy])
    target = _discrepancy_bound([noisy], params.noise_scale)

    def residual(model):
        return float(np.sum((n * model.marginal((0, 1)) - noisy) ** 2))

    model, passes = _fit_to_noise(rounds, DenseModel((8, 8)), run, params, 100, None)
    assert 1 <= passes < 100 and residual(model) <= target
    one_fewer, _ = _fit_to_noise(rounds, DenseModel((8, 8)), run, params, passes - 1, None)
    assert residual(one_fewer) > target


def test_auto_passes_leave_the_released_model_within_the_discrepancy_bound():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 6, 3000), rng.integers(0, 6, 3000),
                         rng.integers(0, 6, 3000) * (rng.random(3000) < 0.3)])
    est = _fit(MWEM(epsilon=2.0, levels=6, random_state=0), X)
    tables = [est.workload_.tables[i] for i in est.selected_]
    residual = sum(float(np.sum((len(X) * est.model_.marginal(t) - c) ** 2))
                   for t, c in zip(tables, est.noisy_counts_))
    assert residual <= _discrepancy_bound(est.noisy_counts_, est.noise_scale_ * len(X))
    assert any("discrepancy principle" in note for note in est.guarantee_.notes)


def test_an_explicit_n_passes_or_the_average_runs_no_passes_after_the_rounds():
    X = np.random.default_rng(1).integers(0, 4, size=(500, 3))
    for rounds in (TableRounds(n_passes=2), TableRounds(output="average"), "query"):
        est = _fit(MWEM(levels=4, random_state=0, rounds=rounds), X)
        assert est.n_fit_passes_ == 0


def test_rounds_beyond_the_run_time_cap_are_refused_naming_the_most_that_fit(monkeypatch):
    # n_iter='auto' grows with epsilon * n (breast cancer at epsilon=100 asked for 496
    # rounds, over the cap of 1e12 point updates); the refusal said "lower the rounds'
    # n_passes or n_iter" without the object that holds them or a value. Here the cap
    # is lowered so that a small table meets it
    import sksmooth.release._mwem as mwem
    X = np.random.default_rng(0).integers(0, 2, size=(3000, 10))
    common = dict(levels=2, epsilon=1000.0, random_state=0)
    monkeypatch.setattr(mwem, "_MAX_WORK", 5e6)
    with pytest.raises(ValueError, match=r"pass rounds=TableRounds\(n_iter=(\d+)\)") as info:
        _fit(MWEM(**common), X)
    most = int(info.value.args[0].split("TableRounds(n_iter=", 1)[1].split(")")[0])
    assert _fit(MWEM(rounds=TableRounds(n_iter=most), **common), X).n_iter_ == most
    with pytest.raises(ValueError, match="point updates"):
        _fit(MWEM(rounds=TableRounds(n_iter=most + 1), **common), X)
    # the rounds' other settings (which set its work) are kept: following the advice fits
    for rounds in (TableRounds(n_passes=4), TableRounds(output="average")):
        with pytest.raises(ValueError, match=r"pass rounds=(TableRounds\(.*\)) \(") as info:
            _fit(MWEM(rounds=rounds, **common), X)
        advice = re.search(r"pass rounds=(TableRounds\(.*\)) \(", str(info.value)).group(1)
        assert _fit(MWEM(rounds=eval(advice, {"TableRounds": TableRounds}), **common), X)
