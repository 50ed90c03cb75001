// ColumnCursor: a column chunk decoded page by page, a slice of rows at a time.
#include "column_cursor.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>

#include "compression.hpp"
#include "encodings.hpp"
#include "reader_impl.hpp"

namespace laddu::data::parquet {

namespace {

/// Bytes first read for a page header: a numeric column's header is a few dozen bytes.
constexpr std::size_t kHeaderWindow = 4096;

std::string encoding_name(std::int32_t e) {
    switch (static_cast<Encoding>(e)) {
    case Encoding::kPlain:
        return "PLAIN";
    case Encoding::kPlainDictionary:
        return "PLAIN_DICTIONARY";
    case Encoding::kRle:
        return "RLE";
    case Encoding::kBitPacked:
        return "BIT_PACKED";
    case Encoding::kDeltaBinaryPacked:
        return "DELTA_BINARY_PACKED";
    case Encoding::kDeltaLengthByteArray:
        return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::kDeltaByteArray:
        return "DELTA_BYTE_ARRAY";
    case Encoding::kRleDictionary:
        return "RLE_DICTIONARY";
    case Encoding::kByteStreamSplit:
        return "BYTE_STREAM_SPLIT";
    }
    return fmt::format("ENCODING({})", e);
}

// `buffer` holding at least `size` bytes (its contents are not kept).
std::uint8_t* reserve(AlignedVector<std::uint8_t>& buffer, std::size_t size) {
    if (size > buffer.size()) {
        buffer = AlignedVector<std::uint8_t>();
        buffer.resize(size);
    }
    return buffer.data();
}

}  // namespace

void ChunkPages::merge(const ChunkPages& other) noexcept {
    data_pages = std::max(data_pages, other.data_pages);
    max_values = std::max(max_values, other.max_values);
    max_read = std::max(max_read, other.max_read);
    max_inflated = std::max(max_inflated, other.max_inflated);
    dictionary_values = std::max(dictionary_values, other.dictionary_values);
}

std::size_t cursor_bytes(const ChunkPages& pages) noexcept {
    // The dictionary, and a pending page of values with its validity.
    return pages.dictionary_values * sizeof(double) +
           pages.max_values * (sizeof(double) + sizeof(std::uint8_t));
}

std::size_t page_buffer_bytes(const ChunkPages& largest) noexcept {
    return std::max(kReadAhead, largest.max_read) + largest.max_inflated +
           largest.max_values * (2 * sizeof(std::uint32_t) + sizeof(double));
}

std::size_t PageBuffers::bytes() const noexcept {
    return read_.capacity() + inflated_.capacity() +
           (levels_.capacity() + indices_.capacity()) * sizeof(std::uint32_t) +
           present_.capacity() * sizeof(double);
}

ColumnCursor::ColumnCursor(const ParquetFileReader& reader, std::size_t group, std::size_t column,
                           NullPolicy nulls)
    : file_(reader.impl_.get()), nulls_(nulls) {
    const ParquetFileReader::Impl& impl = *file_;
    if (group >= impl.meta.row_groups.size() || column >= impl.columns.size()) {
        throw DataError(fmt::format("Parquet file '{}': no row group {} or column {}", impl.path,
                                    group, column));
    }
    const ParquetColumnInfo& info = impl.columns[column];
    site_ = ErrorSite{impl.path, info.name};
    const ColumnChunk& chunk = impl.meta.row_groups[group].columns[column];
    if (!info.flat || info.type == ColumnType::kOther) {
        fail_at(site_, impl.footer_start,
                fmt::format("column type {}{} cannot be read as numbers (laddu-cpp reads flat "
                            "FLOAT, DOUBLE, INT32 and INT64 columns)",
                            info.physical_type, info.flat ? "" : " (nested or repeated)"));
    }
    if (!chunk.meta) {
        fail_at(site_, impl.footer_start,
                fmt::format("row group {} has no column metadata for this column", group));
    }
    const ColumnMetaData& meta = *chunk.meta;
    if (!chunk.file_path.empty()) {
        fail_at(site_, impl.footer_start, "column chunks in external files are not supported");
    }
    if (meta.type != static_cast<std::int32_t>(impl.leaves[column].type)) {
        fail_at(site_, impl.footer_start,
                fmt::format("column chunk type {} does not match the schema type {}",
                            physical_type_name(meta.type), info.physical_type));
    }
    auto start = static_cast<std::uint64_t>(meta.data_page_offset);
    if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 &&
        static_cast<std::uint64_t>(*meta.dictionary_page_offset) < start) {
        start = static_cast<std::uint64_t>(*meta.dictionary_page_offset);
    }
    const auto length = static_cast<std::uint64_t>(meta.total_compressed_size);
    if (start < 4 || start > impl.footer_start || length > impl.footer_start - start) {
        fail_at(site_, start,
                fmt::format("column chunk of {} bytes at offset {} lies outside the data region "
                            "[4, {})",
                            length, start, impl.footer_start));
    }
    type_ = impl.leaves[column].type;
    max_def_ = impl.leaves[column].max_def;
    codec_ = static_cast<Codec>(meta.codec);
    first_row_ = impl.group_first_row[group];
    position_ = start;
    chunk_end_ = start + length;
    rows_ = static_cast<std::size_t>(reader.row_group_rows(group));
}

std::size_t ColumnCursor::bytes() const noexcept {
    return dictionary_.capacity() * sizeof(double) + pending_.capacity() * sizeof(double) +
           pending_valid_.capacity();
}

std::span<const std::uint8_t> ColumnCursor::bytes_at(std::uint64_t offset, std::size_t n,
                                                     PageBuffers& buffers,
                                                     std::size_t ahead) const {
    if (file_->fd < 0) {
        return file_->in_memory(offset, n);
    }
    if (buffers.file_ == file_ && offset >= buffers.begin_ && offset + n <= buffers.end_) {
        return {buffers.read_.data() + (offset - buffers.begin_), n};
    }
    const std::size_t length =
        std::max<std::size_t>(n, std::min<std::uint64_t>(ahead, chunk_end_ - offset));
    buffers.file_ = nullptr;
    std::uint8_t* read = reserve(buffers.read_, length);
    file_->read_bytes(offset, std::span<std::uint8_t>(read, length), site_);
    buffers.file_ = file_;
    buffers.begin_ = offset;
    buffers.end_ = offset + length;
    return {read, n};
}

PageHeader ColumnCursor::header_at(std::uint64_t offset, std::size_t& size,
                                   PageBuffers& buffers) const {
    // A header is decoded from a small window of the chunk (unless the read ahead of an earlier
    // page body holds it), widened while it does not decode, so a corrupt header fails as it
    // would with the rest of the chunk in view.
    const std::uint64_t rest = chunk_end_ - offset;
    auto window = static_cast<std::size_t>(std::min<std::uint64_t>(kHeaderWindow, rest));
    while (true) {
        try {
            return decode_page_header(bytes_at(offset, window, buffers, window), offset, site_,
                                      size);
        } catch (const DataError&) {
            if (window == rest) {
                throw;
            }
        }
        window = static_cast<std::size_t>(std::min<std::uint64_t>(rest, 16 * window));
    }
}

void ColumnCursor::check_page_size(std::int64_t uncompressed, std::size_t values,
                                   std::uint64_t offset) const {
    // Bounds how much a header may ask us to allocate: a legitimate page never needs more than
    // this for its value count, however it is encoded.
    const std::uint64_t limit = 4096 + static_cast<std::uint64_t>(values) * 24;
    if (static_cast<std::uint64_t>(uncompressed) > limit) {
        fail_at(site_, offset,
                fmt::format("page header claims {} uncompressed bytes for {} values "
                            "(corrupt header)",
                            uncompressed, values));
    }
}

std::span<const std::uint8_t> ColumnCursor::inflate(std::span<const std::uint8_t> in,
                                                    std::size_t uncompressed, std::uint64_t offset,
                                                    PageBuffers& buffers) const {
    if (codec_ == Codec::kUncompressed && in.size() == uncompressed) {
        return in;
    }
    const std::span<std::uint8_t> target(reserve(buffers.inflated_, uncompressed), uncompressed);
    decompress(codec_, in, target, site_, offset);
    return target;
}

ColumnCursor::DataPage ColumnCursor::next_page(PageBuffers& buffers, ChunkPages* scan) {
    while (true) {
        const std::uint64_t page_offset = position_;
        if (position_ >= chunk_end_) {
            fail_at(site_, page_offset,
                    fmt::format("column chunk ends after {} of {} values", paged_, rows_));
        }
        std::size_t header_size = 0;
        const PageHeader header = header_at(position_, header_size, buffers);
        position_ += header_size;
        const auto compressed = static_cast<std::size_t>(header.compressed_page_size);
        if (compressed > chunk_end_ - position_) {
            fail_at(site_, page_offset,
                    fmt::format("page of {} bytes runs past the end of its column chunk ({} bytes "
                                "left)",
                                compressed, chunk_end_ - position_));
        }
        const std::uint64_t body = position_;
        position_ += compressed;
        if (scan != nullptr) {
            record(*scan, header, header_size, page_offset);
        }
        switch (static_cast<PageType>(header.type)) {
        case PageType::kDictionaryPage: {
            const std::size_t n = dictionary_page(header, body, scan == nullptr, buffers);
            if (scan != nullptr) {
                scan->dictionary_values = std::max(scan->dictionary_values, n);
            }
            continue;
        }
        case PageType::kDataPage:
        case PageType::kDataPageV2: {
            const DataPage page = data_page(header, body);
            if (scan != nullptr) {
                ++scan->data_pages;
                scan->max_values = std::max(scan->max_values, page.values);
            }
            return page;
        }
        case PageType::kIndexPage:
            continue;
        default:
            fail_at(site_, page_offset, fmt::format("unknown page type {}", header.type));
        }
    }
}

ColumnCursor::DataPage ColumnCursor::data_page(const PageHeader& header, std::uint64_t body) const {
    DataPage page;
    page.body_offset = body;
    page.compressed = static_cast<std::size_t>(header.compressed_page_size);
    page.uncompressed = static_cast<std::size_t>(header.uncompressed_page_size);
    if (static_cast<PageType>(header.type) == PageType::kDataPage) {
        if (!header.data) {
            fail_at(site_, body, "data page without a data page header");
        }
        page.values = static_cast<std::size_t>(header.data->num_values);
        page.encoding = header.data->encoding;
        page.level_encoding = header.data->definition_level_encoding;
        check_values(page.values, body);
        check_page_size(header.uncompressed_page_size, page.values, body);
        return page;
    }
    if (!header.data_v2) {
        fail_at(site_, body, "data page v2 without its header");
    }
    const DataPageHeaderV2& h = *header.data_v2;
    page.v2 = true;
    page.values = static_cast<std::size_t>(h.num_values);
    page.encoding = h.encoding;
    page.compressed_values = h.is_compressed;
    check_values(page.values, body);
    const auto rep = static_cast<std::size_t>(h.repetition_levels_byte_length);
    const auto def = static_cast<std::size_t>(h.definition_levels_byte_length);
    if (rep + def > page.compressed || rep + def > page.uncompressed) {
        fail_at(site_, body, "data page v2 level lengths exceed the page size");
    }
    page.definition_offset = rep;
    page.level_bytes = rep + def;
    check_page_size(header.uncompressed_page_size, page.values, body);
    return page;
}

void ColumnCursor::record(ChunkPages& scan, const PageHeader& header, std::size_t header_size,
                          std::uint64_t page_offset) const {
    const auto compressed = static_cast<std::size_t>(header.compressed_page_size);
    const auto uncompressed = static_cast<std::size_t>(header.uncompressed_page_size);
    // header_at's window widened to this header, when it is wider than the body read (which
    // page_buffer_bytes takes at least kReadAhead of).
    std::size_t window = kHeaderWindow;
    while (window < header_size) {
        window *= 16;
    }
    const std::uint64_t rest = chunk_end_ - page_offset;
    scan.max_read = std::max({scan.max_read, compressed,
                              static_cast<std::size_t>(std::min<std::uint64_t>(window, rest))});
    if (codec_ != Codec::kUncompressed || compressed != uncompressed) {
        scan.max_inflated = std::max(scan.max_inflated, uncompressed);
    }
}

void ColumnCursor::check_values(std::size_t n, std::uint64_t offset) const {
    if (n > rows_ - paged_) {
        fail_at(site_, offset,
                fmt::format("page holds {} values but only {} rows of the row group remain", n,
                            rows_ - paged_));
    }
}

std::size_t ColumnCursor::dictionary_page(const PageHeader& header, std::uint64_t body_offset,
                                          bool decode, PageBuffers& buffers) {
    if (!header.dictionary) {
        fail_at(site_, body_offset, "dictionary page without a dictionary page header");
    }
    if (have_dictionary_) {
        fail_at(site_, body_offset, "column chunk has a second dictionary page");
    }
    const auto encoding = static_cast<Encoding>(header.dictionary->encoding);
    if (encoding != Encoding::kPlain && encoding != Encoding::kPlainDictionary) {
        fail_at(site_, body_offset,
                fmt::format("dictionary page encoding {} is not supported",
                            encoding_name(header.dictionary->encoding)));
    }
    const auto n = static_cast<std::size_t>(header.dictionary->num_values);
    // Dictionaries belong to one column chunk, so they never hold more values than its rows.
    if (n > std::max<std::size_t>(rows_, 1)) {
        fail_at(site_, body_offset,
                fmt::format("dictionary of {} values for a row group of {} rows (corrupt "
                            "header)",
                            n, rows_));
    }
    check_page_size(header.uncompressed_page_size, n, body_offset);
    if (decode) {
        const auto page =
            bytes_at(body_offset, static_cast<std::size_t>(header.compressed_page_size), buffers);
        const auto data = inflate(page, static_cast<std::size_t>(header.uncompressed_page_size),
                                  body_offset, buffers);
        dictionary_.resize(n);
        decode_plain(type_, data, dictionary_, site_, body_offset);
    }
    have_dictionary_ = true;
    return n;
}

void ColumnCursor::decode(const DataPage& page, std::size_t first_row, std::span<double> out,
                          std::span<std::uint8_t> valid, bool defer_nulls, PageBuffers& buffers) {
    const std::uint64_t offset = page.body_offset;
    const std::span<const std::uint8_t> raw = bytes_at(offset, page.compressed, buffers);
    if (!page.v2) {
        auto body = inflate(raw, page.uncompressed, offset, buffers);
        if (max_def_ > 0) {
            if (static_cast<Encoding>(page.level_encoding) != Encoding::kRle) {
                fail_at(site_, offset,
                        fmt::format("definition level encoding {} is not supported",
                                    encoding_name(page.level_encoding)));
            }
            if (body.size() < 4) {
                fail_at(site_, offset, "data page too short for its definition levels");
            }
            std::uint32_t length = 0;
            std::memcpy(&length, body.data(), 4);
            if (length > body.size() - 4) {
                fail_at(site_, offset,
                        fmt::format("definition levels of {} bytes run past the page end", length));
            }
            buffers.levels_.resize(page.values);
            decode_rle_hybrid(body.subspan(4, length), 1, buffers.levels_, site_, offset + 4);
            body = body.subspan(4 + length);
        }
        values(page.encoding, body, first_row, out, valid, offset, defer_nulls, buffers);
        return;
    }
    if (max_def_ > 0) {
        buffers.levels_.resize(page.values);
        decode_rle_hybrid(
            raw.subspan(page.definition_offset, page.level_bytes - page.definition_offset), 1,
            buffers.levels_, site_, offset + page.definition_offset);
    }
    const auto rest = raw.subspan(page.level_bytes);
    std::span<const std::uint8_t> body = rest;
    if (page.compressed_values && codec_ != Codec::kUncompressed) {
        body =
            inflate(rest, page.uncompressed - page.level_bytes, offset + page.level_bytes, buffers);
    }
    values(page.encoding, body, first_row, out, valid, offset + page.level_bytes, defer_nulls,
           buffers);
}

void ColumnCursor::values(std::int32_t encoding, std::span<const std::uint8_t> body,
                          std::size_t first_row, std::span<double> out,
                          std::span<std::uint8_t> valid, std::uint64_t offset, bool defer_nulls,
                          PageBuffers& buffers) {
    const std::size_t n = out.size();
    std::size_t present = n;
    if (max_def_ > 0) {
        present = static_cast<std::size_t>(std::count(
            buffers.levels_.begin(), buffers.levels_.begin() + static_cast<std::ptrdiff_t>(n),
            static_cast<std::uint32_t>(max_def_)));
    }
    std::span<double> decoded = out;
    if (present != n) {
        buffers.present_.resize(present);
        decoded = buffers.present_;
    }
    switch (static_cast<Encoding>(encoding)) {
    case Encoding::kPlain:
        decode_plain(type_, body, decoded, site_, offset);
        break;
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary:
        dictionary_values(body, decoded, offset, buffers);
        break;
    case Encoding::kByteStreamSplit:
        decode_byte_stream_split(type_, body, decoded, site_, offset);
        break;
    case Encoding::kDeltaBinaryPacked:
        decode_delta_binary_packed(type_, body, decoded, site_, offset);
        break;
    default:
        fail_at(site_, offset,
                fmt::format("value encoding {} is not supported for numeric columns",
                            encoding_name(encoding)));
    }
    std::fill(valid.begin(), valid.end(), std::uint8_t{1});
    if (present == n) {
        return;
    }
    // Scatter the present values; a null is an error naming its row, or NaN.
    std::size_t j = 0;
    const auto full = static_cast<std::uint32_t>(max_def_);
    for (std::size_t i = 0; i < n; ++i) {
        if (buffers.levels_[i] == full) {
            out[i] = buffers.present_[j++];
            continue;
        }
        if (nulls_ == NullPolicy::kError && !defer_nulls) {
            null_error(first_row + i, offset);
        }
        out[i] = std::numeric_limits<double>::quiet_NaN();
        if (!valid.empty()) {
            valid[i] = 0;
        }
    }
}

void ColumnCursor::null_error(std::size_t row, std::uint64_t offset) const {
    fail_at(site_, offset,
            fmt::format("null at row {}; laddu needs a value in every event column (fill the "
                        "nulls, or read with NullPolicy::kNan)",
                        first_row_ + row));
}

void ColumnCursor::dictionary_values(std::span<const std::uint8_t> body, std::span<double> out,
                                     std::uint64_t offset, PageBuffers& buffers) const {
    if (!have_dictionary_) {
        fail_at(site_, offset, "dictionary-encoded page without a dictionary page");
    }
    if (out.empty()) {
        return;
    }
    if (body.empty()) {
        fail_at(site_, offset, "dictionary-encoded page has no bit width");
    }
    buffers.indices_.resize(out.size());
    decode_rle_hybrid(body.subspan(1), body[0], buffers.indices_, site_, offset + 1);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::uint32_t index = buffers.indices_[i];
        if (index >= dictionary_.size()) {
            fail_at(site_, offset,
                    fmt::format("dictionary index {} is out of range (dictionary has {} values)",
                                index, dictionary_.size()));
        }
        out[i] = dictionary_[index];
    }
}

void ColumnCursor::load_pending(const DataPage& page, PageBuffers& buffers) {
    pending_.resize(page.values);
    pending_valid_.resize(max_def_ > 0 ? page.values : 0);
    // A null is an error only when its row is delivered (read, not skipped).
    decode(page, paged_, pending_, pending_valid_, /*defer_nulls=*/true, buffers);
    pending_first_ = paged_;
    pending_offset_ = page.body_offset + page.level_bytes;  // where values() reports errors
    paged_ += page.values;
    pending_next_ = 0;
}

void ColumnCursor::skip(std::size_t rows, PageBuffers& buffers) {
    LADDU_ASSERT(rows <= remaining()) << "skipping " << rows << " of " << remaining() << " rows";
    while (rows > 0) {
        if (pending_next_ < pending_.size()) {
            const std::size_t take = std::min(rows, pending_.size() - pending_next_);
            pending_next_ += take;
            delivered_ += take;
            rows -= take;
            continue;
        }
        const DataPage page = next_page(buffers, nullptr);
        if (page.values <= rows) {
            paged_ += page.values;  // never decoded
            delivered_ += page.values;
            rows -= page.values;
            continue;
        }
        load_pending(page, buffers);
    }
}

std::size_t ColumnCursor::take_pending(std::span<double> out, std::span<std::uint8_t> valid) {
    const std::size_t take = std::min(out.size(), pending_.size() - pending_next_);
    const auto from = static_cast<std::ptrdiff_t>(pending_next_);
    const auto to = from + static_cast<std::ptrdiff_t>(take);
    if (nulls_ == NullPolicy::kError && !pending_valid_.empty()) {
        const auto null = std::find(pending_valid_.begin() + from, pending_valid_.begin() + to, 0);
        if (null != pending_valid_.begin() + to) {
            null_error(pending_first_ + static_cast<std::size_t>(null - pending_valid_.begin()),
                       pending_offset_);
        }
    }
    std::copy(pending_.begin() + from, pending_.begin() + to, out.begin());
    if (!valid.empty() && pending_valid_.empty()) {
        std::fill_n(valid.begin(), take, std::uint8_t{1});
    } else if (!valid.empty()) {
        std::copy(pending_valid_.begin() + from, pending_valid_.begin() + to, valid.begin());
    }
    pending_next_ += take;
    delivered_ += take;
    return take;
}

void ColumnCursor::read(std::span<double> out, PageBuffers& buffers,
                        std::span<std::uint8_t> valid) {
    LADDU_ASSERT(out.size() <= remaining())
        << "reading " << out.size() << " of " << remaining() << " rows";
    LADDU_ASSERT(valid.empty() || valid.size() == out.size()) << "one validity entry per row";
    std::size_t done = 0;
    while (done < out.size()) {
        const std::size_t want = out.size() - done;
        if (pending_next_ < pending_.size()) {
            done += take_pending(out.subspan(done), valid.empty() ? valid : valid.subspan(done));
            continue;
        }
        const DataPage page = next_page(buffers, nullptr);
        if (page.values <= want) {
            // A page that fits is decoded straight into the output.
            decode(page, paged_, out.subspan(done, page.values),
                   valid.empty() ? valid : valid.subspan(done, page.values),
                   /*defer_nulls=*/false, buffers);
            paged_ += page.values;
            delivered_ += page.values;
            done += page.values;
            continue;
        }
        load_pending(page, buffers);
    }
}

ChunkPages ColumnCursor::pages(const ParquetFileReader& reader, std::size_t group,
                               std::size_t column) {
    ColumnCursor cursor(reader, group, column, NullPolicy::kNan);
    PageBuffers buffers;
    ChunkPages pages;
    while (cursor.paged_ < cursor.rows_) {
        cursor.paged_ += cursor.next_page(buffers, &pages).values;
    }
    return pages;
}

}  // namespace laddu::data::parquet
