// Value and level encodings of Parquet data pages, decoded into doubles.
//
// Each decoder reads exactly `out.size()` values from `in`, which starts at file offset `offset`,
// and throws DataError (never reads past `in`) when the data is short or malformed.
#pragma once

#include <cstdint>
#include <span>

#include "error_site.hpp"
#include "metadata.hpp"

namespace laddu::data::parquet {

/// The byte width of a fixed-width numeric physical type (4 or 8), or 0 for other types.
[[nodiscard]] std::size_t physical_width(PhysicalType type) noexcept;

/// RLE/bit-packed hybrid run data (no length prefix) of `bit_width`-bit values.
void decode_rle_hybrid(std::span<const std::uint8_t> in, int bit_width,
                       std::span<std::uint32_t> out, const ErrorSite& site, std::uint64_t offset);

/// PLAIN FLOAT, DOUBLE, INT32 or INT64 values, converted to double.
void decode_plain(PhysicalType type, std::span<const std::uint8_t> in, std::span<double> out,
                  const ErrorSite& site, std::uint64_t offset);

/// BYTE_STREAM_SPLIT values of a 4- or 8-byte type, converted to double.
void decode_byte_stream_split(PhysicalType type, std::span<const std::uint8_t> in,
                              std::span<double> out, const ErrorSite& site, std::uint64_t offset);

/// DELTA_BINARY_PACKED INT32 or INT64 values, converted to double.
void decode_delta_binary_packed(PhysicalType type, std::span<const std::uint8_t> in,
                                std::span<double> out, const ErrorSite& site, std::uint64_t offset);

}  // namespace laddu::data::parquet
