#include "compression.hpp"

#include <cstring>
#include <string>

#include <fmt/format.h>

#include <laddu/base/error.hpp>

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
    default:
        break;
    }
    fail_at(site, offset,
            fmt::format("compression codec {} is not supported (laddu-cpp reads UNCOMPRESSED, "
                        "SNAPPY, GZIP and ZSTD); rewrite the file with one of these",
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
    default:
        throw DataError(fmt::format("laddu-cpp cannot write compression codec {}",
                                    codec_name(static_cast<std::int32_t>(codec))));
    }
    return out;
}

}  // namespace laddu::data::parquet
