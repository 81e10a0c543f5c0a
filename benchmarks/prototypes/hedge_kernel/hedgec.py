"""ctypes wrapper of hedgec.c: exact binary Hedge over the package's stump cover."""
import ctypes
import os
import subprocess

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(HERE, "libhedgec.so")


def build():
    subprocess.check_call(["gcc", "-O3", "-shared", "-fPIC", "-o", LIB,
                           os.path.join(HERE, "hedgec.c"), "-lm"])


if not os.path.exists(LIB) or os.path.getmtime(LIB) < os.path.getmtime(
        os.path.join(HERE, "hedgec.c")):
    build()

P = ctypes.c_void_p
# prefetch the next round's paths when the trees (48 bytes per leaf) outgrow L2 (2 MB):
# measured in one process, 1000 rounds: K=1e6 1.75 -> 1.15 ms, K=4e4 0.35 -> 0.36 ms
PREFETCH_BYTES = int(os.environ.get("HEDGEC_PREFETCH_BYTES", 1 << 21))


class _State(ctypes.Structure):
    _fields_ = [("n_features", ctypes.c_int)] + [(k, P) for k in (
        "m", "off", "padded", "scale", "low", "first", "count0", "count1")] + [
            ("size", ctypes.c_int64), ("lg", ctypes.c_int64), ("nodes", P), ("leaves", P),
            ("hist", P)] + [(k, ctypes.c_double) for k in (
            "eta", "r", "rinv", "s0", "s1")] + [(k, ctypes.c_int64) for k in (
                "n_rounds", "n0", "n1", "since_rebuild", "prefetch")] + [("table", P), ("scratch", P)]


_lib = ctypes.CDLL(LIB)
I64 = ctypes.c_int64
_lib.hedge_play.restype = ctypes.c_int64
for name, args in (("hedge_rebuild", [P]), ("hedge_positions", [P, P, I64, P]),
                   ("hedge_predict", [P, P, I64, P, P]), ("hedge_play", [P, P, P, I64, P, P]),
                   ("hedge_losses", [P, P, P]), ("hedge_slot_weights", [P, P, P])):
    getattr(_lib, name).argtypes = args
    if name != "hedge_play":
        getattr(_lib, name).restype = None


def _ptr(a):
    return a.ctypes.data


def _aligned(n_doubles, align=64):
    raw = np.zeros(n_doubles + align // 8)
    shift = (-raw.ctypes.data % align) // 8
    return raw[shift:shift + n_doubles]


class CHedge:
    """Binary stumps, labels 0/1, built from a package AxisHedge (same positions, prior
    masses, bucket index and learning rate)."""

    def __init__(self, engine):
        assert len(engine.pairs.left) == 2 and list(engine.pairs.right) == [1, 0]
        offsets = engine.offsets
        m = np.diff(offsets).astype(np.int64)
        F = len(m)
        assert list(engine.features) == list(range(F))
        scale, low, first, padded = engine._buckets
        count = np.diff(engine.count_cumulative, axis=1)
        assert F <= 64
        size = 1 << int(np.ceil(np.log2(m.max() + 1)))  # > every m: p <= m < size
        lg = int(np.log2(size))
        self.keep = dict(m=m, off=offsets[:-1].astype(np.int64), padded=np.ascontiguousarray(padded, float),
                         scale=np.ascontiguousarray(scale, float), low=np.ascontiguousarray(low, float),
                         first=np.ascontiguousarray(first, np.int32),
                         count0=np.ascontiguousarray(count[0]), count1=np.ascontiguousarray(count[1]),
                         nodes=_aligned(4 * F * size), leaves=_aligned(2 * F * size),
                         hist=np.zeros(int(2 * (m + 1).sum()), dtype=np.int64),
                         table=np.zeros(1 << 16), scratch=np.zeros(int(2 * m.sum() + 2), np.int64))
        self.offsets, self.m, self.F = offsets, m, F
        eta = engine.learning_rate
        s = _State(F, *(_ptr(self.keep[k]) for k in (
            "m", "off", "padded", "scale", "low", "first", "count0", "count1")), size, lg,
            *(_ptr(self.keep[k]) for k in ("nodes", "leaves", "hist")), eta, np.exp(-eta), np.exp(eta), 1.0, 1.0, 0, 0, 0, 0, int(48 * F * size > PREFETCH_BYTES),
            _ptr(self.keep["table"]), _ptr(self.keep["scratch"]))
        self.state = s
        self.sref = ctypes.addressof(s)
        _lib.hedge_rebuild(self.sref)
        self.mistakes_, self.cumulative_loss_ = 0, 0.0
        self._placed = None

    def _positions(self, X):
        X = np.ascontiguousarray(X, dtype=np.float64)
        last = self._placed
        if last is not None and last[0].shape == X.shape and np.array_equal(last[0], X):
            return last[1]
        pos = np.empty(X.shape, dtype=np.int64)
        _lib.hedge_positions(self.sref, _ptr(X), X.shape[0], _ptr(pos))
        self._placed = (X.copy(), pos)
        return pos

    def predict_p1(self, X):
        pos = self._positions(X)
        n = pos.shape[0]
        p1, pred = np.empty(n), np.empty(n, dtype=np.int64)
        _lib.hedge_predict(self.sref, _ptr(pos), n, _ptr(p1), _ptr(pred))
        return p1, pred

    def predict(self, X):
        return self.predict_p1(X)[1]

    def partial_fit(self, X, y):
        pos = self._positions(X)
        y = np.ascontiguousarray(y, dtype=np.int64)
        n = pos.shape[0]
        need = self.state.n_rounds + n + 2
        if need > len(self.keep["table"]):
            self.keep["table"] = np.zeros(2 * need)
            self.state.table = _ptr(self.keep["table"])
        p1, loss = np.empty(n), np.empty(n)
        self.mistakes_ += int(_lib.hedge_play(self.sref, _ptr(pos), _ptr(y), n,
                                              _ptr(p1), _ptr(loss)))
        self.cumulative_loss_ += float(loss.sum())
        self.last_p1 = p1
        return self

    def slot_losses(self):
        """(pair, global position) exact integer losses."""
        out = np.empty((2, self.offsets[-1]), dtype=np.int64)
        _lib.hedge_losses(self.sref, _ptr(out[0]), _ptr(out[1]))
        return out

    def slot_weights(self):
        """Normalised tree weights, (pair, global position)."""
        w = np.empty((2, self.offsets[-1]))
        _lib.hedge_slot_weights(self.sref, _ptr(w[0]), _ptr(w[1]))
        return w / w.sum()
