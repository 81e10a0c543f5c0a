"""The ``sksmooth`` command: ``demo``, ``audit`` and ``bench`` (SPEC §2, §10).

Errors are one line on standard error and a non-zero exit status.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from . import _demo
from .audits import audit_cases

__all__ = ["main"]


class CLIError(Exception):
    """A user-facing error: printed as one line, exit status 2."""


def _progress(message):
    print(f"  .. {message}", flush=True)


# --------------------------------------------------------------------- demo
def run_demo(out_dir, fast):
    out_dir = Path(out_dir)
    try:
        import matplotlib  # noqa: F401
        has_plots = True
    except ImportError:
        has_plots = False
    if has_plots:
        if out_dir.exists() and not out_dir.is_dir():
            raise CLIError(f"--out {out_dir} is a file, not a folder: name a folder for "
                           "the figures (created if missing).")
        out_dir.mkdir(parents=True, exist_ok=True)
        print(f"sksmooth demo{' (fast)' if fast else ''}: figures go to {out_dir.resolve()}")
    else:
        print(f"sksmooth demo{' (fast)' if fast else ''}: figures skipped, matplotlib "
              "is not installed (pip install 'sksmooth[plot]')")
    started = time.perf_counter()
    for title, section in _demo.SECTIONS:
        print(f"\n== {title}", flush=True)
        t0 = time.perf_counter()
        for line in section(out_dir=out_dir, fast=fast, progress=_progress):
            print(f"   {line}", flush=True)
        print(f"   ({time.perf_counter() - t0:.1f} s)")
    where = f"; figures in {out_dir.resolve()}" if has_plots else "; no figures (no matplotlib)"
    print(f"\ndone in {time.perf_counter() - started:.1f} s{where}")
    return 0


# -------------------------------------------------------------------- audit
def run_audit(fast, seed):
    cases = audit_cases()
    width = max(len(case.name) for case in cases)
    print(f"{'audit':<{width}} {'claimed eps':>11} {'lower bound':>11} {'trials':>9}  "
          "within claim; power against a 2x overspend")
    failures = 0
    for i, case in enumerate(cases, 1):
        n_trials = min(case.n_trials, max(case.n_trials // 10, 50)) if fast else case.n_trials
        _progress(f"[{i}/{len(cases)}] {case.name}")
        result = case.run(n_trials, seed)
        ok = result.epsilon_lower <= case.epsilon
        failures += not ok
        print(
            f"{case.name:<{width}} {case.epsilon:>11.4g} {result.epsilon_lower:>11.4f} "
            f"{n_trials:>9d}  {'yes' if ok else 'NO'}; {case.power()}",
            flush=True,
        )
    print(
        "lower bounds hold jointly with 95% confidence per audit "
        "(Clopper-Pearson); a bound above its claim is a privacy bug. A case with "
        "no power cannot see a 2x overspend at its trial count"
        + (" (--fast runs fewer trials than the power column's)." if fast else ".")
    )
    return 1 if failures else 0


# -------------------------------------------------------------------- bench
_BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _benchmarks():
    """``{name: script}`` of the benchmark scripts (none outside a source checkout)."""
    return {script.stem.removeprefix("bench_"): script
            for script in sorted(_BENCHMARKS.glob("bench_*.py"))}


def run_bench(quick, names):
    if not _BENCHMARKS.is_dir():
        raise CLIError(
            "no benchmarks/ folder next to the installed package; run `sksmooth "
            "bench` from a source checkout installed with `pip install -e .`."
        )
    available = _benchmarks()
    scripts = list(available.values())
    if names:
        wanted = {n.removeprefix("bench_").removesuffix(".py") for n in names}
        unknown = wanted - set(available)
        if unknown:
            raise CLIError(f"unknown benchmark(s) {sorted(unknown)}; available: "
                           f"{list(available)}.")
        scripts = [script for name, script in available.items() if name in wanted]
    status = 0
    for i, script in enumerate(scripts, 1):
        print(f"\n== [{i}/{len(scripts)}] {script.name}", flush=True)
        source = script.read_text()
        if 'add_argument("command"' in source:  # staged runs (peers in another venv)
            print(f"   skipped: {script.name} runs in stages; see its docstring "
                  f"(python benchmarks/{script.name} --help)")
            continue
        takes_quick = '"--quick"' in source
        if quick and not takes_quick:
            print(f"   {script.name} has no quick mode: running it in full")
        cmd = [sys.executable, str(script)] + (["--quick"] if quick and takes_quick else [])
        proc = subprocess.run(cmd, cwd=_BENCHMARKS.parent)
        if proc.returncode:
            print(f"   {script.name} exited with status {proc.returncode}")
            status = 1
    return status


# --------------------------------------------------------------------- main
def _seed(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"--seed must be an integer >= 0, got {text!r}")
    return value


def _parser():
    parser = argparse.ArgumentParser(
        prog="sksmooth",
        description="Smoothed online learning and differentially private "
        "learning and query release, as scikit-learn estimators.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run every estimator on bundled data and report")
    demo.add_argument("--out", default="sksmooth-demo", help="folder for figures")
    demo.add_argument("--fast", action="store_true", help="smaller runs (seconds)")
    audit = sub.add_parser(
        "audit", help="run the empirical privacy audits",
        description="Run each audit case (an estimator or mechanism on two neighbouring "
        "inputs, many trials) and print a 95% lower bound on its epsilon (Clopper-Pearson) beside the claimed "
        "epsilon; exit status 1 if a bound exceeds its claim.")
    audit.add_argument("--fast", action="store_true",
                       help="a tenth of each audit's trials, at least 50")
    audit.add_argument("--seed", type=_seed, default=0, help="random seed (an integer >= 0)")
    bench = sub.add_parser("bench", help="run the benchmark scripts")
    available = ", ".join(_benchmarks()) or "none: needs a source checkout"
    bench.add_argument("names", nargs="*",
                       help=f"benchmarks to run (default: all); available: {available}")
    bench.add_argument("--quick", action="store_true", help="quick mode of each script")
    return parser


def main(argv=None):
    """Entry point of the ``sksmooth`` console script."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "demo":
            return run_demo(args.out, args.fast)
        if args.command == "audit":
            return run_audit(args.fast, args.seed)
        return run_bench(args.quick, args.names)
    except CLIError as exc:
        print(f"sksmooth: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("sksmooth: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # one clear line, not a traceback
        print(f"sksmooth: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        if os.environ.get("SKSMOOTH_DEBUG"):
            raise
        return 1


if __name__ == "__main__":
    sys.exit(main())
