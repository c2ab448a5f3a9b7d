// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>

namespace cs {

// The error bound behind the exact kNN on tensor cores (kernels/knn/knn_exact_kernels.cu).
//
// Setting. x_q, x_j are rows of the recentred coordinates (floats), D = canonicalDist2(x_q, x_j)
// (float, dimension order, no FMA), R = ||x_q - x_j||^2 in real arithmetic, d the dimension and
// dH >= d the padded width. s = 2^-e is chosen so that |s x| < 1 for every coordinate, and
// p = s x is exact (a power of two; below 2^-126 the product may round, by at most 2^-150, far
// under the FP16 term below). h = fp16(p) rounds to nearest: |h_i - p_i| <= u |p_i| + 2^-25
// (u = 2^-11; 2^-25 is half the FP16 subnormal spacing, and no p_i overflows). N = the FP32 sum
// of p_i^2 in some order, G = the tensor cores' FP32 accumulation of h_q . h_j, and
// a = fl(fl(N_q + N_j) + fl(-2 G)). rq, rj >= ||p_q||, ||p_j|| are the norms, rounded up.
//
// Claim. |a - s^2 D| <= B = c1 rq rj + c2 (rq + rj)^2 + c3 (rq + rj) + c4 with the constants
// knnTensorBound gives, so lb = a - B <= s^2 D <= ub = a + B.
//
// Proof, term by term (gamma_m = m v / (1 - m v), v = 2^-24; Higham, ch. 3):
//  1. Input rounding. h_q . h_j - p_q . p_j = sum (h_i h'_i - p_i p'_i); with the bound on
//     |h_i - p_i| and Cauchy-Schwarz, |.| <= (2u + u^2) rq rj + (1 + u) 2^-25 sqrt(dH) (rq + rj)
//     + dH 2^-50.
//  2. Accumulation. The products of FP16 values are exact in FP32; the tensor cores add them
//     with alignment and truncation, not round-to-nearest (Fasi, Higham, Mikaitis, Pranesh,
//     "Numerical behavior of NVIDIA tensor cores", PeerJ CS 2021). We allow each of the dH
//     additions a relative error of 2^-22 (twice a truncation's): |G - h_q . h_j| <= g sum
//     |h_i h'_i| with g = gamma'_dH = dH 2^-22 / (1 - dH 2^-22), and sum |h_i h'_i| <=
//     ((1 + u) rq + 2^-25 sqrt(dH)) ((1 + u) rj + 2^-25 sqrt(dH)). Fasi et al. measured one
//     truncation per block of 4 to 16 products on V100, T4 and A100; the H200's mma.sync is
//     not documented, hence this looser allowance (and tst_knn_gpu checks the lists).
//  3. The norms: |N - ||p||^2| <= gamma_d ||p||^2 for any order of the sum.
//  4. a's own two roundings: <= 2 v (N_q + N_j + 2 |G|) (1 + v) <= 2.2 v (rq + rj)^2.
//  5. The canonical distance: D = R (1 + t) with |t| <= gamma_{d+2} (a difference, a square
//     and d additions of non-negative terms), and s^2 R = ||p_q - p_j||^2 <= (rq + rj)^2.
//  6. Centring (the leaves of the forest: knnTensorBound's `centred`). The FP16 copy is then of
//     y = fl(x - c) for a float vector c shared by the leaf's points (its centroid: any c will
//     do), so that the norms, which the bound scales with, are the leaf's extent rather than the
//     whole set's. p = s y, and R is still ||x_q - x_j||^2 while a approximates s^2 Ry,
//     Ry = ||y_q - y_j||^2. y_i = (x_i - c_i)(1 + e_i), |e_i| <= v, so y - (x - c) has norm
//     <= v' ||y|| (v' = v / (1 - v)), and ||s (x - c)|| <= (1 + v') r: with E = v' (rq + rj),
//     s^2 |R - Ry| <= E (2 (rq + rj) + E) = (2 v' + v'^2) (rq + rj)^2, and term 5 becomes
//     gamma_{d+2} (1 + v')^2 (rq + rj)^2. Both go into c2.
// a - s^2 D = (N_q - ||p_q||^2) + (N_j - ||p_j||^2) - 2 (G - p_q . p_j) + (rounding of a)
//             + s^2 (R - D), since s^2 R = ||p_q||^2 + ||p_j||^2 - 2 p_q . p_j (centred:
//             s^2 Ry, and + s^2 (Ry - R)); summing the bounds (1, 2 twice through the factor 2;
//             3, 4, 5, 6 once) gives c1..c4 below, which
// knnTensorBound then multiplies by 5/4 and rounds up to float. The kernel evaluates B with every
// operation rounded up and lb, ub with rounding down and up, so the float arithmetic keeps the
// inequality. With FP16's u = 2^-11 the margin is about 2^-9 rq rj: for unit vectors that are
// neighbours, a band of 0.002 around the k-th squared distance.

/// The constants of the bound above (plain floats, also what the kernel reads).
struct KnnTensorBound {
    float c1 = 0, c2 = 0, c3 = 0, c4 = 0;
};

/// The bound for `dims` dimensions padded to `paddedDims` (>= dims) FP16 products; `centred`:
/// the FP16 copy is of the coordinates minus a shared centre (term 6).
KnnTensorBound knnTensorBound(std::size_t dims, std::size_t paddedDims, bool centred = false);

/// B for scaled norms rq, rj, as the kernel evaluates it (each operation rounded up).
float knnTensorPairBound(const KnnTensorBound& bound, float rq, float rj);

/// s = 2^-e for the largest |coordinate| maxAbs: every |s x| < 1 (1 when maxAbs is 0; e >= -126
/// so that s stays a normal float).
float knnTensorScale(float maxAbs);

/// The factor f with ||p||^2 <= N f for an FP32 sum N of d squares in any order: the smallest
/// float >= 1 / (1 - gamma_d). The norms' upper bounds are sqrt(N f), rounded up.
float knnTensorNormFactor(std::size_t dims);

}  // namespace cs
