// SPDX-License-Identifier: MIT
#pragma once

// The device side of the point and series quantities (compute/core/point_quantities.h,
// series_quantities.h): what the GL interop reads, whichever algorithm left it on the device. An
// algorithm's device result derives from the quantity it is (DBSCAN's clusters are categories, a
// kNN graph's neighbours are edges, ROCKET's features a feature matrix).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "compute/core/device_resident.h"

namespace cs::kernels {

class StreamHandles;

/// A category per point on the device (cs::PointCategories::device).
struct DeviceCategories : cs::DeviceResident {
    std::shared_ptr<StreamHandles> context;  ///< its stream frees the buffers; outlives them
    /// Category per point, -1: none.
    virtual const std::int32_t* labels() const = 0;
    /// 1 for a primary member, per point; null when every member is primary.
    virtual const std::uint8_t* primary() const = 0;
    /// Points.
    virtual std::size_t count() const = 0;
    std::string backend() const override { return "cuda"; }
};

/// Edges from every point to k others on the device (cs::PointEdges::device).
struct DeviceEdges : cs::DeviceResident {
    std::shared_ptr<StreamHandles> context;  ///< its stream frees the buffers; outlives them
    /// n x k targets, row i holding point i's.
    virtual const std::int32_t* targets() const = 0;
    /// Points (n).
    virtual std::size_t points() const = 0;
    /// Edges per point (k).
    virtual int edgesPerPoint() const = 0;
    std::string backend() const override { return "cuda"; }
};

/// Values per series on the device (cs::FeatureMatrix::device), laid out as there: rows x
/// columns x layers floats, interleaved.
struct DeviceFeatureMatrix : cs::DeviceResident {
    std::shared_ptr<StreamHandles> context;  ///< its stream frees the buffers; outlives them
    virtual const float* matrixValues() const = 0;
    virtual std::size_t rows() const = 0;
    virtual std::size_t columns() const = 0;
    virtual std::size_t layers() const = 0;
    std::string backend() const override { return "cuda"; }
};

}  // namespace cs::kernels
