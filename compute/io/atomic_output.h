// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>
#include <fstream>

namespace cs::io {

/// An output file written under a temporary name in the destination's folder and renamed over
/// the destination by commit(): a reader (or an interrupted run) sees the old file or the whole
/// new one, never a part. Destroyed without commit() (an exception, a cancel), it removes the
/// temporary. A destination that exists and is not a regular file (/dev/null, a FIFO) is
/// written in place: renaming over a device is never wanted.
/// @code
/// cs::io::AtomicOutput out("labels.csv");
/// out.stream() << "index,label\n" ...;
/// out.commit();
/// @endcode
class AtomicOutput {
public:
    /// Opens the temporary; throws cs::Error naming `target` when that is impossible.
    explicit AtomicOutput(std::filesystem::path target);
    ~AtomicOutput();
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;

    /// The stream to write (binary mode).
    std::ofstream& stream() { return m_out; }
    /// Closes, checks every write succeeded and renames over the target; throws cs::Error.
    void commit();

private:
    std::filesystem::path m_target, m_temp;  ///< m_temp empty: written in place
    std::ofstream m_out;
    int m_slot = -1;  ///< its entry in the pending-outputs table, -1: none
    bool m_committed = false;
};

/// Removes the temporaries of every AtomicOutput not yet committed; async-signal-safe (unlink
/// only), for a SIGINT/SIGTERM handler that then lets the signal end the process.
void removePendingOutputs() noexcept;

}  // namespace cs::io
