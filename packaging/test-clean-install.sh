#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the clusterscope package in a clean Debian 12 (bookworm) root, as a new user would,
# and runs it there. Needs root (or sudo), mmdebstrap and network access to a Debian mirror.
#   packaging/test-clean-install.sh [BUILD_DIR]     (default: build)
# 1. `cpack -G DEB` in BUILD_DIR, a built Release build (CS_SKIP_CPACK=1: the .deb files there)
# 2. mmdebstrap makes a minimal bookworm root (apt only: no CUDA toolkit, no build tools, no Qt)
# 3. inside it: `apt-get install ./clusterscope_*.deb`; clusterscope-cli --version, info,
#    backends (the CPU backend chosen, CUDA absent), DBSCAN on generated points and on a PCD
#    file; the installed man pages, desktop file, AppStream metadata and MIME types; then
#    `apt-get install xvfb xauth` and the GUI under xvfb-run, taking a screenshot
# Prints a PASS or FAIL line per check and the time of each stage; exits 1 if anything failed.
# The screenshot and the logs are copied to BUILD_DIR/clean-install/.
# Exits 0 when every check passed, 1 when one failed, 77 when the mirror cannot be reached.
# Environment: CS_MIRROR (default http://deb.debian.org/debian), CS_SKIP_CPACK=1,
#              CS_SHARED_DATA_DIR (sample files; default ../shared/data beside the checkout).
set -euo pipefail

root_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root_dir/build}" && pwd)
mirror=${CS_MIRROR:-http://deb.debian.org/debian}
data=${CS_SHARED_DATA_DIR:-$root_dir/../shared/data}
out=$build/clean-install
start=$(date +%s)
say() { printf '\n== %s (%d s)\n' "$*" $(($(date +%s) - start)); }

if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "test-clean-install: needs root (or sudo) for mmdebstrap" >&2; exit 2; }
    exec sudo --preserve-env=CS_MIRROR,CS_SKIP_CPACK,CS_SHARED_DATA_DIR "$0" "$build"
fi
command -v mmdebstrap >/dev/null || { echo "test-clean-install: install mmdebstrap" >&2; exit 2; }
# No mirror, no root to build: that is "cannot run here" (77), not a failed install.
mirror_host=$(sed -E 's|^[a-z]+://([^/:]+).*|\1|' <<<"$mirror")
mirror_port=80
[[ $mirror == https://* ]] && mirror_port=443
if ! timeout 20 bash -c "exec 3<>/dev/tcp/$mirror_host/$mirror_port" 2>/dev/null; then
    echo "test-clean-install: SKIPPED: the mirror $mirror cannot be reached (set CS_MIRROR)"
    exit 77
fi

# --- 1. the packages ----------------------------------------------------------------------------
if [ "${CS_SKIP_CPACK:-0}" != 1 ]; then
    say "building the packages: cpack -G DEB in $build"
    (cd "$build" && cpack -G DEB)
fi
shopt -s nullglob
debs=("$build"/clusterscope_*.deb)
((${#debs[@]} == 1)) || { echo "test-clean-install: expected one $build/clusterscope_*.deb, found ${#debs[@]}" >&2; exit 2; }
deb=${debs[0]}
echo "package: $deb ($(du -h "$deb" | cut -f1))"
dpkg-deb --field "$deb" Package Version Architecture Depends

rm -rf "$out"
mkdir -p "$out/in"
cp "$deb" "$out/in/"
for f in "$data/points/bunny.pcd" "$data/ucr/GunPoint/GunPoint_TRAIN.ts" "$data/ucr/GunPoint/GunPoint_TEST.ts"; do
    [ -r "$f" ] && cp "$f" "$out/in/"
done

# --- 3. what runs inside the root (as root, with /proc, /sys and /dev mounted by mmdebstrap) ----
cat >"$out/in/inside.sh" <<'INSIDE'
#!/bin/bash
set -u
cd /tmp/cs
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
fails=0
t0=$(date +%s)
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
stage() { printf '\n-- %s (%d s)\n' "$*" $(($(date +%s) - t0)); }
check() {  # check NAME COMMAND...: PASS when the command exits 0, its output kept in NAME.log
    local name=$1; shift
    if "$@" >"results/$name.log" 2>&1; then pass "$name"; else fail "$name (exit $?): $(tail -3 "results/$name.log" | tr '\n' ' ')"; fi
}
mkdir -p results

stage "no CUDA here"
if ldconfig -p | grep -qE 'libcudart|libcublas|libcuda\.so'; then fail "the root has CUDA libraries"; else pass "no CUDA libraries in the root"; fi
[ -e /usr/local/cuda ] && fail "/usr/local/cuda exists" || pass "no /usr/local/cuda"

stage "apt-get install ./clusterscope_*.deb"
apt-get update -q >results/apt-update.log 2>&1
check apt_install apt-get install -y -q ./clusterscope_*.deb
dpkg -s clusterscope >/dev/null 2>&1 && pass "clusterscope is installed ($(dpkg-query -W -f='${Version}' clusterscope))" || fail "clusterscope is not installed"
if dpkg-query -W -f='${Package}\n' | grep -iE 'cuda|cublas|cufft|cusolver|nvidia'; then
    fail "CUDA or NVIDIA packages were installed"
else
    pass "no CUDA or NVIDIA package installed"
fi
echo "installed $(dpkg-query -W | wc -l) packages"

stage "clusterscope-cli"
check cli_version clusterscope-cli --version
check cli_info_pcd clusterscope-cli info bunny.pcd
grep -q '"n":397' results/cli_info_pcd.log && pass "info reads bunny.pcd: 397 points" || fail "info bunny.pcd: $(cat results/cli_info_pcd.log)"
if [ -r GunPoint_TRAIN.ts ]; then
    check cli_info_ts clusterscope-cli info GunPoint_TRAIN.ts
    grep -q '"kind":"series"' results/cli_info_ts.log && pass "info reads GunPoint_TRAIN.ts as series" || fail "info GunPoint_TRAIN.ts"
fi
check cli_backends clusterscope-cli backends
cat results/cli_backends.log
grep -q '"auto":"cpu"' results/cli_backends.log && pass "backends: auto chooses the CPU" || fail "backends: auto is not the CPU"
others=$(grep -o '{[^{}]*}' results/cli_backends.log | grep '"available":true' | grep -v '"name":"cpu"')
[ -z "$others" ] && pass "backends: only the CPU is usable here; CUDA: $(grep -o '"detail":"[^"]*","name":"cuda"' results/cli_backends.log || echo 'not listed')" ||
    fail "backends: another backend is usable: $others"
check cli_bench_dump clusterscope-cli bench dbscan --n 50000 --dist blobs --repeat 1 --warmup 0 --backend cpu --dump points.npy
check cli_info_npy clusterscope-cli info points.npy
grep -q '"n":50000' results/cli_info_npy.log && pass "info reads the generated points.npy: 50000 points" || fail "info points.npy"
check cli_dbscan_npy clusterscope-cli dbscan points.npy --eps 1 --min-pts 10 --json --out labels.csv
cat results/cli_dbscan_npy.log
grep -qE '"clusters":[1-9]' results/cli_dbscan_npy.log && grep -q '"backend":"cpu"' results/cli_dbscan_npy.log &&
    pass "dbscan on 50,000 generated points: clusters found on the CPU" || fail "dbscan on points.npy"
[ "$(grep -vc '^#' labels.csv)" = 50001 ] && pass "dbscan wrote labels.csv (header + 50000 rows)" || fail "labels.csv has $(wc -l <labels.csv) lines"
check cli_dbscan_pcd clusterscope-cli dbscan bunny.pcd --eps 0.012 --min-pts 8 --json
grep -q '"clusters":10' results/cli_dbscan_pcd.log && pass "dbscan bunny.pcd: 10 clusters, as the test suite's reference" || fail "dbscan bunny.pcd: $(cat results/cli_dbscan_pcd.log)"

stage "the Python module (python3-numpy is recommended)"
check apt_install_numpy apt-get install -y -q python3-numpy
cat >example.py <<'PY'
import numpy as np, clusterscope as cs
rng = np.random.default_rng(0)
points = np.vstack([rng.normal(0, 1, (5000, 3)), rng.normal(8, 1, (5000, 3))])   # two blobs
labels = cs.DBSCAN(eps=0.8, min_samples=10).fit_predict(points)   # -1 = noise, as scikit-learn
print(labels.max() + 1, "clusters;", cs.backends())                # 2 clusters; cpu/cuda and why
PY
check python_example python3 example.py
grep -q "^2 clusters;.*'name': 'cuda', 'available': False, 'detail': 'CUDA plugin not installed" \
    results/python_example.log && pass "Python: 2 clusters on the CPU; cuda: plugin not installed" ||
    fail "Python example: $(cat results/python_example.log)"

stage "what else the package installs"
for f in /usr/share/man/man1/clusterscope.1.gz /usr/share/man/man1/clusterscope-cli.1.gz \
         /usr/share/applications/clusterscope.desktop \
         /usr/share/metainfo/io.github.clusterscope.Clusterscope.metainfo.xml \
         /usr/share/icons/hicolor/scalable/apps/clusterscope.svg \
         /usr/share/mime/packages/clusterscope.xml /usr/share/doc/clusterscope/copyright; do
    [ -s "$f" ] && pass "installed $f" || fail "missing $f"
done
zcat /usr/share/man/man1/clusterscope-cli.1.gz | grep -q '^\.SS "dbscan"' && pass "the CLI man page reads" || fail "the CLI man page"
# shared-mime-info's trigger has run when it is installed (Qt pulls it in).
if [ -d /usr/share/mime/application ]; then
    for t in application/x-pcd-point-cloud application/vnd.ply text/x-sktime-ts application/x-npy; do
        [ -e "/usr/share/mime/$t.xml" ] && pass "MIME database has $t" || fail "MIME database lacks $t"
    done
else
    echo "(shared-mime-info is not installed: the MIME types are not compiled here)"
fi

# GIO (GNOME's file manager, xdg-open) finds the application for a type in the mimeinfo.cache
# that desktop-file-utils builds; every desktop has both.
stage "what a file manager opens: apt-get install libglib2.0-bin desktop-file-utils"
check apt_install_gio apt-get install -y -q libglib2.0-bin desktop-file-utils
mkdir -p opened
cp bunny.pcd points.npy opened/
[ -r GunPoint_TRAIN.ts ] && cp GunPoint_TRAIN.ts opened/
printf '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n<TS version="2.1" language="de">\n</TS>\n' >opened/translation.ts
for f in opened/*; do
    type=$(gio info -a standard::content-type "$f" | sed -n 's/^ *standard::content-type: //p')
    app=$(gio mime "$type" 2>/dev/null | sed -n 's/^Default application for .*: //p')
    case $f in
        */translation.ts)
            [ "$type" = text/vnd.trolltech.linguist ] && pass "$f stays $type" || fail "$f is $type" ;;
        *)
            [ "$app" = clusterscope.desktop ] && pass "$f is $type, opened by $app" ||
                fail "$f is $type, opened by '${app:-nothing}'" ;;
    esac
done

stage "the GUI under Xvfb: apt-get install xvfb xauth"
check apt_install_xvfb apt-get install -y -q xvfb xauth
check gui_version clusterscope --version
check gui_help env -u DISPLAY clusterscope --help
# The demo scene (200,000 points) with DBSCAN run on it, then a file, as a double-click would.
check gui_screenshot_demo timeout 300 xvfb-run -a -s "-screen 0 1600x1000x24" \
    clusterscope --run dbscan --window-size 1400x900 --screenshot /tmp/cs/results/demo.png --quit
check gui_screenshot_file timeout 300 xvfb-run -a -s "-screen 0 1600x1000x24" \
    clusterscope bunny.pcd --param dbscan.eps=0.012 --param dbscan.minPts=8 --run dbscan \
    --window-size 1400x900 --screenshot /tmp/cs/results/bunny.png --quit
for png in results/demo.png results/bunny.png; do
    if [ -s "$png" ] && [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
        pass "$png is a PNG of $(stat -c %s "$png") bytes"
    else
        fail "$png was not written"
    fi
done

stage "done"
echo "inside the root: $fails failure(s) in $(($(date +%s) - t0)) s"
exit $((fails > 0))
INSIDE
chmod +x "$out/in/inside.sh"

# --- 2. the root, and 3. the checks in it --------------------------------------------------------
say "a clean Debian 12 root (mmdebstrap, variant apt, from $mirror), and the checks inside it"
set +e
mmdebstrap --mode=root --variant=apt \
    --customize-hook="copy-in $out/in /tmp" \
    --customize-hook='mv "$1/tmp/in" "$1/tmp/cs"' \
    --customize-hook='chroot "$1" /tmp/cs/inside.sh; echo $? > "$1/tmp/cs/results/status"' \
    --customize-hook="copy-out /tmp/cs/results $out" \
    bookworm /dev/null "$mirror" 2>&1 | tee "$out/mmdebstrap.log" | grep -vE '^(I:|W: )' 
set -e
status=$(cat "$out/results/status" 2>/dev/null || echo 1)
grep -E '^(PASS|FAIL):' "$out/mmdebstrap.log" >"$out/summary.txt" || true
passes=$(grep -c '^PASS' "$out/summary.txt" || true)
fails=$(grep -c '^FAIL' "$out/summary.txt" || true)
say "finished: $passes passed, $fails failed; screenshots and logs in $out/results"
if [ "$status" = 0 ] && [ "$fails" = 0 ] && [ "$passes" -gt 0 ]; then
    echo "PASS: clusterscope installs and runs in a clean Debian 12 root"
    exit 0
fi
echo "FAIL: see $out/mmdebstrap.log"
exit 1
