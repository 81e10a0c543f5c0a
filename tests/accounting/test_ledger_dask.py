"""A grid search on a Dask cluster charges one PostgreSQL ledger from every worker."""

import os
import warnings

import joblib
import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV

from sksmooth import PrivateProperClassifier
from sksmooth.accounting import BudgetAccountant
from sksmooth.exceptions import PrivacyLeakWarning, PrivacyWarning

EPSILONS = [0.25, 0.5, 1.0]
N_FOLDS = 2


@pytest.mark.expensive
def test_dask_grid_search_records_every_fit_in_the_server_ledger(dask_client, postgres_url):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(120, 2))
    y = (X[:, 0] > 0.4).astype(int)
    acc = BudgetAccountant(epsilon=50.0, url=postgres_url)
    base = PrivateProperClassifier(bounds=(0.0, 1.0), classes=[0, 1], accountant=acc)
    search = GridSearchCV(base, {"epsilon": EPSILONS}, cv=N_FOLDS)
    with joblib.parallel_backend("dask"), warnings.catch_warnings():
        warnings.simplefilter("ignore", (PrivacyWarning, PrivacyLeakWarning))
        search.fit(X, y)
    ledger = acc.ledger
    assert len(ledger) == len(EPSILONS) * N_FOLDS + 1  # every fold fit + the refit
    assert sorted(r.epsilon for r in ledger) == sorted(
        EPSILONS * N_FOLDS + [search.best_params_["epsilon"]]
    )
    worker_pids = set(dask_client.run(os.getpid).values())
    assert {r.pid for r in ledger} & worker_pids  # fits were charged on the workers
    assert all(r.certified for r in ledger)
