#!/usr/bin/env bash
# Parquet reading throughput, laddu-cpp vs DuckDB, on one 1e7-event 16-column float64 file.
# Usage: bench/parquet_bench.sh BUILD_DIR [ROWS=10000000] [CODEC=snappy]
# Needs node and tests/parquet_interop/node_modules (npm ci there). The file goes to BUILD_DIR.
set -euo pipefail
build=$1 rows=${2:-10000000} codec=${3:-snappy}
root=$(cd "$(dirname "$0")/.." && pwd)
export NODE_PATH="$root/tests/parquet_interop/node_modules"
file=$build/parquet_bench_${rows}_${codec}.parquet
# ES modules ignore NODE_PATH, so run the script from beside the node_modules.
cp "$root/bench/parquet_bench.mjs" "$root/tests/parquet_interop/.parquet_bench.mjs"
trap 'rm -f "$root/tests/parquet_interop/.parquet_bench.mjs"' EXIT
if [ ! -f "$file" ]; then
    node "$root/tests/parquet_interop/.parquet_bench.mjs" make "$file" "$rows" "$codec"
fi
ls -l "$file"
"$build/bench/event_read_bench" "$file" 3
node "$root/tests/parquet_interop/.parquet_bench.mjs" read "$file" 3
