#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The build with the CUDA libraries hidden, as on a machine without the toolkit: in a private
# mount namespace an empty tmpfs covers the toolkit directory. Then the CLI, the GUI and every
# non-GPU test executable still start (no link-time CUDA dependency), `backends` says why CUDA is
# out ("libcudart.so.13 not found" when the plugin is built, "CUDA plugin not installed" when
# not), and DBSCAN runs on the CPU.
#   without_cuda.sh BUILD_DIR CUDA_DIR GUI_EXE|- XVFB_RUN|- DATA_DIR
# Exits 77 (skipped) where no mount namespace can be made (not root and no user namespaces).
set -uo pipefail
build=$1 cuda=$2 gui=$3 xvfb=$4 data=$5

if [[ ${CS_INSIDE_NAMESPACE:-} != 1 ]]; then
    unshare_args=(--mount --propagation private)
    [[ $(id -u) != 0 ]] && unshare_args=(--user --map-root-user "${unshare_args[@]}")
    if ! unshare "${unshare_args[@]}" true 2>/dev/null; then
        echo "SKIP: no mount namespace here (unshare ${unshare_args[*]} failed)"
        exit 77
    fi
    CS_INSIDE_NAMESPACE=1 exec unshare "${unshare_args[@]}" "$0" "$@"
fi

failures=0
check() {  # check NAME COMMAND...: PASS when the command succeeds
    local name=$1
    shift
    if "$@"; then echo "PASS   : $name"; else echo "FAIL!  : $name"; failures=$((failures + 1)); fi
}

real_cuda=$(readlink -f "$cuda")
if [[ -d $real_cuda ]]; then
    mount -t tmpfs none "$real_cuda" || { echo "FAIL!  : cannot hide $real_cuda"; exit 1; }
fi
plugin=$build/lib/clusterscope/libclusterscope-cuda.so
if [[ -f $plugin ]] && ldd "$plugin" | grep -q 'libcudart.*=> /'; then
    echo "FAIL!  : libcudart is still found with $real_cuda hidden (installed elsewhere?):"
    ldd "$plugin" | grep cudart
    exit 1
fi

# 1. Nothing but the plugin and the GPU suites needs a CUDA library to start (the Python
#    module included).
unresolved() {
    local exe missing=0
    for exe in "$build/app/clusterscope-cli" ${gui:+$([[ $gui != - ]] && echo "$gui")} \
        $(find "$build/tests" -path "$build/tests/gpu" -prune -o -type f -perm -u+x -name 'tst_*' -print) \
        $(find "$build/python" -name '_core*.so' 2>/dev/null); do
        if ldd "$exe" | grep -q 'not found'; then
            echo "  $exe: $(ldd "$exe" | grep 'not found' | tr -s ' \t' ' ' | tr '\n' ';')"
            missing=1
        fi
    done
    return $missing
}
check "executables start without the CUDA libraries" unresolved

# 2. backends: CPU chosen, CUDA unavailable with the reason.
backends=$("$build/app/clusterscope-cli" backends)
echo "  backends: $backends"
if [[ -f $plugin ]]; then
    reason='libcudart\.so\.[0-9]+ not found'
else
    reason='CUDA plugin not installed'
fi
check "backends: auto is cpu" grep -q '"auto":"cpu"' <<<"$backends"
check "backends: cuda unavailable because ${reason//\\/}" grep -Eq "\"available\":false,\"detail\":\"[^\"]*$reason" <<<"$backends"

# 3. A DBSCAN run, on the CPU.
dbscan_ok() {
    local out
    out=$("$build/app/clusterscope-cli" dbscan "$data/points/bunny.pcd" --eps 0.02 --min-pts 4 --json) || return 1
    grep -q '"backend":"cpu"' <<<"$out" && grep -Eq '"clusters":[1-9]' <<<"$out"
}
if [[ -f $data/points/bunny.pcd ]]; then
    check "dbscan on bunny.pcd runs on the CPU" dbscan_ok
else
    echo "FAIL!  : no $data/points/bunny.pcd"
    failures=$((failures + 1))
fi

# 4. The GUI starts and draws.
if [[ $gui != - && $xvfb != - ]]; then
    shot=$(mktemp -d)
    gui_ok() {
        XDG_CONFIG_HOME=$shot/config XDG_DATA_HOME=$shot/data "$xvfb" -a -s "-screen 0 1600x1000x24" "$gui" \
            --screenshot "$shot/window.png" --quit >"$shot/log" 2>&1 &&
            [[ $(stat -c %s "$shot/window.png" 2>/dev/null || echo 0) -gt 10000 ]] ||
            { cat "$shot/log"; return 1; }
    }
    check "the GUI starts and takes a screenshot" gui_ok
    rm -rf "$shot"
fi

# 5. The Python module imports and clusters on the CPU.
if [[ -f $build/python/clusterscope/__init__.py ]] && /usr/bin/python3 -c "import numpy" 2>/dev/null; then
    python_ok() {
        PYTHONPATH=$build/python /usr/bin/python3 - <<'PY'
import numpy as np, clusterscope as cs
rng = np.random.default_rng(0)
points = np.vstack([rng.normal(0, 1, (2000, 3)), rng.normal(8, 1, (2000, 3))])
labels = cs.DBSCAN(eps=0.8, min_samples=10, backend="auto").fit_predict(points)
cuda = [b for b in cs.backends() if b["name"] == "cuda"][0]
assert labels.max() == 1 and not cuda["available"], (labels.max(), cuda)
print("  python: 2 clusters; cuda:", cuda["detail"])
PY
    }
    check "the Python module imports and runs on the CPU" python_ok
fi

# 6. A Qt Test suite that uses the backend registry runs to the end.
suite=$build/tests/compute/tst_backend_plugin
if [[ -x $suite ]]; then
    check "tst_backend_plugin passes" env QT_QPA_PLATFORM=offscreen CS_EXPECT_NO_CUDA_LIBS=1 "$suite" -silent
fi

((failures == 0)) || { echo "$failures check(s) failed"; exit 1; }
