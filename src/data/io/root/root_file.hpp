// One ROOT file: its header, its directories' keys, and the (decompressed) bytes of an object.
// Reads only the byte ranges it needs, each checked against the file size first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cursor.hpp"

namespace laddu::data::root {

/// A TKey: where an object's bytes are and what it is.
struct Key {
    std::int32_t nbytes = 0;  ///< key + (compressed) object bytes on file
    std::int16_t version = 0;
    std::int32_t objlen = 0;  ///< uncompressed object bytes
    std::int16_t keylen = 0;  ///< key bytes (the object follows)
    std::int16_t cycle = 0;
    std::int64_t seek_key = 0;  ///< file offset of the key
    std::string class_name;
    std::string name;
    std::string title;
};

/// Parses a key at the cursor (no checks against the file).
[[nodiscard]] Key read_key(Cursor& cursor);

/// An open ROOT file (read-only, positional reads: one object may serve several streams).
class RootFile {
public:
    /// Opens `path` and reads its header and top directory's keys; DataError when it is missing
    /// or not a ROOT file.
    [[nodiscard]] static std::shared_ptr<const RootFile> open(const std::string& path);

    /// Reads bytes [offset, offset + size) (a DataError naming `object` when they are not all in
    /// the file).
    [[nodiscard]] std::vector<std::uint8_t> read_at(std::uint64_t offset, std::uint64_t size,
                                                    const std::string& object) const;

    /// read_at() into `out` (resized; a reused buffer keeps its capacity).
    void read_into(std::uint64_t offset, std::uint64_t size, const std::string& object,
                   std::vector<std::uint8_t>& out) const;

    /// The object's uncompressed bytes (after its key).
    [[nodiscard]] std::vector<std::uint8_t> object_data(const Key& key) const;

    /// The keys of the top directory, highest cycle of each name only, in file order.
    [[nodiscard]] const std::vector<Key>& keys() const noexcept { return keys_; }

    /// The keys of the subdirectory `key` names (a TDirectory), as keys().
    [[nodiscard]] std::vector<Key> directory_keys(const Key& key) const;

    /// The key of a TTree: `path` ("name" or "dir/sub/name"), or the first TTree of the top
    /// directory when `path` is empty. DataError when there is none, listing what there is.
    [[nodiscard]] Key find_tree(const std::string& path) const;

    [[nodiscard]] const std::string& path() const noexcept { return path_; }

    [[nodiscard]] std::uint64_t size() const noexcept { return size_; }

    RootFile(const RootFile&) = delete;
    RootFile& operator=(const RootFile&) = delete;
    RootFile(RootFile&&) = delete;
    RootFile& operator=(RootFile&&) = delete;
    ~RootFile();

private:
    RootFile(std::string path, int fd, std::uint64_t size);

    /// The keys of the directory record at `offset` (`object` names it in errors).
    [[nodiscard]] std::vector<Key> read_directory(std::uint64_t offset,
                                                  const std::string& object) const;

    std::string path_;
    int fd_ = -1;
    std::uint64_t size_ = 0;
    std::vector<Key> keys_;
};

/// True for the classes read as trees (TTree and the TNtuple kinds that derive from it).
[[nodiscard]] bool is_tree_class(const std::string& class_name) noexcept;

}  // namespace laddu::data::root
