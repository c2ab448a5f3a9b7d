#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On the GPU machine, in a GL session (../shared/docs/DEVICE.md (b): build here with the GUI and
# CUDA, bundle with make-bundle.sh, then `source .device/gl-session.sh` there): the CUDA-GL
# interop and view tests under the NVIDIA GL driver, then `clusterscope --measure` at 1M, 10M
# and 30M demo points. Everything lands in $OUT/gui.tgz (screenshots, logs, JSON); a summary
# goes to stdout. Usage: .ci/device-gui-check.sh [BUILD_DIR [all|tests]]   (default build-gpugui
# all; tests: the tests and the kNN run without the --measure runs)
set -uo pipefail
build=${1:-build-gpugui}
what=${2:-all}
out=${OUT:-/tmp/out}
work="$out/gui"
mkdir -p "$work"
export CS_TEST_OUTPUT="$work"
status=0
for t in tests/gpu/tst_gl_interop tests/ui/tst_point_view tests/ui/tst_series_heatmap \
    tests/ui/tst_dbscan_panel tests/ui/tst_knn_panel tests/ui/tst_rocket_panel tests/ui/tst_kshape_panel; do
    timeout 300 "$build/$t" >"$work/$(basename "$t").log" 2>&1 || status=1
    grep -E "^Totals|^FAIL|Loc:" "$work/$(basename "$t").log" | sed "s|^|$(basename "$t"): |"
done
# A kNN graph of a million points built on the GPU, its edges written through interop.
timeout 200 "$build/app/gui/clusterscope" --demo-points 1M --param knn.k=10 --run knn \
    --run dbscan --window-size 1600x1000 --screenshot "$work/app-knn-1M.png" --quit \
    >"$work/knn-1M.log" 2>&1 || status=1
grep -E "kNN|edges" "$work/knn-1M.log" | head -5
[[ $what == tests ]] && { tar czf "$out/gui.tgz" -C "$out" gui && rm -rf "$work"; exit $status; }
for n in 1M 10M 30M; do
    timeout 200 "$build/app/gui/clusterscope" --demo-points "$n" --run dbscan \
        --window-size 1600x1000 --measure "$work/measure-$n.json" --screenshot "$work/app-$n.png" \
        --quit >"$work/measure-$n.log" 2>&1 || status=1
    python3 - "$work/measure-$n.json" "$n" <<'PY' || status=1
import json, sys
j = json.load(open(sys.argv[1]))
f = j["frames"]
print(f"{sys.argv[2]}: draw {f['drawMs']['median']:.2f} ms, frame interval {f['intervalMs']['median']:.2f} ms "
      f"({f['pointsDrawnMoving']['median']:.0f} points drawn moving)")
p = j["pickMs"]
print(f"  pick (GPU pass and read-back): {p['median']:.2f} ms median, {p['max']:.2f} ms max, "
      f"{p['hits']} of {p['count']} on a point")
stages = ["changeToJobStartMs", "jobMs", "jobToDeliveredMs", "deliveredToShownMs",
          "resultToPaintMs", "paintMs", "paintToSwapMs"]
for name, q in j["paramToScreen"].items():
    if "skipped" in q:
        print(f"  {name}: skipped ({q['skipped']})")
        continue
    print(f"  {name} ({q['colourPath']}): {q['totalMs']['median']:.1f} ms to screen, result shown "
          f"{q['resultMs']['median']:.1f}; " +
          ", ".join(f"{s[:-2]} {q[s]['median']:.1f}" for s in stages))
    print("    job stages:", ", ".join(f"{k} {v:.1f}" for k, v in q["jobStageMedianMs"].items()))
d = j["drag"]
print(f"  drag: {d['landed']} of {d['positions']} landed, {d['stale']} stale, last move to screen "
      f"{d['lastToScreenMs']:.1f} ms, final colours match: {d['finalMatches']}")
PY
done
tar czf "$out/gui.tgz" -C "$out" gui && rm -rf "$work"
exit $status
