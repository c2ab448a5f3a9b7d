// SPDX-License-Identifier: MIT
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cs {

struct SparseSet;

/// A named per-point quantity carried beside the coordinates (polyscope's "quantities").
struct PointAttribute {
    /// What the values mean, and so which vector holds them.
    enum class Kind { Scalar, Label, Colour };

    std::string name;                     ///< as in the file ("intensity", "label", "rgb")
    Kind kind = Kind::Scalar;             ///< which of the vectors below is filled
    std::vector<float> scalars;           ///< Kind::Scalar: one value per point
    std::vector<std::int32_t> labels;     ///< Kind::Label: category index per point, -1 = none
    std::vector<std::string> categories;  ///< Kind::Label: name of each category index
    std::vector<std::uint32_t> colours;   ///< Kind::Colour: 0xRRGGBB per point
};

/// Where the sensor stood that captured a cloud, in the world frame (a PCD file's VIEWPOINT):
/// the points are in the sensor's frame, and world = R(orientation) * point + origin. The
/// sensor looks along its +z with +x to the right and +y down (PCL's camera convention).
struct SensorPose {
    std::array<double, 3> origin{0.0, 0.0, 0.0};            ///< tx ty tz
    std::array<double, 4> orientation{1.0, 0.0, 0.0, 0.0};  ///< unit quaternion qw qx qy qz
    /// The rotation as a row-major 3x3 matrix.
    std::array<double, 9> rotation() const;
    /// True for the identity pose (the points are already in the world frame).
    bool isIdentity() const;
};

/// N points × d dimensions, float32, row-major: coordinate j of point i is coords[i * dims + j].
/// @code
/// cs::PointSet s = cs::PointSet::fromCoords(2, {0, 0, 1, 1});  // two 2-D points
/// float y1 = s.point(1)[1];
/// @endcode
struct PointSet {
    std::size_t n = 0;                       ///< number of points
    std::size_t dims = 0;                    ///< dimensions per point (>= 1 when n > 0)
    std::vector<float> coords;               ///< n * dims values, row-major
    std::vector<std::string> dimNames;       ///< one name per dimension ("x", "y", "z" ...)
    std::vector<PointAttribute> attributes;  ///< per-point quantities, each of n values
    std::size_t droppedNonFinite = 0;        ///< points dropped on reading for NaN/Inf coordinates
    /// The row of each point in the file (0-based, among the file's points) once some were
    /// dropped on reading; empty when none was (point i is row i). Outputs per point name
    /// these rows, so that they line up with the file, not with the points kept.
    std::vector<std::size_t> fileRows;
    std::string source;  ///< file path, or "demo:..." for generated data
    /// The sensor's pose when the file gave one (PCD VIEWPOINT); coordinates stay as in the file.
    std::optional<SensorPose> sensorPose;
    /// The sparse rows these points stand for (a `.npz` CSR or libsvm file), or null. Then the
    /// coordinates are the rows' 3-D projection (sparsePcaCoords), for views and for methods
    /// without a sparse path; the kNN graph runs on the rows themselves.
    std::shared_ptr<const SparseSet> sparse;

    /// Builds a set from row-major coordinates; throws cs::Error when the size is not n * dims.
    static PointSet fromCoords(std::size_t dims, std::vector<float> coords);

    /// The dims coordinates of point i.
    std::span<const float> point(std::size_t i) const { return {coords.data() + i * dims, dims}; }
    /// The row in the file of point i.
    std::size_t fileRow(std::size_t i) const { return fileRows.empty() ? i : fileRows[i]; }
    /// The points the file held: those kept and those dropped.
    std::size_t fileRowCount() const { return n + droppedNonFinite; }
    /// The attribute with this name, or nullptr.
    const PointAttribute* attribute(const std::string& name) const;
    /// The first Kind::Label attribute (ground truth), or nullptr.
    const PointAttribute* groundTruth() const;
    /// Throws cs::Error naming the first inconsistency (sizes, attribute lengths, file rows,
    /// non-finite).
    void validate() const;
};

}  // namespace cs
