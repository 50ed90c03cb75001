#!/usr/bin/env bash
# Builds the libFuzzer target for laddu-cpp's Parquet reader with clang (ASan + UBSan) and runs
# it for a bounded time. Usage: tools/fuzz_parquet.sh [SECONDS=60] [extra libFuzzer flags...]
# The corpus lives in build/fuzz-parquet/corpus (seeded with small valid files from laddu-cpp's
# writer and, when present, the DuckDB/hyparquet fixtures of the interop test).
set -euo pipefail
seconds=${1:-60}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/fuzz-parquet
cxx=${CXX_FUZZ:-clang++-14}
mkdir -p "$out/corpus" "$out/seeds"

sources=(
    "$root"/src/base/error.cpp "$root"/src/base/assert.cpp "$root"/src/base/log.cpp
    "$root"/src/data/schema.cpp "$root"/src/data/event_batch.cpp "$root"/src/data/event_source.cpp
    "$root"/src/data/dataset.cpp
    "$root"/src/data/io/parquet/thrift.cpp "$root"/src/data/io/parquet/metadata.cpp
    "$root"/src/data/io/parquet/compression.cpp "$root"/src/data/io/parquet/encodings.cpp
    "$root"/src/data/io/parquet/file_reader.cpp "$root"/src/data/io/parquet/file_writer.cpp
    "$root"/src/data/io/parquet/parquet_source.cpp
)
flags=(-std=c++20 -O1 -g -I"$root/include" -I"$root/src/data" -fno-omit-frame-pointer)
libs=(-lfmt -lsnappy -lzstd -lz)

echo "fuzz_parquet: building with $cxx"
"$cxx" "${flags[@]}" -fsanitize=address,undefined -DLADDU_FUZZ_SEEDS \
    "$root/src/data/io/parquet/parquet_fuzzer.cpp" "${sources[@]}" "${libs[@]}" -o "$out/make_seeds"
"$cxx" "${flags[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    "$root/src/data/io/parquet/parquet_fuzzer.cpp" "${sources[@]}" "${libs[@]}" -o "$out/parquet_fuzzer"

"$out/make_seeds" "$out/seeds"
for f in "$root"/build/*/src/data/parquet_interop/fixtures/*.parquet; do
    # Only small fixtures make useful seeds.
    if [ -f "$f" ] && [ "$(stat -c %s "$f")" -lt 40000 ]; then
        cp "$f" "$out/seeds/"
    fi
done

echo "fuzz_parquet: running for ${seconds}s"
"$out/parquet_fuzzer" "$out/corpus" "$out/seeds" -max_total_time="$seconds" \
    -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 "$@" 2>&1 | tee "$out/last_run.log" | tail -25
