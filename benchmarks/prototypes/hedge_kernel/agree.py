"""Agreement of the C kernel with the package (benchmark data; mistakes per call,
cumulative loss, integer slot losses, weights)."""
import sys
import warnings

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3]))  # the repo
from sksmooth.online import SmoothHedgeClassifier  # noqa: E402
from sksmooth.online._smooth_hedge import _vote  # noqa: E402

from hedgec import CHedge  # noqa: E402

warnings.simplefilter("ignore")


def package_slot_losses(e):
    n = e.offsets[-1]
    position = np.arange(n)
    out = np.empty((2, n), dtype=np.int64)
    for q in range(2):
        out[q] = e.loss[q, np.searchsorted(e.starts, position, side="right") - 1]
        if e._pending is not None:
            out[q] += e._pending.loss[q, np.searchsorted(e._pending.edges, position,
                                                         side="right") - 1]
    return out


def package_slot_weights(e):
    loss = package_slot_losses(e)
    count = np.diff(e.count_cumulative, axis=1)
    lw = np.log(count) - e.learning_rate * (loss - loss.min())
    w = np.exp(lw)
    return w / w.sum()


def run(sigma, batch, n_calls, seed=0, label="bench"):
    rng = np.random.default_rng(seed)
    X = rng.random(((n_calls + 1) * batch, 10))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0.6).astype(int)
    if label == "noisy":  # 20% label noise: weights move both ways
        flip = rng.random(len(y)) < 0.2
        y = np.where(flip, 1 - y, y)
    if label == "switch":  # the concept flips half-way: the worst experts become the best
        y[len(y) // 2:] = 1 - y[len(y) // 2:]
    pkg = SmoothHedgeClassifier(hypotheses="stumps", sigma=sigma, bounds=(0.0, 1.0),
                                horizon=10 ** 4)
    pkg.partial_fit(X[:batch], y[:batch], classes=[0, 1])
    eng = pkg._stream.current.play.engine
    c = CHedge(eng)
    c.partial_fit(X[:batch], y[:batch])
    per_call_diff, pred_diff, p_diff = [], 0, 0.0
    for k in range(1, n_calls + 1):
        xb, yb = X[k * batch:(k + 1) * batch], y[k * batch:(k + 1) * batch]
        pp = pkg.predict(xb)
        pc = c.predict(xb)
        pred_diff += int(np.count_nonzero(pp != pc))
        proba_pkg = pkg.predict_proba(xb)[:, 1]
        m0p, m0c = pkg.mistakes_, c.mistakes_
        pkg.partial_fit(xb, yb)
        c.partial_fit(xb, yb)
        per_call_diff.append((pkg.mistakes_ - m0p) - (c.mistakes_ - m0c))
    eng = pkg._stream.current.play.engine
    lp, lc = package_slot_losses(eng), c.slot_losses()
    wp = package_slot_weights(eng)
    wc = c.slot_weights()
    # the package's own weights_ per expert vs the C tree's weights per expert
    position, pair, logmass = eng.expert_slots()
    count = np.diff(eng.count_cumulative, axis=1)
    w_exp_c = wc[pair, position] * np.exp(logmass) / count[pair, position]
    w_exp_p = pkg.weights_
    big = w_exp_p > 1e-300
    rel = np.abs(w_exp_c[big] - w_exp_p[big]) / w_exp_p[big]
    # C weights from its exact integer losses, package formula: equal?
    print(f"{label} sigma={sigma} batch={batch} calls={n_calls}: K={pkg.n_experts_} "
          f"mistakes pkg={pkg.mistakes_} C={c.mistakes_} (per-call diffs nonzero: "
          f"{sum(d != 0 for d in per_call_diff)}), predict disagreements={pred_diff}, "
          f"cum_loss pkg={pkg.cumulative_loss_:.10f} C={c.cumulative_loss_:.10f} "
          f"rel={abs(pkg.cumulative_loss_ - c.cumulative_loss_) / pkg.cumulative_loss_:.2e}, "
          f"slot losses equal={np.array_equal(lp, lc)}, "
          f"max rel weight diff (tree vs weights_, {big.sum()} of {big.size} > 1e-300)="
          f"{rel.max():.2e}, min weight pkg={w_exp_p.min():.3e}")
    return pkg, c


if __name__ == "__main__":
    for sigma in (0.1, "auto"):
        for batch, n_calls in ((1000, 20), (10, 300), (1, 300)):
            run(sigma, batch, n_calls)
    run(0.1, 1000, 20, label="noisy")
    run(0.1, 1000, 80, label="switch")
    run("auto", 1000, 40, label="switch")
    run("auto", 1000, 20, label="noisy")
