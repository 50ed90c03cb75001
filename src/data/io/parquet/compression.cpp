#include "compression.hpp"

#include <cstring>
#include <string>

#include <fmt/format.h>

#include <laddu/base/error.hpp>

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

namespace laddu::data::parquet {

namespace {

void inflate_gzip(std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                  const ErrorSite& site, std::uint64_t offset) {
    z_stream zs{};
    // 15 + 32: accept gzip and zlib headers.
    if (inflateInit2(&zs, 15 + 32) != Z_OK) {
        throw DataError("cannot initialise zlib");
    }
    zs.next_in = const_cast<Bytef*>(in.data());  // zlib's API is not const-correct
    zs.avail_in = static_cast<uInt>(in.size());
    zs.next_out = out.data();
    zs.avail_out = static_cast<uInt>(out.size());
    int status = Z_OK;
    while (true) {
        status = inflate(&zs, Z_FINISH);
        // Concatenated gzip members: restart after each member while input remains.
        if (status == Z_STREAM_END && zs.avail_in > 0 && zs.avail_out > 0) {
            if (inflateReset(&zs) != Z_OK) {
                break;
            }
            continue;
        }
        break;
    }
    const std::size_t produced = out.size() - zs.avail_out;
    inflateEnd(&zs);
    if (status != Z_STREAM_END || produced != out.size()) {
        fail_at(site, offset,
                fmt::format("corrupt GZIP page: inflated {} of {} bytes (zlib status {})", produced,
                            out.size(), status));
    }
}

// One LZ4 block (the LZ4_RAW codec); false unless it fills `out` exactly.
bool lz4_block(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
    if (in.size() > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE) ||
        out.size() > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) {
        return false;
    }
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()),
                                      reinterpret_cast<char*>(out.data()),
                                      static_cast<int>(in.size()), static_cast<int>(out.size()));
    return n >= 0 && static_cast<std::size_t>(n) == out.size();
}

std::uint32_t big_endian_u32(const std::uint8_t* p) {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
           std::uint32_t{p[3]};
}

// The legacy LZ4 codec as parquet-mr writes it: blocks framed by two big-endian u32s
// (decompressed size, compressed size). False when `in` is not such a sequence.
bool lz4_hadoop(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
    constexpr std::size_t kPrefix = 8;
    while (!in.empty()) {
        if (in.size() < kPrefix) {
            return false;
        }
        const std::size_t decompressed = big_endian_u32(in.data());
        const std::size_t compressed = big_endian_u32(in.data() + 4);
        in = in.subspan(kPrefix);
        if (compressed > in.size() || decompressed > out.size() ||
            !lz4_block(in.first(compressed), out.first(decompressed))) {
            return false;
        }
        in = in.subspan(compressed);
        out = out.subspan(decompressed);
    }
    return out.empty();
}

}  // namespace

void decompress(Codec codec, std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                const ErrorSite& site, std::uint64_t offset) {
    switch (codec) {
    case Codec::kUncompressed:
        if (in.size() != out.size()) {
            fail_at(site, offset,
                    fmt::format("uncompressed page has {} bytes but its header says {}", in.size(),
                                out.size()));
        }
        if (!in.empty()) {
            std::memcpy(out.data(), in.data(), in.size());
        }
        return;
    case Codec::kSnappy: {
        const char* src = reinterpret_cast<const char*>(in.data());
        std::size_t length = 0;
        if (!snappy::GetUncompressedLength(src, in.size(), &length) || length != out.size() ||
            !snappy::RawUncompress(src, in.size(), reinterpret_cast<char*>(out.data()))) {
            fail_at(site, offset,
                    fmt::format("corrupt SNAPPY page (expected {} bytes)", out.size()));
        }
        return;
    }
    case Codec::kGzip:
        inflate_gzip(in, out, site, offset);
        return;
    case Codec::kZstd: {
        const std::size_t n = ZSTD_decompress(out.data(), out.size(), in.data(), in.size());
        if (ZSTD_isError(n) != 0U || n != out.size()) {
            fail_at(site, offset,
                    fmt::format("corrupt ZSTD page: {} (expected {} bytes)",
                                ZSTD_isError(n) != 0U ? ZSTD_getErrorName(n) : "size mismatch",
                                out.size()));
        }
        return;
    }
    case Codec::kLz4Raw:
        if (!lz4_block(in, out)) {
            fail_at(site, offset,
                    fmt::format("corrupt LZ4_RAW page (expected {} bytes)", out.size()));
        }
        return;
    case Codec::kLz4:
        // Writers disagree on the legacy LZ4 codec: parquet-mr frames blocks the Hadoop way,
        // older Arrow wrote one bare block. Try both, as Arrow's reader does.
        if (!lz4_hadoop(in, out) && !lz4_block(in, out)) {
            fail_at(site, offset,
                    fmt::format("corrupt LZ4 page: neither Hadoop-framed nor a bare LZ4 block "
                                "of {} bytes",
                                out.size()));
        }
        return;
    case Codec::kBrotli: {
        std::size_t n = out.size();
        if (BrotliDecoderDecompress(in.size(), in.data(), &n, out.data()) !=
                BROTLI_DECODER_RESULT_SUCCESS ||
            n != out.size()) {
            fail_at(site, offset,
                    fmt::format("corrupt BROTLI page (expected {} bytes)", out.size()));
        }
        return;
    }
    default:
        break;
    }
    fail_at(site, offset,
            fmt::format("compression codec {} is not supported (laddu-cpp reads UNCOMPRESSED, "
                        "SNAPPY, GZIP, ZSTD, LZ4, LZ4_RAW and BROTLI); rewrite the file with one "
                        "of these",
                        codec_name(static_cast<std::int32_t>(codec))));
}

std::vector<std::uint8_t> compress(Codec codec, std::span<const std::uint8_t> in, int level) {
    std::vector<std::uint8_t> out;
    switch (codec) {
    case Codec::kUncompressed:
        out.assign(in.begin(), in.end());
        break;
    case Codec::kSnappy: {
        out.resize(snappy::MaxCompressedLength(in.size()));
        std::size_t n = 0;
        snappy::RawCompress(reinterpret_cast<const char*>(in.data()), in.size(),
                            reinterpret_cast<char*>(out.data()), &n);
        out.resize(n);
        break;
    }
    case Codec::kZstd: {
        out.resize(ZSTD_compressBound(in.size()));
        const std::size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), level);
        if (ZSTD_isError(n) != 0U) {
            throw DataError(fmt::format("ZSTD compression failed: {}", ZSTD_getErrorName(n)));
        }
        out.resize(n);
        break;
    }
    case Codec::kGzip: {
        z_stream zs{};
        // 15 + 16: a gzip header, as Parquet's GZIP codec requires.
        if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            throw DataError("cannot initialise zlib for GZIP compression");
        }
        out.resize(deflateBound(&zs, static_cast<uLong>(in.size())) + 32);
        zs.next_in = const_cast<Bytef*>(in.data());  // zlib's API is not const-correct
        zs.avail_in = static_cast<uInt>(in.size());
        zs.next_out = out.data();
        zs.avail_out = static_cast<uInt>(out.size());
        const int status = deflate(&zs, Z_FINISH);
        const std::size_t n = out.size() - zs.avail_out;
        deflateEnd(&zs);
        if (status != Z_STREAM_END) {
            throw DataError("GZIP compression failed");
        }
        out.resize(n);
        break;
    }
    case Codec::kLz4Raw:
    case Codec::kLz4: {
        if (in.size() > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) {
            throw DataError(fmt::format("LZ4 cannot compress a page of {} bytes", in.size()));
        }
        const std::size_t prefix = codec == Codec::kLz4 ? 8 : 0;
        const int bound = LZ4_compressBound(static_cast<int>(in.size()));
        out.resize(prefix + static_cast<std::size_t>(bound));
        const int n = LZ4_compress_default(reinterpret_cast<const char*>(in.data()),
                                           reinterpret_cast<char*>(out.data() + prefix),
                                           static_cast<int>(in.size()), bound);
        if (n <= 0) {
            throw DataError("LZ4 compression failed");
        }
        // One Hadoop frame: decompressed size, compressed size, both big-endian.
        for (std::size_t i = 0; i < prefix; ++i) {
            const std::size_t value = i < 4 ? in.size() : static_cast<std::size_t>(n);
            out[i] = static_cast<std::uint8_t>(value >> (8 * (3 - i % 4)));
        }
        out.resize(prefix + static_cast<std::size_t>(n));
        break;
    }
    case Codec::kBrotli: {
        std::size_t n = BrotliEncoderMaxCompressedSize(in.size());
        out.resize(n);
        if (BrotliEncoderCompress(level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, in.size(),
                                  in.data(), &n, out.data()) == BROTLI_FALSE) {
            throw DataError("BROTLI compression failed");
        }
        out.resize(n);
        break;
    }
    default:
        throw DataError(fmt::format("laddu-cpp cannot write compression codec {}",
                                    codec_name(static_cast<std::int32_t>(codec))));
    }
    return out;
}

}  // namespace laddu::data::parquet
