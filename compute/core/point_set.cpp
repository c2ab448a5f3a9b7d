// SPDX-License-Identifier: MIT
#include "compute/core/point_set.h"

#include <cmath>

#include "compute/core/error.h"
#include "compute/core/finite.h"
#include "compute/core/sparse_set.h"

namespace cs {

std::array<double, 9> SensorPose::rotation() const {
    const auto [w, x, y, z] = orientation;
    return {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
            2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
            2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
}

bool SensorPose::isIdentity() const {
    // q and -q are the same rotation.
    return origin == std::array<double, 3>{0, 0, 0} && std::abs(orientation[0]) == 1.0;
}

PointSet PointSet::fromCoords(std::size_t dims, std::vector<float> coords) {
    if (dims == 0 && !coords.empty()) throw Error("a point set needs at least one dimension");
    if (dims != 0 && coords.size() % dims != 0)
        throw Error("coordinate count " + std::to_string(coords.size()) +
                    " is not a multiple of the dimension " + std::to_string(dims));
    PointSet s;
    s.dims = dims;
    s.n = dims == 0 ? 0 : coords.size() / dims;
    s.coords = std::move(coords);
    static const char* kAxes[] = {"x", "y", "z"};
    for (std::size_t j = 0; j < dims; ++j)
        s.dimNames.push_back(dims <= 3 ? kAxes[j] : "c" + std::to_string(j));
    return s;
}

const PointAttribute* PointSet::attribute(const std::string& name) const {
    for (const auto& a : attributes)
        if (a.name == name) return &a;
    return nullptr;
}

const PointAttribute* PointSet::groundTruth() const {
    for (const auto& a : attributes)
        if (a.kind == PointAttribute::Kind::Label) return &a;
    return nullptr;
}

void PointSet::validate() const {
    if (coords.size() != n * dims)
        throw Error("point set holds " + std::to_string(coords.size()) + " values, expected " +
                    std::to_string(n) + " x " + std::to_string(dims));
    if (n > 0 && dims == 0) throw Error("point set has points but no dimensions");
    if (!dimNames.empty() && dimNames.size() != dims)
        throw Error("point set has " + std::to_string(dimNames.size()) + " dimension names for " +
                    std::to_string(dims) + " dimensions");
    if (!fileRows.empty() && fileRows.size() != n)
        throw Error("point set has " + std::to_string(fileRows.size()) + " file rows for " +
                    std::to_string(n) + " points");
    for (std::size_t i = 0; i < fileRows.size(); ++i)
        if (fileRows[i] >= fileRowCount() || (i > 0 && fileRows[i] <= fileRows[i - 1]))
            throw Error("point " + std::to_string(i) + " has the file row " +
                        std::to_string(fileRows[i]) + ", out of order or past the " +
                        std::to_string(fileRowCount()) + " rows");
    if (sparse) {
        if (sparse->n != n)
            throw Error("point set of " + std::to_string(n) + " points stands for " +
                        std::to_string(sparse->n) + " sparse rows");
        sparse->validate();
    }
    if (const std::size_t i = firstNonFinite(coords); i < coords.size())
        throw Error("point " + std::to_string(i / dims) + " has a non-finite coordinate");
    for (const auto& a : attributes) {
        const std::size_t size = a.kind == PointAttribute::Kind::Scalar  ? a.scalars.size()
                                 : a.kind == PointAttribute::Kind::Label ? a.labels.size()
                                                                         : a.colours.size();
        if (size != n)
            throw Error("attribute '" + a.name + "' has " + std::to_string(size) + " values for " +
                        std::to_string(n) + " points");
    }
}

}  // namespace cs
