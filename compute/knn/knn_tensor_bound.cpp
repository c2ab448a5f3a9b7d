// SPDX-License-Identifier: MIT
#include "compute/knn/knn_tensor_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cs {
namespace {

// The smallest float >= x.
float roundedUp(double x) {
    const float f = float(x);
    return double(f) >= x ? f : std::nextafter(f, std::numeric_limits<float>::infinity());
}

double gamma(double m, double unit) {
    return m * unit / (1.0 - m * unit);
}

// x + y and x * y in float, rounded up (non-negative operands). A product of floats is exact in
// double; a sum is checked for exactness (two-sum) and bumped a float step when it was rounded.
float addUp(float x, float y) {
    const double s = double(x) + double(y);
    const float f = roundedUp(s);
    const bool exact = s - double(x) == double(y) && s - double(y) == double(x);
    return exact ? f : std::nextafter(f, std::numeric_limits<float>::infinity());
}
float mulUp(float x, float y) {
    return roundedUp(double(x) * double(y));
}

}  // namespace

KnnTensorBound knnTensorBound(std::size_t dims, std::size_t paddedDims, bool centred) {
    const double u = 0x1p-11, v = 0x1p-24, sub = 0x1p-25;
    const double d = double(dims), dH = double(paddedDims), root = std::sqrt(dH);
    const double g = gamma(dH, 0x1p-22);
    // Term 2's factors: sum |h h'| <= (1 + u)^2 rq rj + (1 + u) sub root (rq + rj) + sub^2 dH.
    const double c1 = 2.0 * ((2.0 * u + u * u) + g * (1.0 + u) * (1.0 + u));
    // Term 6: the centring's rounding, relative v' to the centred norms (0 without one).
    const double vc = centred ? v / (1.0 - v) : 0.0;
    const double c2 =
        gamma(d, v) + 2.2 * v + gamma(d + 2.0, v) * (1.0 + vc) * (1.0 + vc) + 2.0 * vc + vc * vc;
    const double c3 = 2.0 * ((1.0 + u) * sub * root + g * (1.0 + u) * sub * root);
    const double c4 = 2.0 * (dH * sub * sub + g * dH * sub * sub);
    const double safety = 1.25;
    return {roundedUp(c1 * safety), roundedUp(c2 * safety), roundedUp(c3 * safety),
            roundedUp(c4 * safety)};
}

float knnTensorScale(float maxAbs) {
    int e = 0;
    if (maxAbs > 0.0f) std::frexp(maxAbs, &e);
    return std::ldexp(1.0f, -std::max(e, -126));
}

float knnTensorNormFactor(std::size_t dims) {
    return roundedUp(1.0 / (1.0 - gamma(double(dims), 0x1p-24)));
}

float knnTensorPairBound(const KnnTensorBound& c, float rq, float rj) {
    const float sum = addUp(rq, rj);
    float b = mulUp(mulUp(c.c1, rq), rj);
    b = addUp(b, mulUp(mulUp(c.c2, sum), sum));
    b = addUp(b, mulUp(c.c3, sum));
    return addUp(b, c.c4);
}

}  // namespace cs
