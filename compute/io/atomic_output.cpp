// SPDX-License-Identifier: MIT
#include "compute/io/atomic_output.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compute/core/error.h"

namespace cs::io {
namespace {

// The temporaries a signal handler must remove. A handler may only read what is fully written,
// so a slot goes free -> writing -> ready, and the handler looks at ready ones only; paths too
// long for a slot are simply not registered (such a temporary survives a signal).
enum SlotState : int { kFree, kWriting, kReady };
struct PendingSlot {
    std::atomic<int> state{kFree};
    std::array<char, 4096> path{};
};
std::array<PendingSlot, 32> g_pending;

int registerPending(const std::string& path) {
    if (path.size() >= std::tuple_size_v<decltype(PendingSlot::path)>) return -1;
    for (std::size_t i = 0; i < g_pending.size(); ++i) {
        int expected = kFree;
        if (!g_pending[i].state.compare_exchange_strong(expected, kWriting)) continue;
        std::memcpy(g_pending[i].path.data(), path.c_str(), path.size() + 1);
        g_pending[i].state.store(kReady);
        return int(i);
    }
    return -1;
}

void unregisterPending(int slot) {
    if (slot >= 0) g_pending[std::size_t(slot)].state.store(kFree);
}

// The inputs read so far, by device and inode: a path compared as text would miss "./x.csv",
// a symlink or a hard link to the same file.
struct InputFile {
    dev_t device;
    ino_t inode;
    std::string path;
};
std::mutex g_inputsMutex;
std::vector<InputFile> g_inputs;

// Whether the input's path still names the file read: once it was deleted or replaced, its
// inode may be reused by a new file, which is no input.
bool stillThere(const InputFile& input) {
    struct stat info {};
    return ::stat(input.path.c_str(), &info) == 0 && info.st_dev == input.device &&
           info.st_ino == input.inode;
}

std::filesystem::path temporaryBeside(const std::filesystem::path& target) {
    std::random_device random;
    const auto tag = std::to_string(::getpid()) + "-" + std::to_string(random() % 1'000'000);
    return target.parent_path() / ("." + target.filename().string() + ".part-" + tag);
}

// Whether a new file at target would land among devices or kernel state: /dev (but /dev/shm,
// which is shared memory for files), /proc or /sys.
bool inSystemFolder(const std::filesystem::path& target) {
    std::error_code ec;
    const auto folder =
        std::filesystem::weakly_canonical(std::filesystem::absolute(target, ec), ec).parent_path();
    if (ec) return false;
    auto part = folder.begin();
    if (part == folder.end() || ++part == folder.end()) return false;
    if (*part == "proc" || *part == "sys") return true;
    if (*part != "dev") return false;
    return ++part == folder.end() || *part != "shm";
}

}  // namespace

void rememberInput(const std::filesystem::path& file) {
    struct stat info {};
    if (::stat(file.c_str(), &info) != 0) return;
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(file, ec);
    const InputFile read{info.st_dev, info.st_ino, (ec ? file : absolute).string()};
    const std::lock_guard lock(g_inputsMutex);
    for (InputFile& input : g_inputs)
        if (input.device == read.device && input.inode == read.inode) {
            if (!stillThere(input)) input = read;  // that input is gone, its inode reused
            return;
        }
    g_inputs.push_back(read);
}

void checkOutputTarget(const std::filesystem::path& target) {
    struct stat info {};
    if (::stat(target.c_str(), &info) != 0) {
        if (errno == ENOENT && inSystemFolder(target))
            throw Error(target.string() + ": not created: " + target.parent_path().string() +
                        " holds devices or system state, not files; write it elsewhere");
        return;
    }
    if (S_ISDIR(info.st_mode))
        throw Error(target.string() + ": cannot be written, it is a directory");
    const std::lock_guard lock(g_inputsMutex);
    for (const InputFile& input : g_inputs)
        if (input.device == info.st_dev && input.inode == info.st_ino && stillThere(input))
            throw Error(target.string() + ": not written: it is the input file " + input.path +
                        ", and an output never replaces an input; choose another name");
}

AtomicOutput::AtomicOutput(std::filesystem::path target) : m_target(std::move(target)) {
    checkOutputTarget(m_target);
    struct stat info {};
    const bool inPlace = ::stat(m_target.c_str(), &info) == 0 && !S_ISREG(info.st_mode);
    if (!inPlace) {
        m_temp = temporaryBeside(m_target);
        m_slot = registerPending(m_temp.string());
    }
    const int flags = O_WRONLY | O_CLOEXEC | (inPlace ? O_TRUNC : O_CREAT | O_EXCL);
    m_fd = ::open((inPlace ? m_target : m_temp).c_str(), flags, 0666);
    if (m_fd < 0) {
        const int error = errno;
        unregisterPending(m_slot);
        m_slot = -1;
        m_temp.clear();
        fail("cannot be opened for writing", error);
    }
}

AtomicOutput::~AtomicOutput() {
    if (m_fd >= 0) ::close(m_fd);
    if (m_committed || m_temp.empty()) return;
    ::unlink(m_temp.c_str());
    unregisterPending(m_slot);
}

void AtomicOutput::write(std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t written = ::write(m_fd, bytes.data(), bytes.size());
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) fail("could not be written", written < 0 ? errno : EIO);
        bytes.remove_prefix(std::size_t(written));
    }
}

void AtomicOutput::commit() {
    // NFS and some file systems report a failed write only here.
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0 && errno != EINTR) fail("could not be written", errno);
    if (!m_temp.empty()) {
        if (::rename(m_temp.c_str(), m_target.c_str()) != 0) fail("could not be replaced", errno);
        unregisterPending(m_slot);
    }
    m_committed = true;
}

void AtomicOutput::fail(std::string_view what, int error) const {
    throw Error(m_target.string() + ": " + std::string(what) + ": " +
                std::generic_category().message(error));
}

void removePendingOutputs() noexcept {
    for (auto& slot : g_pending)
        if (slot.state.load() == kReady) ::unlink(slot.path.data());
}

}  // namespace cs::io
