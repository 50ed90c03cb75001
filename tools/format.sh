#!/usr/bin/env bash
# clang-format (pinned: LLVM 19) over every C++ file git knows. --check fails on any difference.
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=${CLANG_FORMAT:-clang-format-19}
mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.hpp' '*.cpp' '*.h')
[ ${#files[@]} -gt 0 ] || exit 0
if [ "${1:-}" = "--check" ]; then
    exec "$fmt" --dry-run -Werror "${files[@]}"
fi
exec "$fmt" -i "${files[@]}"
