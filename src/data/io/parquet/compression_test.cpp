// Page codecs: every codec round-trips, the legacy LZ4 codec reads both framings, and corrupt
// or unsupported input is a DataError naming the file, the column and the codec.
#include <cmath>
#include <cstring>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <laddu/base/error.hpp>

#include "compression.hpp"

namespace laddu::data::parquet {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

using Bytes = std::vector<std::uint8_t>;

const ErrorSite kSite{"f.parquet", "c"};

// Doubles with repeats, as a page of event data looks to a compressor.
Bytes page_bytes(std::size_t values) {
    Bytes out(values * sizeof(double));
    for (std::size_t i = 0; i < values; ++i) {
        const double x = std::sin(static_cast<double>(i % 97)) * 100.0;
        std::memcpy(out.data() + i * sizeof(double), &x, sizeof(double));
    }
    return out;
}

Bytes round_trip(Codec compress_as, Codec decompress_as, const Bytes& in) {
    const Bytes packed = compress(compress_as, in, 3);
    Bytes out(in.size());
    decompress(decompress_as, packed, out, kSite, 0);
    return out;
}

std::string error_of(Codec codec, const Bytes& in, std::size_t size) {
    Bytes out(size);
    try {
        decompress(codec, in, out, kSite, 123);
    } catch (const DataError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected DataError";
    return {};
}

TEST(Compression, EveryCodecRoundTrips) {
    const Bytes in = page_bytes(5000);
    for (const Codec codec : {Codec::kUncompressed, Codec::kSnappy, Codec::kGzip, Codec::kZstd,
                              Codec::kLz4Raw, Codec::kLz4, Codec::kBrotli}) {
        EXPECT_EQ(round_trip(codec, codec, in), in) << codec_name(static_cast<std::int32_t>(codec));
    }
}

TEST(Compression, EmptyPagesRoundTrip) {
    for (const Codec codec : {Codec::kLz4Raw, Codec::kLz4, Codec::kBrotli}) {
        EXPECT_TRUE(round_trip(codec, codec, {}).empty());
    }
}

TEST(Compression, LegacyLz4ReadsABareBlockAsOlderArrowWroteIt) {
    const Bytes in = page_bytes(777);
    EXPECT_EQ(round_trip(Codec::kLz4Raw, Codec::kLz4, in), in);
}

TEST(Compression, LegacyLz4ReadsSeveralHadoopFrames) {
    const Bytes in = page_bytes(3000);
    const std::size_t half = in.size() / 2;
    Bytes framed;
    for (const auto& part : {Bytes(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(half)),
                             Bytes(in.begin() + static_cast<std::ptrdiff_t>(half), in.end())}) {
        const Bytes frame = compress(Codec::kLz4, part, 0);
        framed.insert(framed.end(), frame.begin(), frame.end());
    }
    Bytes out(in.size());
    decompress(Codec::kLz4, framed, out, kSite, 0);
    EXPECT_EQ(out, in);
}

TEST(Compression, Lz4RawIsNotReadAsHadoopFramed) {
    // A Hadoop frame is not a valid bare block: LZ4_RAW must not fall back to the framing.
    const Bytes in = page_bytes(100);
    const Bytes framed = compress(Codec::kLz4, in, 0);
    EXPECT_THAT(error_of(Codec::kLz4Raw, framed, in.size()), HasSubstr("corrupt LZ4_RAW page"));
}

TEST(Compression, CorruptPagesNameFileColumnAndCodec) {
    const Bytes garbage = {0xff, 0x13, 0x00, 0x42, 0x99, 0x01, 0x02, 0x03, 0x04, 0x05};
    EXPECT_THAT(error_of(Codec::kLz4Raw, garbage, 64),
                AllOf(HasSubstr("Parquet file 'f.parquet', column 'c', byte offset 123"),
                      HasSubstr("LZ4_RAW")));
    EXPECT_THAT(error_of(Codec::kLz4, garbage, 64), HasSubstr("corrupt LZ4 page"));
    EXPECT_THAT(error_of(Codec::kBrotli, garbage, 64), HasSubstr("corrupt BROTLI page"));
    // Valid Brotli that inflates to the wrong size.
    const Bytes in = page_bytes(10);
    EXPECT_THAT(error_of(Codec::kBrotli, compress(Codec::kBrotli, in, 3), in.size() + 8),
                HasSubstr("corrupt BROTLI page"));
}

TEST(Compression, UnsupportedCodecNamesTheCodecAndTheRemedy) {
    EXPECT_THAT(error_of(Codec::kLzo, {1, 2, 3}, 8),
                AllOf(HasSubstr("column 'c'"), HasSubstr("codec LZO is not supported"),
                      HasSubstr("rewrite the file")));
}

}  // namespace
}  // namespace laddu::data::parquet
