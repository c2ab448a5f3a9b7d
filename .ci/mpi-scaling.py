#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Strong and weak scaling of `mpirun -np P clusterscope-cli knn` on one host, as markdown tables.

Points: Gaussian blobs in d dimensions (numpy, fixed seed), float32 .npy. Strong scaling keeps
n fixed; weak scaling keeps n / P fixed. Every run builds the same number of trees
(--target-recall 0) with --rank-threads threads per rank, so P ranks use P x threads cores.
Each strong run's graph is compared byte for byte with the one of a run without mpirun
(`same` column); a difference makes the script exit 1.
Columns come from the CLI's --json summary: total_ms, trees_built, recall, bytes_sent_total and
bytes_sent_max_rank, comm_ms_mean (the graph's collectives, waiting included, averaged over
ranks) + gather_ms (the graph gathered at rank 0 for --out), and comm_share (their sum / total_ms).

Usage: mpi-scaling.py --cli build/app/clusterscope-cli --mpirun "mpirun --oversubscribe" \
           [--ranks 1,2,4,8] [--strong-n N] [--weak-n N] [--d 32] [--k 10] [--trees 4] ...
"""
import argparse
import filecmp
import json
import os
import shlex
import subprocess
import sys
import time

import numpy as np


def blobs(n, d, seed):
    """n points around 64 centres, float32, the same for the same (n, d, seed) and prefixes."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 10.0, size=(64, d)).astype(np.float32)
    out = np.empty((n, d), dtype=np.float32)
    chunk = 1 << 20
    for b in range(0, n, chunk):
        e = min(n, b + chunk)
        # One generator per chunk: a prefix of a larger set is the smaller set.
        r = np.random.default_rng((seed, b // chunk))
        out[b:e] = centres[r.integers(0, 64, e - b)] + r.normal(0.0, 1.0, (e - b, d))
    return out


def points_file(workdir, n, d, seed):
    path = os.path.join(workdir, "blobs_%d_%d_s%d.npy" % (n, d, seed))
    if not os.path.exists(path):
        t = time.time()
        np.save(path, blobs(n, d, seed))
        print("# wrote %s (%.0f MB, %.1f s)" % (path, os.path.getsize(path) / 1e6, time.time() - t),
              flush=True)
    return path


def run(cmd, timeout):
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        sys.stderr.write("$ %s\n%s%s" % (shlex.join(cmd), p.stdout, p.stderr))
        raise SystemExit("mpi-scaling: the run failed (exit %d)" % p.returncode)
    lines = [line for line in p.stdout.splitlines() if line.strip().startswith("{")]
    if len(lines) != 1:
        raise SystemExit("mpi-scaling: expected one JSON summary, got %d:\n%s" % (len(lines), p.stdout))
    j = json.loads(lines[0])
    j["wall_s"] = time.time() - t
    return j


def same_graph(a, b):
    return all(filecmp.cmp(x, y, shallow=False) for x, y in (
        (a, b), (a[:-4] + "_distances.npy", b[:-4] + "_distances.npy")))


def table(title, rows, base_ms, weak):
    print("\n### %s\n" % title)
    print("| P | n | n / rank | threads / rank | time (s) | time / tree (s) | %s | trees | recall "
          "| MB sent / rank (mean, max) | comm (s, mean) | comm share | same graph |" %
          ("efficiency" if weak else "speed-up"))
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|")
    for p, j, same in rows:
        t = j["total_ms"]
        gain = base_ms / t  # weak: efficiency t1 / tP; strong: speed-up t1 / tP
        print("| %d | %d | %d | %d | %.2f | %.2f | %s | %d | %.3f | %.1f, %.1f | %.2f | %.0f %% | %s |" % (
            p, j["n"], j["n"] // p, j["threads_per_rank"], t / 1e3, t / 1e3 / max(1, j["trees_built"]),
            ("%.0f %%" % (100 * gain)) if weak else ("%.2f×" % gain), j["trees_built"], j["recall"],
            j["bytes_sent_total"] / p / 2**20, j["bytes_sent_max_rank"] / 2**20, (j["comm_ms_mean"] + j["gather_ms"]) / 1e3, 100 * j["comm_share"], same))
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--mpirun", default="mpirun --oversubscribe",
                    help="launcher and its options (split like a shell)")
    ap.add_argument("--ranks", default="1,2,4,8")
    ap.add_argument("--strong-n", type=int, default=2_000_000)
    ap.add_argument("--weak-n", type=int, default=250_000, help="points per rank")
    ap.add_argument("--d", type=int, default=32)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--trees", type=int, default=4)
    ap.add_argument("--leaf-size", type=int, default=0, help="0: the CLI's default")
    ap.add_argument("--rank-threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workdir", default="/tmp/mpi-scaling")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--json-out", help="append every run's summary here (JSON lines)")
    ap.add_argument("--write-points", metavar="PATH",
                    help="only write the strong-scaling points (--strong-n x --d) to PATH")
    a = ap.parse_args()
    if a.write_points:
        np.save(a.write_points, blobs(a.strong_n, a.d, a.seed))
        return 0
    os.makedirs(a.workdir, exist_ok=True)
    ranks = [int(p) for p in a.ranks.split(",")]
    launcher = shlex.split(a.mpirun)
    knn = ["--k", str(a.k), "--trees", str(a.trees), "--target-recall", "0", "--seed", str(a.seed),
           "--json"]
    if a.leaf_size:
        knn += ["--leaf-size", str(a.leaf_size)]
    log = open(a.json_out, "a") if a.json_out else None

    def distributed(p, path, out=None):
        cmd = launcher + ["-np", str(p), a.cli, "knn", path, "--backend", "cpu", "--rank-threads", str(a.rank_threads)] + knn
        if out:
            cmd += ["--out", out]
        j = run(cmd, a.timeout)
        if j.get("ranks") != p:
            raise SystemExit("mpi-scaling: -np %d ran as %s ranks" % (p, j.get("ranks")))
        if log:
            log.write(json.dumps(dict(j, scaling_ranks=p)) + "\n")
        return j

    print("## kNN graph scaling: d=%d k=%d trees=%d, %d thread(s) per rank, %s" % (
        a.d, a.k, a.trees, a.rank_threads, " ".join(launcher)), flush=True)
    failed = False

    # Strong: the same n for every P; the graph checked against one process.
    path = points_file(a.workdir, a.strong_n, a.d, a.seed)
    ref = os.path.join(a.workdir, "ref.npy")
    for f in (ref, ref[:-4] + "_distances.npy"):
        if os.path.exists(f):
            os.remove(f)
    one = run([a.cli, "knn", path, "--backend", "cpu", "--out", ref] + knn, a.timeout)
    print("# one process (all cores, no mpirun): %.2f s, recall %.3f" % (one["total_ms"] / 1e3, one["recall"]),
          flush=True)
    rows = []
    for p in ranks:
        out = os.path.join(a.workdir, "np%d.npy" % p)
        for f in (out, out[:-4] + "_distances.npy"):
            if os.path.exists(f):
                os.remove(f)
        j = distributed(p, path, out)
        same = same_graph(ref, out)
        failed |= not same
        rows.append((p, j, "yes" if same else "**NO**"))
        print("# strong P=%d: %.2f s" % (p, j["total_ms"] / 1e3), flush=True)
    table("Strong scaling: n = %d × %d" % (a.strong_n, a.d), rows, rows[0][1]["total_ms"], weak=False)

    # Weak: n / P fixed; files are prefixes of the largest set.
    rows = []
    for p in ranks:
        j = distributed(p, points_file(a.workdir, a.weak_n * p, a.d, a.seed))
        rows.append((p, j, "–"))
        print("# weak P=%d: %.2f s" % (p, j["total_ms"] / 1e3), flush=True)
    table("Weak scaling: %d × %d points per rank" % (a.weak_n, a.d), rows, rows[0][1]["total_ms"], weak=True)
    if failed:
        print("\nmpi-scaling: a distributed graph differs from the one-process graph")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
