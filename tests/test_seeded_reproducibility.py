"""Same random_state => identical fitted state, also in another process.

The other process gets a different PYTHONHASHSEED, so any dependence on set /
dict-of-str ordering, ``hash()`` or unseeded randomness shows up.
"""

import os
import pickle
import subprocess
import sys
import textwrap

import pytest

_SCRIPT = textwrap.dedent("""
    import hashlib, pickle, warnings
    import numpy as np
    warnings.simplefilter("ignore")
    from sksmooth.online import SmoothHedgeClassifier
    from sksmooth.perturbed import PerturbedERMClassifier
    from sksmooth.proper import PrivateProperClassifier

    def digests():
        rng = np.random.default_rng(1)
        X = rng.random((300, 2))
        y = (X[:, 0] + X[:, 1] > 1).astype(int)
        estimators = [
            SmoothHedgeClassifier(hypotheses="halfspaces", max_experts=1000, horizon=300,
                                  bounds=(0.0, 1.0), random_state=0),
            PerturbedERMClassifier(bounds=(0.0, 1.0), classes=[0, 1], random_state=0),
            PrivateProperClassifier(hypotheses="halfspaces", bounds=(0.0, 1.0),
                                    classes=[0, 1], random_state=0),
        ]
        out = []
        for est in estimators:
            est.fit(X, y)
            state = [est.predict(X), getattr(est, "weights_", None)]
            out.append(hashlib.sha256(pickle.dumps(state)).hexdigest())
        online = PerturbedERMClassifier(bounds=(0.0, 1.0), random_state=0)
        for start in range(0, 300, 50):
            online.partial_fit(X[start:start + 50], y[start:start + 50], classes=[0, 1])
        out.append(hashlib.sha256(pickle.dumps(
            [online.predict(X), online.cumulative_loss_, online.noise_])).hexdigest())
        return out

    if __name__ == "__main__":
        import sys
        sys.stdout.buffer.write(pickle.dumps(digests()))
""")


@pytest.mark.expensive
def test_seeded_estimators_identical_across_processes(tmp_path):
    script = tmp_path / "digests.py"
    script.write_text(_SCRIPT)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runs = []
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=repo,
                   OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        result = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                                timeout=300, check=True)
        runs.append(pickle.loads(result.stdout))
    assert len(runs[0]) == 4
    assert runs[0] == runs[1]
