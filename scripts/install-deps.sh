#!/usr/bin/env bash
# Installs every Debian 12 package the build and the test suites use, then the pinned PyPI test
# venv (build/venv, scripts/make-venv.sh). Idempotent: when all are present it does nothing (no
# apt-get update), so `make test` stays fast on a prepared machine. Add a package here in the
# same change that starts using it.
set -euo pipefail

packages=(
    # toolchain
    build-essential cmake ninja-build pkg-config git
    clang-format-19 clang-tidy-19 llvm-19-dev
    # libraries
    libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev
    libopenmpi-dev openmpi-bin nlohmann-json3-dev
    # model files of the laddu-cpp command (apps/laddu-cpp/model_file.cpp)
    libtomlplusplus-dev
    # Parquet and ROOT codecs (src/data/io/parquet, src/data/io/root: liblzma for XZ baskets,
    # libdeflate for zlib baskets)
    libsnappy-dev libzstd-dev zlib1g-dev liblz4-dev libbrotli-dev liblzma-dev libdeflate-dev
    # Parquet interop tests and benchmark (tests/parquet_interop: DuckDB, hyparquet from npm);
    # skipped below when a node is already on PATH
    nodejs npm
    # python test tooling (Debian's /usr/bin/python3)
    python3 python3-dev python3-venv python3-pytest python3-numpy pybind11-dev python3-scipy python3-iminuit
    python3-matplotlib
    # the SVG rendering test screenshots an SVG with headless Chromium (python/tests/test_render.py)
    chromium
    # the OpenCL GPU backend (src/gpu): headers and ICD loader to build it, PoCL's CPU device to
    # run its tests without a GPU, clinfo to list devices
    pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo
)

missing=()
for pkg in "${packages[@]}"; do
    # A node from elsewhere (nodesource, nvm) serves as well as Debian's nodejs/npm.
    if { [ "$pkg" = nodejs ] || [ "$pkg" = npm ]; } && command -v node >/dev/null 2>&1 &&
        command -v npm >/dev/null 2>&1; then
        continue
    fi
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done

install_debian_packages() {
    if [ ${#missing[@]} -eq 0 ]; then
        echo "install-deps: all ${#packages[@]} packages present"
        return 0
    fi

    echo "install-deps: installing ${missing[*]}"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            echo "install-deps: not root and no sudo; install these packages: ${missing[*]}" >&2
            exit 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -q
    $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

install_debian_packages
bash "$(dirname "$0")/make-venv.sh" test
