#!/usr/bin/env bash
# Opt-in clang-tidy (pinned: LLVM 19) over the library sources, using BUILD_DIR's
# compile_commands.json. Usage: tools/run_clang_tidy.sh build/relassert [files...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/relassert}
shift || true
tidy=${CLANG_TIDY:-clang-tidy-19}
if [ $# -eq 0 ]; then
    mapfile -t files < <(git ls-files -- 'src/*.cpp' | grep -v '_test.cpp$')
else
    files=("$@")
fi
exec "$tidy" -p "$build" --quiet "${files[@]}"
