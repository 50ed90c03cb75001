#!/usr/bin/env python3
"""laddu-cpp's `bench kmatrix` against the hand-written K-matrix NLL (/work/shared/bench), the
two programs run alternately, on the same events and parameters, at each event count and thread
count. Prints a Markdown table (bench/README.md, "K-matrix NLL against the hand-written kernel").

For each round, each event count and each thread count it runs, one after the other (the order
swapped every round):
    laddu-cpp bench kmatrix --data F.parquet --params P --threads N --repeat R --json
    kmatrix-handwritten F.f64 P --threads N --repeat R
and keeps, per program, the best (smallest) of the per-run medians over the rounds. Both programs
must report the same NLL to --tolerance (relative); the gradients' largest difference relative to
the gradient's largest component is reported too.

Event counts: laddu's benchmark file (10,000 events) repeated K times (--repeats 1,100): a K-fold
Parquet file for laddu-cpp (pyarrow; same float32 columns, same values) and its float64 input for
the hand-written program (its parquet_to_f64.py), both written once under --workdir.

Precompute: laddu-cpp's `prepare_seconds` (model compile, JIT, precompute, normalisation
statistics) against the hand-written `precompute_seconds`. laddu-cpp keeps its JIT's object code
on disk (LADDU_JIT_CACHE): the first round gives every laddu-cpp run an empty cache of its own
(cold, shown in parentheses), later rounds share one cache filled before the race by one run at
each event count (warm).

Bandwidth: bytes one value evaluation reads per event x events / seconds per value, as a share of
the STREAM triad GB/s at that thread count (bench/stream_triad, run once before the race).
laddu-cpp reads its cache (bytes/event from `laddu-cpp inspect kmatrix_benchmark --show cache`)
plus the 8-byte weight; the hand-written program reads 30 doubles (240 B) per event (its README).

Needs pyarrow (build/venv-bench) only to write the input files:
    build/venv-bench/bin/python bench/race_handwritten.py --json build/bench-data/race.json
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "bench"
HANDWRITTEN_BYTES_PER_EVENT = 30 * 8
WEIGHT_BYTES = 8


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--laddu-cpp", default=str(ROOT / "build/release/apps/laddu-cpp/laddu-cpp"))
    p.add_argument("--handwritten", default=str(SHARED / "kmatrix-handwritten"))
    p.add_argument("--params", default=str(SHARED / "params_025.json"))
    p.add_argument("--data", default=str(ROOT / "build/bench-data/laddu_bench.parquet"),
                   help="laddu's crates/laddu/benches/bench.parquet (10,000 events)")
    p.add_argument("--workdir", default=str(ROOT / "build/bench-data"))
    p.add_argument("--repeats", default="1,100", help="event repetitions K (events = K x file)")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--calls", type=int, default=0,
                   help="--repeat passed to both programs (default: 501 at <= 1e5 events, 51 above)")
    p.add_argument("--triad", default=str(ROOT / "build/release/bench/stream_triad"),
                   help="stream_triad binary (run once with --json --threads THREADS)")
    p.add_argument("--triad-json", help="use this stream_triad --json output instead of running it")
    p.add_argument("--tolerance", type=float, default=1e-12)
    p.add_argument("--json", help="write all runs and the summary here")
    return p.parse_args()


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run_json(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out)


def prepare_inputs(args, k):
    """The K-fold Parquet file and its f64 twin; K = 1 uses --data itself."""
    src = Path(args.data)
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    parquet = src if k == 1 else work / f"{src.stem}_x{k}.parquet"
    f64 = work / f"{src.stem}_x{k}.f64"
    if k != 1 and (not parquet.exists() or parquet.stat().st_mtime < src.stat().st_mtime):
        import pyarrow as pa
        import pyarrow.parquet as pq
        table = pq.read_table(src)
        repeated = pa.concat_tables([table] * k).combine_chunks()
        tmp = parquet.with_suffix(".parquet.tmp")
        pq.write_table(repeated, tmp, compression="zstd", row_group_size=1 << 17)
        os.replace(tmp, parquet)
    if not f64.exists() or f64.stat().st_mtime < src.stat().st_mtime:
        tmp = f64.with_suffix(".f64.tmp")
        subprocess.run([sys.executable, str(SHARED / "parquet_to_f64.py"), str(src), str(tmp),
                        str(k)], check=True, capture_output=True)
        os.replace(tmp, f64)
    return parquet, f64


def laddu_cache_bytes(laddu_cpp):
    text = subprocess.run([laddu_cpp, "inspect", "kmatrix_benchmark", "--show", "cache"],
                          check=True, capture_output=True, text=True).stdout
    m = re.search(r"cache plan: .*?(\d+) bytes/event", text)
    if not m:
        raise SystemExit("cannot find 'N bytes/event' in laddu-cpp inspect's cache plan")
    return int(m.group(1))


def triad(args, threads):
    if args.triad_json:
        with open(args.triad_json) as f:
            data = json.load(f)
    else:
        data = run_json([args.triad, "--json", "--threads", ",".join(map(str, threads))])
    return data, {r["threads"]: r["triad_gbs"] for r in data["results"]}


def fmt_ms(seconds):
    ms = seconds * 1e3
    return f"{ms:.3g}" if ms >= 0.1 else f"{ms:.3f}"


def main():
    args = parse_args()
    ks = [int(x) for x in args.repeats.split(",")]
    threads = [int(x) for x in args.threads.split(",")]
    inputs = {k: prepare_inputs(args, k) for k in ks}
    cache_bytes = laddu_cache_bytes(args.laddu_cpp)
    laddu_bytes = cache_bytes + WEIGHT_BYTES
    load_start = loadavg()
    triad_data, triad_gbs = triad(args, threads)
    print(f"load {load_start:.2f}; triad GB/s: "
          + ", ".join(f"{t} thread(s) {g:.1f}" for t, g in triad_gbs.items()), file=sys.stderr)

    # laddu-cpp's JIT keeps object code on disk (LADDU_JIT_CACHE, docs/jit.md): round 1 runs
    # every laddu-cpp command with an empty cache of its own (cold: code generation in the
    # precompute time), later rounds with one cache filled beforehand by one run at each event
    # count (warm: what every run after those sees; the precompute and statistics programs,
    # which kAuto compiles only from 1,000,000 events on, are then loaded at 10,000 too).
    jit_dir = Path(args.workdir) / "race-jit-cache"
    shutil.rmtree(jit_dir, ignore_errors=True)
    warm_env = dict(os.environ, LADDU_JIT_CACHE=str(jit_dir / "warm"))
    for k in ks:
        run_json([args.laddu_cpp, "bench", "kmatrix", "--data", str(inputs[k][0]), "--params",
                  args.params, "--threads", "1", "--repeat", "1", "--json"], warm_env)

    runs = []
    cold_runs = 0
    for rnd in range(args.rounds):
        for k in ks:
            parquet, f64 = inputs[k]
            for t in threads:
                calls = args.calls or (501 if k * 10000 <= 100000 else 51)
                cmd = {
                    "laddu-cpp": [args.laddu_cpp, "bench", "kmatrix", "--data", str(parquet),
                                  "--params", args.params, "--threads", str(t), "--repeat",
                                  str(calls), "--json"],
                    "hand-written": [args.handwritten, str(f64), args.params, "--threads", str(t),
                                     "--repeat", str(calls)],
                }
                order = ["laddu-cpp", "hand-written"]
                if rnd % 2:
                    order.reverse()
                for prog in order:
                    env = None
                    if prog == "laddu-cpp":
                        env = warm_env
                        if rnd == 0:
                            cold_runs += 1
                            env = dict(os.environ,
                                       LADDU_JIT_CACHE=str(jit_dir / f"cold-{cold_runs}"))
                    load = loadavg()
                    out = run_json(cmd[prog], env)
                    runs.append({"round": rnd, "k": k, "threads": t, "program": prog,
                                 "load": load, "command": cmd[prog], "output": out})
        print(f"round {rnd + 1}/{args.rounds} done, load {loadavg():.2f}", file=sys.stderr)
    load_end = loadavg()

    rows = []
    ok = True
    for k in ks:
        for t in threads:
            def pick(prog):
                return [r for r in runs if r["k"] == k and r["threads"] == t and r["program"] == prog]
            lc, hw = pick("laddu-cpp"), pick("hand-written")
            lo, ho = lc[0]["output"], hw[0]["output"]
            events = lo["events"]
            assert events == ho["events"], (events, ho["events"])
            rel = abs(lo["nll"] - ho["nll"]) / abs(ho["nll"])
            gscale = max(abs(v) for v in ho["gradient"].values())
            grel = max(abs(lo["gradient"][n] - v) for n, v in ho["gradient"].items()) / gscale
            ok &= rel <= args.tolerance
            row = {
                "events": events, "threads": t, "nll_laddu_cpp": lo["nll"], "nll_handwritten":
                ho["nll"], "nll_rel_diff": rel, "gradient_rel_diff": grel,
                "backend": lo["backend"],
                "value_laddu_cpp": min(r["output"]["seconds_per_value"] for r in lc),
                "value_handwritten": min(r["output"]["seconds_per_eval_value"] for r in hw),
                "vg_laddu_cpp": min(r["output"]["seconds_per_value_and_gradient"] for r in lc),
                "vg_handwritten": min(r["output"]["seconds_per_eval_value_and_gradient"]
                                      for r in hw),
                "precompute_laddu_cpp": min(r["output"]["prepare_seconds"] for r in lc
                                            if r["round"] > 0 or args.rounds == 1),
                "precompute_cold_laddu_cpp": min(r["output"]["prepare_seconds"] for r in lc
                                                 if r["round"] == 0),
                "precompute_handwritten": min(r["output"]["precompute_seconds"] for r in hw),
                "load_min": min(r["load"] for r in lc + hw),
                "load_max": max(r["load"] for r in lc + hw),
            }
            for prog, key, nbytes in (("laddu_cpp", "value_laddu_cpp", laddu_bytes),
                                      ("handwritten", "value_handwritten",
                                       HANDWRITTEN_BYTES_PER_EVENT)):
                gbs = nbytes * events / row[key] / 1e9
                row[f"gbs_{prog}"] = gbs
                row[f"triad_share_{prog}"] = gbs / triad_gbs[t]
            rows.append(row)

    print(f"laddu-cpp reads {cache_bytes} B cache + {WEIGHT_BYTES} B weight = {laddu_bytes} B per "
          f"event; hand-written {HANDWRITTEN_BYTES_PER_EVENT} B. Best of {args.rounds} alternating "
          f"rounds of medians; load average {load_start:.2f} at the start, {load_end:.2f} at the end.")
    print()
    print("| events | threads | value ms laddu-cpp / hand-written (ratio) "
          "| value+gradient ms laddu-cpp / hand-written (ratio) "
          "| precompute s laddu-cpp warm (cold) / hand-written "
          "| value GB/s laddu-cpp / hand-written (share of triad) | NLL rel. diff |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['events']:,} | {r['threads']} "
              f"| {fmt_ms(r['value_laddu_cpp'])} / {fmt_ms(r['value_handwritten'])} "
              f"({r['value_laddu_cpp'] / r['value_handwritten']:.2f}) "
              f"| {fmt_ms(r['vg_laddu_cpp'])} / {fmt_ms(r['vg_handwritten'])} "
              f"({r['vg_laddu_cpp'] / r['vg_handwritten']:.2f}) "
              f"| {r['precompute_laddu_cpp']:.3g} ({r['precompute_cold_laddu_cpp']:.3g}) / "
              f"{r['precompute_handwritten']:.3g} "
              f"| {r['gbs_laddu_cpp']:.1f} / {r['gbs_handwritten']:.1f} "
              f"({r['triad_share_laddu_cpp']:.0%} / {r['triad_share_handwritten']:.0%}) "
              f"| {r['nll_rel_diff']:.1e} |")
    print()
    print("triad (stream_triad, " + f"3 x {triad_data['array_mib']} MiB, best of "
          f"{triad_data['repeat']}, write-allocate not counted): "
          + ", ".join(f"{t} thread(s) {g:.1f} GB/s" for t, g in triad_gbs.items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"date": datetime.datetime.now().isoformat(timespec="seconds"),
                       "args": vars(args), "laddu_cache_bytes_per_event": cache_bytes,
                       "laddu_bytes_per_event": laddu_bytes,
                       "handwritten_bytes_per_event": HANDWRITTEN_BYTES_PER_EVENT,
                       "load_start": load_start, "load_end": load_end, "triad": triad_data,
                       "rows": rows, "runs": runs}, f, indent=1)
    if not ok:
        print(f"NLLs differ by more than {args.tolerance:g} (relative)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
