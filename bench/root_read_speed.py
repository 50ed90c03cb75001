"""ROOT TTree read throughput: laddu-cpp's reader next to uproot's.

One file per compression with 1e7 events of laddu's four-momentum layout (4 four-momenta, 16
float64 branches, plus a float64 weight), written once by uproot into --dir. laddu-cpp decodes
every branch through RootSource (bench/event_read_bench, which prints its best of --repeat);
uproot reads every branch into numpy arrays (TTree.arrays, best of --repeat). Both are reported
as MB/s of decoded float64 data and M events/s. (laddu's read_root is lazy and has no public
call that only reads, so it is not timed here.)

Usage (the test venv has uproot):
    build/venv/bin/python bench/root_read_speed.py --build build/release \
        [--events 10000000] [--dir build/root-bench] [--compression none zlib lz4] [--repeat 3]
"""

import argparse
import os
import re
import subprocess
import time

import numpy as np
import uproot

P4S = ("beam", "proton", "kshort1", "kshort2")
COMPONENTS = ("px", "py", "pz", "e")
CODECS = {"none": None, "zlib": uproot.ZLIB(1), "lz4": uproot.LZ4(1), "zstd": uproot.ZSTD(1)}


def make_file(path, events, compression):
    if os.path.exists(path):
        return
    rng = np.random.default_rng(1)
    names = [f"{p}_{c}" for p in P4S for c in COMPONENTS] + ["weight"]
    tmp = path + ".tmp"
    with uproot.recreate(tmp, compression=CODECS[compression]) as f:
        f.mktree("events", {n: np.float64 for n in names})
        step = 500_000  # one basket per branch per step
        for first in range(0, events, step):
            n = min(step, events - first)
            f["events"].extend({name: rng.normal(size=n) for name in names})
    os.replace(tmp, path)


def uproot_seconds(path, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        arrays = uproot.open(path)["events"].arrays(library="np")
        best = min(best, time.perf_counter() - start)
        del arrays
    return best


def laddu_cpp_seconds(build, path, repeat):
    out = subprocess.run([os.path.join(build, "bench", "event_read_bench"), path, str(repeat)],
                         check=True, capture_output=True, text=True).stdout
    return float(re.search(r"laddu-cpp: ([0-9.]+) s", out).group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="the build directory (build/release)")
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--dir", default="build/root-bench")
    parser.add_argument("--compression", nargs="+", default=["none", "zlib", "lz4"],
                        choices=sorted(CODECS))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    decoded_mb = args.events * (4 * len(P4S) + 1) * 8 / 1e6
    print(f"{'compression':<12} {'file MB':>8} {'decoded MB':>10} {'laddu-cpp MB/s':>15} "
          f"{'M ev/s':>7} {'uproot MB/s':>12} {'M ev/s':>7} {'ratio':>6}")
    for compression in args.compression:
        path = os.path.join(args.dir, f"events_{args.events}_{compression}.root")
        make_file(path, args.events, compression)
        ours = laddu_cpp_seconds(args.build, path, args.repeat)
        theirs = uproot_seconds(path, args.repeat)
        print(f"{compression:<12} {os.path.getsize(path) / 1e6:>8.0f} {decoded_mb:>10.0f} "
              f"{decoded_mb / ours:>15.0f} {args.events / ours / 1e6:>7.1f} "
              f"{decoded_mb / theirs:>12.0f} {args.events / theirs / 1e6:>7.1f} "
              f"{theirs / ours:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
