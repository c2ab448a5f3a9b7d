// SPDX-License-Identifier: MIT
#include "compute/io/atomic_output.h"

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <system_error>
#include <vector>

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

std::filesystem::path temporaryBeside(const std::filesystem::path& target) {
    std::random_device random;
    const auto tag = std::to_string(::getpid()) + "-" + std::to_string(random() % 1'000'000);
    return target.parent_path() / ("." + target.filename().string() + ".part-" + tag);
}

}  // namespace

void rememberInput(const std::filesystem::path& file) {
    struct stat info {};
    if (::stat(file.c_str(), &info) != 0) return;
    const std::lock_guard lock(g_inputsMutex);
    for (const InputFile& input : g_inputs)
        if (input.device == info.st_dev && input.inode == info.st_ino) return;
    g_inputs.push_back({info.st_dev, info.st_ino, file.string()});
}

void checkOutputTarget(const std::filesystem::path& target) {
    struct stat info {};
    if (::stat(target.c_str(), &info) != 0) return;  // a new file
    if (S_ISDIR(info.st_mode))
        throw Error(target.string() + ": cannot be written, it is a directory");
    const std::lock_guard lock(g_inputsMutex);
    for (const InputFile& input : g_inputs)
        if (input.device == info.st_dev && input.inode == info.st_ino)
            throw Error(target.string() + ": not written: it is the input file " + input.path +
                        ", and an output never replaces an input; choose another name");
}

AtomicOutput::AtomicOutput(std::filesystem::path target) : m_target(std::move(target)) {
    checkOutputTarget(m_target);
    std::error_code ec;
    const auto status = std::filesystem::status(m_target, ec);
    const bool inPlace =
        std::filesystem::exists(status) && status.type() != std::filesystem::file_type::regular;
    if (!inPlace) {
        m_temp = temporaryBeside(m_target);
        m_slot = registerPending(m_temp.string());
    }
    m_out.open(inPlace ? m_target : m_temp, std::ios::binary | std::ios::trunc);
    if (!m_out) {
        unregisterPending(m_slot);
        m_slot = -1;
        throw Error(m_target.string() + ": cannot be opened for writing");
    }
}

AtomicOutput::~AtomicOutput() {
    if (m_committed || m_temp.empty()) return;
    m_out.close();
    std::error_code ec;
    std::filesystem::remove(m_temp, ec);
    unregisterPending(m_slot);
}

void AtomicOutput::commit() {
    m_out.close();
    if (!m_out)
        throw Error(m_target.string() + ": could not be written (disk full or write error)");
    if (!m_temp.empty()) {
        std::error_code ec;
        std::filesystem::rename(m_temp, m_target, ec);
        if (ec) throw Error(m_target.string() + ": could not be replaced (" + ec.message() + ")");
        unregisterPending(m_slot);
    }
    m_committed = true;
}

void removePendingOutputs() noexcept {
    for (auto& slot : g_pending)
        if (slot.state.load() == kReady) ::unlink(slot.path.data());
}

}  // namespace cs::io
