#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copies what the non-Qt build needs, and the GPU machine (Ubuntu 24.04, no network) lacks,
# from this Debian machine into .devdeps/ (git-ignored), as a prefix for CMake:
#   cmake ... -DCMAKE_PREFIX_PATH=$PWD/.devdeps      (or: source .devdeps/env.sh)
# Contents: nlohmann-json, CLI11, Eigen 3, nanoflann (headers + small relocatable CMake configs),
# liblzf (lzf.h + liblzf.so*), FFTW single precision (fftw3.h + static libfftw3f.a, PIC, with a
# CMake config FFTW3f -> FFTW3::fftw3f and a relocatable fftw3f.pc), minizip + zlib (headers,
# static PIC libraries, a relocatable minizip.pc), and Open MPI's runtime in mpi/
# (.ci/device-mpi.sh, ~12 MiB; CS_DEVDEPS_MPI=0 leaves it out): configure with
# -DMPI_HOME=$PWD/.devdeps/mpi, run .devdeps/mpi/bin/mpirun.
# Usage: .ci/device-deps.sh [output dir, default <repo>/.devdeps]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$repo/.devdeps}"
multiarch="$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)"
libdir="/usr/lib/$multiarch"

# Debian packages that provide the files; installed when missing (as root) or named.
packages=(nlohmann-json3-dev libcli11-dev liblzf-dev libeigen3-dev libnanoflann-dev libfftw3-dev
    libminizip-dev zlib1g-dev)
# shellcheck source=ensure-packages.sh
source "$repo/.ci/ensure-packages.sh"
ensure_packages device-deps "${packages[@]}"

version_of() {  # Debian package version without epoch and Debian suffix: 3.11.2-2 -> 3.11.2
    dpkg-query -W -f='${Version}' "$1" | sed -E 's/^[0-9]+://; s/[+~-].*$//'
}

rm -rf "$out"
mkdir -p "$out/include" "$out/lib/cmake" "$out/lib/pkgconfig"

# --- headers --------------------------------------------------------------------------------------
cp -r /usr/include/nlohmann "$out/include/"
cp -r /usr/include/CLI "$out/include/"
cp -r /usr/include/eigen3 "$out/include/"
cp /usr/include/nanoflann.hpp "$out/include/"
mkdir -p "$out/include/liblzf"
cp /usr/include/liblzf/lzf.h "$out/include/liblzf/"
cp /usr/include/fftw3.h "$out/include/"
cp -r /usr/include/minizip "$out/include/"
cp /usr/include/zlib.h /usr/include/zconf.h "$out/include/"

# GCC 13 (on the GPU machine) no longer pulls <cstdint> in through <string> and friends, and
# CLI11 2.1 and nanoflann 1.4 use uint8_t/uint32_t without including it (fixed upstream later).
note='// added by .ci/device-deps.sh for GCC 13'
for f in "$out"/include/CLI/*.hpp "$out/include/nanoflann.hpp"; do
    sed -i "0,/^#pragma once/s||#pragma once\n#include <cstdint>  $note|" "$f"
    grep -q '^#include <cstdint>' "$f" || sed -i "1i #include <cstdint>  $note" "$f"
done

# --- libraries (regular files, no symlinks: only the carried folder travels) ----------------------
cp -L "$libdir/liblzf.so" "$out/lib/liblzf.so"
soname="$(objdump -p "$libdir/liblzf.so" | awk '/SONAME/ {print $2}')"
[[ -n "$soname" && "$soname" != liblzf.so ]] && cp -L "$libdir/liblzf.so" "$out/lib/$soname"
cp "$libdir/libfftw3f.a" "$out/lib/"
# minizip (SciPy's sparse .npz) and the zlib it inflates with, static and PIC as Debian builds them.
cp "$libdir/libminizip.a" "$libdir/libz.a" "$out/lib/"

# --- CMake package configs (relocatable: everything relative to the config file) -----------------
write_version() {  # <dir> <package> <version>: same major version, at least the one asked for
    cat >"$1/$2ConfigVersion.cmake" <<CMAKE
# Written by .ci/device-deps.sh
set(PACKAGE_VERSION "$3")
set(PACKAGE_VERSION_COMPATIBLE FALSE)
if(NOT PACKAGE_FIND_VERSION OR (PACKAGE_VERSION VERSION_GREATER_EQUAL PACKAGE_FIND_VERSION
   AND PACKAGE_FIND_VERSION_MAJOR STREQUAL "${3%%.*}"))
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
if(PACKAGE_FIND_VERSION AND PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
endif()
CMAKE
}

header_only() {  # <package> <target> <version> <include subdir or ''> [extra cmake]
    local dir="$out/lib/cmake/$1"
    mkdir -p "$dir"
    cat >"$dir/$1Config.cmake" <<CMAKE
# Written by .ci/device-deps.sh: $1 $3 from the Debian package, relocatable.
get_filename_component(_cs_prefix "\${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET $2)
    add_library($2 INTERFACE IMPORTED)
    set_target_properties($2 PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "\${_cs_prefix}/include$4")
endif()
${5:-}
set($1_FOUND TRUE)
unset(_cs_prefix)
CMAKE
    write_version "$dir" "$1" "$3"
}

header_only nlohmann_json nlohmann_json::nlohmann_json "$(version_of nlohmann-json3-dev)" ""
header_only CLI11 CLI11::CLI11 "$(version_of libcli11-dev)" ""
header_only nanoflann nanoflann::nanoflann "$(version_of libnanoflann-dev)" ""
header_only Eigen3 Eigen3::Eigen "$(version_of libeigen3-dev)" "/eigen3" \
    'set(EIGEN3_FOUND TRUE)
set(EIGEN3_INCLUDE_DIR "${_cs_prefix}/include/eigen3")
set(EIGEN3_INCLUDE_DIRS "${EIGEN3_INCLUDE_DIR}")'

fftw_version="$(version_of libfftw3-dev)"
mkdir -p "$out/lib/cmake/FFTW3f"
cat >"$out/lib/cmake/FFTW3f/FFTW3fConfig.cmake" <<CMAKE
# Written by .ci/device-deps.sh: FFTW $fftw_version single precision, static (PIC), relocatable.
# Same names as FFTW's own CMake build: find_package(FFTW3f) -> FFTW3::fftw3f.
get_filename_component(_cs_prefix "\${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET FFTW3::fftw3f)
    add_library(FFTW3::fftw3f STATIC IMPORTED)
    set_target_properties(FFTW3::fftw3f PROPERTIES
        IMPORTED_LOCATION "\${_cs_prefix}/lib/libfftw3f.a"
        INTERFACE_INCLUDE_DIRECTORIES "\${_cs_prefix}/include"
        INTERFACE_LINK_LIBRARIES m)
endif()
set(FFTW3f_FOUND TRUE)
set(FFTW3f_INCLUDE_DIRS "\${_cs_prefix}/include")
set(FFTW3f_LIBRARIES FFTW3::fftw3f)
unset(_cs_prefix)
CMAKE
write_version "$out/lib/cmake/FFTW3f" FFTW3f "$fftw_version"
cat >"$out/lib/pkgconfig/fftw3f.pc" <<PC
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: FFTW
Description: fast Fourier transform library (single precision, static; from .ci/device-deps.sh)
Version: $fftw_version
Libs: -L\${libdir} -lfftw3f
Libs.private: -lm
Cflags: -I\${includedir}
PC

cat >"$out/lib/pkgconfig/minizip.pc" <<PC
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib
includedir=\${prefix}/include/minizip

Name: minizip
Description: zip archives, from zlib's contrib (static, with a static zlib; from .ci/device-deps.sh)
Version: $(version_of libminizip-dev)
Libs: -L\${libdir} -lminizip -lz
Cflags: -I\${includedir} -I\${prefix}/include
PC

cat >"$out/env.sh" <<'SH'
# source .devdeps/env.sh: the prefix for CMake, liblzf for the dynamic loader.
_devdeps="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export CMAKE_PREFIX_PATH="$_devdeps${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
export LD_LIBRARY_PATH="$_devdeps/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_PATH="$_devdeps/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
unset _devdeps
SH

if [[ ${CS_DEVDEPS_MPI:-1} != 0 ]]; then
    "$repo/.ci/device-mpi.sh" "$out/mpi"
fi

echo "device-deps: wrote $out ($(du -sh "$out" | cut -f1)):"
(cd "$out" && find . -maxdepth 4 -type f -path './lib/*' -not -path './mpi/*' | sort | sed 's/^/  /')
