#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Makes the scikit-learn DBSCAN references that tests/compute/tst_dbscan.cpp compares against.

Run with Debian's Python (apt-get install python3-sklearn python3-numpy):

    /usr/bin/python3 tests/compute/data/make_dbscan_reference.py [../shared/data/points]

For each cloud and parameter set below it writes tests/compute/data/dbscan_<cloud>_<i>.csv:
"# key=value" header lines (cloud, n, coord_sum, eps, min_samples, core, clusters, noise,
largest, fixed_pairs, plain_core_diff, sklearn version), then "count,label,core" rows: runs of equal (scikit-learn label, core flag)
over the points in file order, run-length encoded to keep the files small.

The PCD files are read here, independently of Clusterscope's reader: ascii, binary and
binary_compressed (with a small pure-Python LZF decoder), x y z as float32, points with a
non-finite coordinate dropped (as PCL and cs::io::readPcd do), order kept. The C++ test checks
that it reads the same n and coordinate sum before comparing.

scikit-learn sees the float32 points as float64 and decides "dist <= eps" on exact float64
distances (algorithm="kd_tree"). Clusterscope decides in float32 on re-centred coordinates
(recentredCoords, canonicalDist2 <= eps * eps, all reproduced here in numpy float32), so a pair
whose distance is within rounding of eps (re-centring moves a coordinate by up to half a float
ulp, ~6e-8 m on these clouds) can be decided differently. The script finds every pair within
1e-5 eps + 1e-6 of eps and evaluates both rules on it:
 - when no pair disagrees (bunny and cturtle at the eps below), scikit-learn's own result on
   the raw points is the reference, as is;
 - when some do (the mug scene, densest near eps: 10^4 to 4 10^4 pairs in the band, of which
   58 to 308 disagreed at every eps tried around the chosen ones), scikit-learn runs on its own float64 radius-neighbour graph (metric="precomputed") in which
   only those disagreeing pairs get Clusterscope's decision; the header records how many
   ("fixed_pairs") and how many core flags plain scikit-learn would have had differently
   ("plain_core_diff").
The eps written is the float32 value both sides use.
"""
import math
import os
import struct
import sys
import warnings

import numpy as np
import sklearn
from sklearn.cluster import DBSCAN
from sklearn.exceptions import EfficiencyWarning
from sklearn.neighbors import KDTree, radius_neighbors_graph

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_POINTS = os.path.normpath(
    os.path.join(HERE, "..", "..", "..", "..", "shared", "data", "points"))

# (cloud, [(eps, min_samples), ...]) in the clouds' units (metres), chosen from a scan of
# parameters for structure: bunny gives 34 / 10 / 3 clusters with noise; the mug scene 43 / 24
# / 12 clusters (table, mug, background objects, stray blobs). cturtle is a resampled surface
# on an almost regular 5 mm spacing: it is one component at any useful eps, so its sets mix
# core and non-core points (40 %, 34 %, 98 % core) and stress pairs near the lattice distances.
PARAMETERS = [
    ("bunny.pcd", [(0.008, 4), (0.012, 8), (0.015, 10)]),
    ("cturtle.pcd", [(0.0075, 9), (0.0114, 17), (0.015, 20)]),
    ("table_scene_mug_stereo_textured.pcd", [(0.006, 10), (0.01, 30), (0.02, 100)]),
]


def lzf_decompress(data, size):
    """liblzf's format: literal runs (ctrl < 32: ctrl + 1 bytes) and back references."""
    out = bytearray(size)
    i = o = 0
    n = len(data)
    while i < n:
        ctrl = data[i]
        i += 1
        if ctrl < 32:
            length = ctrl + 1
            out[o:o + length] = data[i:i + length]
            i += length
            o += length
        else:
            length = ctrl >> 5
            ref = o - ((ctrl & 0x1F) << 8) - 1
            if length == 7:
                length += data[i]
                i += 1
            ref -= data[i]
            i += 1
            length += 2
            if ref < 0:
                raise ValueError("LZF back reference before the start")
            if ref + length <= o:
                out[o:o + length] = out[ref:ref + length]
                o += length
            else:  # overlapping copy: byte by byte
                for _ in range(length):
                    out[o] = out[ref]
                    o += 1
                    ref += 1
    if o != size:
        raise ValueError("LZF stream decoded to %d bytes, header says %d" % (o, size))
    return bytes(out)


def read_pcd(path):
    """float32 x y z of the finite points, in file order."""
    with open(path, "rb") as f:
        raw = f.read()
    header = {}
    pos = 0
    while True:
        end = raw.index(b"\n", pos)
        line = raw[pos:end].decode("ascii").strip()
        pos = end + 1
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(" ")
        header[key.upper()] = value.split()
        if key.upper() == "DATA":
            break
    fields = header["FIELDS"]
    sizes = [int(s) for s in header["SIZE"]]
    types = header["TYPE"]
    counts = [int(c) for c in header.get("COUNT", ["1"] * len(fields))]
    n = int(header["POINTS"][0])
    data = header["DATA"][0]
    codes = {("F", 4): "<f4", ("F", 8): "<f8", ("U", 1): "<u1", ("U", 2): "<u2", ("U", 4): "<u4",
             ("I", 1): "<i1", ("I", 2): "<i2", ("I", 4): "<i4"}
    columns = {}
    if data == "ascii":
        rows = raw[pos:].decode("ascii").split("\n")
        values = [r.split() for r in rows if r.strip()][:n]
        width = sum(counts)
        table = np.array([[float(v) for v in r[:width]] for r in values], dtype=np.float64)
        col = 0
        for name, count in zip(fields, counts):
            columns[name] = table[:, col]
            col += count
    elif data == "binary":
        dtype = np.dtype([(name if c == 1 else name, codes[(t, s)], (c,) if c > 1 else ())
                          for name, s, t, c in zip(fields, sizes, types, counts)])
        table = np.frombuffer(raw, dtype=dtype, count=n, offset=pos)
        columns = {name: table[name] for name in fields}
    elif data == "binary_compressed":
        compressed, uncompressed = struct.unpack_from("<II", raw, pos)
        body = lzf_decompress(raw[pos + 8:pos + 8 + compressed], uncompressed)
        offset = 0
        for name, s, t, c in zip(fields, sizes, types, counts):  # structure of arrays
            columns[name] = np.frombuffer(body, dtype=codes[(t, s)], count=n * c, offset=offset)
            offset += n * c * s
    else:
        raise ValueError("unsupported DATA " + data)
    xyz = np.stack([np.asarray(columns[a], dtype=np.float32) for a in "xyz"], axis=1)
    return xyz[np.all(np.isfinite(xyz), axis=1)]


def recentred(xyz):
    """cs::recentredCoords: centre of the bounding box in double, then float32."""
    x = xyz.astype(np.float64)
    centre = 0.5 * (x.min(axis=0) + x.max(axis=0))
    return (x - centre).astype(np.float32)


def canonical_dist2(a, b):
    """cs::canonicalDist2 row by row: float32, dimension order, no FMA."""
    total = np.zeros(len(a), dtype=np.float32)
    for j in range(a.shape[1]):
        diff = a[:, j] - b[:, j]
        total = total + diff * diff
    return total


def boundary_disagreements(data, rc, eps32, tree):
    """(i, j, clusterscope_says_within) for the pairs i != j that the two rules decide apart."""
    lo = float(eps32) * (1 - 1e-5) - 1e-6
    hi = float(eps32) * (1 + 1e-5) + 1e-6
    # The band must hold every pair the rules could decide apart: re-centring moves a
    # coordinate by up to half a float ulp of its re-centred value, float32 sums add ~1e-7 eps.
    worst = 2.0 * math.sqrt(3.0) * float(np.spacing(np.abs(rc).max())) + 1e-6 * float(eps32)
    if worst > 1e-6:
        raise RuntimeError("rounding band too narrow for this cloud (%g)" % worst)
    found, dist = tree.query_radius(data, hi, return_distance=True)
    i = np.repeat(np.arange(len(data)), [len(f) for f in found])
    j = np.concatenate(found)
    d = np.concatenate(dist)
    band = d >= lo
    i, j, d = i[band], j[band], d[band]
    sklearn_within = d <= float(eps32)
    ours_within = canonical_dist2(rc[i], rc[j]) <= eps32 * eps32
    apart = sklearn_within != ours_within
    return i[apart], j[apart], ours_within[apart], hi


def runs(labels, core):
    out = []
    start = 0
    n = len(labels)
    for i in range(1, n + 1):
        if i == n or labels[i] != labels[start] or core[i] != core[start]:
            out.append("%d,%d,%d" % (i - start, labels[start], core[start]))
            start = i
    return out


def main():
    points_dir = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_POINTS
    for cloud, sets in PARAMETERS:
        xyz = read_pcd(os.path.join(points_dir, cloud))
        data = xyz.astype(np.float64)
        tree = KDTree(data)
        rc = recentred(xyz)
        stem = os.path.splitext(cloud)[0].split("_")[0]
        for i, (eps, min_samples) in enumerate(sets):
            e = np.float32(eps)
            plain = DBSCAN(eps=float(e), min_samples=min_samples, algorithm="kd_tree").fit(data)
            bi, bj, ours, hi = boundary_disagreements(data, rc, e, tree)
            model = plain
            if len(bi):
                graph = radius_neighbors_graph(data, hi, mode="distance").tocsr()
                warnings.simplefilter("ignore", EfficiencyWarning)  # unsorted rows: only slower
                # Existing entries only (every band pair is within hi): the structure stays.
                graph[bi, bj] = np.where(ours, 0.5 * float(e), 2.0 * float(e))
                model = DBSCAN(eps=float(e), min_samples=min_samples,
                               metric="precomputed").fit(graph)
            core = np.zeros(len(data), dtype=np.int64)
            core[model.core_sample_indices_] = 1
            plain_core = np.zeros(len(data), dtype=np.int64)
            plain_core[plain.core_sample_indices_] = 1
            labels = model.labels_
            clusters = int(labels.max()) + 1 if len(labels) else 0
            sizes = np.bincount(labels[labels >= 0]) if clusters else np.array([0])
            meta = {
                "cloud": cloud, "n": len(data), "coord_sum": repr(float(np.sum(data))),
                "eps": repr(float(e)), "min_samples": min_samples, "core": int(core.sum()),
                "clusters": clusters, "noise": int((labels < 0).sum()),
                "largest": int(sizes.max()), "fixed_pairs": len(bi) // 2,
                "plain_core_diff": int((core != plain_core).sum()), "sklearn": sklearn.__version__,
            }
            body = runs(labels, core)
            name = os.path.join(HERE, "dbscan_%s_%d.csv" % (stem, i))
            with open(name, "w") as f:
                f.write("# made by tests/compute/data/make_dbscan_reference.py"
                        " (scikit-learn DBSCAN)\n")
                f.write("# " + " ".join("%s=%s" % kv for kv in meta.items()) + "\n")
                f.write("\n".join(body) + "\n")
            print("%s: eps=%s min_samples=%d clusters=%d core=%d noise=%d largest=%d runs=%d "
                  "fixed_pairs=%d plain_core_diff=%d"
                  % (os.path.basename(name), meta["eps"], min_samples, clusters, meta["core"],
                     meta["noise"], meta["largest"], len(body), meta["fixed_pairs"],
                     meta["plain_core_diff"]))


if __name__ == "__main__":
    main()
