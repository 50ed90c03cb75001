// Bounds-checked big-endian reads and the object headers of ROOT's streamer format.
#include "cursor.hpp"

#include <fmt/format.h>

#include <laddu/base/error.hpp>

namespace laddu::data::root {

namespace {

constexpr std::uint32_t kByteCountMask = 0x40000000U;
constexpr std::uint16_t kByteCountVMask = 0x4000U;
constexpr std::uint32_t kIsReferenced = 1U << 4U;
constexpr std::size_t kMaxClassName = 256;

}  // namespace

void fail(const ErrorSite& site, std::uint64_t offset, std::string_view what) {
    const std::string where = site.in_file
                                  ? fmt::format("byte {}", site.base + offset)
                                  : fmt::format("byte {} of its uncompressed data", offset);
    throw DataError(fmt::format("ROOT file '{}', {} ({}): {}; the file is truncated, damaged or "
                                "not a flat TTree laddu-cpp can read (check it with uproot or "
                                "ROOT, or write it again)",
                                site.file, site.object, where, what));
}

void Cursor::need(std::size_t count) const {
    if (count > remaining()) {
        fail(fmt::format("needs {} bytes, but only {} remain", count, remaining()));
    }
}

void Cursor::fail(std::string_view what) const {
    root::fail(*site_, pos_, what);
}

void Cursor::seek(std::size_t pos) {
    if (pos > data_.size()) {
        fail(fmt::format("position {} is past the end ({} bytes)", pos, data_.size()));
    }
    pos_ = pos;
}

void Cursor::skip(std::size_t count) {
    need(count);
    pos_ += count;
}

std::uint8_t Cursor::u8() {
    need(1);
    return data_[pos_++];
}

std::uint16_t Cursor::u16() {
    need(2);
    const auto value = static_cast<std::uint16_t>((unsigned{data_[pos_]} << 8U) | data_[pos_ + 1]);
    pos_ += 2;
    return value;
}

std::uint32_t Cursor::u32() {
    need(4);
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        value = (value << 8U) | data_[pos_ + i];
    }
    pos_ += 4;
    return value;
}

std::uint64_t Cursor::u64() {
    need(8);
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        value = (value << 8U) | data_[pos_ + i];
    }
    pos_ += 8;
    return value;
}

std::span<const std::uint8_t> Cursor::bytes(std::size_t count) {
    need(count);
    const auto out = data_.subspan(pos_, count);
    pos_ += count;
    return out;
}

// Names and titles reach error messages, schemas and listings, which must stay one line: a
// control character a damaged (or hostile) file puts in one is kept as the text \xNN.
std::string printable(std::span<const std::uint8_t> chars) {
    std::string out;
    out.reserve(chars.size());
    for (const std::uint8_t c : chars) {
        if (c < 0x20 || c == 0x7f) {
            out += fmt::format("\\x{:02x}", c);
        } else {
            out.push_back(static_cast<char>(c));
        }
    }
    return out;
}

std::string Cursor::tstring() {
    std::size_t length = u8();
    if (length == 255) {
        length = u32();
    }
    return printable(bytes(length));
}

std::string Cursor::cstring() {
    std::string out;
    while (true) {
        const std::uint8_t c = u8();
        if (c == 0) {
            return printable({reinterpret_cast<const std::uint8_t*>(out.data()), out.size()});
        }
        if (out.size() == kMaxClassName) {
            fail("a class name is not terminated within 256 bytes");
        }
        out.push_back(static_cast<char>(c));
    }
}

ObjectHeader read_header(Cursor& cursor, std::string_view class_name) {
    const std::size_t start = cursor.pos();
    const std::uint32_t count = cursor.u32();
    if ((count & kByteCountMask) == 0) {
        cursor.seek(start);
        cursor.fail(fmt::format("the {} object has no byte count (written by ROOT older than "
                                "3.0, which is not supported)",
                                class_name));
    }
    const std::size_t bytes = count & ~kByteCountMask;
    if (bytes < 2 || bytes > cursor.size() - start - 4) {
        cursor.seek(start);
        cursor.fail(fmt::format("the {} object's byte count {} runs past the end of the data",
                                class_name, bytes));
    }
    ObjectHeader header;
    header.end = start + 4 + bytes;
    header.version = cursor.u16();
    return header;
}

void skip_object(Cursor& cursor, std::string_view class_name) {
    cursor.seek(read_header(cursor, class_name).end);
}

void read_tobject(Cursor& cursor) {
    const std::uint16_t version = cursor.u16();
    if ((version & kByteCountVMask) != 0) {
        cursor.skip(4);
    }
    cursor.skip(4);  // fUniqueID
    const std::uint32_t bits = cursor.u32();
    if ((bits & kIsReferenced) != 0) {
        cursor.skip(2);  // the process id
    }
}

std::pair<std::string, std::string> read_tnamed(Cursor& cursor) {
    const ObjectHeader header = read_header(cursor, "TNamed");
    read_tobject(cursor);
    std::string name = cursor.tstring();
    std::string title = cursor.tstring();
    if (cursor.pos() > header.end) {
        cursor.fail("a TNamed's members run past its byte count");
    }
    cursor.seek(header.end);
    return {std::move(name), std::move(title)};
}

}  // namespace laddu::data::root
