#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One-step set-up for a fresh Debian 12 / Ubuntu 24.04 machine (root, or a user with sudo):
#   packaging/bootstrap.sh run    install what is missing, build (Release; CUDA when the toolkit is
#                                 at /usr/local/cuda), start the GUI on the built-in demo data
#   packaging/bootstrap.sh test   the same set-up, then the whole test suite: the Release build's
#                                 ctest (GUI tests under xvfb-run) and the readers' mutation tests
#                                 in an ASan+UBSan build
# Environment: CS_BUILD_DIR (build), CS_ASAN_BUILD_DIR (build-asan), CS_JOBS (all cores),
#              CS_WITH_CUDA (AUTO|ON|OFF, default AUTO), CS_SKIP_APT=1 (never call apt-get).
set -euo pipefail

mode=${1:-}
case $mode in
    run | test) shift ;;
    -h | --help | "")
        sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//'
        [ -n "$mode" ] && exit 0 || exit 2
        ;;
    *) echo "bootstrap: unknown mode '$mode' (use run or test)" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CS_BUILD_DIR:-$root/build}
asan_build=${CS_ASAN_BUILD_DIR:-$root/build-asan}
jobs=${CS_JOBS:-$(nproc)}
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# --- 1. packages -------------------------------------------------------------------------------
packages=(
    g++ cmake ninja-build pkg-config
    qt6-base-dev libqt6opengl6-dev qt6-charts-dev libgl-dev
    libfftw3-dev libeigen3-dev libnanoflann-dev libcli11-dev nlohmann-json3-dev liblzf-dev
    libminizip-dev openmpi-bin libopenmpi-dev
    xvfb xauth libgl1-mesa-dri libglx-mesa0 fonts-dejavu-core
    python3-dev python3-numpy python3-sklearn pybind11-dev
    desktop-file-utils appstream libglib2.0-bin shared-mime-info mmdebstrap
)
missing=()
for p in "${packages[@]}"; do
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" = installed ] || missing+=("$p")
done
if ((${#missing[@]})) && [ "${CS_SKIP_APT:-0}" != 1 ]; then
    say "installing missing packages: ${missing[*]}"
    sudo=()
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null || { echo "bootstrap: not root and no sudo: install ${missing[*]}" >&2; exit 1; }
        sudo=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -q
    "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# --- 2. build -----------------------------------------------------------------------------------
say "configuring and building $build (Release, CUDA ${CS_WITH_CUDA:-AUTO})"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCS_WITH_CUDA="${CS_WITH_CUDA:-AUTO}"
cmake --build "$build" -j "$jobs"

gui="$build/app/gui/clusterscope"

# --- 3a. run --------------------------------------------------------------------------------------
if [ "$mode" = run ]; then
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
        cat >&2 <<EOF

bootstrap: built, but this session has no display (DISPLAY and WAYLAND_DISPLAY are unset),
so the window cannot open. Run it on a virtual display, e.g. take a screenshot of it:
    xvfb-run -a -s "-screen 0 1600x1000x24" $gui --screenshot clusterscope.png --quit
or log in graphically (or use ssh -X) and run:
    $gui
The command-line tool works anywhere:
    $build/app/clusterscope-cli info ../shared/data/points/bunny.pcd
EOF
        exit 3
    fi
    say "starting $gui on the built-in demo data"
    exec "$gui" "$@"
fi

# --- 3b. test -------------------------------------------------------------------------------------
say "running the test suite (ctest; GUI tests under xvfb-run)"
ctest --test-dir "$build" --output-on-failure -j "$jobs"

say "building and running the readers' mutation tests under AddressSanitizer + UBSan ($asan_build)"
cmake -S "$root" -B "$asan_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCS_WITH_CUDA=OFF \
    -DCS_SANITIZE=address,undefined
cmake --build "$asan_build" -j "$jobs" --target tst_point_reader_fuzz tst_series_reader_fuzz
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$asan_build" -R '_fuzz$' --output-on-failure -j "$jobs"
say "all tests passed"
