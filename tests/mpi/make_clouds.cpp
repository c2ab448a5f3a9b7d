// SPDX-License-Identifier: MIT
// Writes the point clouds the MPI tests compare one-process and distributed graphs on:
//   make_clouds DIR [REAL_CLOUD...]
// DIR/blobs.npy     5000 x 8 float32 Gaussian blobs
// DIR/blobs_f64.npy the same as float64, Fortran order (another read-by-range layout)
// DIR/ties.npy      1500 x 3 float32 on a coarse grid: many duplicates and equal distances
// DIR/holes.npy     2400 x 4 float32, every 7th row NaN (dropped rows renumber the points)
// DIR/edges.npy     600 x 3 float32 with NaN rows first, last, in a run of 25 and every 11th
//                   (a parallel write's ranks own dropped rows at their ends), and the same
//                   as DIR/edges.csv (a parsed format: its ranks' file rows are derived)
// DIR/<name>.npy    each REAL_CLOUD's points (read with Clusterscope's readers), float32
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "compute/core/random.h"
#include "compute/io/dataset.h"
#include "compute/io/npy.h"

namespace {

std::vector<float> blobs(std::size_t n, std::size_t d, std::uint64_t seed) {
    cs::Random rng(seed);
    std::vector<float> centres(5 * d);
    for (auto& c : centres)
        c = float(rng.uniform(-10.0, 10.0));
    std::vector<float> x(n * d);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j)
            x[i * d + j] = centres[(i % 5) * d + j] + float(rng.normal());
    return x;
}

// A float64 Fortran-order .npy, written by hand (io::writeNpy writes C order).
void writeFortranF64(const std::filesystem::path& file, const std::vector<float>& x, std::size_t n,
                     std::size_t d) {
    std::string dict = "{'descr': '<f8', 'fortran_order': True, 'shape': (" + std::to_string(n) +
                       ", " + std::to_string(d) + "), }";
    dict.append((64 - (10 + dict.size() + 1) % 64) % 64, ' ');
    dict += '\n';
    std::ofstream out(file, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    const char length[2] = {char(dict.size() & 0xFF), char(dict.size() >> 8)};
    out.write(length, 2);
    out << dict;
    for (std::size_t j = 0; j < d; ++j)
        for (std::size_t i = 0; i < n; ++i) {
            const double v = x[i * d + j];
            out.write(reinterpret_cast<const char*>(&v), sizeof v);
        }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: make_clouds DIR [REAL_CLOUD...]\n");
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    try {
        const auto b = blobs(5000, 8, 7);
        cs::io::writeNpy(dir / "blobs.npy", std::span<const float>(b), {5000, 8});
        writeFortranF64(dir / "blobs_f64.npy", b, 5000, 8);

        cs::Random rng(11);
        std::vector<float> ties(1500 * 3);
        for (auto& v : ties)
            v = float(rng.below(6));  // 216 grid nodes for 1500 points
        cs::io::writeNpy(dir / "ties.npy", std::span<const float>(ties), {1500, 3});

        auto holes = blobs(2400, 4, 13);
        for (std::size_t i = 3; i < 2400; i += 7)
            holes[i * 4 + (i % 4)] = std::numeric_limits<float>::quiet_NaN();
        cs::io::writeNpy(dir / "holes.npy", std::span<const float>(holes), {2400, 4});

        auto edges = blobs(600, 3, 17);
        for (std::size_t i = 0; i < 600; ++i)
            if (i < 2 || i >= 597 || (i >= 140 && i < 165) || i % 11 == 5)
                edges[i * 3 + (i % 3)] = std::numeric_limits<float>::quiet_NaN();
        cs::io::writeNpy(dir / "edges.npy", std::span<const float>(edges), {600, 3});
        {
            std::ofstream csv(dir / "edges.csv");
            csv << "x,y,z\n";
            csv.precision(9);
            for (std::size_t i = 0; i < 600; ++i)
                for (std::size_t j = 0; j < 3; ++j) {
                    const float v = edges[i * 3 + j];
                    if (std::isnan(v))
                        csv << "nan";
                    else
                        csv << v;
                    csv << (j == 2 ? '\n' : ',');
                }
            if (!csv) throw std::runtime_error("edges.csv could not be written");
        }

        for (int a = 2; a < argc; ++a) {
            const std::filesystem::path source = argv[a];
            auto data = cs::io::loadDataset(source);
            const auto& points = std::get<cs::PointSet>(data);
            cs::io::writeNpy(dir / (source.stem().string() + ".npy"),
                             std::span<const float>(points.coords), {points.n, points.dims});
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_clouds: %s\n", e.what());
        return 1;
    }
    return 0;
}
