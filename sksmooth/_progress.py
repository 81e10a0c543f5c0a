"""Progress of long fits on stderr (``verbose >= 1``): stage lines and a bar.

Callers print only public or already-released values.
"""

import sys

from ._constraints import Boolean, Integer

__all__ = ["Progress", "VERBOSE"]

# The constraint every estimator's ``verbose`` parameter uses.
VERBOSE = (Boolean(), Integer(0, high=10))


class Progress:
    """Stage lines and a progress bar for one call of one estimator.

    Parameters
    ----------
    name : str
        Prefix of every line, normally the estimator's class name.
    verbose : int or bool
        ``0``/``False`` prints nothing; ``>= 1`` prints stage lines and a
        bar for loops whose total exceeds ``min_total``.
    total : int or None
        Number of public units the bar counts (``None``: no bar).
    unit : str
        What one unit is ("rows", "rounds", "fits").
    min_total : int
        Loops of at most this many units get no bar (they end quickly).
    """

    def __init__(self, name, verbose, *, total=None, unit="rows", min_total=0):
        self.name = name
        self.verbose = int(verbose)
        self.total = total
        self.unit = unit
        self.done = 0
        self._bar = None
        self._plain = False
        if self.verbose and total is not None and total > min_total:
            self._bar = self._tqdm(total)
            self._plain = self._bar is None

    def _tqdm(self, total):
        try:
            from tqdm import tqdm  # optional extra, imported lazily
        except ImportError:
            return None
        return tqdm(total=total, unit=self.unit, file=sys.stderr, desc=self.name)

    def log(self, message):
        """One line ``[name] message`` on stderr when verbose."""
        if not self.verbose:
            return
        line = f"[{self.name}] {message}"
        if self._bar is not None:
            self._bar.write(line, file=sys.stderr)
            return
        if self._plain and self.done:
            line = "\n" + line  # end the bar's carriage-return line first
        print(line, file=sys.stderr, flush=True)

    def update(self, units):
        """Advance the bar by ``units`` public units."""
        self.done += units
        if self._bar is not None:
            self._bar.update(units)
        elif self._plain:
            print(f"\r[{self.name}] {self.done}/{self.total} {self.unit}", end="",
                  file=sys.stderr, flush=True)

    def close(self):
        """End the bar (idempotent)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._plain:
            print(file=sys.stderr, flush=True)
            self._plain = False

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False
