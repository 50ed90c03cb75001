// ColumnCursor: a column chunk read in slices and skips gives the bits of a whole read, and holds
// no more than its page headers bound, however large the row group (a streamed NLL's memory
// plan counts that bound, ParquetSource::stream_buffer_bytes).
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/parquet.hpp>

#include "../../test_util.hpp"
#include "column_cursor.hpp"

namespace laddu::data::parquet {
namespace {

using testing::ScratchDir;

// Our writer's pages hold 65536 rows: a row group of this many rows has four, the last partial.
constexpr std::size_t kRows = 200003;
constexpr std::size_t kPageRows = 65536;

std::vector<double> wave(std::size_t n, double scale) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        v[i] = scale * std::sin(0.001 * static_cast<double>(i) + scale);
    }
    return v;
}

bool same_bits(double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// Reads column `c` of row group 0 in slices of `slice` rows, skipping a third of a slice after
// each, and checks the bits and validity against a whole read of the column.
void expect_slices_match(const ParquetFileReader& reader, std::size_t c, std::size_t slice) {
    const RawColumn whole = reader.read_column(c);
    PageBuffers buffers;
    ColumnCursor cursor(reader, 0, c, NullPolicy::kNan);
    std::size_t row = 0;
    for (bool read = true; cursor.remaining() > 0; read = !read) {
        const std::size_t n = std::min(read ? slice : slice / 3, cursor.remaining());
        if (!read) {
            cursor.skip(n, buffers);
            row += n;
            continue;
        }
        std::vector<double> out(n);
        std::vector<std::uint8_t> present(n);
        cursor.read(out, buffers, present);
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_TRUE(same_bits(out[i], whole.values[row + i])) << "row " << row + i;
            ASSERT_EQ(present[i], whole.valid.empty() ? 1 : whole.valid[row + i]) << row + i;
        }
        row += n;
    }
    EXPECT_EQ(row, whole.values.size());
}

TEST(ColumnCursor, SlicesAndSkipsReadTheBitsOfAWholeRead) {
    const ScratchDir dir;
    const std::vector<double> x = wave(kRows, 1.0);
    const std::vector<double> y = wave(kRows, 2.0);
    std::vector<std::uint8_t> valid(kRows, 1);
    for (std::size_t i = 17; i < kRows; i += 1001) {
        valid[i] = 0;
    }
    const ParquetWriteColumn columns[] = {{"x", ColumnType::kFloat64, x},
                                          {"y", ColumnType::kFloat32, y},
                                          {"z", ColumnType::kFloat64, x, valid}};
    for (const Compression codec :
         {Compression::kUncompressed, Compression::kSnappy, Compression::kZstd}) {
        ParquetWriteOptions options;
        options.compression = codec;
        options.row_group_size = kRows;
        const std::string path = dir.file("slices.parquet");
        write_parquet_columns(path, columns, options);
        const ParquetFileReader reader = ParquetFileReader::open(path);
        ASSERT_EQ(reader.read_column(2).null_count, (kRows - 17 + 1000) / 1001);
        for (const std::size_t slice :
             {std::size_t{4096}, std::size_t{5003}, kPageRows, std::size_t{70001}}) {
            for (std::size_t c = 0; c < 3; ++c) {
                SCOPED_TRACE(::testing::Message() << "codec " << static_cast<int>(codec)
                                                  << ", slice " << slice << ", column " << c);
                expect_slices_match(reader, c, slice);
            }
        }
    }
}

TEST(ColumnCursor, ANullIsAnErrorNamingItsRowWhenReadAndNotWhenSkipped) {
    const ScratchDir dir;
    const std::vector<double> x = wave(kRows, 1.0);
    std::vector<std::uint8_t> valid(kRows, 1);
    valid[150000] = 0;
    const ParquetWriteColumn columns[] = {{"x", ColumnType::kFloat64, x, valid}};
    ParquetWriteOptions options;
    options.row_group_size = kRows;
    write_parquet_columns(dir.file("null.parquet"), columns, options);
    const ParquetFileReader reader = ParquetFileReader::open(dir.file("null.parquet"));
    PageBuffers buffers;
    ColumnCursor skipping(reader, 0, 0, NullPolicy::kError);
    skipping.skip(150001, buffers);
    std::vector<double> rest(skipping.remaining());
    skipping.read(rest, buffers);
    EXPECT_EQ(rest.back(), x.back());
    ColumnCursor reading(reader, 0, 0, NullPolicy::kError);
    std::vector<double> all(kRows);
    try {
        reading.read(all, buffers);
        FAIL() << "a null was read under NullPolicy::kError";
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("null at row 150000"), std::string::npos) << e.what();
    }
}

// A row group of 2^20 rows, the size our own writer (and `laddu-cpp generate`) uses, read a few
// chunks at a time: what the cursors and their buffers hold stays within the bound of their
// page headers, a few pages, not the million rows.
TEST(ColumnCursor, WhatCursorsHoldStaysWithinTheBoundOfTheirPages) {
    const ScratchDir dir;
    const std::size_t rows = std::size_t{1} << 20;
    const std::vector<double> x = wave(rows, 1.0);
    const std::vector<double> y = wave(rows, 3.0);
    const ParquetWriteColumn columns[] = {{"x", ColumnType::kFloat64, x},
                                          {"y", ColumnType::kFloat64, y},
                                          {"weight", ColumnType::kFloat64, x}};
    ParquetWriteOptions options;
    options.compression = Compression::kSnappy;
    options.row_group_size = rows;
    write_parquet_columns(dir.file("big.parquet"), columns, options);
    const ParquetFileReader reader = ParquetFileReader::open(dir.file("big.parquet"));
    ASSERT_EQ(reader.num_row_groups(), 1U);
    std::vector<ChunkPages> pages;
    ChunkPages largest;
    std::size_t bound = 0;
    for (std::size_t c = 0; c < 3; ++c) {
        pages.push_back(ColumnCursor::pages(reader, 0, c));
        EXPECT_EQ(pages.back().data_pages, rows / kPageRows);
        EXPECT_EQ(pages.back().max_values, kPageRows);
        EXPECT_EQ(pages.back().dictionary_values, 0U);
        EXPECT_EQ(pages.back().max_inflated, kPageRows * sizeof(double));  // Snappy pages
        largest.merge(pages.back());
        bound += cursor_bytes(pages.back());
    }
    bound += page_buffer_bytes(largest);
    EXPECT_LT(bound, rows * sizeof(double) / 2);  // less than half of one decoded column
    PageBuffers buffers;
    std::vector<ColumnCursor> cursors;
    for (std::size_t c = 0; c < 3; ++c) {
        cursors.emplace_back(reader, 0, c, NullPolicy::kError);
    }
    std::vector<double> out(3 * 4096 + 5);
    std::size_t most = 0;
    for (std::size_t row = 0; row < rows; row += out.size()) {
        const std::size_t n = std::min(out.size(), rows - row);
        for (std::size_t c = 0; c < 3; ++c) {
            cursors[c].read(std::span<double>(out).first(n), buffers);
            ASSERT_EQ(out[n - 1], c == 1 ? y[row + n - 1] : x[row + n - 1]) << row;
        }
        std::size_t held = buffers.bytes();
        for (const ColumnCursor& cursor : cursors) {
            held += cursor.bytes();
        }
        ASSERT_LE(held, bound) << "at row " << row;
        most = std::max(most, held);
    }
    EXPECT_GT(most, kPageRows * sizeof(double));  // pages were held, one at a time
}

// The plan's read buffers for a file follow its pages, not its row groups.
TEST(ParquetSource, StreamBufferBytesFollowThePagesNotTheRowGroups) {
    const ScratchDir dir;
    const std::size_t rows = std::size_t{1} << 20;
    const std::vector<double> x = wave(rows, 1.0);
    const ParquetWriteColumn columns[] = {{"x", ColumnType::kFloat64, x},
                                          {"y", ColumnType::kFloat64, x},
                                          {"weight", ColumnType::kFloat64, x}};
    std::vector<std::size_t> bytes;
    for (const std::size_t group : {rows, kPageRows}) {
        ParquetWriteOptions options;
        options.compression = Compression::kUncompressed;
        options.row_group_size = group;
        const std::string path = dir.file(std::to_string(group) + ".parquet");
        write_parquet_columns(path, columns, options);
        const ParquetSource source({path});
        const std::size_t all = source.stream_buffer_bytes(ReadPlan{});
        ReadPlan x_only;
        x_only.columns = {"x"};
        EXPECT_LT(source.stream_buffer_bytes(x_only), all);  // x and the weight only
        ReadPlan part;
        part.ranges = {{4096, 8192}};
        EXPECT_LE(source.stream_buffer_bytes(part), all);
        bytes.push_back(all);
    }
    EXPECT_EQ(bytes[0], bytes[1]);
    // Three columns: each a page of values and validity, plus the read window of one page.
    EXPECT_EQ(bytes[0], 3 * kPageRows * 9 + std::max(kReadAhead, kPageRows * sizeof(double)) +
                            kPageRows * 16);
}

}  // namespace
}  // namespace laddu::data::parquet
