// SPDX-License-Identifier: MIT
#include "kernels/sparse/sparse_view_gpu.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <span>
#include <string>
#include <utility>

#include "compute/core/error.h"
#include "compute/core/sparse_pca.h"
#include "kernels/common/cuda_error.h"
#include "kernels/common/device_buffer.h"
#include "kernels/common/device_sort.h"
#include "kernels/common/stream_handles.h"
#include "kernels/sparse/sparse_view_launch.h"

namespace cs::kernels {
namespace {

static_assert(kSparsePcaWidth == std::size_t(kSparseViewMaxWidth));

class DeviceProducts final : public SparsePcaProducts {
public:
    DeviceProducts(StreamHandles& ctx, const SparseSet& s) : m_ctx(ctx), m_rows(s.n) {
        const cudaStream_t stream = ctx.stream();
        const std::size_t nnz = s.nnz();
        m_indptr = DeviceBuffer<std::int64_t>(s.n + 1, stream);
        m_indptr.copyFromHost(s.indptr);
        m_values = DeviceBuffer<float>(std::max<std::size_t>(nnz, 1), stream);
        m_column = DeviceBuffer<std::int32_t>(m_values.size(), stream);
        m_columnRow = DeviceBuffer<std::int32_t>(m_values.size(), stream);
        m_columnValue = DeviceBuffer<float>(m_values.size(), stream);
        if (nnz) {
            m_values.copyFromHost(s.values);
            buildColumnLayout(s);
        }
        m_width = std::min({kSparsePcaWidth, m_used, m_rows});
        m_mean = DeviceBuffer<double>(std::max<std::size_t>(m_used, 1), stream);
        launchSparseColumnMeans(m_columnStart.data(), m_columnValue.data(), m_used, m_rows,
                                m_mean.data(), stream);
        std::vector<double> ones(m_rows, 1.0);
        m_ones = DeviceBuffer<double>(std::max<std::size_t>(m_rows, 1), stream);
        m_ones.copyFromHost(ones);
        const std::size_t tall = std::max<std::size_t>(std::max(m_rows, m_used), 1) * m_width;
        m_q = DeviceBuffer<double>(std::max<std::size_t>(m_used * m_width, 1), stream);
        m_y = DeviceBuffer<double>(std::max<std::size_t>(m_rows * m_width, 1), stream);
        m_scratch = DeviceBuffer<double>(std::max<std::size_t>(tall, 1), stream);
        m_small = DeviceBuffer<double>(kSparsePcaWidth * kSparsePcaWidth, stream);
        m_vector = DeviceBuffer<double>(kSparsePcaWidth, stream);
        ctx.synchronize();  // the host's ones go out of scope
    }

    std::size_t usedColumns() const override { return m_used; }
    std::size_t width() const override { return m_width; }

    void setQ(const std::vector<double>& q) override {
        m_q.copyFromHost(q);
        m_ctx.synchronize();
    }

    void timesQ() override {
        columnSums(m_q, m_used, m_mean.data());  // Q^T mean: the mean's share of every row
        launchSparseTimesDense(m_indptr.data(), m_column.data(), m_values.data(), m_rows,
                               m_q.data(), int(m_width), nullptr, m_vector.data(), m_y.data(),
                               m_ctx.stream());
    }

    void transposeTimesY() override {
        columnSums(m_y, m_rows, m_ones.data());  // 1^T Y, times each column's mean
        launchSparseTimesDense(m_columnStart.data(), m_columnRow.data(), m_columnValue.data(),
                               m_used, m_y.data(), int(m_width), m_mean.data(), m_vector.data(),
                               m_q.data(), m_ctx.stream());
    }

    std::vector<double> gram(Block block) override {
        const auto [a, rows] = blockOf(block);
        // Row-major rows x p is column-major p x rows (M): the Gram matrix is M M^T.
        const double one = 1.0, zero = 0.0;
        const int p = int(m_width);
        CS_CUBLAS_CHECK(cublasDgemm(m_ctx.cublas(), CUBLAS_OP_N, CUBLAS_OP_T, p, p, int(rows), &one,
                                    a->data(), p, a->data(), p, &zero, m_small.data(), p));
        std::vector<double> g(m_width * m_width);
        m_small.copyToHost(g);
        m_ctx.synchronize();
        return g;  // symmetric: row- and column-major alike
    }

    void rotate(Block block, const std::vector<double>& map) override {
        auto [a, rows] = blockOf(block);
        m_small.copyFromHost(map);
        // B map, column-major: map^T M, and the row-major map read column-major is map^T.
        const double one = 1.0, zero = 0.0;
        const int p = int(m_width);
        CS_CUBLAS_CHECK(cublasDgemm(m_ctx.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, p, int(rows), p, &one,
                                    m_small.data(), p, a->data(), p, &zero, m_scratch.data(), p));
        CS_CUDA_CHECK(cudaMemcpyAsync(a->data(), m_scratch.data(), rows * m_width * sizeof(double),
                                      cudaMemcpyDeviceToDevice, m_ctx.stream()));
        m_ctx.synchronize();  // map is the caller's
    }

    std::vector<double> y() override {
        std::vector<double> out(m_rows * m_width);
        m_y.copyToHost(out);
        m_ctx.synchronize();
        return out;
    }

private:
    std::pair<DeviceBuffer<double>*, std::size_t> blockOf(Block block) {
        return block == Block::Q ? std::pair{&m_q, m_used} : std::pair{&m_y, m_rows};
    }

    // m_vector = B^T w (B: rows x width, row-major).
    void columnSums(const DeviceBuffer<double>& b, std::size_t rows, const double* w) {
        const double one = 1.0, zero = 0.0;
        CS_CUBLAS_CHECK(cublasDgemv(m_ctx.cublas(), CUBLAS_OP_N, int(m_width), int(rows), &one,
                                    b.data(), int(m_width), w, 1, &zero, m_vector.data(), 1));
    }

    // The used columns in ascending order and the entries by column, rows ascending: a stable
    // sort of the entries by column (the host's counting sort, which keeps the rows' order).
    void buildColumnLayout(const SparseSet& s) {
        const cudaStream_t stream = m_ctx.stream();
        const std::size_t nnz = s.nnz();
        DeviceBuffer<std::int32_t> cols(nnz, stream);
        cols.copyFromHost(s.indices);
        DeviceBuffer<std::uint32_t> entryRow(nnz, stream), order(nnz, stream), perm(nnz, stream);
        DeviceBuffer<std::uint64_t> keys(nnz, stream), sortedKeys(nnz, stream);
        launchSparseEntryTables(m_indptr.data(), cols.data(), s.n, nnz, entryRow.data(),
                                keys.data(), order.data(), stream);
        const unsigned bits =
            std::max(1u, unsigned(std::bit_width(std::max<std::size_t>(s.dims, 1) - 1)));
        {
            const std::size_t tempBytes = sortPairsTempBytes(nnz);
            DeviceBuffer<std::uint8_t> temp(std::max<std::size_t>(tempBytes, 1), stream);
            sortPairs(temp.data(), tempBytes, keys.data(), sortedKeys.data(), order.data(),
                      perm.data(), nnz, bits, stream);
        }
        DeviceBuffer<std::uint32_t> firsts(nnz, stream), rank(nnz, stream);
        launchSparseColumnFirsts(sortedKeys.data(), nnz, firsts.data(), stream);
        {
            const std::size_t tempBytes = scanTempBytes(nnz);
            DeviceBuffer<std::uint8_t> temp(std::max<std::size_t>(tempBytes, 1), stream);
            inclusiveScan(temp.data(), tempBytes, firsts.data(), rank.data(), nnz, stream);
        }
        std::uint32_t used = 0;
        rank.copyToHost(std::span(&used, 1), nnz - 1);
        m_ctx.synchronize();
        m_used = used;
        m_columnStart = DeviceBuffer<std::int64_t>(m_used + 1, stream);
        launchSparseColumnLayout(rank.data(), firsts.data(), perm.data(), entryRow.data(),
                                 m_values.data(), nnz, m_columnStart.data(), m_columnRow.data(),
                                 m_columnValue.data(), m_column.data(), stream);
        m_ctx.synchronize();  // the temporaries are freed on the stream, the host's copies not
    }

    StreamHandles& m_ctx;
    std::size_t m_rows, m_used = 0, m_width = 0;
    DeviceBuffer<std::int64_t> m_indptr, m_columnStart;
    DeviceBuffer<float> m_values, m_columnValue;
    DeviceBuffer<std::int32_t> m_column, m_columnRow;  // CSR entries' used columns; rows by column
    DeviceBuffer<double> m_mean, m_ones, m_q, m_y, m_scratch, m_small, m_vector;
};

}  // namespace

std::size_t sparseViewDeviceBytes(const SparseSet& rows) {
    const std::size_t nnz = rows.nnz(), n = rows.n, p = kSparsePcaWidth;
    const std::size_t used = std::min(rows.dims, nnz);
    // Kept: indptr, values, used columns, rows and values by column (8 + 4 x 4 bytes an entry),
    // the blocks and the scratch. The layout's build adds 40 bytes an entry and the sort's scratch.
    const std::size_t kept = (n + 1) * 8 + nnz * 16 + (used + 1) * 8 + used * 8 + n * 8 +
                             (used + n) * p * 8 + std::max(used, n) * p * 8;
    return kept + nnz * 48 + sortPairsTempBytes(std::max<std::size_t>(nnz, 1));
}

std::vector<float> sparseViewCuda(StreamHandles& ctx, const SparseSet& rows, JobControl& job) {
    if (rows.nnz() >= std::numeric_limits<std::uint32_t>::max() ||
        rows.n >= std::size_t(std::numeric_limits<int>::max()) ||
        rows.dims > std::size_t(std::numeric_limits<std::int32_t>::max()))
        throw Error(
            "a sparse view on the GPU takes fewer than 2^31 rows and 2^32 entries; this "
            "set has " +
            std::to_string(rows.n) + " rows and " + std::to_string(rows.nnz()) + " entries");
    if (rows.n == 0 || rows.dims == 0) return std::vector<float>(rows.n * 3, 0.0f);
    DeviceProducts products(ctx, rows);
    return sparsePcaCoords(products, rows.n, 1, &job);
}

}  // namespace cs::kernels
