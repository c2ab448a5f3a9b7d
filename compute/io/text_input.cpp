// SPDX-License-Identifier: MIT
#include "compute/io/text_input.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <system_error>

#include "compute/core/error.h"
#include "compute/core/job_control.h"
#include "compute/io/atomic_output.h"

namespace cs::io {
namespace {

thread_local JobControl* t_readJob = nullptr;
thread_local Backend* t_readBackend = nullptr;

// Checks between chunks and lines: often enough to stop within a fraction of a second, rarely
// enough to cost nothing.
constexpr std::size_t kReadChunk = std::size_t(32) << 20;
constexpr std::size_t kLinesPerCheck = 1 << 15;

}  // namespace

ReadScope::ReadScope(JobControl* job, Backend* backend)
    : m_previous(t_readJob), m_previousBackend(t_readBackend) {
    t_readJob = job;
    if (backend) t_readBackend = backend;
}

ReadScope::~ReadScope() {
    t_readJob = m_previous;
    t_readBackend = m_previousBackend;
}

JobControl* ReadScope::current() {
    return t_readJob;
}

Backend* ReadScope::backend() {
    return t_readBackend;
}

std::string readFileBytes(const std::filesystem::path& file, std::uint64_t maxBytes) {
    // Opening a FIFO (or a terminal, a socket ...) blocks until a writer comes, possibly never,
    // and its size is unknown anyway: only regular files are read, and that is said up front.
    std::error_code ec;
    const auto status = std::filesystem::status(file, ec);
    switch (status.type()) {
        case std::filesystem::file_type::regular:
        case std::filesystem::file_type::not_found:  // the open below says it is missing
        case std::filesystem::file_type::none:
            break;
        case std::filesystem::file_type::directory:
            throw InputError(file.string(), "is a directory, not a data file");
        case std::filesystem::file_type::fifo:
            throw InputError(file.string(),
                             "is a FIFO (named pipe), not a regular file; save "
                             "the data to a file first");
        default:
            throw InputError(file.string(),
                             "is not a regular file (a device, socket or other "
                             "special file); give a data file");
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(file.string(), "cannot be opened (missing or not readable)");
    rememberInput(file);
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size < 0) throw InputError(file.string(), "cannot be read (size unknown)");
    if (static_cast<std::uint64_t>(size) > maxBytes)
        throw InputError(file.string(), "is " + std::to_string(size) + " bytes, more than the " +
                                            std::to_string(maxBytes) +
                                            " bytes this reader accepts");
    std::string bytes(static_cast<std::size_t>(size), '\0');
    in.seekg(0);
    JobControl* job = t_readJob;
    for (std::size_t done = 0; done < bytes.size();) {
        if (job) {
            job->checkpoint();
            job->setProgress(0.5 * double(done) / double(bytes.size()), "reading");
        }
        const std::size_t chunk = std::min(kReadChunk, bytes.size() - done);
        if (!in.read(bytes.data() + done, std::streamsize(chunk)))
            throw InputError(file.string(), "could not be read to the end");
        done += chunk;
    }
    return bytes;
}

bool LineCursor::next(std::string_view& line) {
    if (m_pos >= m_text.size()) return false;
    if (m_line % kLinesPerCheck == 0 && t_readJob) {
        t_readJob->checkpoint();
        t_readJob->setProgress(0.5 + 0.5 * double(m_pos) / double(m_text.size()), "parsing");
    }
    std::size_t end = m_text.find('\n', m_pos);
    std::size_t stop = end == std::string_view::npos ? m_text.size() : end;
    line = m_text.substr(m_pos, stop - m_pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    m_pos = end == std::string_view::npos ? m_text.size() : end + 1;
    ++m_line;
    return true;
}

std::string_view trim(std::string_view s) {
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && blank(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && blank(s.back()))
        s.remove_suffix(1);
    return s;
}

namespace {

template <typename T>
bool parseNumber(std::string_view token, T& value) {
    token = trim(token);
    if (token.empty()) return false;
    if (token.front() == '+') {  // from_chars rejects a leading '+'; "+-1" stays an error
        token.remove_prefix(1);
        if (token.empty() || token.front() == '-' || token.front() == '+') return false;
    }
    const char* first = token.data();
    const char* last = token.data() + token.size();
    auto [ptr, ec] = std::from_chars(first, last, value, std::chars_format::general);
    return ec == std::errc() && ptr == last;
}

}  // namespace

bool parseFloat(std::string_view token, float& value) {
    return parseNumber(token, value);
}
bool parseDouble(std::string_view token, double& value) {
    return parseNumber(token, value);
}

std::string quoted(std::string_view token) {
    if (token.size() > 40) return "'" + std::string(token.substr(0, 37)) + "...'";
    return "'" + std::string(token) + "'";
}

}  // namespace cs::io
