"""C positions (local) + feature offsets == the package's AxisHedge._positions, on
random rows, rows at thresholds, one ulp either side, and the box edges."""
import sys, warnings; warnings.simplefilter("ignore")
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3]))  # the repo
import numpy as np
from sksmooth.online import SmoothHedgeClassifier
from hedgec import CHedge
rng=np.random.default_rng(1); X=rng.random((1000,10)); y=(X[:,0]>0.5).astype(int)
for s in (0.1, 'auto', 1.0):
    pkg=SmoothHedgeClassifier(hypotheses="stumps",sigma=s,bounds=(0.0,1.0),horizon=10**4).partial_fit(X,y,classes=[0,1])
    e=pkg._stream.current.play.engine
    c=CHedge(e)
    thr=np.delete(e._buckets[3], e.offsets[1:]+np.arange(10))
    T=np.column_stack([rng.choice(thr[e.offsets[f]:e.offsets[f+1]], 5000) for f in range(10)])
    for name,Z in (("rand",rng.random((5000,10))),("T",T),("T-",np.nextafter(T,-1)),("T+",np.nextafter(T,2)),("E",np.array([[0.0]*10,[1.0]*10,[0.5]*10]))):
        Z=np.ascontiguousarray(Z); c._placed=None; e._last_placed=None
        assert np.array_equal(c._positions(Z) + e.offsets[:-1], e._positions(Z)), (s, name)
    print(s, "positions equal: random, at thresholds, +-1 ulp, box edges")
