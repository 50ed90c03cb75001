// Malformed Parquet input: every corruption is a DataError naming file, column and byte offset;
// none crashes or reads out of bounds (run under ASan in the sanitizer build).
#include <cstring>
#include <functional>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/parquet.hpp>

#include "../../test_util.hpp"
#include "metadata.hpp"

namespace laddu::data {
namespace {

using ::testing::HasSubstr;
using testing::ScratchDir;

using Bytes = std::vector<std::uint8_t>;

// A small valid file: a REQUIRED double, an OPTIONAL float with a null, an int64; 2 row groups.
Bytes valid_file(Compression codec = Compression::kZstd) {
    const ScratchDir dir;
    const std::vector<double> x = {1.5, 2.5, 3.5, 4.5, 5.5, 6.5};
    const std::vector<std::uint8_t> valid = {1, 1, 0, 1, 1, 1};
    const std::vector<double> n = {1, 2, 3, 4, 5, 6};
    const ParquetWriteColumn columns[] = {{"x", ColumnType::kFloat64, x},
                                          {"y", ColumnType::kFloat32, x, valid},
                                          {"n", ColumnType::kInt64, n}};
    ParquetWriteOptions options;
    options.compression = codec;
    options.row_group_size = 3;
    write_parquet_columns(dir.file("v.parquet"), columns, options);
    return testing::read_bytes(dir.file("v.parquet"));
}

// Decodes everything a reader can: footer, then every column of every row group.
void read_everything(const Bytes& bytes) {
    const ParquetFileReader reader = ParquetFileReader::from_memory(bytes, "bad.parquet");
    for (std::size_t c = 0; c < reader.columns().size(); ++c) {
        static_cast<void>(reader.read_column(c));
    }
}

std::string data_error(const Bytes& bytes) {
    try {
        read_everything(bytes);
    } catch (const DataError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected DataError";
    return {};
}

std::uint32_t footer_length(const Bytes& bytes) {
    std::uint32_t n = 0;
    std::memcpy(&n, &bytes[bytes.size() - 8], 4);
    return n;
}

// Rewrites the footer after `edit` changes the decoded metadata.
Bytes with_footer(const Bytes& bytes, const std::function<void(parquet::FileMetaData&)>& edit) {
    const std::uint32_t n = footer_length(bytes);
    const std::size_t start = bytes.size() - 8 - n;
    const parquet::ErrorSite site{"t", ""};
    parquet::FileMetaData meta = parquet::decode_file_metadata(
        std::span<const std::uint8_t>(bytes).subspan(start, n), start, site);
    edit(meta);
    Bytes out(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(start));
    const std::size_t footer_start = out.size();
    parquet::encode_file_metadata(meta, out);
    const auto length = static_cast<std::uint32_t>(out.size() - footer_start);
    out.resize(out.size() + 4);
    std::memcpy(&out[out.size() - 4], &length, 4);
    out.insert(out.end(), {'P', 'A', 'R', '1'});
    return out;
}

parquet::ColumnMetaData& column_meta(parquet::FileMetaData& meta, std::size_t column) {
    return *meta.row_groups.at(0).columns.at(column).meta;
}

TEST(Malformed, TheValidFileReads) {
    const Bytes bytes = valid_file();
    read_everything(bytes);
    const ParquetFileReader reader = ParquetFileReader::from_memory(bytes, "ok");
    EXPECT_EQ(reader.num_rows(), 6U);
    EXPECT_EQ(reader.read_column(1).null_count, 1U);
}

TEST(Malformed, EveryTruncationIsADataError) {
    const Bytes bytes = valid_file();
    for (std::size_t size = 0; size < bytes.size(); ++size) {
        const Bytes cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size));
        EXPECT_THAT(data_error(cut), HasSubstr("Parquet file 'bad.parquet'")) << size;
    }
    EXPECT_THAT(data_error(Bytes(bytes.begin(), bytes.begin() + 5)),
                HasSubstr("byte offset 0: file of 5 bytes is too small"));
}

TEST(Malformed, BadMagic) {
    Bytes head = valid_file();
    head[0] = 'X';
    EXPECT_THAT(data_error(head), HasSubstr("byte offset 0: bad magic: the file does not start"));
    Bytes tail = valid_file();
    tail.back() = 'X';
    EXPECT_THAT(data_error(tail),
                HasSubstr(fmt::format("byte offset {}: bad magic: the file does not end",
                                      tail.size() - 4)));
}

TEST(Malformed, FooterLengthPastTheStart) {
    Bytes bytes = valid_file();
    const std::uint32_t huge = 0x7FFFFFFF;
    std::memcpy(&bytes[bytes.size() - 8], &huge, 4);
    EXPECT_THAT(data_error(bytes), HasSubstr("footer length 2147483647 exceeds"));
}

TEST(Malformed, CorruptFooter) {
    Bytes bytes = valid_file();
    const std::size_t start = bytes.size() - 8 - footer_length(bytes);
    for (std::size_t i = start; i < start + 6; ++i) {
        bytes[i] = 0xFF;
    }
    EXPECT_THAT(data_error(bytes), HasSubstr("Parquet file 'bad.parquet', byte offset"));
}

TEST(Malformed, CorruptPageHeader) {
    Bytes bytes = valid_file(Compression::kUncompressed);
    // Column x's first page header starts right after the magic.
    bytes[4] = 0xFE;
    bytes[5] = 0xFE;
    EXPECT_THAT(data_error(bytes), HasSubstr("column 'x', byte offset"));
}

TEST(Malformed, SizeFieldsPastTheEnd) {
    const Bytes bytes = valid_file();
    EXPECT_THAT(data_error(with_footer(bytes,
                                       [](parquet::FileMetaData& m) {
                                           column_meta(m, 0).total_compressed_size = 1 << 30;
                                       })),
                HasSubstr("column 'x', byte offset 4: column chunk of 1073741824 bytes"));
    EXPECT_THAT(
        data_error(with_footer(
            bytes, [](parquet::FileMetaData& m) { column_meta(m, 1).data_page_offset = 1 << 30; })),
        HasSubstr("column 'y'"));
    // A chunk shorter than its pages: the page no longer fits.
    EXPECT_THAT(
        data_error(with_footer(
            bytes, [](parquet::FileMetaData& m) { column_meta(m, 0).total_compressed_size = 20; })),
        HasSubstr("column 'x', byte offset"));
    // More rows than the pages hold.
    EXPECT_THAT(data_error(with_footer(bytes,
                                       [](parquet::FileMetaData& m) {
                                           m.row_groups[0].num_rows = 4;
                                           m.num_rows = 7;
                                       })),
                HasSubstr("column chunk ends after 3 of 4 values"));
    EXPECT_THAT(data_error(with_footer(bytes, [](parquet::FileMetaData& m) { m.num_rows = 9; })),
                HasSubstr("row groups hold 6 rows but the footer says 9"));
}

TEST(Malformed, UnknownCodec) {
    const Bytes bytes = valid_file();
    EXPECT_THAT(data_error(with_footer(bytes,
                                       [](parquet::FileMetaData& m) {
                                           column_meta(m, 0).codec = 3;  // LZO
                                       })),
                HasSubstr("column 'x', byte offset 21: compression codec LZO is not supported"));
    EXPECT_THAT(data_error(with_footer(bytes,
                                       [](parquet::FileMetaData& m) {
                                           column_meta(m, 0).codec = 1;  // claims SNAPPY
                                       })),
                HasSubstr("corrupt SNAPPY page"));
}

TEST(Malformed, UnknownEncoding) {
    Bytes bytes = valid_file(Compression::kUncompressed);
    // Re-encode x's first page header with encoding DELTA_BYTE_ARRAY (7); same length as PLAIN.
    const parquet::ErrorSite site{"t", ""};
    std::size_t header_size = 0;
    parquet::PageHeader header = parquet::decode_page_header(
        std::span<const std::uint8_t>(bytes).subspan(4), 4, site, header_size);
    header.data->encoding = 7;
    Bytes encoded;
    parquet::encode_page_header(header, encoded);
    ASSERT_EQ(encoded.size(), header_size);
    std::copy(encoded.begin(), encoded.end(), bytes.begin() + 4);
    EXPECT_THAT(data_error(bytes),
                HasSubstr("column 'x', byte offset " + std::to_string(4 + header_size) +
                          ": value encoding DELTA_BYTE_ARRAY is not supported"));
}

TEST(Malformed, WrongColumnTypes) {
    const Bytes bytes = valid_file();
    // Chunk type disagrees with the schema.
    EXPECT_THAT(data_error(with_footer(
                    bytes, [](parquet::FileMetaData& m) { column_meta(m, 0).type = 4; })),
                HasSubstr("column 'x', byte offset"));
    // A column laddu cannot read as numbers: reading it names its type; inference skips it.
    const Bytes strings = with_footer(bytes, [](parquet::FileMetaData& m) {
        m.schema[1].type = 6;
        for (auto& g : m.row_groups) {
            g.columns[0].meta->type = 6;
        }
    });
    EXPECT_THAT(data_error(strings), HasSubstr("column type BYTE_ARRAY cannot be read"));
    const ScratchDir dir;
    testing::write_bytes(dir.file("s.parquet"), strings);
    ParquetReadOptions options;
    options.nulls = NullPolicy::kNan;
    options.schema.integer_columns_are_scalars = true;
    const ParquetSource source({dir.file("s.parquet")}, options);
    EXPECT_EQ(source.schema().scalar_names(), (std::vector<std::string>{"y", "n"}));
    // Missing schema type on a leaf.
    EXPECT_THAT(
        data_error(with_footer(bytes, [](parquet::FileMetaData& m) { m.schema[2].type.reset(); })),
        HasSubstr("schema leaf 'y' has no type"));
    EXPECT_THAT(data_error(with_footer(
                    bytes, [](parquet::FileMetaData& m) { m.schema[0].num_children = 5; })),
                HasSubstr("schema has fewer elements"));
}

// A column name the schema cannot take (empty, or one name twice) is a DataError naming the file.
TEST(Malformed, ColumnNamesTheSchemaCannotTakeNameTheFile) {
    const Bytes bytes = valid_file();
    const ScratchDir dir;
    const auto source_error = [&](const std::string& path) -> std::string {
        try {
            const ParquetSource source({path});
        } catch (const DataError& e) {
            return e.what();
        }
        ADD_FAILURE() << "expected DataError";
        return {};
    };
    const std::string empty = dir.file("empty.parquet");
    testing::write_bytes(
        empty, with_footer(bytes, [](parquet::FileMetaData& m) { m.schema[2].name.clear(); }));
    EXPECT_THAT(source_error(empty), HasSubstr("Parquet file '" + empty + "': empty"));
    const std::string twice = dir.file("twice.parquet");
    testing::write_bytes(
        twice, with_footer(bytes, [](parquet::FileMetaData& m) { m.schema[2].name = "x"; }));
    EXPECT_THAT(source_error(twice), HasSubstr("Parquet file '" + twice + "': duplicate"));
}

TEST(Malformed, MissingFileIsADataError) {
    try {
        static_cast<void>(ParquetFileReader::open("/nonexistent/x.parquet"));
        ADD_FAILURE();
    } catch (const DataError& e) {
        EXPECT_THAT(e.what(), HasSubstr("cannot open Parquet file '/nonexistent/x.parquet'"));
    }
}

// Deterministic byte flips anywhere in the file: each read succeeds or is a DataError.
TEST(Malformed, RandomByteFlipsNeverCrash) {
    for (const Compression codec : {Compression::kUncompressed, Compression::kSnappy,
                                    Compression::kGzip, Compression::kZstd}) {
        const Bytes bytes = valid_file(codec);
        std::uint64_t state = 12345;
        for (int trial = 0; trial < 1500; ++trial) {
            Bytes mutated = bytes;
            for (int k = 0; k < 1 + trial % 3; ++k) {
                state = state * 6364136223846793005ULL + 1442695040888963407ULL;
                const std::size_t pos = (state >> 33) % mutated.size();
                mutated[pos] = static_cast<std::uint8_t>(state >> 17);
            }
            try {
                read_everything(mutated);
            } catch (const DataError&) {
            }
        }
    }
}

}  // namespace
}  // namespace laddu::data
