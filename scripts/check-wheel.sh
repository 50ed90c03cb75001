#!/usr/bin/env bash
# Builds the laddu_cpp wheel (pyproject.toml, a Release build), installs it into a new venv and
# runs the pytest suite python/tests against the installed package: no PYTHONPATH, no build-tree
# tools (the tests that need LADDU_PY_NLL_REFERENCE or LADDU_CPP_CLI skip). `make test` runs it
# after ctest (Makefile, target wheel-check).
#
#   build/wheel/<tag>/  the CMake build folder, kept: a second run rebuilds only what changed
#   build/wheel/dist/   the wheel of this run
#   build/wheel-venv/   made anew on every run from /usr/bin/python3: the wheel, and pytest,
#                       scipy, mpmath, iminuit, matplotlib and pyarrow (the data-io tutorial's
#                       Parquet checks) at requirements/test.txt's pins
#
# The wheel is built without build isolation by build/venv (scripts/make-venv.sh), whose
# scikit-build-core and pybind11 are pyproject.toml's pinned build requirements (checked below):
# isolation would put them in a new temporary folder each time and so rebuild every binding.
set -euo pipefail
cd "$(dirname "$0")/.."

build_python=build/venv/bin/python
dist=build/wheel/dist
venv=build/wheel-venv
jobs="${JOBS:-$(nproc)}"

if [ ! -x "$build_python" ]; then
    echo "check-wheel: no $build_python; run scripts/install-deps.sh (or make deps) first" >&2
    exit 1
fi

# pyproject.toml's build requirements must be what build/venv has.
"$build_python" - <<'EOF'
import importlib.metadata, re, sys, tomllib
requires = tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]
for requirement in requires:
    name, version = re.fullmatch(r"([A-Za-z0-9_.-]+)==(\S+)", requirement).groups()
    have = importlib.metadata.version(name)
    if have != version:
        sys.exit(f"check-wheel: pyproject.toml pins {name}=={version}, build/venv has {have}; "
                 "keep requirements/test.txt and pyproject.toml in step")
EOF

echo "check-wheel: building the wheel (Release, build/wheel/, $jobs jobs)"
rm -rf "$dist"
start=$SECONDS
CMAKE_BUILD_PARALLEL_LEVEL="$jobs" "$build_python" -m pip wheel . --no-build-isolation --no-deps \
    --disable-pip-version-check -v -w "$dist"
build_seconds=$((SECONDS - start))
wheels=("$dist"/laddu_cpp-*.whl)
if [ ${#wheels[@]} -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
    echo "check-wheel: expected one wheel in $dist, found: ${wheels[*]}" >&2
    exit 1
fi
wheel="${wheels[0]}"
echo "check-wheel: built $wheel ($(du -h "$wheel" | cut -f1)) in ${build_seconds} s"

echo "check-wheel: installing it into a new $venv"
start=$SECONDS
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
progress=off
[ -t 1 ] && progress=on
"$venv/bin/python" -m pip install -q --disable-pip-version-check --progress-bar "$progress" \
    -c requirements/test.txt "$wheel" pytest scipy mpmath iminuit matplotlib pyarrow
"$venv/bin/python" -m pip check
install_seconds=$((SECONDS - start))

# From a folder outside the source tree, so nothing but the installed package can be imported.
echo "check-wheel: pytest python/tests against the installed package"
tests="$PWD/python/tests"
cd "$venv"
env -u PYTHONPATH -u LADDU_PY_NLL_REFERENCE -u LADDU_CPP_CLI PYTHONDONTWRITEBYTECODE=1 \
    LADDU_CPP_EXPECT_INSTALLED=1 bin/python -c '
import sys, laddu_cpp as ld
assert ld.__file__.startswith(sys.prefix), ld.__file__
print("check-wheel: laddu_cpp", ld.__version__, "from", ld.__file__)
print("check-wheel: capabilities", ld.capabilities())'
start=$SECONDS
env -u PYTHONPATH -u LADDU_PY_NLL_REFERENCE -u LADDU_CPP_CLI PYTHONDONTWRITEBYTECODE=1 \
    LADDU_CPP_EXPECT_INSTALLED=1 bin/python -m pytest -q -p no:cacheprovider "$tests"
echo "check-wheel: wheel build ${build_seconds} s, venv and install ${install_seconds} s," \
    "pytest $((SECONDS - start)) s"
