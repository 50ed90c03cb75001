// Thrift compact protocol and page encodings against hand-built byte sequences.
#include <cstring>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <laddu/base/error.hpp>

#include "../../test_util.hpp"
#include "encodings.hpp"
#include "metadata.hpp"
#include "thrift.hpp"

namespace laddu::data::parquet {
namespace {

using testing::data_error;

using ::testing::HasSubstr;

const ErrorSite kSite{"test.parquet", "x"};

TEST(Thrift, FileMetadataRoundTrips) {
    FileMetaData meta;
    meta.schema.push_back({std::nullopt, 0, std::nullopt, "schema", 1, std::nullopt});
    meta.schema.push_back({5, 0, 1, "beam_px", 0, std::nullopt});
    meta.num_rows = 1234567890123;
    RowGroup group;
    group.num_rows = meta.num_rows;
    ColumnChunk chunk;
    ColumnMetaData cm;
    cm.type = 5;
    cm.encodings = {0, 3, 8};
    cm.path = {"beam_px"};
    cm.codec = 6;
    cm.num_values = 17;
    cm.total_compressed_size = 99;
    cm.data_page_offset = 4;
    cm.dictionary_page_offset = 40000;
    cm.statistics.min_value = std::vector<std::uint8_t>{1, 2};
    chunk.meta = cm;
    group.columns.push_back(chunk);
    meta.row_groups.push_back(group);
    meta.created_by = "me";
    std::vector<std::uint8_t> bytes;
    encode_file_metadata(meta, bytes);
    const FileMetaData back = decode_file_metadata(bytes, 0, kSite);
    EXPECT_EQ(back.num_rows, meta.num_rows);
    ASSERT_EQ(back.schema.size(), 2U);
    EXPECT_EQ(back.schema[1].name, "beam_px");
    EXPECT_EQ(back.schema[1].repetition, 1);
    EXPECT_EQ(back.schema[0].num_children, 1);
    const ColumnMetaData& m = *back.row_groups.at(0).columns.at(0).meta;
    EXPECT_EQ(m.encodings, cm.encodings);
    EXPECT_EQ(m.codec, 6);
    EXPECT_EQ(m.dictionary_page_offset, 40000);
    EXPECT_EQ(m.statistics.min_value, cm.statistics.min_value);
    EXPECT_EQ(back.created_by, "me");
}

TEST(Thrift, SkipsUnknownFieldsOfEveryType) {
    // struct { 1: i32 = 3 (known), 20: list<string>, 21: map<i32,double>, 22: struct {1: bool},
    //          23: double, 2: ... }  encoded by hand.
    std::vector<std::uint8_t> bytes;
    ThriftWriter w(bytes);
    w.begin_struct();
    w.field_i32(1, 1);
    w.field_list(20, ThriftType::kBinary, 2);
    w.list_string("ab");
    w.list_string("c");
    w.field_struct(22);
    w.field_bool(1, true);
    w.end_struct();
    w.field_i64(3, 42);
    w.end_struct();
    // A map field (id 24 after 3: long form header) with one i32 -> double entry, then stop.
    bytes.pop_back();
    bytes.insert(bytes.end(), {0x0B, 0x30, 0x01, 0x57, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0x00});
    const FileMetaData meta = decode_file_metadata(bytes, 0, kSite);
    EXPECT_EQ(meta.version, 1);
    EXPECT_EQ(meta.num_rows, 42);
}

TEST(Thrift, CorruptInputIsADataErrorWithOffset) {
    const std::vector<std::uint8_t> truncated = {0x15};
    EXPECT_THAT(data_error([&] { static_cast<void>(decode_file_metadata(truncated, 100, kSite)); }),
                HasSubstr("Parquet file 'test.parquet', column 'x', byte offset 101"));
    const std::vector<std::uint8_t> bad_type = {0x1E};
    EXPECT_THAT(data_error([&] { static_cast<void>(decode_file_metadata(bad_type, 0, kSite)); }),
                HasSubstr("unknown Thrift field type 14"));
    const std::vector<std::uint8_t> huge_list = {0x29, 0xFC, 0xFF, 0xFF, 0x0F};
    EXPECT_THAT(data_error([&] { static_cast<void>(decode_file_metadata(huge_list, 0, kSite)); }),
                HasSubstr("cannot fit"));
    std::vector<std::uint8_t> deep(200, 0xFC);
    EXPECT_THAT(data_error([&] { static_cast<void>(decode_file_metadata(deep, 0, kSite)); }),
                HasSubstr("nested too deeply"));
    const std::vector<std::uint8_t> long_varint(12, 0xFF);
    std::vector<std::uint8_t> v = {0x16};
    v.insert(v.end(), long_varint.begin(), long_varint.end());
    EXPECT_THAT(data_error([&] { static_cast<void>(decode_file_metadata(v, 0, kSite)); }),
                HasSubstr("varint longer than 10 bytes"));
}

TEST(Encodings, RleHybridDecodesRleAndBitPackedRuns) {
    // RLE run: header (5 << 1) = 10, value 3 in one byte; bit-packed: header (1 << 1) | 1 = 3,
    // 8 values of width 3 = 3 bytes: 0..7 packed LSB first = 0x88 0xC6 0xFA.
    const std::vector<std::uint8_t> in = {10, 3, 3, 0x88, 0xC6, 0xFA};
    std::vector<std::uint32_t> out(13);
    decode_rle_hybrid(in, 3, out, kSite, 0);
    EXPECT_EQ(out, (std::vector<std::uint32_t>{3, 3, 3, 3, 3, 0, 1, 2, 3, 4, 5, 6, 7}));
    std::vector<std::uint32_t> too_many(14);
    EXPECT_THAT(data_error([&] { decode_rle_hybrid(in, 3, too_many, kSite, 50); }),
                HasSubstr("RLE data ends after 13 of 14 values"));
    EXPECT_THAT(data_error([&] { decode_rle_hybrid(in, 33, out, kSite, 0); }),
                HasSubstr("bit width 33"));
    const std::vector<std::uint8_t> short_pack = {0x05, 0xFF};
    std::vector<std::uint32_t> sixteen(16);
    EXPECT_THAT(data_error([&] { decode_rle_hybrid(short_pack, 8, sixteen, kSite, 0); }),
                HasSubstr("bit-packed run runs past the end"));
}

TEST(Encodings, DeltaBinaryPackedMatchesTheSpecExamples) {
    // Spec example 1: 1 2 3 4 5 -> block 128, 4 miniblocks, 5 values, first 1, min delta 1, all
    // bit widths 0.
    const std::vector<std::uint8_t> ones = {0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0};
    std::vector<double> out(5);
    decode_delta_binary_packed(PhysicalType::kInt32, ones, out, kSite, 0);
    EXPECT_EQ(out, (std::vector<double>{1, 2, 3, 4, 5}));
    // 7 5 3 1 2 3 4 5: deltas -2 -2 -2 1 1 1 1, min delta -2, adjusted 0 0 0 3 3 3 3 (width 2).
    std::vector<std::uint8_t> in = {0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0, 0, 0};
    // 32 values of width 2 = 8 bytes; the 7 used are 0 0 0 3 3 3 3.
    const std::vector<std::uint8_t> packed = {0xC0, 0xFF, 0, 0, 0, 0, 0, 0};
    in.insert(in.end(), packed.begin(), packed.end());
    std::vector<double> out8(8);
    decode_delta_binary_packed(PhysicalType::kInt64, in, out8, kSite, 0);
    EXPECT_EQ(out8, (std::vector<double>{7, 5, 3, 1, 2, 3, 4, 5}));
    const std::vector<std::uint8_t> bad = {0x07, 0x04, 0x05, 0x02};
    EXPECT_THAT(
        data_error([&] { decode_delta_binary_packed(PhysicalType::kInt32, bad, out, kSite, 0); }),
        HasSubstr("invalid DELTA_BINARY_PACKED header"));
}

TEST(Encodings, PlainAndByteStreamSplit) {
    const float f[2] = {1.5F, -2.25F};
    std::vector<std::uint8_t> bytes(8);
    std::memcpy(bytes.data(), f, 8);
    std::vector<double> out(2);
    decode_plain(PhysicalType::kFloat, bytes, out, kSite, 0);
    EXPECT_EQ(out, (std::vector<double>{1.5, -2.25}));
    std::vector<std::uint8_t> split(8);
    for (std::size_t i = 0; i < 2; ++i) {
        for (std::size_t b = 0; b < 4; ++b) {
            split[b * 2 + i] = bytes[i * 4 + b];
        }
    }
    std::vector<double> out2(2);
    decode_byte_stream_split(PhysicalType::kFloat, split, out2, kSite, 0);
    EXPECT_EQ(out2, out);
    std::vector<double> three(3);
    EXPECT_THAT(data_error([&] { decode_plain(PhysicalType::kFloat, bytes, three, kSite, 7); }),
                HasSubstr("byte offset 7: PLAIN data holds 2 values but the page needs 3"));
}

}  // namespace
}  // namespace laddu::data::parquet
