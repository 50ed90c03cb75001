// The subset of parquet.thrift that laddu-cpp reads and writes: the file footer and page headers.
//
// Field ids follow apache/parquet-format's parquet.thrift. Unknown fields are skipped, so files
// from newer writers still decode.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "error_site.hpp"

namespace laddu::data::parquet {

/// parquet.thrift `Type`.
// NOLINTNEXTLINE(performance-enum-size): a Thrift i32, holding any value a file carries
enum class PhysicalType : std::int32_t {
    kBoolean = 0,
    kInt32 = 1,
    kInt64 = 2,
    kInt96 = 3,
    kFloat = 4,
    kDouble = 5,
    kByteArray = 6,
    kFixedLenByteArray = 7,
};

/// parquet.thrift `Encoding`.
// NOLINTNEXTLINE(performance-enum-size): a Thrift i32, holding any value a file carries
enum class Encoding : std::int32_t {
    kPlain = 0,
    kPlainDictionary = 2,
    kRle = 3,
    kBitPacked = 4,
    kDeltaBinaryPacked = 5,
    kDeltaLengthByteArray = 6,
    kDeltaByteArray = 7,
    kRleDictionary = 8,
    kByteStreamSplit = 9,
};

/// parquet.thrift `CompressionCodec`.
// NOLINTNEXTLINE(performance-enum-size): a Thrift i32, holding any value a file carries
enum class Codec : std::int32_t {
    kUncompressed = 0,
    kSnappy = 1,
    kGzip = 2,
    kLzo = 3,
    kBrotli = 4,
    kLz4 = 5,
    kZstd = 6,
    kLz4Raw = 7,
};

/// parquet.thrift `FieldRepetitionType`.
// NOLINTNEXTLINE(performance-enum-size): a Thrift i32, holding any value a file carries
enum class Repetition : std::int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };

/// parquet.thrift `PageType`.
// NOLINTNEXTLINE(performance-enum-size): a Thrift i32, holding any value a file carries
enum class PageType : std::int32_t {
    kDataPage = 0,
    kIndexPage = 1,
    kDictionaryPage = 2,
    kDataPageV2 = 3,
};

/// The printable name of a physical type ("DOUBLE", ...), or "TYPE(n)" for unknown values.
[[nodiscard]] std::string physical_type_name(std::int32_t type);

/// The printable name of a codec ("ZSTD", ...).
[[nodiscard]] std::string codec_name(std::int32_t codec);

struct SchemaElement {
    std::optional<std::int32_t> type;
    std::int32_t type_length = 0;
    std::optional<std::int32_t> repetition;
    std::string name;
    std::int32_t num_children = 0;
    std::optional<std::int32_t> converted_type;
};

struct Statistics {
    std::optional<std::vector<std::uint8_t>> min_value;
    std::optional<std::vector<std::uint8_t>> max_value;
    std::optional<std::int64_t> null_count;
};

struct ColumnMetaData {
    std::int32_t type = 0;
    std::vector<std::int32_t> encodings;
    std::vector<std::string> path;
    std::int32_t codec = 0;
    std::int64_t num_values = 0;
    std::int64_t total_uncompressed_size = 0;
    std::int64_t total_compressed_size = 0;
    std::int64_t data_page_offset = 0;
    std::optional<std::int64_t> dictionary_page_offset;
    Statistics statistics;
};

struct ColumnChunk {
    std::string file_path;
    std::int64_t file_offset = 0;
    std::optional<ColumnMetaData> meta;
};

struct RowGroup {
    std::vector<ColumnChunk> columns;
    std::int64_t total_byte_size = 0;
    std::int64_t num_rows = 0;
};

struct FileMetaData {
    std::int32_t version = 1;
    std::vector<SchemaElement> schema;
    std::int64_t num_rows = 0;
    std::vector<RowGroup> row_groups;
    std::string created_by;
    /// `column_orders` as TypeDefinedOrder for every leaf: without it readers such as Arrow
    /// ignore `min_value`/`max_value` statistics. Decoding only notes that the field is present.
    bool type_defined_order = false;
};

struct DataPageHeader {
    std::int32_t num_values = 0;
    std::int32_t encoding = 0;
    std::int32_t definition_level_encoding = 3;
    std::int32_t repetition_level_encoding = 3;
};

struct DictionaryPageHeader {
    std::int32_t num_values = 0;
    std::int32_t encoding = 0;
};

struct DataPageHeaderV2 {
    std::int32_t num_values = 0;
    std::int32_t num_nulls = 0;
    std::int32_t num_rows = 0;
    std::int32_t encoding = 0;
    std::int32_t definition_levels_byte_length = 0;
    std::int32_t repetition_levels_byte_length = 0;
    bool is_compressed = true;
};

struct PageHeader {
    std::int32_t type = 0;
    std::int32_t uncompressed_page_size = 0;
    std::int32_t compressed_page_size = 0;
    std::optional<DataPageHeader> data;
    std::optional<DictionaryPageHeader> dictionary;
    std::optional<DataPageHeaderV2> data_v2;
};

/// Decodes the footer bytes (which start at file offset `base_offset`).
[[nodiscard]] FileMetaData decode_file_metadata(std::span<const std::uint8_t> bytes,
                                                std::uint64_t base_offset, const ErrorSite& site);

/// Decodes a page header at the start of `bytes`; `header_size` receives its encoded length.
[[nodiscard]] PageHeader decode_page_header(std::span<const std::uint8_t> bytes,
                                            std::uint64_t base_offset, const ErrorSite& site,
                                            std::size_t& header_size);

/// Appends the compact encoding of `meta` to `out`.
void encode_file_metadata(const FileMetaData& meta, std::vector<std::uint8_t>& out);

/// Appends the compact encoding of `header` to `out`.
void encode_page_header(const PageHeader& header, std::vector<std::uint8_t>& out);

}  // namespace laddu::data::parquet
