#!/usr/bin/env bash
# Parquet interop test: independent writers -> laddu-cpp reader, laddu-cpp writer -> independent
# readers, and `laddu-cpp data info --json` against DuckDB's aggregates.
# Usage: run_interop.sh SOURCE_DIR WORK_DIR CHECKER [CLI]. Exit 77 (ctest skip) without node.
set -euo pipefail
src=$1 work=$2 checker=$3 cli=${4:-}
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "run_interop: node/npm not found; skipping" >&2
    exit 77
fi
mkdir -p "$work"
cp "$src"/package.json "$src"/package-lock.json "$src"/*.mjs "$work"/
cd "$work"
if [ ! -d node_modules ]; then
    if [ -d "$src/node_modules" ]; then
        ln -s "$src/node_modules" node_modules
    else
        npm ci --offline --no-audit --no-fund || npm ci --no-audit --no-fund ||
            npm install --no-audit --no-fund
    fi
fi
rm -rf fixtures && mkdir fixtures
node gen_fixtures.mjs fixtures
"$checker" read fixtures
"$checker" write fixtures
node verify_laddu.mjs fixtures
if [ -n "$cli" ]; then
    for f in fixtures/duckdb_gzip_v2.parquet fixtures/hyparquet_snappy.parquet fixtures/laddu_zstd.parquet; do
        "$cli" data info --json "$f" > "$f.info.json"
        node check_info.mjs "$f" "$f.info.json"
    done
fi
