// ROOT's block compression (core/zip/src/RZip.cxx): each block is decompressed straight into
// its place in the output, whose size is known from the key, so a block can never write past it.
#include "compression.hpp"

#include <bit>
#include <memory>
#include <new>
#include <string>

#include <fmt/format.h>

#include <libdeflate.h>
#include <lz4.h>
#include <lzma.h>
#include <zstd.h>

namespace laddu::data::root {

namespace {

constexpr std::size_t kBlockHeader = 9;
constexpr std::size_t kChecksumBytes = 8;
constexpr std::uint64_t kXzMemoryLimit = std::uint64_t{1} << 30U;

constexpr std::uint64_t kPrime1 = 11400714785074694791ULL;
constexpr std::uint64_t kPrime2 = 14029467366897019727ULL;
constexpr std::uint64_t kPrime3 = 1609587929392839161ULL;
constexpr std::uint64_t kPrime4 = 9650029242287828579ULL;
constexpr std::uint64_t kPrime5 = 2870177450012600261ULL;

std::uint64_t load64(const std::uint8_t* p) noexcept {
    std::uint64_t value = 0;
    for (unsigned i = 0; i < 8; ++i) {
        value |= std::uint64_t{p[i]} << (8U * i);
    }
    return value;
}

std::uint32_t load32(const std::uint8_t* p) noexcept {
    std::uint32_t value = 0;
    for (unsigned i = 0; i < 4; ++i) {
        value |= std::uint32_t{p[i]} << (8U * i);
    }
    return value;
}

std::uint64_t round(std::uint64_t acc, std::uint64_t input) noexcept {
    acc += input * kPrime2;
    acc = std::rotl(acc, 31);
    return acc * kPrime1;
}

std::uint64_t merge(std::uint64_t acc, std::uint64_t value) noexcept {
    acc ^= round(0, value);
    return acc * kPrime1 + kPrime4;
}

std::uint32_t le24(std::span<const std::uint8_t> b) noexcept {
    return std::uint32_t{b[0]} | (std::uint32_t{b[1]} << 8U) | (std::uint32_t{b[2]} << 16U);
}

// Decodes one block into `out` (exactly its size); false when the codec fails. `at` is the
// block's offset, for the errors that are not codec failures.
bool decode_block(std::span<const std::uint8_t> header, std::span<const std::uint8_t> in,
                  std::span<std::uint8_t> out, const ErrorSite& site, std::size_t at) {
    const std::string algorithm{static_cast<char>(header[0]), static_cast<char>(header[1])};
    const std::uint8_t* src = in.data();
    std::size_t size = in.size();
    std::uint8_t* dst = out.data();
    const std::size_t expanded = out.size();
    if (algorithm == "ZL") {
        // A ZL block is one whole zlib stream of known size: libdeflate's one-shot decoder
        // inflates it 2-3x faster than zlib's streaming one (bench/root_read_speed.py).
        thread_local const std::unique_ptr<libdeflate_decompressor,
                                           decltype(&libdeflate_free_decompressor)>
            decompressor(libdeflate_alloc_decompressor(), &libdeflate_free_decompressor);
        if (!decompressor) {
            throw std::bad_alloc();
        }
        std::size_t length = 0;
        return libdeflate_zlib_decompress(decompressor.get(), src, size, dst, expanded, &length) ==
                   LIBDEFLATE_SUCCESS &&
               length == expanded;
    }
    if (algorithm == "L4") {
        if (size < kChecksumBytes) {
            fail(site, at, "an LZ4 block is shorter than its checksum");
        }
        std::uint64_t expected = 0;
        for (std::size_t i = 0; i < kChecksumBytes; ++i) {
            expected = (expected << 8U) | src[i];
        }
        src += kChecksumBytes;
        size -= kChecksumBytes;
        const std::uint64_t actual = xxh64({src, size});
        if (actual != expected) {
            fail(site, at,
                 fmt::format("LZ4 block checksum mismatch (stored {:016x}, computed {:016x})",
                             expected, actual));
        }
        return ::LZ4_decompress_safe(reinterpret_cast<const char*>(src),
                                     reinterpret_cast<char*>(dst), static_cast<int>(size),
                                     static_cast<int>(expanded)) == static_cast<int>(expanded);
    }
    if (algorithm == "ZS") {
        const std::size_t got = ::ZSTD_decompress(dst, expanded, src, size);
        return ::ZSTD_isError(got) == 0 && got == expanded;
    }
    if (algorithm == "XZ") {
        std::uint64_t limit = kXzMemoryLimit;
        std::size_t in_pos = 0;
        std::size_t out_pos = 0;
        return ::lzma_stream_buffer_decode(&limit, 0, nullptr, src, &in_pos, size, dst, &out_pos,
                                           expanded) == LZMA_OK &&
               out_pos == expanded;
    }
    fail(site, at,
         fmt::format("unknown compression algorithm (bytes 0x{:02x} 0x{:02x}; laddu-cpp reads ZL "
                     "zlib, L4 lz4, ZS zstd and XZ lzma, not ROOT's old CS)",
                     header[0], header[1]));
}

}  // namespace

std::uint64_t xxh64(std::span<const std::uint8_t> data) noexcept {
    const std::uint8_t* p = data.data();
    const std::uint8_t* const end = p + data.size();
    std::uint64_t h = 0;
    if (data.size() >= 32) {
        std::uint64_t v1 = kPrime1 + kPrime2;
        std::uint64_t v2 = kPrime2;
        std::uint64_t v3 = 0;
        std::uint64_t v4 = 0 - kPrime1;
        while (end - p >= 32) {
            v1 = round(v1, load64(p));
            v2 = round(v2, load64(p + 8));
            v3 = round(v3, load64(p + 16));
            v4 = round(v4, load64(p + 24));
            p += 32;
        }
        h = std::rotl(v1, 1) + std::rotl(v2, 7) + std::rotl(v3, 12) + std::rotl(v4, 18);
        h = merge(h, v1);
        h = merge(h, v2);
        h = merge(h, v3);
        h = merge(h, v4);
    } else {
        h = kPrime5;
    }
    h += data.size();
    while (end - p >= 8) {
        h ^= round(0, load64(p));
        h = std::rotl(h, 27) * kPrime1 + kPrime4;
        p += 8;
    }
    if (end - p >= 4) {
        h ^= std::uint64_t{load32(p)} * kPrime1;
        h = std::rotl(h, 23) * kPrime2 + kPrime3;
        p += 4;
    }
    while (p < end) {
        h ^= std::uint64_t{*p} * kPrime5;
        h = std::rotl(h, 11) * kPrime1;
        ++p;
    }
    h ^= h >> 33U;
    h *= kPrime2;
    h ^= h >> 29U;
    h *= kPrime3;
    h ^= h >> 32U;
    return h;
}

std::vector<std::uint8_t> decompress(std::span<const std::uint8_t> data, std::size_t uncompressed,
                                     const ErrorSite& site) {
    std::vector<std::uint8_t> out;
    decompress_into(data, uncompressed, site, out);
    return out;
}

void decompress_into(std::span<const std::uint8_t> data, std::size_t uncompressed,
                     const ErrorSite& site, std::vector<std::uint8_t>& out) {
    if (data.size() == uncompressed) {
        out.assign(data.begin(), data.end());
        return;
    }
    out.resize(uncompressed);
    std::size_t in = 0;
    std::size_t filled = 0;
    while (filled < uncompressed) {
        if (data.size() - in < kBlockHeader) {
            fail(site, in,
                 fmt::format("the compressed data ends after {} of {} uncompressed bytes", filled,
                             uncompressed));
        }
        const auto header = data.subspan(in, kBlockHeader);
        const std::size_t size = le24(header.subspan(3, 3));
        const std::size_t expanded = le24(header.subspan(6, 3));
        if (size > data.size() - in - kBlockHeader) {
            fail(site, in,
                 fmt::format("a block of {} compressed bytes runs past the object's {} bytes", size,
                             data.size()));
        }
        if (expanded == 0 || expanded > uncompressed - filled) {
            fail(site, in,
                 fmt::format("a block claims {} uncompressed bytes, but {} of the object's {} "
                             "remain",
                             expanded, uncompressed - filled, uncompressed));
        }
        const std::uint8_t* src = data.data() + in + kBlockHeader;
        if (!decode_block(header, {src, size}, {out.data() + filled, expanded}, site, in)) {
            fail(site, in,
                 fmt::format("a {}{} block does not decompress to its {} bytes",
                             static_cast<char>(header[0]), static_cast<char>(header[1]), expanded));
        }
        in += kBlockHeader + size;
        filled += expanded;
    }
}

}  // namespace laddu::data::root
