// ROOT's compressed object data as the writer produces it (compression.hpp reads it back).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <laddu/data/root.hpp>

namespace laddu::data::root {

/// `in` as ROOT stores an object: true with its compressed blocks in `out`, or false when it is
/// to be stored as is (kNone, empty, or compression would not make it smaller). `level` is the
/// codec's (checked by the caller); LZ4 levels from 4 on use LZ4 HC.
[[nodiscard]] bool compress_object(std::span<const std::uint8_t> in, RootCompression codec,
                                   int level, std::vector<std::uint8_t>& out);

}  // namespace laddu::data::root
