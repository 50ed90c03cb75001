#!/usr/bin/env bash
# Prints, for every combination of data file, precision, backend, thread count and autodiff mode,
# the K-matrix benchmark NLL (repr) and an MD5 of its 34 gradient components (repr, by name).
# Run it on two builds (or two commits) and diff the outputs: equal lines are equal bits.
#   bench/bit_identity.sh [LADDU_CPP] [DATA.parquet ...] > bits.txt
# Defaults: build/relassert/apps/laddu-cpp/laddu-cpp, laddu's 10,000-event benchmark file and
# the 100,000-event generated file under build/bench-data (see bench/README.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${1:-$root/build/relassert/apps/laddu-cpp/laddu-cpp}
shift || true
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    files=("$root/build/bench-data/laddu_bench.parquet" "$root/build/bench-data/ksks_100000_seed7.parquet")
fi
params=$root/../shared/bench/params_025.json
for data in "${files[@]}"; do
    for precision in f64 f32; do
        for jit in on off; do
            for threads in 1 2; do
                for autodiff in forward reverse; do
                    "$cli" bench kmatrix --data "$data" --params "$params" --threads "$threads" \
                        --jit "$jit" --precision "$precision" --autodiff "$autodiff" --repeat 1 --json |
                        python3 -c 'import hashlib, json, sys
d = json.load(sys.stdin)
g = repr(sorted(d["gradient"].items())).encode()
print(sys.argv[1], *sys.argv[2:], repr(d["nll"]), hashlib.md5(g).hexdigest())' \
                            "$(basename "$data")" "$precision" "$jit" "$threads" "$autodiff"
                done
            done
        done
    done
done
