#!/usr/bin/env python3
"""Two or more laddu-cpp builds raced on `bench kmatrix`, alternating, to measure one change.

Runs, for each round, every given laddu-cpp binary once, in turn (the order rotated every round):
    BINARY bench kmatrix --data F --params P --threads N --repeat R --json
and prints, per binary, the best and the median over the rounds of its per-run medians for the
value and for value + gradient, and its ratio to the first binary. Each binary gets a JIT object
cache directory of its own, emptied before the first round (LADDU_JIT_CACHE, docs/jit.md), so no
binary loads code another compiled and every run after the first loads its own kernels warm.

The NLL and the gradient of every run must be bit-identical to the first binary's (a change that
is meant to move the last bits says so with --allow-different-bits, and the largest relative
difference is printed instead). Memory-bound sizes vary more between processes than within one:
use 5 rounds or more at 1,000,000 events.

    bench/ab_kmatrix.py --data build/bench-data/laddu_bench.parquet --threads 1 --repeat 2001 \\
        /tmp/laddu-cpp-before build/release/apps/laddu-cpp/laddu-cpp
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("binaries", nargs="+", help="laddu-cpp executables; the first is the baseline")
    p.add_argument("--data", default=str(ROOT / "build/bench-data/laddu_bench.parquet"))
    p.add_argument("--params", help="parameter JSON for bench kmatrix (default: "
                   "../shared/bench/params_025.json when it exists, else bench kmatrix's own, "
                   "every free parameter 0.25)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeat", type=int, default=2001, help="calls per run (median taken)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--allow-different-bits", action="store_true")
    args = p.parse_args()
    if len(args.binaries) < 2:
        p.error("give at least two laddu-cpp binaries")
    for b in args.binaries:
        if not os.access(b, os.X_OK):
            p.error(f"{b} is not an executable; build it or give its path")
    if not Path(args.data).is_file():
        p.error(f"{args.data} does not exist; bench/README.md says how to make a K-matrix file")
    if args.params is None:
        shared = ROOT.parent / "shared/bench/params_025.json"
        args.params = str(shared) if shared.is_file() else None
    elif not Path(args.params).is_file():
        p.error(f"{args.params} does not exist; give a parameter JSON or leave --params out")
    if args.rounds < 1 or args.repeat < 1:
        p.error("--rounds and --repeat must be at least 1")
    return args


def run(binary, args, cache):
    env = dict(os.environ, LADDU_JIT_CACHE=cache)
    cmd = [binary, "bench", "kmatrix", "--data", args.data, "--threads", str(args.threads),
           "--repeat", str(args.repeat), "--json"]
    if args.params is not None:
        cmd += ["--params", args.params]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"ab_kmatrix: {binary} failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def largest_difference(a, b):
    values = [(a["nll"], b["nll"])] + [(a["gradient"][k], b["gradient"][k]) for k in a["gradient"]]
    scale = max(abs(x) for x, _ in values) or 1.0
    return max(abs(x - y) for x, y in values) / scale


def main():
    args = parse_args()
    n = len(args.binaries)
    value = [[] for _ in range(n)]
    gradient = [[] for _ in range(n)]
    reference = None
    with tempfile.TemporaryDirectory(prefix="ab_kmatrix_") as tmp:
        caches = [str(Path(tmp) / f"jit{i}") for i in range(n)]
        for r in range(args.rounds):
            order = [(i + r) % n for i in range(n)]
            for i in order:
                out = run(args.binaries[i], args, caches[i])
                value[i].append(out["seconds_per_value"] * 1e6)
                gradient[i].append(out["seconds_per_value_and_gradient"] * 1e6)
                if reference is None:
                    reference = out
                elif (out["nll"], out["gradient"]) != (reference["nll"], reference["gradient"]):
                    difference = largest_difference(reference, out)
                    if not args.allow_different_bits:
                        sys.exit(f"ab_kmatrix: {args.binaries[i]} gives other bits than the "
                                 f"first run (largest relative difference {difference:.3g}); "
                                 "pass --allow-different-bits if the change is meant to")
                    print(f"bits differ: {args.binaries[i]}, largest relative difference "
                          f"{difference:.3g}")
            if sys.stderr.isatty():
                print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print(f"{reference['events']} events, {args.threads} thread(s), --repeat {args.repeat}, "
          f"{args.rounds} rounds; µs per call, best / median of the runs' medians")
    base_v = statistics.median(value[0])
    base_g = statistics.median(gradient[0])
    for i, binary in enumerate(args.binaries):
        mv, mg = statistics.median(value[i]), statistics.median(gradient[i])
        print(f"{binary}\n    value {min(value[i]):10.2f} / {mv:10.2f} ({mv / base_v:.3f}x)"
              f"   value + gradient {min(gradient[i]):10.2f} / {mg:10.2f} ({mg / base_g:.3f}x)")


if __name__ == "__main__":
    main()
