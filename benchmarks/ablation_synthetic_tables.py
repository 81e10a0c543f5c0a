"""Ablations behind issue 11's AIM / MST / auto decisions (in-process, fast).

Usage::

    PYTHONPATH=. python benchmarks/ablation_synthetic_tables.py WORKLOAD EPS METHOD [JSON_KW] [N_SEEDS]

METHOD is ``aim``, ``mst`` or ``auto``; JSON_KW switches one difference
at a time (monkeypatching internals, for measurement only):
``{"max_iter": 1000, "final_max_iter": 1000}`` (AIM: reference's mirror-
descent iterations per round / at the end), ``{"nocompress": true}`` (MST
without domain compression; 20 seeds on the cells where ``auto`` runs MST:
``results/mst_compression.json``, a trade), ``{"public_n": true}`` (the exact record count
given to the model, as smartnoise's shipped MST does), ``{"uniform_split":
true}`` (MST's merged levels split uniformly, as the reference does, not by
their noisy 1-way shares), ``{"final_tol": 1e-7}``
(final estimation to tight convergence), ``{"order": 3}`` (score the 3-way
marginals instead of the workload's lowest order), ``{"selection_share": 0.5}`` (MST's
selection share of the budget left after the 1-way tables: 0.5 is the
paper's equal thirds, 0.2 the default, 0.1 AIM's alpha = 0.9),
``{"one_way_share": 0.2}`` (MST's share of rho for the 1-way tables; the
default is the paper's 1/3),
``{"selection": "noiseless" | "oracle_tree" | "penalised"}`` (MST's tree
selection replaced, to find where its error comes from; the first two are
diagnostics, *not private*: ``noiseless`` runs Kruskal's exponential
mechanism at 10^4 times its epsilon on the usual scores, ``oracle_tree``
takes the exact maximum spanning tree of each pair's distance from the
independence of its own margins; both charge the usual selection budget so
the measurements are unchanged. ``penalised`` is private: each pair's score
minus the L1 error the 1-way measurements' noise is expected to put into
it, ``sqrt(2/pi) sum_ab sqrt(s_i(a)^2 p_j(b)^2 + p_i(a)^2 s_j(b)^2)``, a
public number; results in ``results/mst_selection_noise.json``),
``{"selection": "vertex_partner" | "vertex_order"}`` (private, not adopted:
each column in a random order picks its partner by the exponential
mechanism among the columns outside its component, or among the columns
before it in the order; ``d - 1`` picks over at most ``d - 1`` candidates
each instead of Kruskal's picks over all joining pairs; a pick with one
candidate is free), ``{"gate_share": 0.15, "gate_rounds": 1}`` (private, not
adopted: MST on ``1 - share`` of rho, then rounds whose exponential
mechanism runs over AIM's candidates plus a null candidate of score 0; the
null measures the tree's tables again), ``{"selection": "prim"}`` (private,
not adopted: Prim's algorithm from a uniformly drawn column, each pick over
the ``t (d - t)`` pairs leaving the tree at step ``t`` instead of Kruskal's
pairs joining any two components; noiseless, both give the maximum spanning
tree), ``{"selection": "compact", "kappa": k}`` (private, not adopted: Kruskal's picks
with each joining pair's score lowered by a public penalty, ``k`` times the
mechanism's scale ``2 Delta / epsilon_t`` per unit of the mean path length
from each end to the rest of its component: a prior for trees of small
diameter, so that strongly associated columns sit close; the penalty depends
on earlier picks only, so the sensitivity and the charge are unchanged),
``{"schedule": p}`` (private, not adopted: Kruskal's (or Prim's)
``d - 1`` picks with ``epsilon_t^2`` proportional to ``(t + 1)^p``, the same
total zCDP cost; ``p > 0`` spends more on the later picks); results of all
in ``results/mst_selection_variants.json``),
``{"scheme": "iid"}`` (the rows drawn i.i.d.: every results file
written before systematic sampling became ``sample``'s default, i.e.
``mst_selection_share.json`` and ``mst_refinement.json``, used i.i.d. rows),
``{"refine_share": 0.15, "refine_snr": 3}`` (MST on ``1 - share`` of rho, then
AIM's rounds on the workload with the rest, as many as keep one round's noise
std on a mean-sized 2-way table at or below ``1/snr`` of its mean cell count
``n / cells``; pure MST when that is < 1 round; ``method='mst'`` only; results
of issue 11's session in ``results/mst_refinement.json``). WORKLOAD may
also be one of the tables *outside* the benchmark, on which defaults are
checked (``HELD_OUT``: 15 other digits pixels, wine, diabetes, two more
generated networks; 4 equal-width bins on the data's range for wine and
diabetes: a check of the mechanism, not a privacy claim; ``HELD_OUT_2``, a
second set first used after a rule was chosen on the others: 14 more digits
pixels, the breast table in 3 bins, two more generated networks). Prints mean ± standard error over
seeds ``0 .. N_SEEDS-1`` of the 2-way max/mean error of the emitted rows
(``rows``) and of the model's own marginals (``model``: the difference is
the error i.i.d. sampling of n rows adds), and the downstream accuracy on
the labelled tables. Workloads and metrics: bench_synthetic_tables.py.
Results of the session that made the decisions: the report of issue 11.
"""
import functools
import itertools
import json
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import bench_synthetic_tables as B  # noqa: E402
from sksmooth.release import _aim
from sksmooth.release.graphical import _aim as S
from sksmooth.release._aim import AdaptiveMarginalSynthesizer
from sksmooth.release.graphical import _mst
from sksmooth.release.graphical._compression import CompressedModel, compress_levels

DEFAULT_SELECTION_SHARE = _mst.SELECTION_SHARE
DEFAULT_ONE_WAY_SHARE = _mst.ONE_WAY_SHARE

def _bins(X, k=4):
    lo, hi = X.min(0), X.max(0)
    return np.clip(np.floor((X - lo) / (hi - lo) * k).astype(np.int64), 0, k - 1), [k] * X.shape[1]


def _held_out(name):
    from sklearn import datasets as D
    if name == "digitsB15":  # 15 pixels not among DIGIT_PIXELS
        X = D.load_digits().data[:, [10, 11, 12, 13, 18, 21, 22, 34, 38, 46, 50, 51, 54, 58, 59]]
        return np.minimum((X / 16.0 * 4).astype(np.int64), 3), [4] * 15
    if name == "wine13":
        return _bins(D.load_wine().data)
    if name == "diabetes10":
        return _bins(D.load_diabetes().data)
    if name == "digitsC14":  # the 14 remaining pixels with std > 3, in neither set above
        X = D.load_digits().data[:, [2, 3, 4, 5, 6, 9, 14, 17, 25, 30, 33, 60, 61, 62]]
        return np.minimum((X / 16.0 * 4).astype(np.int64), 3), [4] * 14
    if name == "breast30b3":  # the benchmark's table, 3 bins of the published ranges
        X, _ = B._breast()
        return np.minimum(X * 3 // 4, 2), [3] * 30
    return {"mixed40b": lambda: B._mixed(40, 10_000, seed=7),
            "mixed20": lambda: B._mixed(20, 3_000, seed=11),
            "mixed30c": lambda: B._mixed(30, 5_000, seed=5),
            "mixed25c": lambda: B._mixed(25, 2_000, seed=13)}[name]()


HELD_OUT = ("digitsB15", "wine13", "diabetes10", "mixed40b", "mixed20")
# a second set, first used to check a rule chosen on the sets above (results/mst_refinement.json)
HELD_OUT_2 = ("digitsC14", "breast30b3", "mixed30c", "mixed25c")


def model_err(X, model, levels, order):
    errs = []
    for attrs in itertools.combinations(range(X.shape[1]), order):
        shape = [levels[a] for a in attrs]
        t = np.bincount(np.ravel_multi_index(tuple(X[:, attrs].T), shape), minlength=int(np.prod(shape))) / len(X)
        errs.append(np.abs(t - model.marginal(attrs).ravel()))
    e = np.concatenate(errs); return float(e.max()), float(e.mean())

def tree_then_rounds(codes, shape, rho, rng, *, workload, share, snr, neighbouring=S.ADD_REMOVE,
                     exempt=(), progress=None, measure_fraction=0.9):
    """MST within ``(1 - share) rho``, then AIM's rounds with the rest (see the usage)."""
    d = len(shape)
    cells = np.mean([shape[i] * shape[j] for i, j in itertools.combinations(range(d), 2)])
    n = codes.n if hasattr(codes, 'counts') else len(codes)
    # sigma = l2 sqrt(T / (2 alpha share rho)) <= n / (snr cells)  <=>  T <= ...
    n_rounds = int(2 * measure_fraction * share * rho * (n / (snr * cells * neighbouring.l2))**2)
    if n_rounds < 1:
        return _mst.select_spanning_tree(codes, shape, rho, rng, neighbouring=neighbouring,
                                         exempt=exempt)
    fitter = S.start_fitter(codes, shape, rho, rng, neighbouring, 30)
    fitter, groups = _mst.measure_spanning_tree(fitter, (1 - share) * rho, exempt)
    budget = fitter.budget
    fitter.refit(100)
    tables, weights = S.candidate_tables(workload, d)
    sigma, epsilon = budget.round_parameters(budget.remaining, n_rounds, measure_fraction)
    S.adaptive_rounds(fitter, tables, weights, sigma, epsilon, max_model_size=10**7,
                      measure_fraction=measure_fraction)
    fitter.refit(1000)
    model = fitter.model if groups is None else CompressedModel(fitter.model, groups)
    return S.SelectionResult(model, fitter.measurements, fitter.total, budget.records)


def tree_then_gated(codes, shape, rho, rng, *, workload, share, rounds, neighbouring=S.ADD_REMOVE,
                    exempt=(), progress=None, measure_fraction=0.9):
    """MST within ``(1 - share) rho``, then ``rounds`` gated rounds with the rest.

    Each round's exponential mechanism runs over AIM's candidates (score
    ``w (err - sqrt(2/pi) sigma cells)``) plus a null candidate of score 0:
    a table is measured only when its error is expected to beat the noise
    of measuring it; the null measures the tree's tables again instead.
    """
    d = len(shape)
    fitter = S.start_fitter(codes, shape, rho, rng, neighbouring, 30)
    fitter, groups = _mst.measure_spanning_tree(fitter, (1 - share) * rho, exempt)
    budget = fitter.budget
    edges = [m.attrs for m in fitter.measurements if len(m.attrs) == 2]
    fitter.refit(100)
    tables, weights = S.candidate_tables(workload, d)
    sigma, epsilon = budget.round_parameters(budget.remaining, rounds, measure_fraction)
    l1 = budget.neighbouring.l1
    for _ in range(rounds):
        budget.spend_select(epsilon)
        errors = np.append(S._errors(fitter, tables), 0)
        pen = np.append([S._EXPECTED_ABS_NORMAL * sigma * S.table_size(fitter.data.shape, t)
                         for t in tables], 0.0)
        w = np.append(weights, weights.max())
        pick = S.select_exact(errors, w, pen, l1, epsilon, rng)
        if pick < len(tables):
            GATE_LOG.append(tables[pick])
            fitter.measure(tables[pick], sigma)
        else:
            GATE_LOG.append(None)
            rho_m = budget.measure_cost(sigma)
            for e in edges:
                fitter.measure(e, budget.sigma_for(rho_m / len(edges)))
        fitter.refit(100)
    fitter.refit(1000)
    model = fitter.model if groups is None else CompressedModel(fitter.model, groups)
    return S.SelectionResult(model, fitter.measurements, fitter.total, budget.records)


GATE_LOG = []
COMPACT = {'kappa': 1.0}  # the 'compact' selection's penalty, in exponential-mechanism scales


_ORIG_PAIR_SCORES, _ORIG_KRUSKAL = _mst._pair_scores, _mst._private_kruskal


def _expected_one_way_noise(fitter, pairs):
    """Public: the L1 error each pair's independence score gets from the 1-way noise."""
    d = len(fitter.data.shape)
    p = [np.asarray(fitter.model.marginal((a,)), float) for a in range(d)]
    s = [np.broadcast_to(np.asarray(fitter.measurements[a].sigma, float), p[a].shape)
         for a in range(d)]
    return np.array([np.sqrt(2 / np.pi) * np.sqrt(np.outer(s[i]**2, p[j]**2)
                                                  + np.outer(p[i]**2, s[j]**2)).sum()
                     for i, j in pairs])


def _round_epsilons(epsilon, n_rounds, power):
    """Per-round epsilons with epsilon_t^2 proportional to (t + 1)^power and the
    same total zCDP cost as ``n_rounds`` rounds at ``epsilon``."""
    w = np.arange(1, n_rounds + 1, dtype=float) ** power
    return epsilon * np.sqrt(n_rounds * w / w.sum()) * (1 - 1e-12)


def _selection_variant(selection, schedule=0.0):
    """Patch MST's tree selection (see the usage); ``None`` restores it."""
    _mst._pair_scores, _mst._private_kruskal = _ORIG_PAIR_SCORES, _ORIG_KRUSKAL
    if selection is None and not schedule:
        return
    extra = {}

    def scores(fitter, pairs):
        if selection == 'penalised':
            extra['penalty'] = _expected_one_way_noise(fitter, pairs)
        if selection != 'oracle_tree':
            return _ORIG_PAIR_SCORES(fitter, pairs)
        # distance of each (compressed) table from its own margins' product
        tables = [fitter.data.counts(pair).astype(float) for pair in pairs]
        return S.integer_l1_errors([np.outer(x.sum(1), x.sum(0)) / max(x.sum(), 1)
                                    for x in tables], tables)

    def vertex_tree(scores_, pairs, n_attrs, epsilon, sensitivity, budget, rng):
        # each column, in a random public order, picks its partner by the exponential
        # mechanism: among earlier columns ('vertex_order') or among columns outside
        # its component ('vertex_partner'); a round with one candidate is free
        score = np.zeros((n_attrs, n_attrs), dtype=np.int64)
        for (i, j), v in zip(pairs, scores_):
            score[i, j] = score[j, i] = v
        component = np.arange(n_attrs)
        order = rng.permutation(n_attrs)
        chosen = []
        for t, v in enumerate(order):
            if selection == 'vertex_order':
                cands = order[:t]
            else:
                cands = np.flatnonzero(component != component[v])
            if cands.size == 0:
                continue
            if cands.size > 1:
                budget.spend_select(epsilon)
                u = int(cands[S.select_exact(score[v, cands], np.ones(cands.size),
                                             np.zeros(cands.size), sensitivity, epsilon, rng)])
            else:
                u = int(cands[0])
            chosen.append((min(u, v), max(u, v)))
            component[component == component[u]] = component[v]
        return chosen

    def prim(scores_, pairs, n_attrs, epsilon, sensitivity, budget, rng):
        # Prim's algorithm from a uniformly drawn column: each pick by the exponential
        # mechanism over the pairs leaving the tree, t (d - t) of them at step t
        left, right = np.array([i for i, _ in pairs]), np.array([j for _, j in pairs])
        in_tree = np.zeros(n_attrs, dtype=bool)
        in_tree[rng.integers(n_attrs)] = True
        chosen = []
        for eps_t in _round_epsilons(epsilon, n_attrs - 1, schedule):
            cut = np.flatnonzero(in_tree[left] != in_tree[right])
            budget.spend_select(eps_t)
            pick = int(cut[S.select_exact(scores_[cut], np.ones(cut.size), np.zeros(cut.size),
                                          sensitivity, eps_t, rng)])
            chosen.append(pairs[pick])
            in_tree[left[pick]] = in_tree[right[pick]] = True
        return chosen

    def kruskal(scores_, pairs, n_attrs, epsilon, sensitivity, budget, rng):
        if selection in ('vertex_order', 'vertex_partner'):
            return vertex_tree(scores_, pairs, n_attrs, epsilon, sensitivity, budget, rng)
        if selection == 'prim':
            return prim(scores_, pairs, n_attrs, epsilon, sensitivity, budget, rng)
        boost = 1e4 if selection in ('noiseless', 'oracle_tree') else 1.0
        penalty = extra.get('penalty', np.zeros(len(pairs)))
        component = np.arange(n_attrs)
        left, right = np.array([i for i, _ in pairs]), np.array([j for _, j in pairs])
        chosen = []
        dist = np.zeros((n_attrs, n_attrs))  # path lengths within the chosen forest
        for eps_t in _round_epsilons(epsilon, n_attrs - 1, schedule):
            joins = np.flatnonzero(component[left] != component[right])
            if selection == 'compact':  # public: each end's mean path length in its component
                same = component[:, None] == component[None, :]
                mean_dist = (dist * same).sum(1) / same.sum(1)
                penalty = np.zeros(len(pairs))
                penalty[joins] = (COMPACT['kappa'] * 2 * sensitivity / eps_t
                                  * (mean_dist[left[joins]] + mean_dist[right[joins]]))
            budget.spend_select(eps_t)  # the usual charge, whatever the variant
            pick = int(joins[S.select_exact(scores_[joins], np.ones(joins.size), penalty[joins],
                                            sensitivity, boost * eps_t, rng)])
            chosen.append(pairs[pick])
            u, v = left[pick], right[pick]
            a, b = component == component[u], component == component[v]
            cross = (dist[:, u][:, None] + 1 + dist[v, :][None, :])[np.ix_(a, b)]
            dist[np.ix_(a, b)], dist[np.ix_(b, a)] = cross, cross.T
            old, new = component[right[pick]], component[left[pick]]
            component[component == old] = new
        return chosen

    _mst._pair_scores, _mst._private_kruskal = scores, kruskal


def run(name, eps, seed, method, **kw):
    X, levels = _held_out(name) if name in HELD_OUT + HELD_OUT_2 else B.load(name)
    if 'refine_share' in kw:
        orders = (2,) if name in HELD_OUT + HELD_OUT_2 else B.WORKLOADS[name]
        workload = [(t, 1.0) for k in orders for t in itertools.combinations(range(X.shape[1]), k)]
        _aim.select_spanning_tree = functools.partial(
            tree_then_rounds, workload=workload, share=kw.pop('refine_share'),
            snr=kw.pop('refine_snr'))
    elif 'gate_share' in kw:
        orders = (2,) if name in HELD_OUT + HELD_OUT_2 else B.WORKLOADS[name]
        workload = [(t, 1.0) for k in orders for t in itertools.combinations(range(X.shape[1]), k)]
        _aim.select_spanning_tree = functools.partial(
            tree_then_gated, workload=workload, share=kw.pop('gate_share'),
            rounds=kw.pop('gate_rounds', 1))
    else:
        _aim.select_spanning_tree = _mst.select_spanning_tree
    COMPACT['kappa'] = kw.pop('kappa', 1.0)
    _selection_variant(kw.pop('selection', None), kw.pop('schedule', 0.0))
    _mst.SELECTION_SHARE = kw.pop('selection_share', DEFAULT_SELECTION_SHARE)
    _mst.ONE_WAY_SHARE = kw.pop('one_way_share', DEFAULT_ONE_WAY_SHARE)
    order = kw.pop('order', None)  # the marginals' order to score (default: the workload's lowest)
    scheme = kw.pop('scheme', 'systematic')  # how the rows are drawn (sample's default)
    from sksmooth.release.graphical import _aim as SS, _budget as SB
    if not hasattr(SS, '_orig_start'):
        SS._orig_start = SS.start_fitter
    if kw.pop('public_n', False):
        def sf(codes, shape, rho, rng, nb, mi):
            f = SS._orig_start(codes, shape, rho, rng, nb, mi)
            f.public_total = float(f.data.n); f.total = f.public_total
            return f
        SS.start_fitter = sf; _mst.start_fitter = sf
    else:
        SS.start_fitter = SS._orig_start; _mst.start_fitter = SS._orig_start
    if not hasattr(SS, '_orig_est'):
        SS._orig_est = SB.estimate
    ftol = kw.pop('final_tol', None)
    if ftol is not None:
        def est(shape, ms, total=None, init=None, max_iter=200, **k):
            if max_iter >= 1000:
                return SS._orig_est(shape, ms, total=total, init=init, max_iter=5000, tol=ftol)
            return SS._orig_est(shape, ms, total=total, init=init, max_iter=max_iter, **k)
        SB.estimate = est
    else:
        SB.estimate = SS._orig_est
    from sksmooth.release.graphical._compression import LevelGroups
    if kw.pop('nocompress', False):
        _mst.compress_levels = lambda ms, exempt=(): None
    elif kw.pop('uniform_split', False):  # the reference's uniform split of a merged level
        def uniform(ms, exempt=()):
            groups = compress_levels(ms, exempt)
            return None if groups is None else LevelGroups(groups.group_of)
        _mst.compress_levels = uniform
    else:
        _mst.compress_levels = compress_levels
    orig = S.select_and_measure
    _aim.select_and_measure = functools.partial(orig, **kw) if kw else orig
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            t = time.process_time()
            sup = name in B.DOWNSTREAM
            s = AdaptiveMarginalSynthesizer(epsilon=eps, delta=1e-9, levels=list(levels[:-1] if sup else levels), classes=list(range(levels[-1])) if sup else None, workload=2 if name in HELD_OUT + HELD_OUT_2 else B.WORKLOADS[name], method=method, random_state=seed)
            s.fit(X[:, :-1], X[:, -1]) if sup else s.fit(X)
            cpu = time.process_time() - t
    finally:
        _aim.select_and_measure = orig
    rows = s.sample(len(X), random_state=seed, scheme=scheme)
    rows = np.rint(np.column_stack(rows) if isinstance(rows, tuple) else rows).astype(np.int64)
    out = dict(cpu=cpu, n_meas=len(s.measured_tables_), chosen=s.method_,
               gated=[None if t is None else list(t) for t in GATE_LOG])
    GATE_LOG.clear()
    if name in B.DOWNSTREAM:
        _, test, lv = B.load_labelled(name)
        out['acc'] = (B._classifier_accuracy(np.clip(rows, 0, np.array(lv) - 1), test, lv), 0)
    orders = [order] if order else (2,) if name in HELD_OUT + HELD_OUT_2 else B.WORKLOADS[name]
    for o in orders:  # 'row' / 'model': the first order scored; 'row<k>': every order
        out[f'row{o}'] = B.marginal_errors(X, rows, levels, o)
    out['row'] = out[f'row{orders[0]}']
    out['model'] = model_err(X, s.model_, levels, orders[0])
    return out

if __name__ == '__main__':
    name, eps, method = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    kw = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
    seeds = range(int(sys.argv[5]) if len(sys.argv) > 5 else 5)
    res = [run(name, eps, s, method, **dict(kw)) for s in seeds]
    if os.environ.get('ABLATION_LOG'):  # one JSON line per invocation, every seed's numbers
        with open(os.environ['ABLATION_LOG'], 'a') as fh:
            fh.write(json.dumps(dict(workload=name, epsilon=eps, method=method, options=kw,
                                     runs=res)) + '\n')
    agg = lambda k, i: np.mean([r[k][i] for r in res])
    se = lambda k, i: np.std([r[k][i] for r in res]) / np.sqrt(len(res))
    orders = ' | '.join(f"{k} max {agg(k,0):.4f}±{se(k,0):.4f} mean {agg(k,1):.5f}±{se(k,1):.5f}"
                        for k in sorted(res[0]) if k.startswith('row') and k != 'row')
    print(f"{name} eps={eps} {method} {kw}: {orders} | model max {agg('model',0):.4f} mean {agg('model',1):.5f} | acc {agg('acc',0) if 'acc' in res[0] else float('nan'):.3f}±{se('acc',0) if 'acc' in res[0] else 0:.3f} | cpu {np.mean([r['cpu'] for r in res]):.1f} meas {np.mean([r['n_meas'] for r in res]):.0f}", flush=True)
