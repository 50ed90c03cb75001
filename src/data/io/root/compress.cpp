// ROOT's block compression for the writer (compression.cpp reads it): an object is cut into
// blocks of at most kBlockInput bytes, each stored after the 9-byte header ROOT's readers expect
// ("ZL" zlib, made by libdeflate; "L4" LZ4 after an XXH64 checksum; "ZS" zstd).
#include "compress.hpp"

#include <algorithm>
#include <memory>
#include <new>

#include "compression.hpp"
#include <libdeflate.h>
#include <lz4.h>
#include <lz4hc.h>
#include <zstd.h>

namespace laddu::data::root {

namespace {

// ROOT's 3-byte sizes cap a block at 0xffffff bytes; this input size keeps every codec's
// worst-case output (and LZ4's checksum) below that.
constexpr std::size_t kBlockInput = 0xfe0000;
constexpr std::size_t kBlockHeader = 9;
constexpr std::size_t kLz4Checksum = 8;
constexpr std::uint8_t kDeflated = 8;  // zlib's Z_DEFLATED, ROOT's method byte for "ZL"

struct CompressorDeleter {
    void operator()(libdeflate_compressor* c) const noexcept { ::libdeflate_free_compressor(c); }
};

// One libdeflate compressor per thread and level (allocating one costs more than a basket).
libdeflate_compressor* zlib_compressor(int level) {
    thread_local std::unique_ptr<libdeflate_compressor, CompressorDeleter> compressor;
    thread_local int compressor_level = 0;
    if (!compressor || compressor_level != level) {
        compressor.reset(::libdeflate_alloc_compressor(level));
        compressor_level = level;
        if (!compressor) {
            throw std::bad_alloc();
        }
    }
    return compressor.get();
}

void put_le24(std::vector<std::uint8_t>& out, std::size_t at, std::size_t v) {
    for (std::size_t i = 0; i < 3; ++i) {
        out[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
    }
}

// Appends one compressed block of `in` to `out`; false when the codec fails or does not shrink
// the block (the object is then stored as is).
bool compress_block(std::span<const std::uint8_t> in, RootCompression codec, int level,
                    std::vector<std::uint8_t>& out) {
    const std::size_t head = out.size();
    const std::size_t extra = codec == RootCompression::kLz4 ? kLz4Checksum : 0;
    std::size_t bound = 0;
    switch (codec) {
    case RootCompression::kZlib:
        bound = ::libdeflate_zlib_compress_bound(zlib_compressor(level), in.size());
        break;
    case RootCompression::kLz4:
        bound = static_cast<std::size_t>(::LZ4_compressBound(static_cast<int>(in.size())));
        break;
    case RootCompression::kZstd:
        bound = ::ZSTD_compressBound(in.size());
        break;
    case RootCompression::kNone:
        return false;
    }
    out.resize(head + kBlockHeader + extra + bound);
    std::uint8_t* dst = out.data() + head + kBlockHeader + extra;
    std::size_t written = 0;
    const char* tag = "ZL";
    std::uint8_t method = kDeflated;
    if (codec == RootCompression::kZlib) {
        written =
            ::libdeflate_zlib_compress(zlib_compressor(level), in.data(), in.size(), dst, bound);
        if (written == 0) {
            return false;
        }
    } else if (codec == RootCompression::kLz4) {
        tag = "L4";
        method = 1;  // the LZ4 format's major version
        // NOLINTBEGIN(cppcoreguidelines-pro-type-reinterpret-cast): LZ4 takes char buffers
        const auto* src = reinterpret_cast<const char*>(in.data());
        auto* out_chars = reinterpret_cast<char*>(dst);
        // NOLINTEND(cppcoreguidelines-pro-type-reinterpret-cast)
        const int n = level >= 4
                          ? ::LZ4_compress_HC(src, out_chars, static_cast<int>(in.size()),
                                              static_cast<int>(bound), level)
                          : ::LZ4_compress_default(src, out_chars, static_cast<int>(in.size()),
                                                   static_cast<int>(bound));
        if (n <= 0) {
            return false;
        }
        written = static_cast<std::size_t>(n);
        const std::uint64_t sum = xxh64({dst, written});
        for (std::size_t i = 0; i < kLz4Checksum; ++i) {
            out[head + kBlockHeader + i] = static_cast<std::uint8_t>(sum >> (8 * (7 - i)));
        }
    } else {
        tag = "ZS";
        method = 1;
        const std::size_t n = ::ZSTD_compress(dst, bound, in.data(), in.size(), level);
        if (::ZSTD_isError(n) != 0) {
            return false;
        }
        written = n;
    }
    const std::size_t stored = written + extra;
    if (stored >= in.size() || stored > 0xffffff) {
        return false;
    }
    out.resize(head + kBlockHeader + stored);
    out[head] = static_cast<std::uint8_t>(tag[0]);
    out[head + 1] = static_cast<std::uint8_t>(tag[1]);
    out[head + 2] = method;
    put_le24(out, head + 3, stored);
    put_le24(out, head + 6, in.size());
    return true;
}

}  // namespace

bool compress_object(std::span<const std::uint8_t> in, RootCompression codec, int level,
                     std::vector<std::uint8_t>& out) {
    out.clear();
    if (codec == RootCompression::kNone || in.empty()) {
        return false;
    }
    for (std::size_t at = 0; at < in.size(); at += kBlockInput) {
        if (!compress_block(in.subspan(at, std::min(kBlockInput, in.size() - at)), codec, level,
                            out)) {
            return false;
        }
    }
    return out.size() < in.size();
}

}  // namespace laddu::data::root
