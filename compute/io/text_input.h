// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace cs {
class Backend;
class JobControl;
}  // namespace cs

namespace cs::io {

/// Cancellation and progress for every read on this thread while the scope lives (readers take
/// no JobControl of their own): readFileBytes checks job between chunks of the file and
/// reports "reading" (0 to 0.5), LineCursor checks it every few thousand lines and reports
/// "parsing" (0.5 to 1). A cancelled job makes them throw cs::Cancelled. A scope may also name
/// the backend that computes what a reader derives from the data (a sparse set's 3-D view,
/// Backend::sparseView); without one that runs on the host. Scopes nest; an inner scope without
/// a backend keeps the outer one's.
/// @code { cs::io::ReadScope scope(&job, backend.get()); auto data = cs::io::loadDataset(path); }
/// @endcode
class ReadScope {
public:
    explicit ReadScope(JobControl* job, Backend* backend = nullptr);
    ~ReadScope();
    ReadScope(const ReadScope&) = delete;
    ReadScope& operator=(const ReadScope&) = delete;
    /// The job of the innermost scope on this thread, or nullptr.
    static JobControl* current();
    /// The backend of the innermost scope on this thread that names one, or nullptr.
    static Backend* backend();

private:
    JobControl* m_previous;
    Backend* m_previousBackend;
};

/// Reads a whole regular file into memory; throws cs::InputError naming the file when it is not
/// a regular file (a FIFO would block for ever), cannot be opened or read, or is larger than
/// maxBytes.
std::string readFileBytes(const std::filesystem::path& file,
                          std::uint64_t maxBytes = std::uint64_t(16) << 30);

/// Iterates the lines of a text buffer with 1-based line numbers; handles \n, \r\n and a
/// missing final newline. The views point into the buffer.
class LineCursor {
public:
    explicit LineCursor(std::string_view text) : m_text(text) {}
    /// Next line without its terminator; false at the end.
    bool next(std::string_view& line);
    /// Number of the line last returned by next().
    std::size_t lineNumber() const { return m_line; }
    /// Byte offset just past the line last returned (where the next line starts).
    std::size_t offset() const { return m_pos; }

private:
    std::string_view m_text;
    std::size_t m_pos = 0;
    std::size_t m_line = 0;
};

/// Strict float parse of a whole token (leading/trailing blanks allowed): "1.5", "-2e3", "nan",
/// "inf". false when the token is not entirely a number (or is out of float range).
bool parseFloat(std::string_view token, float& value);
/// Same for double.
bool parseDouble(std::string_view token, double& value);
/// Token without leading/trailing spaces, tabs and \r.
std::string_view trim(std::string_view s);
/// Quotes a token for an error message, shortened to at most 40 characters.
std::string quoted(std::string_view token);

}  // namespace cs::io
