#include "encodings.hpp"

#include <cstring>

#include <fmt/format.h>

namespace laddu::data::parquet {

namespace {

/// A bounds-checked cursor over a byte span, for the varints of run headers.
class ByteCursor {
public:
    ByteCursor(std::span<const std::uint8_t> in, const ErrorSite& site, std::uint64_t offset)
        : in_(in), site_(site), offset_(offset) {}

    [[nodiscard]] bool at_end() const noexcept { return pos_ >= in_.size(); }

    [[nodiscard]] std::size_t remaining() const noexcept { return in_.size() - pos_; }

    [[nodiscard]] std::size_t position() const noexcept { return pos_; }

    std::uint64_t varint() {
        std::uint64_t result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            const std::uint8_t byte = take(1)[0];
            result |= static_cast<std::uint64_t>(byte & 0x7FU) << shift;
            if ((byte & 0x80U) == 0) {
                return result;
            }
        }
        fail("varint longer than 10 bytes");
    }

    std::int64_t zigzag() {
        const std::uint64_t raw = varint();
        return static_cast<std::int64_t>(raw >> 1) ^ -static_cast<std::int64_t>(raw & 1U);
    }

    std::span<const std::uint8_t> take(std::size_t n) {
        if (n > remaining()) {
            fail(fmt::format("encoded values need {} more bytes but the page has {}", n,
                             remaining()));
        }
        const auto result = in_.subspan(pos_, n);
        pos_ += n;
        return result;
    }

    [[noreturn]] void fail(const std::string& what) const { fail_at(site_, offset_ + pos_, what); }

private:
    std::span<const std::uint8_t> in_;
    const ErrorSite& site_;
    std::uint64_t offset_;
    std::size_t pos_ = 0;
};

// Reads `width` (<= 64) bits starting at bit `bit` of `data`, least significant bit first; the
// caller has checked that the bytes exist.
std::uint64_t read_bits(const std::uint8_t* data, std::size_t bit, int width) noexcept {
    std::uint64_t value = 0;
    int filled = 0;
    while (filled < width) {
        const std::size_t byte = bit >> 3U;
        const int shift = static_cast<int>(bit & 7U);
        const int take = std::min(8 - shift, width - filled);
        const std::uint64_t bits =
            (static_cast<std::uint64_t>(data[byte]) >> shift) & ((std::uint64_t{1} << take) - 1U);
        value |= bits << filled;
        filled += take;
        bit += static_cast<std::size_t>(take);
    }
    return value;
}

template <typename T>
T load(const std::uint8_t* p) noexcept {
    T value;
    std::memcpy(&value, p, sizeof(T));
    return value;
}

}  // namespace

std::size_t physical_width(PhysicalType type) noexcept {
    switch (type) {
    case PhysicalType::kInt32:
    case PhysicalType::kFloat:
        return 4;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble:
        return 8;
    default:
        return 0;
    }
}

void decode_rle_hybrid(std::span<const std::uint8_t> in, int bit_width,
                       std::span<std::uint32_t> out, const ErrorSite& site, std::uint64_t offset) {
    if (bit_width < 0 || bit_width > 32) {
        fail_at(site, offset, fmt::format("RLE bit width {} is out of range [0, 32]", bit_width));
    }
    if (bit_width == 0) {
        std::fill(out.begin(), out.end(), 0U);
        return;
    }
    ByteCursor cursor(in, site, offset);
    const auto width = static_cast<std::size_t>(bit_width);
    const std::size_t value_bytes = (width + 7) / 8;
    std::size_t done = 0;
    while (done < out.size()) {
        if (cursor.at_end()) {
            cursor.fail(fmt::format("RLE data ends after {} of {} values", done, out.size()));
        }
        const std::uint64_t header = cursor.varint();
        if ((header & 1U) == 1) {
            // Bit-packed run of (header >> 1) groups of 8 values; the last run may be padded
            // with values nobody needs, so only the bytes that hold needed values must exist.
            const std::uint64_t groups = header >> 1U;
            const std::uint64_t available =
                std::min<std::uint64_t>(groups * 8, static_cast<std::uint64_t>(out.size() - done));
            const auto count = static_cast<std::size_t>(available);
            const std::size_t run_bytes = static_cast<std::size_t>(
                std::min<std::uint64_t>(groups * width, cursor.remaining()));
            const std::size_t needed = (count * width + 7) / 8;
            if (needed > run_bytes) {
                cursor.fail("bit-packed run runs past the end of its page");
            }
            const auto bytes = cursor.take(run_bytes);
            for (std::size_t i = 0; i < count; ++i) {
                out[done + i] =
                    static_cast<std::uint32_t>(read_bits(bytes.data(), i * width, bit_width));
            }
            done += count;
        } else {
            const std::uint64_t run = header >> 1U;
            const auto bytes = cursor.take(value_bytes);
            std::uint32_t value = 0;
            for (std::size_t i = 0; i < value_bytes; ++i) {
                value |= static_cast<std::uint32_t>(bytes[i]) << (8 * i);
            }
            const auto count = static_cast<std::size_t>(
                std::min<std::uint64_t>(run, static_cast<std::uint64_t>(out.size() - done)));
            std::fill_n(out.begin() + static_cast<std::ptrdiff_t>(done), count, value);
            done += count;
        }
    }
}

void decode_plain(PhysicalType type, std::span<const std::uint8_t> in, std::span<double> out,
                  const ErrorSite& site, std::uint64_t offset) {
    const std::size_t width = physical_width(type);
    if (width == 0) {
        fail_at(site, offset, "PLAIN decoding of this physical type is not supported");
    }
    if (in.size() / width < out.size()) {
        fail_at(site, offset,
                fmt::format("PLAIN data holds {} values but the page needs {}", in.size() / width,
                            out.size()));
    }
    const std::uint8_t* p = in.data();
    const std::size_t n = out.size();
    switch (type) {
    case PhysicalType::kDouble:
        if (n > 0) {
            std::memcpy(out.data(), p, n * sizeof(double));
        }
        break;
    case PhysicalType::kFloat:
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = static_cast<double>(load<float>(p + 4 * i));
        }
        break;
    case PhysicalType::kInt32:
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = static_cast<double>(load<std::int32_t>(p + 4 * i));
        }
        break;
    case PhysicalType::kInt64:
        for (std::size_t i = 0; i < n; ++i) {
            out[i] = static_cast<double>(load<std::int64_t>(p + 8 * i));
        }
        break;
    default:
        break;
    }
}

void decode_byte_stream_split(PhysicalType type, std::span<const std::uint8_t> in,
                              std::span<double> out, const ErrorSite& site, std::uint64_t offset) {
    const std::size_t width = physical_width(type);
    const std::size_t n = out.size();
    if (width == 0 || in.size() / width < n) {
        fail_at(
            site, offset,
            fmt::format("BYTE_STREAM_SPLIT data of {} bytes cannot hold {} values", in.size(), n));
    }
    // The streams are laid out for the page's own value count, which is in.size() / width.
    const std::size_t stride = in.size() / width;
    std::uint8_t value[8];
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t b = 0; b < width; ++b) {
            value[b] = in[b * stride + i];
        }
        decode_plain(type, {value, width}, out.subspan(i, 1), site, offset);
    }
}

void decode_delta_binary_packed(PhysicalType type, std::span<const std::uint8_t> in,
                                std::span<double> out, const ErrorSite& site,
                                std::uint64_t offset) {
    if (type != PhysicalType::kInt32 && type != PhysicalType::kInt64) {
        fail_at(site, offset, "DELTA_BINARY_PACKED applies only to INT32 and INT64 columns");
    }
    const bool is32 = type == PhysicalType::kInt32;
    ByteCursor cursor(in, site, offset);
    const std::uint64_t block_size = cursor.varint();
    const std::uint64_t miniblocks = cursor.varint();
    const std::uint64_t total = cursor.varint();
    auto value = static_cast<std::uint64_t>(cursor.zigzag());
    if (block_size == 0 || block_size % 128 != 0 || block_size > (1U << 20) || miniblocks == 0 ||
        block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0) {
        cursor.fail(fmt::format("invalid DELTA_BINARY_PACKED header (block {}, miniblocks {})",
                                block_size, miniblocks));
    }
    if (total < out.size()) {
        cursor.fail(fmt::format("DELTA_BINARY_PACKED page holds {} values but {} are needed", total,
                                out.size()));
    }
    const auto emit = [&](std::size_t i) {
        out[i] = is32 ? static_cast<double>(static_cast<std::int32_t>(value & 0xFFFFFFFFU))
                      : static_cast<double>(static_cast<std::int64_t>(value));
    };
    if (out.empty()) {
        return;
    }
    emit(0);
    std::size_t done = 1;
    const auto per_mini = static_cast<std::size_t>(block_size / miniblocks);
    while (done < out.size()) {
        const auto min_delta = static_cast<std::uint64_t>(cursor.zigzag());
        const auto widths = cursor.take(static_cast<std::size_t>(miniblocks));
        for (std::size_t m = 0; m < widths.size() && done < out.size(); ++m) {
            const int width = widths[m];
            if (width > 64) {
                cursor.fail(fmt::format("DELTA_BINARY_PACKED bit width {} exceeds 64", width));
            }
            const std::size_t bytes = per_mini * static_cast<std::size_t>(width) / 8;
            const std::size_t count = std::min(per_mini, out.size() - done);
            // The final miniblock may be cut short to the bytes its values need.
            const std::size_t needed = (count * static_cast<std::size_t>(width) + 7) / 8;
            if (cursor.remaining() < needed) {
                cursor.fail("DELTA_BINARY_PACKED miniblock runs past the end of its page");
            }
            const auto data = cursor.take(std::min(bytes, cursor.remaining()));
            for (std::size_t i = 0; i < count; ++i) {
                const std::uint64_t delta =
                    width == 0 ? 0
                               : read_bits(data.data(), i * static_cast<std::size_t>(width), width);
                value += min_delta + delta;  // wrapping, as the encoding specifies
                emit(done + i);
            }
            done += count;
        }
    }
}

}  // namespace laddu::data::parquet
