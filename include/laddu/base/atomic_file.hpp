// laddu/base/atomic_file.hpp: output files that are written whole or not at all.
//
// AtomicFile writes to a temporary file beside the target, `<target>.tmp-<host>-<pid>-<n>`,
// checks every write, flushes (fsync) and closes it, and renames it over the target in
// commit(). A failure at any step (a full disk, a file-size limit, a missing directory) throws
// DataError naming the target and the system's reason, and removes the temporary: the target is
// either the complete new file or whatever was there before.
//
// A writer that is killed leaves its temporary behind. The next AtomicFile for the same target
// on the same host removes the temporaries of processes that no longer exist (cheap: one scan
// of the target's directory); temporaries of live processes and of other hosts are left alone.
//
// Example:
//   laddu::write_file_atomically("fit.json", json.dump(2) + "\n");
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace laddu {

/// A file written through a temporary beside it and renamed over it by commit().
class AtomicFile {
public:
    /// Creates the temporary for `path`; DataError when it cannot be created. The first
    /// AtomicFile of a process in a directory removes the directory's temporaries left by dead
    /// processes of this host (of any target); later ones do not read the directory again.
    explicit AtomicFile(std::string path);
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    AtomicFile(AtomicFile&&) = delete;
    AtomicFile& operator=(AtomicFile&&) = delete;

    /// Closes and removes the temporary unless commit() succeeded.
    ~AtomicFile();

    /// Appends `bytes`; DataError (naming the target and the reason) when the system refuses.
    void write(std::span<const std::uint8_t> bytes);

    /// Appends `text`.
    void write(std::string_view text);

    /// Overwrites bytes already written at [offset, offset + size) (a header patched once the
    /// rest is known); DataError when the range is not inside what was written or the system
    /// refuses. offset() is unchanged.
    void write_at(std::uint64_t offset, std::span<const std::uint8_t> bytes);

    /// Bytes written so far.
    [[nodiscard]] std::uint64_t offset() const noexcept { return offset_; }

    /// The target path.
    [[nodiscard]] const std::string& path() const noexcept { return path_; }

    /// The temporary's path (for tests and messages).
    [[nodiscard]] const std::string& temp_path() const noexcept { return temp_; }

    /// Flushes (fsync) and closes the temporary and renames it over the target; DataError when
    /// any step fails (the temporary is then removed and the target left as it was).
    void commit();

private:
    std::string path_;
    std::string temp_;
    int fd_ = -1;
    std::uint64_t offset_ = 0;
    bool committed_ = false;
};

/// Writes `contents` to `path` through an AtomicFile (DataError on any failure; the target is
/// then unchanged).
void write_file_atomically(const std::string& path, std::string_view contents);

}  // namespace laddu
