// ROOT's compressed object data: a sequence of blocks, each with a 9-byte header (algorithm
// "ZL" zlib, "L4" lz4 with an xxhash64 checksum, "ZS" zstd, "XZ" xz; method byte; 3-byte
// little-endian compressed and uncompressed sizes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cursor.hpp"

namespace laddu::data::root {

/// XXH64 with seed 0 (the checksum ROOT stores before each LZ4 block).
[[nodiscard]] std::uint64_t xxh64(std::span<const std::uint8_t> data) noexcept;

/// Decompresses `data` (an object's bytes after its key) into `uncompressed` bytes; when the
/// sizes are equal the data is stored as is. `site` (with `site.base` the data's file offset)
/// names the object in errors: an unknown algorithm, a block that overruns, a checksum or size
/// mismatch.
[[nodiscard]] std::vector<std::uint8_t> decompress(std::span<const std::uint8_t> data,
                                                   std::size_t uncompressed, const ErrorSite& site);

/// decompress() into `out` (resized to `uncompressed`; a buffer reused from call to call keeps
/// its capacity, so a reader that decodes basket after basket allocates once).
void decompress_into(std::span<const std::uint8_t> data, std::size_t uncompressed,
                     const ErrorSite& site, std::vector<std::uint8_t>& out);

}  // namespace laddu::data::root
