"""Regret of SmoothHedgeClassifier against an adaptive smoothed adversary.

An adaptive sigma-smooth adversary for 1-D thresholds (000 App. B style)
looks at the learner's current decision boundary, draws the next points
uniformly in a window of width sigma around it and labels every still
ambiguous point against the learner (a binary search on the learner's
uncertainty region). Without smoothing no online learner has sublinear
regret on thresholds (infinite Littlestone dimension); with it, Hedge on a
gamma = sigma / (4 sqrt T) cover has regret O(sqrt(T log(T / sigma)))
(003 Thm 3.3), shown here for several sigma next to the theorem's bound
(dashed) and to Perceptron / SGD on the same adaptive stream.

Left: realizable labels. Right: 10% label noise (regret against the best
threshold in hindsight). The adversary adapts every 10 rounds.

Run::

    python examples/plot_smooth_hedge_regret.py [output.png] [--quick]
"""

import os
import sys
import warnings

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # 2-core shared machine

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.linear_model import Perceptron, SGDClassifier  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from sksmooth.metrics._regret import regret  # noqa: E402
from sksmooth.online import SmoothHedgeClassifier  # noqa: E402
from sksmooth.streams import SmoothedThresholdAdversary  # noqa: E402

BATCH = 10


def run(learner, sigma, n_rounds, noise):
    stream = SmoothedThresholdAdversary(sigma=sigma, label_noise=noise, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        record = stream.play(learner, n_rounds, batch_size=BATCH)
    return record


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    out = args[0] if args else os.path.join(os.path.dirname(__file__), "_output",
                                            "smooth_hedge_regret.png")
    horizons = [500, 1000, 2000] if quick else [1250, 2500, 5000, 10000, 20000]
    sigmas = [0.001, 0.01, 0.1]
    colors = {0.001: "tab:red", 0.01: "tab:blue", 0.1: "tab:green"}
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    for ax, noise in zip(axes, [0.0, 0.1]):
        for sigma in sigmas:
            hedge, bound = [], []
            for T in horizons:
                clf = SmoothHedgeClassifier(sigma=sigma, horizon=T, bounds=(0.0, 1.0))
                record = run(clf, sigma, T, noise)
                hedge.append(regret(record.y, None, record.X, "thresholds",
                                    learner_loss=clf.cumulative_loss_))
                bound.append(clf.regret_bound_)
            slope = np.polyfit(np.log(horizons), np.log(np.maximum(hedge, 1)), 1)[0]
            ax.plot(horizons, hedge, "o-", color=colors[sigma],
                    label=f"SmoothHedge σ={sigma} (slope {slope:.2f})")
            ax.plot(horizons, bound, "--", color=colors[sigma], alpha=0.7,
                    label=f"Thm 3.3 bound σ={sigma}")
            print(f"noise={noise} sigma={sigma}: regret {np.round(hedge, 1).tolist()} "
                  f"bound {np.round(bound, 1).tolist()} slope {slope:.2f}")
        for name, make, style in [("Perceptron", lambda: Perceptron(random_state=0), "s:"),
                                  ("SGD (hinge)", lambda: SGDClassifier(random_state=0), "^:")]:
            values = []
            for T in horizons:
                record = run(make(), 0.01, T, noise)
                values.append(regret(record.y, record.y_pred, record.X, "thresholds"))
            ax.plot(horizons, values, style, color="0.4", label=f"{name}, σ=0.01")
            print(f"noise={noise} {name}: regret {np.round(values, 1).tolist()}")
        ax.plot(horizons, horizons, "-", color="0.8", lw=1, label="T (linear regret)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("rounds T")
        ax.set_title("realizable" if noise == 0 else "10% label noise")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("regret vs best threshold in hindsight")
    axes[1].legend(fontsize=7, loc="upper left", ncol=1)
    fig.suptitle("Adaptive σ-smooth threshold adversary: SmoothHedge (expected loss) "
                 "vs Perceptron/SGD (mistakes)", fontsize=11)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=110)
    print(f"saved {out}")


if __name__ == "__main__":
    main()
