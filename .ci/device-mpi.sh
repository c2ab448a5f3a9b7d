#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copies Debian 12's Open MPI runtime into <out> (default <repo>/.devdeps/mpi) as a relocatable
# prefix for the GPU machine (Ubuntu 24.04, no MPI, no network): headers, libmpi and the closure
# of libraries Ubuntu 24.04 lacks (libopen-rte/-pal, hwloc, libevent, PMIx, munge), mpirun/orted,
# the mpicxx wrapper and its data, the MCA plugins that load with those libraries, PMIx's plugins
# and the help texts. Regular files only (the carried folder travels as files).
# Open MPI and PMIx find their files through OPAL_PREFIX / PMIX_PREFIX and friends, so the
# launchers in <out>/bin are scripts that set those from where the bundle lies, then run the
# real binaries (<out>/libexec): .devdeps/mpi/bin/mpirun works from any path, and CMake finds
# MPI with -DMPI_HOME=<out> (FindMPI runs bin/mpicxx -showme). The libraries find each other
# through RUNPATH $ORIGIN (patchelf), so a program linked with them starts without any
# environment; `source <out>/env.sh` also sets PATH, LD_LIBRARY_PATH and MPI_HOME for a shell,
# and is needed by an MPI program started without mpirun (a singleton finds its plugins
# through OPAL_PREFIX).
# Proved in an Ubuntu 24.04 chroot without MPI, the bundle at another path:
#   cmake ... -DCMAKE_PREFIX_PATH=$PWD/.devdeps -DMPI_HOME=$PWD/.devdeps/mpi
#   .devdeps/mpi/bin/mpirun --allow-run-as-root --oversubscribe -np 2 build/app/clusterscope-cli knn ...
# Called by .ci/device-deps.sh; usage: .ci/device-mpi.sh [output dir]
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$repo/.devdeps/mpi}"
multiarch="$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)"
sys="/usr/lib/$multiarch"
ompi="$sys/openmpi"  # Debian's Open MPI libdir and includedir live here

packages=(openmpi-bin libopenmpi-dev patchelf)
# shellcheck source=ensure-packages.sh
source "$repo/.ci/ensure-packages.sh"
ensure_packages device-mpi "${packages[@]}"

# The same layout below <out> as below /usr: Open MPI's paths are ${prefix}/lib/<multiarch>/
# openmpi/{lib,include}, ${prefix}/share/openmpi and ${prefix}/bin, so OPAL_PREFIX=<out> moves
# them all (only sysconfdir, /etc/openmpi, is absolute: OPAL_SYSCONFDIR).
libdir="$out/lib/$multiarch/openmpi/lib"
rm -rf "$out"
mkdir -p "$out/bin" "$out/libexec" "$libdir/openmpi3" "$libdir/pmix" "$out/etc" \
    "$out/share/openmpi" "$out/share/pmix" "$out/lib/$multiarch/openmpi/include/openmpi/ompi/mpi"

# --- libraries: libmpi (and the C++ bindings FindMPI's mpicxx names), then their closure --------
# glibc, libstdc++, libgcc and zlib are on every Ubuntu; everything else of the closure travels.
# libudev is on the GPU machine as on most systems, but travels in lib/fallback, which env.sh
# puts on the path only where the system lacks it (a Debian 12 copy ahead of Ubuntu's would
# shadow a newer one).
system_lib='^(linux-vdso|libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+|libz|ld-linux-x86-64)\.so'
declare -A have=()
copy_lib() {  # <path or soname> [dest dir]: the file (symlinks resolved) under its soname
    local src="$1" dest="${2:-$libdir}" name
    [[ $src == /* ]] || src="$sys/$src"
    name="$(objdump -p "$src" | awk '/SONAME/ {print $2}')"
    name="${name:-$(basename "$src")}"
    [[ -n ${have[$name]:-} ]] && return
    cp -L "$src" "$dest/$name"
    have[$name]=1
}
closure() {  # <elf file>...: copies each non-system library they load, recursively (ldd is transitive)
    local f lib path
    for f in "$@"; do
        while read -r lib path; do
            [[ $lib =~ $system_lib ]] && continue
            [[ -n ${have[$lib]:-} ]] && continue
            if [[ $lib == libudev.so.1 ]]; then
                mkdir -p "$out/lib/fallback"
                copy_lib "$path" "$out/lib/fallback"
            else
                copy_lib "$path"
            fi
        done < <(ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
    done
}
copy_lib "$sys/libmpi.so.40"
copy_lib "$sys/libmpi_cxx.so.40"
# Link-time names (regular files: the linker takes the soname from inside).
cp -L "$sys/libmpi.so.40" "$libdir/libmpi.so"
cp -L "$sys/libmpi_cxx.so.40" "$libdir/libmpi_cxx.so"
closure "$sys/libmpi.so.40" "$sys/libmpi_cxx.so.40" /usr/bin/orterun /usr/bin/orted
# PMIx (the launch's key-value store, in mpirun and every rank), loaded by the pmix plugin.
copy_lib "$sys/libpmix.so.2"
closure "$sys/libpmix.so.2"

# --- MCA plugins: those whose libraries are all bundled or system ones ----------------------------
# The rest need InfiniBand/UCX/OFI/PSM stacks (libibverbs, libucp, libfabric, libpsm2, libnl)
# that a one-host run does not use and Debian's openmpi-mca-params.conf turns off anyway.
# The libmca_common_* helpers they need travel too; OpenSHMEM's (liboshmem) do not.
skipped=()
plugin_ok() {  # <plugin>: every library it loads is a system or a bundleable Open MPI one
    local lib
    while read -r lib; do
        [[ $lib =~ $system_lib || -n ${have[$lib]:-} || $lib == libudev.so.1 ]] && continue
        [[ $lib =~ ^libmca_common_(sm|ompio|monitoring)\.so ]] && continue
        return 1
    done < <(ldd "$1" | awk '$2 == "=>" {print $1}')
}
for p in "$ompi/lib/openmpi3"/*.so; do
    if plugin_ok "$p"; then
        cp "$p" "$libdir/openmpi3/"
        closure "$p"
    else
        skipped+=("$(basename "$p" .so)")
    fi
done
# PMIx's own plugins and help texts.
pmix_lib="$(dirname "$(readlink -f "$sys/libpmix.so.2")")"
for p in "$pmix_lib"/pmix/*.so; do
    cp "$p" "$libdir/pmix/"
    closure "$p"
done
cp -r "$pmix_lib/../share/pmix/." "$out/share/pmix/"
cp "$pmix_lib/../share/pmix-mca-params.conf" "$out/etc/" 2>/dev/null || true

# --- executables (libexec) and the launchers that locate the bundle (bin) ------------------------
cp /usr/bin/orterun /usr/bin/orted /usr/bin/opal_wrapper /usr/bin/ompi_info "$out/libexec/"
cat >"$out/libexec/cs-mpi-env" <<'SH'
# Sourced by the launchers in ../bin and by ../env.sh: Open MPI and PMIx, relocated to this
# bundle (written by .ci/device-mpi.sh).
_csmpi="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_csmpi_lib="$_csmpi/lib/MULTIARCH/openmpi/lib"
export OPAL_PREFIX="$_csmpi" OPAL_SYSCONFDIR="$_csmpi/etc"
export OPAL_LIBDIR="$_csmpi_lib" OPAL_PKGLIBDIR="$_csmpi_lib/openmpi3"
export OPAL_PKGDATADIR="$_csmpi/share/openmpi"
export PMIX_PREFIX="$_csmpi" PMIX_LIBDIR="$_csmpi_lib" PMIX_PKGLIBDIR="$_csmpi_lib/pmix"
export PMIX_PKGDATADIR="$_csmpi/share/pmix"
export PMIX_MCA_mca_base_component_path="$_csmpi_lib/pmix"
case ":${LD_LIBRARY_PATH:-}:" in
*":$_csmpi_lib:"*) ;;
*)
    _csmpi_path="$_csmpi_lib"
    # libudev from Debian only where the system has none.
    if [ -d "$_csmpi/lib/fallback" ] && ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libudev\.so\.1 '; then
        _csmpi_path="$_csmpi_path:$_csmpi/lib/fallback"
    fi
    export LD_LIBRARY_PATH="$_csmpi_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    ;;
esac
case ":$PATH:" in *":$_csmpi/bin:"*) ;; *) export PATH="$_csmpi/bin:$PATH" ;; esac
export MPI_HOME="$_csmpi"
unset _csmpi _csmpi_lib _csmpi_path
SH
sed -i "s|MULTIARCH|$multiarch|" "$out/libexec/cs-mpi-env"
launcher() {  # <name in bin> <binary in libexec>: argv[0] stays <name> (opal_wrapper reads it)
    cat >"$out/bin/$1" <<SH
#!/usr/bin/env bash
# Written by .ci/device-mpi.sh: Open MPI's $2, relocated to this bundle.
source "\$(dirname "\$(readlink -f "\${BASH_SOURCE[0]}")")/../libexec/cs-mpi-env"
exec -a "$1" "\$OPAL_PREFIX/libexec/$2" "\$@"
SH
    chmod +x "$out/bin/$1"
}
for name in mpirun mpiexec orterun; do launcher "$name" orterun; done
launcher orted orted
launcher ompi_info ompi_info
for name in mpicxx mpic++ mpicc; do launcher "$name" opal_wrapper; done
cat >"$out/env.sh" <<'SH'
# source .devdeps/mpi/env.sh: mpirun and mpicxx on PATH, libmpi for the loader, MPI_HOME for
# CMake's FindMPI, Open MPI and PMIx relocated here.
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/libexec/cs-mpi-env"
SH

# --- headers, wrapper data, help texts, MCA defaults ---------------------------------------------
inc="$ompi/include"
cp "$inc"/mpi.h "$inc"/mpi-ext.h "$inc"/mpi_portable_platform.h "$out/lib/$multiarch/openmpi/include/"
# mpi.h pulls in the C++ bindings' headers (FindMPI's CXX component checks them).
cp -r "$inc/openmpi/ompi/mpi/cxx" "$out/lib/$multiarch/openmpi/include/openmpi/ompi/mpi/"
cp /usr/share/openmpi/help-*.txt /usr/share/openmpi/*-wrapper-data.txt "$out/share/openmpi/"
cp /usr/share/openmpi/amca-param-sets -r "$out/share/openmpi/" 2>/dev/null || true
cp /etc/openmpi/openmpi-mca-params.conf "$out/etc/"
# A GPU machine, as root, one host: the shared-memory and self transports, no warnings about
# the network ones this bundle leaves out.
cat >>"$out/etc/openmpi-mca-params.conf" <<'CONF'
# added by .ci/device-mpi.sh: the bundle carries no InfiniBand/UCX/OFI/PSM components
mca_base_component_show_load_errors = 0
# one host and no ssh/rsh there: mpirun starts the ranks itself
plm = isolated
# containers without ptrace rights refuse cross-memory-attach copies between ranks
btl_vader_single_copy_mechanism = none
CONF
: >"$out/etc/openmpi-default-hostfile"

# RUNPATHs relative to each file: libmpi (found through the executable's RUNPATH, which CMake
# sets in the build tree) finds libopen-rte and the rest beside it, plugins find the helpers one
# folder up, the real executables theirs, with or without LD_LIBRARY_PATH.
for f in "$libdir"/*.so*; do patchelf --set-rpath '$ORIGIN' "$f"; done
for f in "$libdir"/openmpi3/*.so "$libdir"/pmix/*.so; do patchelf --set-rpath '$ORIGIN/..' "$f"; done
for f in "$out"/libexec/{orterun,orted,opal_wrapper,ompi_info}; do
    patchelf --set-rpath "\$ORIGIN/../lib/$multiarch/openmpi/lib" "$f"
done

version="$(dpkg-query -W -f='${Version}' libopenmpi3 2>/dev/null || echo '?')"
echo "device-mpi: Open MPI $version -> $out ($(du -sh "$out" | cut -f1)); MCA plugins" \
    "$(ls "$libdir/openmpi3" | wc -l) kept, ${#skipped[@]} left out (${skipped[*]})"
