// src/data/io/parquet/reader_impl.hpp (private): the state behind a ParquetFileReader (its file,
// decoded footer and leaf columns), shared by file_reader.cpp and column_cursor.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <laddu/data/parquet.hpp>

#include "error_site.hpp"
#include "metadata.hpp"

namespace laddu::data::parquet {

/// A leaf column as the decoder needs it.
struct Leaf {
    PhysicalType type = PhysicalType::kBoolean;
    int max_def = 0;
    int max_rep = 0;
};

}  // namespace laddu::data::parquet

namespace laddu::data {

struct ParquetFileReader::Impl {
    std::string path;
    int fd = -1;
    std::vector<std::uint8_t> memory;
    std::uint64_t size = 0;
    std::uint64_t footer_start = 0;
    parquet::FileMetaData meta;
    std::vector<ParquetColumnInfo> columns;
    std::vector<parquet::Leaf> leaves;
    std::vector<std::uint64_t> group_first_row;

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    Impl(Impl&&) = delete;
    Impl& operator=(Impl&&) = delete;
    ~Impl();

    /// Reads out.size() bytes at `offset` (DataError at `site` past the end or on a read error).
    void read_bytes(std::uint64_t offset, std::span<std::uint8_t> out,
                    const parquet::ErrorSite& site) const;

    /// The file's bytes [offset, offset + n) when the file is held in memory (from_memory),
    /// else an empty span. The range must lie within the file.
    [[nodiscard]] std::span<const std::uint8_t> in_memory(std::uint64_t offset,
                                                          std::size_t n) const noexcept {
        if (fd >= 0) {
            return {};
        }
        return std::span<const std::uint8_t>(memory).subspan(offset, n);
    }

    void walk_schema(std::size_t& index, int depth, const std::string& prefix, int max_def,
                     int max_rep, const parquet::ErrorSite& site);

    void parse_footer();
};

}  // namespace laddu::data
