// Page compression codecs: UNCOMPRESSED, SNAPPY, GZIP and ZSTD.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "error_site.hpp"
#include "metadata.hpp"

namespace laddu::data::parquet {

/// Decompresses `in` (at file offset `offset`) into exactly `out.size()` bytes; a codec laddu
/// does not support, corrupt input or a size mismatch is a DataError.
void decompress(Codec codec, std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                const ErrorSite& site, std::uint64_t offset);

/// Compresses `in` with `codec` (one of the four supported) at `level` (ZSTD and GZIP only).
[[nodiscard]] std::vector<std::uint8_t> compress(Codec codec, std::span<const std::uint8_t> in,
                                                 int level);

}  // namespace laddu::data::parquet
