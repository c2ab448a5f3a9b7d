#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On the GPU machine (see ../shared/docs/DEVICE.md): configure and build without Qt, run the
# gpu-labelled tests, then the GPU benchmarks; logs and bench JSON lines go to $OUT.
# Needs .devdeps/ (.ci/device-deps.sh) and the real clouds copied to .devdata/points/
# (../shared does not travel); carry both.
# Usage: .ci/device-gpu-check.sh [tests] [dbscan] [knn] [rocket] [mpi] | all   (default all): the
# gpu tests and each algorithm's benchmarks, in that order; mpi (not part of all): the
# distributed kNN graph with the Open MPI that .devdeps/mpi carries (.ci/device-mpi.sh), see below
# (CS_MPI_STRONG_N, CS_MPI_WEAK_N, CS_MPI_RANKS size the scaling table, CS_MPI_SCALING=0 skips it;
# CS_MPI_CTEST=0 skips ctest); mpibig (not part of all): the big distributed graphs, ranks sharing
# the GPU (CS_MPI_BIG_N points of 32 dimensions, default 100M, on CS_MPI_BIG_RANKS ranks, default 8).
set -uo pipefail
modes=" ${*:-all} "
has() { [[ $modes == *" $1 "* || ($modes == *" all "* && $1 != mpi && $1 != mpibig) ]]; }
out=${OUT:-/tmp/out}
mkdir -p "$out"
t0=$(date +%s)
step() { echo "[$(($(date +%s) - t0)) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"

# CS_PREBUILT=DIR: executables built elsewhere (DIR/app/clusterscope-cli, DIR/tests/gpu/tst_*),
# e.g. unpacked from a tarball: no build here (a fresh machine's full build takes minutes);
# the tests run directly instead of through ctest.
build=${CS_PREBUILT:-build-device}
# The machine has no MPI: .devdeps/mpi (Open MPI from Debian 12, relocatable) gives
# clusterscope-cli its distributed kNN graph; FindMPI runs its mpicxx.
mpi_home=$PWD/.devdeps/mpi
mpi_args=()
if [[ -x $mpi_home/bin/mpicxx ]]; then
    # A clusterscope-cli linked with it needs libmpi's own libraries on LD_LIBRARY_PATH, with or
    # without mpirun; env.sh adds only the bundle's Open MPI libraries (and mpirun to PATH).
    source "$mpi_home/env.sh"
    mpi_args=(-DMPI_HOME="$mpi_home")
    { has mpi || has mpibig; } && mpi_args+=(-DCS_WITH_MPI=ON)  # a bundle FindMPI rejects fails loudly
elif has mpi || has mpibig; then
    echo "mpi: no .devdeps/mpi (run .ci/device-deps.sh and carry .devdeps)"
    exit 1
fi
if [[ -z ${CS_PREBUILT:-} ]]; then
    step configure + build
    cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DCS_WITH_GUI=OFF -DCMAKE_PREFIX_PATH="$PWD/.devdeps" -DCS_SHARED_DATA_DIR="$PWD/.devdata" \
        "${mpi_args[@]}" >"$out/build.log" 2>&1 && ninja -C build-device -j"$(nproc)" >>"$out/build.log" 2>&1 ||
        { grep -E "error|FAILED" -A4 "$out/build.log" | head -60; exit 1; }
fi
"$build/app/clusterscope-cli" backends

status=0
if has tests; then
    step "gpu tests"
    if [[ -z ${CS_PREBUILT:-} ]]; then
        ctest --test-dir build-device -L gpu --output-on-failure --timeout 400 >"$out/ctest.log" \
            2>&1 || status=1
        grep -E "Test +#|tests passed|Totals|FAIL" "$out/ctest.log"
    else
        for t in "$build"/tests/gpu/tst_*; do
            timeout 400 "$t" >"$out/$(basename "$t").log" 2>&1 || status=1
            grep -E "^Totals|^FAIL" -A2 "$out/$(basename "$t").log" | sed "s|^|$(basename "$t"): |"
        done
    fi
fi

if has knn; then
    step "kNN benchmarks"
    cli=$build/app/clusterscope-cli
    knnbench() {  # one median line per case
        echo "# $*" >>"$out/knn.jsonl"
        timeout 200 "$cli" bench knn "$@" | tee -a "$out/knn.jsonl" | python3 -c '
import json, sys
for line in sys.stdin:
    j = json.loads(line)
    if j.get("summary") != "median": continue
    s = j["median_stages_ms"]
    dev = sum(v for k, v in s.items() if k not in ("upload", "finish"))
    print("%-4s %-7s n=%-9d d=%-3d k=%-2d%s trees=%-2s recall=%.3f verified=%.3f: device %.1f ms, end to end %.1f ms | %s" % (
        j["backend"], j.get("dist", "file"), j["n"], j["d"], j["k"], " nnz=%d" % j["nnz"] if "nnz" in j else "",
        j["trees_built"], j["recall"], j["verified_recall"], dev, j["median_total_ms"],
        " ".join("%s=%.2f" % kv for kv in s.items())))'
    }
    knnbench --backend cuda --dist blobs --n 1000000 --d 3 --k 10 --repeat 5 --warmup 1 --dump /tmp/knn_blobs1m.npy
    knnbench --backend cuda --dist blobs --n 1000000 --d 3 --k 10 --trees 1 --target-recall 0 --repeat 5 --warmup 1
    knnbench --backend cuda --dist uniform --n 10000000 --d 3 --k 10 --repeat 3 --warmup 1
    knnbench --backend cuda --dist embed --n 1000000 --d 128 --k 10 --repeat 3 --warmup 1 --dump /tmp/knn_embed1m.npy
    knnbench --backend cuda --dist embed --n 100000 --d 128 --k 32 --repeat 5 --warmup 1
    knnbench --backend cpu --dist blobs --n 1000000 --d 3 --k 10 --repeat 1 --warmup 0
    knnbench --backend cpu --dist embed --n 100000 --d 128 --k 10 --repeat 1 --warmup 0 --dump /tmp/knn_embed100k.npy
    # Sparse rows (PyRKNN's sparse path): 200k x 50k and 1M x 100k, 40 entries a row.
    knnbench --backend cuda --dist sparse --n 200000 --d 50000 --k 10 --repeat 3 --warmup 1 --dump /tmp/knn_sparse200k.npz
    knnbench --backend cpu --dist sparse --n 200000 --d 50000 --k 10 --repeat 1 --warmup 0
    knnbench --backend cuda --dist sparse --n 1000000 --d 100000 --k 10 --repeat 3 --warmup 1
    # Their peers: brute force in PyTorch on the GPU (cuSPARSE's CSR x dense product for the
    # inner products, the norm expansion, topk; FP32) and scikit-learn's sparse brute force on
    # all cores (for 2,000 query rows, scaled to all rows: the whole takes many minutes).
    timeout 300 python3 - /tmp/knn_sparse200k.npz <<'PY' || true
import sys, time, numpy as np
def load_npz(path):  # scipy.sparse.save_npz's members, read without SciPy
    z = np.load(path)
    return z["indptr"].astype(np.int64), z["indices"].astype(np.int64), z["data"].astype(np.float32), tuple(int(v) for v in z["shape"])
indptr, indices, data, (n, d) = load_npz(sys.argv[1])
try:
    import torch
    dev = torch.device("cuda")
    ip, ix, dv = (torch.from_numpy(a).to(dev) for a in (indptr, indices, data))
    X = torch.sparse_csr_tensor(ip, ix, dv, size=(n, d))
    torch.cuda.synchronize(); t = time.time()
    Xt = X.to_dense().t().contiguous()  # d x n dense (FP32)
    norms = (Xt * Xt).sum(0)
    chunk = 4096
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        lo, hi = int(indptr[a]), int(indptr[b])
        A = torch.sparse_csr_tensor(ip[a:b + 1] - lo, ix[lo:hi], dv[lo:hi], size=(b - a, d))
        d2 = norms[a:b, None] + norms[None, :] - 2 * torch.sparse.mm(A, Xt)
        d2[torch.arange(b - a, device=dev), torch.arange(a, b, device=dev)] = float("inf")
        torch.topk(d2, 10, dim=1, largest=False)
    torch.cuda.synchronize()
    print("torch %s sparse brute force n=%d d=%d nnz=%d k=10 on the GPU: %.0f ms" % (torch.__version__, n, d, len(data), 1e3 * (time.time() - t)))
except Exception as e:
    print("torch sparse brute force: %s" % e)
try:
    import sklearn, scipy.sparse as sp
    from sklearn.neighbors import NearestNeighbors
    X = sp.csr_matrix((data, indices, indptr), shape=(n, d))
    q = 2000
    t = time.time(); NearestNeighbors(n_neighbors=11, algorithm="brute", n_jobs=-1).fit(X).kneighbors(X[:q])
    ms = 1e3 * (time.time() - t)
    print("sklearn %s sparse brute force n=%d: %d query rows %.0f ms, all rows ~%.0f s" % (sklearn.__version__, n, q, ms, ms * n / q / 1e3))
except ImportError as e:
    print("scikit-learn: %s" % e)
PY
    # Peers in the same call, on the same points, all cores: exact kNN (scikit-learn), and
    # approximate ones where installed (FAISS, PyNNDescent).
    for f in /tmp/knn_blobs1m.npy /tmp/knn_embed100k.npy /tmp/knn_embed1m.npy; do
        timeout 300 python3 - "$f" <<'PY' || true
import sys, time, numpy as np
X = np.load(sys.argv[1]).astype(np.float32); name = sys.argv[1].split("/")[-1]
try:
    import sklearn
    from sklearn.neighbors import NearestNeighbors
    if len(X) <= 1_000_000 and (X.shape[1] <= 3 or len(X) <= 100_000):
        t = time.time(); NearestNeighbors(n_neighbors=11, n_jobs=-1).fit(X).kneighbors(X)
        print("sklearn %s exact kNN %s n=%d d=%d k=10: %.0f ms" % (sklearn.__version__, name, len(X), X.shape[1], 1e3 * (time.time() - t)))
except ImportError:
    print("scikit-learn: not installed here")
for mod in ("faiss", "pynndescent"):
    try:
        __import__(mod); print(mod, "installed")
    except ImportError:
        print(mod + ": not installed here")
PY
    done
fi

if has dbscan; then
    step benchmarks
    cli=$build/app/clusterscope-cli
    bench() {  # one median line per case: device-resident stages vs end to end
        echo "# $*" >>"$out/bench.jsonl"
        timeout 150 "$cli" bench dbscan "$@" | tee -a "$out/bench.jsonl" | python3 -c '
import json, sys
for line in sys.stdin:
    j = json.loads(line)
    if j.get("summary") != "median": continue
    s = j["median_stages_ms"]
    # From device-resident raw points to device-resident labels: all but the transfers.
    dev = sum(v for k, v in s.items() if k not in ("upload", "download"))
    print("%-5s %-13s n=%-9d d=%d eps=%g minPts=%d: device-resident %.2f ms, end to end %.1f ms | %s" % (
        j["backend"], j["dist"], j["n"], j["d"], j["eps"], j["min_pts"], dev, j["median_total_ms"],
        " ".join("%s=%.2f" % kv for kv in s.items())))'
    }
    bench --backend cuda --dist blobs --n 23040 --path brute --repeat 20 --warmup 3
    bench --backend cuda --dist blobs --n 60032 --path brute --repeat 20 --warmup 3
    bench --backend cuda --dist uniform --n 1000000 --repeat 10 --warmup 2
    bench --backend cuda --dist uniform --n 10000000 --repeat 5 --warmup 1
    bench --backend cuda --dist dense --n 10000000 --repeat 5 --warmup 1
    bench --backend cuda --dist blobs --n 100000 --repeat 10 --warmup 2
    bench --backend cuda --dist blobs --n 1000000 --repeat 10 --warmup 2
    bench --backend cuda --dist seed-spreader --n 37000000 --min-pts 2 --repeat 3 --warmup 1
    bench --backend cuda --dist seed-spreader --n 37000000 --min-pts 10 --repeat 3 --warmup 1
    bench --backend cpu --dist blobs --n 100000 --repeat 3 --warmup 1 --dump /tmp/blobs100k.npy
    bench --backend cpu --dist blobs --n 1000000 --repeat 1 --warmup 0 --dump /tmp/blobs1m.npy
    # The peers' figure, in the same call: scikit-learn on all cores, the same points.
    if python3 -c "import sklearn" 2>/dev/null; then
        for f in /tmp/blobs100k.npy /tmp/blobs1m.npy; do
            timeout 120 python3 -c "
import time, numpy as np, sklearn
from sklearn.cluster import DBSCAN
X = np.load('$f'); t = time.time()
l = DBSCAN(eps=1.0, min_samples=10, n_jobs=-1).fit(X).labels_
print('sklearn %s DBSCAN n=%d: %.1f ms, %d clusters' % (sklearn.__version__, len(X), 1e3 * (time.time() - t), l.max() + 1))"
        done
    else
        echo "scikit-learn: not installed here"
    fi
fi
if has rocket; then
    step "ROCKET benchmarks"
    cli=$build/app/clusterscope-cli
    rocketbench() {  # one median line per case
        echo "# $*" >>"$out/rocket.jsonl"
        timeout 300 "$cli" bench rocket "$@" | tee -a "$out/rocket.jsonl" | python3 -c '
import json, sys
for line in sys.stdin:
    j = json.loads(line)
    if j.get("summary") != "median": continue
    s = j["median_stages_ms"]
    print("%-4s n=%-5d L=%-6d C=%d kernels=%-6d: %.1f ms | %s" % (j["backend"], j["n"], j["length"],
        j.get("channels", 1), j["kernels"], j["median_total_ms"], " ".join("%s=%.2f" % kv for kv in s.items())))'
    }
    rocketbench --backend cuda --n 200 --length 150 --kernels 10000 --repeat 5 --warmup 1 --fit
    rocketbench --backend cuda --n 1000 --length 1000 --kernels 10000 --repeat 3 --warmup 1
    rocketbench --backend cuda --n 1000 --length 10000 --kernels 10000 --repeat 2 --warmup 1
    rocketbench --backend cpu --n 200 --length 150 --kernels 10000 --repeat 2 --warmup 0 --fit
    rocketbench --backend cpu --n 1000 --length 1000 --kernels 10000 --repeat 1 --warmup 0
    # Whole runs on UCR/UEA sets: test accuracy (published in ucr/SOURCES.md), GPU and CPU.
    for set in GunPoint ItalyPowerDemand ArrowHead BasicMotions JapaneseVowels ACSF1 OSULeaf PLAID; do
        f=$(ls .devdata/ucr/$set/${set}_TRAIN* 2>/dev/null | head -1)
        [[ -n $f ]] || continue
        for b in cuda cpu; do
            timeout 300 "$cli" rocket "$f" --kernels 10000 --backend $b --json 2>&1 | python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
print("%-4s %-22s test %s, loo %.4f, alpha %g, %.0f ms" % (j.get("backend"), j["file"].split("/")[-1][:22],
    j.get("test_accuracy"), j.get("loo_accuracy", 0), j.get("alpha", 0), j.get("total_ms", 0)))' || true
        done
    done
    # The peer of the classifier, on our features: scikit-learn's RidgeClassifierCV.
    f=.devdata/ucr/ArrowHead/ArrowHead_TRAIN.ts
    if [[ -f $f ]] && python3 -c "import sklearn" 2>/dev/null; then
        "$cli" rocket "$f" --kernels 10000 --backend cuda --features /tmp/ah.npy \
            --predictions /tmp/ah.csv >/dev/null
        timeout 120 python3 - <<'PY' || true
import csv, time, numpy as np, sklearn
from sklearn.linear_model import RidgeClassifierCV
from sklearn.preprocessing import StandardScaler
X = np.load("/tmp/ah.npy").astype(np.float64)
rows = list(csv.DictReader(open("/tmp/ah.csv")))
train = np.array([r["split"] == "train" for r in rows]); y = np.array([r["label"] for r in rows])
t = time.time()
scaler = StandardScaler().fit(X[train])
m = RidgeClassifierCV(alphas=np.logspace(-3, 3, 10)).fit(scaler.transform(X[train]), y[train])
acc = m.score(scaler.transform(X[~train]), y[~train])
print("sklearn %s RidgeClassifierCV on our ArrowHead features: test %.4f, alpha %g, %.0f ms" % (
    sklearn.__version__, acc, m.alpha_, 1e3 * (time.time() - t)))
PY
    fi
    for mod in sktime aeon; do python3 -c "import $mod" 2>/dev/null && echo "$mod installed" || echo "$mod: not installed here"; done
    f=.devdata/ucr/Crop/Crop_TRAIN
    [[ -f $f ]] && for b in cuda; do
        timeout 300 "$cli" rocket "$f" --kernels 10000 --backend $b --json | tee "$out/crop.json" | head -c 600; echo
    done
fi

mpirun=("$mpi_home/bin/mpirun" --allow-run-as-root --oversubscribe)
if has mpi; then
    # Under mpirun each rank searches its subtrees' leaves on its backend (knn_mpi.cpp): auto is
    # the GPU here, shared by the ranks. The same graph as one CPU process, byte for byte.
    step "MPI: two ranks"
    cli=$build/app/clusterscope-cli
    "${mpirun[@]}" --version | head -1
    mkdir -p /tmp/mpi
    python3 .ci/mpi-scaling.py --cli "$cli" --write-points /tmp/mpi/blobs1m.npy --strong-n 1000000 \
        --d 3 --seed 7
    rm -f /tmp/mpi/one*.npy /tmp/mpi/two*.npy
    args=(--k 10 --trees 4 --target-recall 0 --json)
    "$cli" knn /tmp/mpi/blobs1m.npy --backend cpu --out /tmp/mpi/one.npy "${args[@]}" |
        tee "$out/mpi_one.json" | head -c 400; echo
    "${mpirun[@]}" -np 2 "$cli" knn /tmp/mpi/blobs1m.npy --out /tmp/mpi/two.npy "${args[@]}" |
        tee "$out/mpi_two.json" | head -c 600; echo
    if cmp /tmp/mpi/one.npy /tmp/mpi/two.npy && cmp /tmp/mpi/one_distances.npy /tmp/mpi/two_distances.npy; then
        echo "mpi: the two-rank graph is the one-process graph, byte for byte"
    else
        echo "mpi: FAIL: the two-rank graph differs from the one-process graph"
        status=1
    fi
    [[ ${CS_MPI_SCALING:-1} != 0 ]] && step "MPI: scaling table"
    # 16 cores: P ranks of one thread each, P = 1..8. Sizes for about 2 minutes in all.
    [[ ${CS_MPI_SCALING:-1} != 0 ]] && { timeout 400 python3 .ci/mpi-scaling.py --cli "$cli" --mpirun "${mpirun[*]}" \
        --ranks "${CS_MPI_RANKS:-1,2,4,8}" --strong-n "${CS_MPI_STRONG_N:-1000000}" --weak-n "${CS_MPI_WEAK_N:-250000}" --d 32 \
        --k 10 --trees 2 --rank-threads 1 --workdir /tmp/mpi --json-out "$out/mpi_scaling.jsonl" |
        tee "$out/mpi_scaling.md" || status=1; }
    if [[ -z ${CS_PREBUILT:-} && ${CS_MPI_CTEST:-1} != 0 ]]; then
        step "MPI: ctest -L mpi"
        # The CI suites (P = 1..4, identical graphs and ROCKET features) through the bundle's
        # mpiexec, which FindMPI found; CS_MPI_CTEST=0 skips them when the call runs short.
        ctest --test-dir build-device -L mpi --output-on-failure --timeout 300 >"$out/ctest_mpi.log" 2>&1 ||
            status=1
        grep -E "Test +#|tests passed|FAIL" "$out/ctest_mpi.log"
    fi
fi

if has mpibig; then
    # Issue 12's scale runs: P ranks sharing the GPU for their leaf search; 10M x 32 on the CPU
    # ranks beside it, then CS_MPI_BIG_N x 32 (default 100M, 12.8 GB), written in parallel.
    cli=$build/app/clusterscope-cli
    ranks=${CS_MPI_BIG_RANKS:-8}
    threads=$(($(nproc) / ranks))
    big=${CS_MPI_BIG_N:-100000000}
    mkdir -p /tmp/mpibig
    step "MPI big: points"
    python3 .ci/mpi-scaling.py --cli "$cli" --write-points /tmp/mpibig/p10m.npy --strong-n 10000000 --d 32 --seed 3
    args=(--k 10 --trees 2 --target-recall 0 --rank-threads "$threads" --json)
    for b in cpu cuda; do
        step "MPI big: 10M x 32, $ranks ranks, $b"
        timeout 300 "${mpirun[@]}" -np "$ranks" "$cli" knn /tmp/mpibig/p10m.npy --backend $b \
            --out /tmp/mpibig/g10m_$b.npy "${args[@]}" | tee "$out/mpibig_10m_$b.json" | head -c 1500; echo
    done
    cmp /tmp/mpibig/g10m_cpu.npy /tmp/mpibig/g10m_cuda.npy && echo "10M: cuda ranks = cpu ranks, byte for byte"
    rm -f /tmp/mpibig/p10m.npy /tmp/mpibig/g10m_*
    step "MPI big: $big x 32 points"
    python3 .ci/mpi-scaling.py --cli "$cli" --write-points /tmp/mpibig/big.npy --strong-n "$big" --d 32 --seed 5
    ls -la /tmp/mpibig; free -g | head -2
    step "MPI big: $big x 32, $ranks ranks, cuda"
    timeout 420 "${mpirun[@]}" -np "$ranks" "$cli" knn /tmp/mpibig/big.npy --backend cuda \
        --out /tmp/mpibig/gbig.npy ${CS_MPI_BIG_WRITE:+--write "$CS_MPI_BIG_WRITE"} "${args[@]}" |
        tee "$out/mpibig_big.json" | head -c 2500; echo
    ls -la /tmp/mpibig
    python3 -c "
import numpy as np
g = np.load('/tmp/mpibig/gbig.npy', mmap_mode='r'); d = np.load('/tmp/mpibig/gbig_distances.npy', mmap_mode='r')
print('graph', g.shape, g.dtype, 'row 0', g[0], 'last', g[-1])
rows = np.random.default_rng(1).choice(len(g), 200000, replace=False); s = np.sort(g[rows], axis=1)
print('sampled rows: repeated neighbours', int((s[:, 1:] == s[:, :-1]).sum()), ', self', int((g[rows] == rows[:, None]).sum()),
      ', out of range', int(((g[rows] < 0) | (g[rows] >= len(g))).sum()), ', unsorted distances', int((np.diff(d[rows], axis=1) < 0).sum()))"
fi

step done
exit $status
