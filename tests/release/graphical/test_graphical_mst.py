"""MST-style selection: zCDP accounting audited against the noise actually
drawn (and a broken variant caught), a spanning tree, the true tree found."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

import sksmooth.release._aim as aim
import sksmooth.release.graphical._budget as budget
from sksmooth.accounting import zcdp_from_dp_budget
from sksmooth.release._aim import AdaptiveMarginalSynthesizer
from sksmooth.release.graphical._mst import select_spanning_tree
from sksmooth.release.graphical._budget import ADD_REMOVE, SUBSTITUTION


def chain_data(n=2000, d=6, levels=3, seed=0, order=None):
    """A Markov chain over the columns ``order`` (each copies its parent w.p. 0.8)."""
    rng = np.random.default_rng(seed)
    order = list(range(d)) if order is None else order
    codes = np.empty((n, d), dtype=np.int64)
    codes[:, order[0]] = rng.integers(0, levels, n)
    for parent, child in zip(order, order[1:]):
        keep = rng.random(n) < 0.8
        codes[:, child] = np.where(keep, codes[:, parent], rng.integers(0, levels, n))
    return codes, (levels,) * d


def audit(spy, result, rho, neighbouring):
    """Recompute the zCDP cost from the draws: Gaussian Delta^2/(2 s^2), EM eps^2/8."""
    spent = math.fsum(neighbouring.l2**2 / (2 * s**2) for s in spy.sigmas)
    spent += math.fsum(e**2 / 8 for e, _ in spy.epsilons)
    assert all(s == budget.WEIGHT_SCALE * budget.SCORE_SCALE * int(neighbouring.l1)
               for _, s in spy.epsilons)  # integer scores (see select_exact)
    assert spent == pytest.approx(rho, rel=1e-12, abs=0)
    assert result.rho_spent == pytest.approx(spent, rel=1e-12, abs=0)


@pytest.mark.parametrize("neighbouring", [ADD_REMOVE, SUBSTITUTION])
def test_spends_exactly_the_budget_on_2d_minus_1_tables(spy, neighbouring):
    codes, shape = chain_data()
    rho = 0.02
    result = select_spanning_tree(codes, shape, rho, np.random.default_rng(1),
                                  neighbouring=neighbouring, max_iter=10, final_max_iter=50)
    audit(spy, result, rho, neighbouring)
    d = len(shape)
    assert len(spy.sigmas) == 2 * d - 1 and len(spy.epsilons) == d - 1
    # rho/3 on the 1-way tables, 2 rho/15 on the picks, 8 rho/15 on the tree's tables
    spent = {kind: math.fsum(r.rho for r in result.records
                             if r.kind == kind[0] and len(r.attrs) == kind[1])
             for kind in (("measure", 1), ("select", 0), ("measure", 2))}
    assert spent[("measure", 1)] == pytest.approx(rho / 3, rel=1e-12)
    assert spent[("select", 0)] == pytest.approx(2 * rho / 15, rel=1e-12)
    assert spent[("measure", 2)] == pytest.approx(8 * rho / 15, rel=1e-12)
    if neighbouring.public_total:
        assert result.total == len(codes)


def test_audit_catches_an_under_recorded_selection(spy, monkeypatch):
    """Broken variant: the selection draws with 2 eps but records eps."""
    codes, shape = chain_data()
    inner = budget.exact_exponential_mechanism  # the spy: it logs what is really drawn

    def greedy(scores, epsilon, sensitivity, rng, **kw):
        return inner(scores, 2 * epsilon, sensitivity, rng, **kw)

    monkeypatch.setattr(budget, "exact_exponential_mechanism", greedy)
    result = select_spanning_tree(codes, shape, 0.02, np.random.default_rng(1), max_iter=5,
                                  final_max_iter=5)
    with pytest.raises(AssertionError):
        audit(spy, result, 0.02, ADD_REMOVE)


def test_selected_tables_form_a_spanning_tree_and_find_the_true_one():
    order = [3, 0, 5, 1, 4, 2]
    codes, shape = chain_data(n=20_000, order=order, seed=4)
    result = select_spanning_tree(codes, shape, 5.0, np.random.default_rng(0), max_iter=10,
                                  final_max_iter=50)
    edges = {m.attrs for m in result.measurements if len(m.attrs) == 2}
    truth = {tuple(sorted(p)) for p in zip(order, order[1:])}
    assert edges == truth  # strong signal, large budget: the chain itself
    # and the fitted model reproduces the chain's strong 2-way dependence
    joint = result.model.marginal((3, 0))
    assert np.trace(joint) > 0.8


# method='auto' under add/remove: the noisy record count behind the choice is
# paid from the budget (audited against the draws; an unrecorded count is caught)

def _auto(n, epsilon):
    return AdaptiveMarginalSynthesizer(epsilon=epsilon, levels=3).fit(chain_data(n=n, d=4)[0])


def test_auto_pays_for_the_count_it_chooses_with(spy):
    est = _auto(300, 0.5)
    assert est.method_ == "mst"  # MST's draws are one EM per edge: exactly auditable
    audit(spy, SimpleNamespace(rho_spent=est.rho_), zcdp_from_dp_budget(0.5, 1e-9), ADD_REMOVE)
    count = [r for r in est.privacy_records_ if r.kind == "measure" and r.attrs == ()]
    assert len(count) == 1 and count[0].scale == spy.sigmas[0]  # the first draw is the count


def test_a_count_drawn_but_not_recorded_is_caught(spy, monkeypatch):
    measure_total = aim.measure_total
    monkeypatch.setattr(aim, "measure_total", lambda *a, **k: (measure_total(*a, **k)[0], []))
    est = _auto(300, 0.5)
    with pytest.raises(AssertionError):
        audit(spy, SimpleNamespace(rho_spent=est.rho_), zcdp_from_dp_budget(0.5, 1e-9),
              ADD_REMOVE)
