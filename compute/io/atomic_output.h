// SPDX-License-Identifier: MIT
#pragma once

#include <filesystem>
#include <string_view>

namespace cs::io {

/// An output file written under a temporary name in the destination's folder and renamed over
/// the destination by commit(): a reader (or an interrupted run) sees the old file or the whole
/// new one, never a part. Destroyed without commit() (an exception, a cancel), it removes the
/// temporary. A destination that exists and is not a regular file (/dev/null, a FIFO) is
/// written in place: renaming over a device is never wanted. Every write and the close are
/// checked: a failure throws cs::Error with the target and the system's reason ("No space left
/// on device").
/// @code
/// cs::io::AtomicOutput out("labels.csv");
/// out.write("index,label\n");
/// out.commit();
/// @endcode
class AtomicOutput {
public:
    /// Checks the target (checkOutputTarget) and opens the temporary; throws cs::Error naming
    /// `target` when either fails.
    explicit AtomicOutput(std::filesystem::path target);
    ~AtomicOutput();
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;

    /// Writes all of bytes (unbuffered: callers hand over large blocks); throws cs::Error.
    void write(std::string_view bytes);
    /// Closes, which may report a failed write too, and renames over the target; throws
    /// cs::Error.
    void commit();
    /// The file being written: the temporary, or the target when written in place (where
    /// other processes write their parts, MPI-IO, before commit()).
    const std::filesystem::path& path() const { return m_temp.empty() ? m_target : m_temp; }

private:
    [[noreturn]] void fail(std::string_view what, int error) const;

    std::filesystem::path m_target, m_temp;  ///< m_temp empty: written in place
    int m_fd = -1;
    int m_slot = -1;  ///< its entry in the pending-outputs table, -1: none
    bool m_committed = false;
};

/// Remembers a file this process read as data (readFileBytes does it for every reader), so that
/// no output is ever written over it, whatever path the output names it by.
void rememberInput(const std::filesystem::path& file);

/// Throws cs::Error naming `target` when it must not be written: it is a directory, a file
/// this process read as data (the same file by device and inode: another path to it, a link;
/// the error names the input too), or a new file in a folder of devices or kernel state (/dev
/// but /dev/shm, /proc, /sys), where "--out /dev/full.npy" would otherwise leave a file. Every
/// AtomicOutput checks this when it opens; a command also checks its outputs before a long job, so
/// that the refusal does not come after it.
void checkOutputTarget(const std::filesystem::path& target);

/// Removes the temporaries of every AtomicOutput not yet committed; async-signal-safe (unlink
/// only), for a SIGINT/SIGTERM handler that then lets the signal end the process.
void removePendingOutputs() noexcept;

}  // namespace cs::io
