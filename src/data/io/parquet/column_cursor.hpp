// src/data/io/parquet/column_cursor.hpp (private): one column chunk of a ParquetFileReader,
// decoded a slice of rows at a time, page by page.
//
// A stream over a row group of a million rows must not hold the whole row group decoded: it
// keeps one ColumnCursor per projected column and asks each for the next slice of rows. Between
// calls a cursor holds only the chunk's dictionary and the undelivered values of at most one
// data page; the bytes read from the file and the inflated page live in PageBuffers, which the
// cursors of one stream share. ChunkPages (from the page headers alone) bounds both, so a
// memory plan can count them before anything is decoded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <laddu/base/aligned.hpp>
#include <laddu/data/parquet.hpp>

#include "error_site.hpp"
#include "metadata.hpp"

namespace laddu::data::parquet {

/// Bytes read from the file at once for a page body at least: small pages that follow it (and
/// their headers) are then already in memory.
inline constexpr std::size_t kReadAhead = std::size_t{128} << 10;

/// The largest pages of one column chunk, from its page headers.
struct ChunkPages {
    std::size_t data_pages = 0;
    std::size_t max_values = 0;         ///< values (rows) of the largest data page
    std::size_t max_read = 0;           ///< bytes of the largest page body read from the file
    std::size_t max_inflated = 0;       ///< uncompressed bytes of the largest compressed page
    std::size_t dictionary_values = 0;  ///< values of the dictionary page (0: none)

    /// The larger of each field.
    void merge(const ChunkPages& other) noexcept;
};

/// What a ColumnCursor holds at most between calls for a chunk with `pages`: its dictionary
/// and one data page of values.
[[nodiscard]] std::size_t cursor_bytes(const ChunkPages& pages) noexcept;

/// What PageBuffers hold at most while decoding chunks whose largest pages are `largest` (the
/// merge of their ChunkPages): the read window, the inflated page, levels, dictionary indices
/// and the present values of a page with nulls.
[[nodiscard]] std::size_t page_buffer_bytes(const ChunkPages& largest) noexcept;

/// Scratch shared by the cursors of one stream; a cursor uses it only during a call.
class PageBuffers {
public:
    /// Bytes held now (capacities).
    [[nodiscard]] std::size_t bytes() const noexcept;

private:
    friend class ColumnCursor;

    const void* file_ = nullptr;  ///< the reader whose bytes [begin_, end_) are in read_
    std::uint64_t begin_ = 0;
    std::uint64_t end_ = 0;
    // Aligned vectors, so page-sized buffers are mapped, not kept in malloc's heap (aligned.hpp).
    AlignedVector<std::uint8_t> read_;
    AlignedVector<std::uint8_t> inflated_;
    AlignedVector<std::uint32_t> levels_;
    AlignedVector<std::uint32_t> indices_;
    AlignedVector<double> present_;
};

/// Reads the rows of one column chunk in order: skip(n) and read(out) move through them. The
/// reader must outlive the cursor. Malformed pages are DataErrors naming the file, column and
/// byte offset, as ParquetFileReader::read_column_chunk reports them.
class ColumnCursor {
public:
    /// The chunk of column `column` in row group `group`; checks the column's type and the
    /// chunk's place in the file (DataError), reads nothing yet.
    ColumnCursor(const ParquetFileReader& reader, std::size_t group, std::size_t column,
                 NullPolicy nulls);

    /// Rows not yet read or skipped.
    [[nodiscard]] std::size_t remaining() const noexcept { return rows_ - delivered_; }

    /// Moves past the next `rows` rows (at most remaining()); whole pages are not decoded.
    void skip(std::size_t rows, PageBuffers& buffers);

    /// Decodes the next out.size() rows (at most remaining()) into `out`; `valid`, when not
    /// empty (out.size() entries), receives 1 for a value and 0 for a null.
    void read(std::span<double> out, PageBuffers& buffers, std::span<std::uint8_t> valid = {});

    /// Bytes held between calls: the dictionary and a partly delivered page.
    [[nodiscard]] std::size_t bytes() const noexcept;

    /// The page sizes of column `column` in row group `group`, from the page headers alone
    /// (dictionary pages are not decoded, data pages not read).
    [[nodiscard]] static ChunkPages pages(const ParquetFileReader& reader, std::size_t group,
                                          std::size_t column);

private:
    /// A data page whose header has been read and checked, but not its body.
    struct DataPage {
        bool v2 = false;                    ///< DATA_PAGE_V2 (else DATA_PAGE)
        std::uint64_t body_offset = 0;      ///< file offset of the (compressed) page body
        std::size_t compressed = 0;         ///< bytes of the body in the file
        std::size_t uncompressed = 0;       ///< the header's uncompressed_page_size
        std::size_t values = 0;             ///< values (rows: columns are flat)
        std::int32_t encoding = 0;          ///< of the values
        std::int32_t level_encoding = 0;    ///< of v1 definition levels
        std::size_t level_bytes = 0;        ///< v2: repetition plus definition level bytes
        std::size_t definition_offset = 0;  ///< v2: where the definition levels start
        bool compressed_values = true;      ///< v2: is_compressed
    };

    // The next data page's header (checked), passing index pages and the dictionary page:
    // decoded, or only checked when `scan` is given, which then records every page's sizes.
    // DataError past the chunk end.
    [[nodiscard]] DataPage next_page(PageBuffers& buffers, ChunkPages* scan);

    // The checked DataPage of the data page `header` whose body starts at `body`.
    [[nodiscard]] DataPage data_page(const PageHeader& header, std::uint64_t body) const;

    // Records a page in `scan`: its read (body, or a header window wider than the default) and
    // inflated sizes.
    void record(ChunkPages& scan, const PageHeader& header, std::size_t header_size,
                std::uint64_t page_offset) const;

    // Delivers up to `out.size()` rows of the pending page; returns how many.
    std::size_t take_pending(std::span<double> out, std::span<std::uint8_t> valid);

    // The file's bytes [offset, offset + n) (within the chunk), through the read window; a
    // read from the file takes at least `ahead` bytes (up to the chunk end).
    [[nodiscard]] std::span<const std::uint8_t> bytes_at(std::uint64_t offset, std::size_t n,
                                                         PageBuffers& buffers,
                                                         std::size_t ahead = kReadAhead) const;

    // The page header at `offset`; `size` receives its length.
    [[nodiscard]] PageHeader header_at(std::uint64_t offset, std::size_t& size,
                                       PageBuffers& buffers) const;

    void check_values(std::size_t n, std::uint64_t offset) const;

    void check_page_size(std::int64_t uncompressed, std::size_t values, std::uint64_t offset) const;

    [[nodiscard]] std::span<const std::uint8_t> inflate(std::span<const std::uint8_t> in,
                                                        std::size_t uncompressed,
                                                        std::uint64_t offset,
                                                        PageBuffers& buffers) const;

    // Checks a dictionary page, decodes it when `decode`, and returns its value count.
    std::size_t dictionary_page(const PageHeader& header, std::uint64_t body_offset, bool decode,
                                PageBuffers& buffers);

    // Decodes `page` (first_row: its first row within the chunk) into out and valid (empty,
    // or one entry per value). A null is NaN under NullPolicy::kNan or `defer_nulls`, else a
    // DataError.
    void decode(const DataPage& page, std::size_t first_row, std::span<double> out,
                std::span<std::uint8_t> valid, bool defer_nulls, PageBuffers& buffers);

    void values(std::int32_t encoding, std::span<const std::uint8_t> body, std::size_t first_row,
                std::span<double> out, std::span<std::uint8_t> valid, std::uint64_t offset,
                bool defer_nulls, PageBuffers& buffers);

    // The DataError of a null at chunk row `row` (NullPolicy::kError), at byte `offset`.
    [[noreturn]] void null_error(std::size_t row, std::uint64_t offset) const;

    void dictionary_values(std::span<const std::uint8_t> body, std::span<double> out,
                           std::uint64_t offset, PageBuffers& buffers) const;

    // Decodes `page` into pending_, none of it delivered yet.
    void load_pending(const DataPage& page, PageBuffers& buffers);

    const ParquetFileReader::Impl* file_;
    ErrorSite site_;
    PhysicalType type_ = PhysicalType::kDouble;
    int max_def_ = 0;
    Codec codec_ = Codec::kUncompressed;
    std::uint64_t first_row_ = 0;  ///< the row group's first row in the file
    std::uint64_t chunk_end_ = 0;  ///< file offset just past the column chunk
    std::uint64_t position_ = 0;   ///< file offset of the next page header
    std::size_t rows_ = 0;         ///< rows of the row group
    std::size_t paged_ = 0;        ///< rows of the pages passed so far (decoded or skipped)
    std::size_t delivered_ = 0;    ///< rows read or skipped by the caller
    NullPolicy nulls_;
    bool have_dictionary_ = false;
    AlignedVector<double> dictionary_;
    AlignedVector<double> pending_;  ///< the last page passed, when part of it is undelivered
    AlignedVector<std::uint8_t> pending_valid_;  ///< its validity (optional columns only)
    std::size_t pending_next_ = 0;               ///< its first undelivered value
    std::size_t pending_first_ = 0;              ///< its first row within the chunk
    std::uint64_t pending_offset_ = 0;           ///< file offset of its values, for null errors
};

}  // namespace laddu::data::parquet
