// Page compression codecs: UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4 (Hadoop-framed or bare),
// LZ4_RAW and BROTLI.
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

/// Compresses `in` with `codec` at `level` (ZSTD, GZIP and BROTLI only); LZ4 is written as one
/// Hadoop frame. The public writer offers UNCOMPRESSED, SNAPPY, GZIP and ZSTD.
[[nodiscard]] std::vector<std::uint8_t> compress(Codec codec, std::span<const std::uint8_t> in,
                                                 int level);

}  // namespace laddu::data::parquet
