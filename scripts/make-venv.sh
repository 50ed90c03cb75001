#!/usr/bin/env bash
# Makes (or reuses) a virtual environment under build/ from one pinned requirements file:
#   scripts/make-venv.sh test   -> build/venv        from requirements/test.txt
#   scripts/make-venv.sh bench  -> build/venv-bench  from requirements/bench.txt
# It uses Debian's /usr/bin/python3 (the interpreter the module is built for) without its
# site-packages, so PyPI's numpy 2 and the oracles never mix with Debian's numpy 1. A stamp
# holding the requirements file's hash makes a second run a no-op; a changed pin rebuilds.
set -euo pipefail
cd "$(dirname "$0")/.."

purpose="${1:-test}"
case "$purpose" in
    test) venv=build/venv ;;
    bench) venv=build/venv-bench ;;
    *)
        echo "make-venv: unknown purpose '$purpose'; use 'test' or 'bench'" >&2
        exit 2
        ;;
esac
requirements="requirements/$purpose.txt"
python=/usr/bin/python3
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$requirements" | cut -d' ' -f1)"

if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "make-venv: $venv up to date"
    exit 0
fi

if ! "$python" -c 'import ensurepip' >/dev/null 2>&1; then
    echo "make-venv: $python has no venv support; install python3-venv (scripts/install-deps.sh does)" >&2
    exit 1
fi

echo "make-venv: creating $venv from $requirements"
rm -rf "$venv"
"$python" -m venv "$venv"
# Quiet in logs; pip's progress bars only on a terminal.
progress=off
[ -t 1 ] && progress=on
"$venv/bin/python" -m pip install -q --disable-pip-version-check --progress-bar "$progress" \
    -r "$requirements"
echo "$want" >"$stamp"
echo "make-venv: $venv ready"
