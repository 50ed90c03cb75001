#include "thrift.hpp"

#include <cstdint>

#include <fmt/format.h>

#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>

namespace laddu::data::parquet {

namespace {

// Footers of real files nest 5 deep (FileMetaData > RowGroup > ColumnChunk > ColumnMetaData >
// Statistics); anything far deeper is corrupt.
constexpr int kMaxDepth = 32;

}  // namespace

void fail_at(const ErrorSite& site, std::uint64_t offset, const std::string& what) {
    std::string message = fmt::format("Parquet file '{}'", site.file);
    if (!site.column.empty()) {
        message += fmt::format(", column '{}'", site.column);
    }
    message += fmt::format(", byte offset {}: {}", offset, what);
    throw DataError(message);
}

void ThriftReader::fail(const std::string& what) const {
    fail_at(site_, offset(), what);
}

std::uint8_t ThriftReader::read_byte() {
    if (pos_ >= bytes_.size()) {
        fail("Thrift structure runs past the end of its buffer (corrupt metadata or header)");
    }
    return bytes_[pos_++];
}

std::uint64_t ThriftReader::read_varint() {
    std::uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        const std::uint8_t byte = read_byte();
        result |= static_cast<std::uint64_t>(byte & 0x7FU) << shift;
        if ((byte & 0x80U) == 0) {
            return result;
        }
    }
    fail("Thrift varint longer than 10 bytes");
}

std::int64_t ThriftReader::read_zigzag() {
    const std::uint64_t raw = read_varint();
    return static_cast<std::int64_t>(raw >> 1) ^ -static_cast<std::int64_t>(raw & 1U);
}

std::int64_t ThriftReader::read_integer(ThriftType type) {
    switch (type) {
    case ThriftType::kByte:
        return static_cast<std::int8_t>(read_byte());
    case ThriftType::kI16:
    case ThriftType::kI32:
    case ThriftType::kI64:
        return read_zigzag();
    default:
        fail(fmt::format("expected an integer, found Thrift type {}", static_cast<int>(type)));
    }
}

void ThriftReader::begin_struct() {
    if (last_ids_.size() >= static_cast<std::size_t>(kMaxDepth)) {
        fail("Thrift structs nested too deeply");
    }
    last_ids_.push_back(0);
}

bool ThriftReader::next_field(ThriftField& field) {
    LADDU_ASSERT(!last_ids_.empty()) << "next_field outside a struct";
    const std::uint8_t header = read_byte();
    const auto type = static_cast<ThriftType>(header & 0x0FU);
    if (type == ThriftType::kStop) {
        last_ids_.pop_back();
        return false;
    }
    if (static_cast<std::uint8_t>(type) > static_cast<std::uint8_t>(ThriftType::kStruct)) {
        fail(fmt::format("unknown Thrift field type {}", static_cast<int>(type)));
    }
    const unsigned delta = header >> 4U;
    std::int64_t id = 0;
    if (delta != 0) {
        id = last_ids_.back() + static_cast<std::int64_t>(delta);
    } else {
        id = read_zigzag();
    }
    if (id < -32768 || id > 32767) {
        fail("Thrift field id out of range");
    }
    field.id = static_cast<std::int16_t>(id);
    field.type = type;
    last_ids_.back() = field.id;
    return true;
}

void ThriftReader::expect(const ThriftField& field, ThriftType wanted) const {
    const bool both_bool =
        (field.type == ThriftType::kBoolTrue || field.type == ThriftType::kBoolFalse) &&
        (wanted == ThriftType::kBoolTrue || wanted == ThriftType::kBoolFalse);
    if (field.type != wanted && !both_bool) {
        fail(fmt::format("Thrift field {} has type {}, expected {}", field.id,
                         static_cast<int>(field.type), static_cast<int>(wanted)));
    }
}

std::int64_t ThriftReader::read_int(const ThriftField& field, std::int64_t lo, std::int64_t hi) {
    const std::int64_t value = read_integer(field.type);
    if (value < lo || value > hi) {
        fail(fmt::format("Thrift field {} = {} is out of range [{}, {}]", field.id, value, lo, hi));
    }
    return value;
}

std::int32_t ThriftReader::read_i32(const ThriftField& field) {
    return static_cast<std::int32_t>(read_int(field, INT32_MIN, INT32_MAX));
}

std::int64_t ThriftReader::read_i64(const ThriftField& field) {
    return read_int(field, INT64_MIN, INT64_MAX);
}

bool ThriftReader::read_bool(const ThriftField& field) const {
    expect(field, ThriftType::kBoolTrue);
    return field.type == ThriftType::kBoolTrue;
}

std::span<const std::uint8_t> ThriftReader::read_binary(const ThriftField& field) {
    expect(field, ThriftType::kBinary);
    const std::uint64_t size = read_varint();
    if (size > bytes_.size() - pos_) {
        fail(fmt::format("Thrift binary of {} bytes runs past the end of its buffer", size));
    }
    const auto result = bytes_.subspan(pos_, static_cast<std::size_t>(size));
    pos_ += static_cast<std::size_t>(size);
    return result;
}

std::string ThriftReader::read_string(const ThriftField& field) {
    const auto raw = read_binary(field);
    return {reinterpret_cast<const char*>(raw.data()), raw.size()};
}

ThriftList ThriftReader::read_list(const ThriftField& field) {
    if (field.type != ThriftType::kList && field.type != ThriftType::kSet) {
        expect(field, ThriftType::kList);
    }
    const std::uint8_t header = read_byte();
    ThriftList list;
    list.element = static_cast<ThriftType>(header & 0x0FU);
    std::uint64_t size = header >> 4U;
    if (size == 15) {
        size = read_varint();
    }
    // Every element takes at least one byte, so a larger count is corrupt (and would otherwise
    // make the caller reserve memory for it).
    if (size > bytes_.size() - pos_) {
        fail(fmt::format("Thrift list of {} elements cannot fit in the remaining {} bytes", size,
                         bytes_.size() - pos_));
    }
    list.size = static_cast<std::size_t>(size);
    return list;
}

void ThriftReader::expect_element(ThriftType element, ThriftType wanted) const {
    if (element != wanted) {
        fail(fmt::format("Thrift list element type {}, expected {}", static_cast<int>(element),
                         static_cast<int>(wanted)));
    }
}

std::int64_t ThriftReader::read_list_int(ThriftType element, std::int64_t lo, std::int64_t hi) {
    const std::int64_t value = read_integer(element);
    if (value < lo || value > hi) {
        fail(fmt::format("Thrift list value {} is out of range [{}, {}]", value, lo, hi));
    }
    return value;
}

std::string ThriftReader::read_list_string(ThriftType element) {
    return read_string(ThriftField{0, element});
}

void ThriftReader::skip(ThriftType type) {
    skip_value(type, static_cast<int>(last_ids_.size()));
}

void ThriftReader::skip_value(ThriftType type, int depth) {
    if (depth > kMaxDepth) {
        fail("Thrift values nested too deeply");
    }
    switch (type) {
    case ThriftType::kBoolTrue:
    case ThriftType::kBoolFalse:
        return;
    case ThriftType::kByte:
        read_byte();
        return;
    case ThriftType::kI16:
    case ThriftType::kI32:
    case ThriftType::kI64:
        read_varint();
        return;
    case ThriftType::kDouble:
        for (int i = 0; i < 8; ++i) {
            read_byte();
        }
        return;
    case ThriftType::kBinary:
        read_binary(ThriftField{0, type});
        return;
    case ThriftType::kList:
    case ThriftType::kSet: {
        const ThriftList list = read_list(ThriftField{0, type});
        for (std::size_t i = 0; i < list.size; ++i) {
            // Bools inside containers take one byte each.
            if (list.element == ThriftType::kBoolTrue || list.element == ThriftType::kBoolFalse) {
                read_byte();
            } else {
                skip_value(list.element, depth + 1);
            }
        }
        return;
    }
    case ThriftType::kMap: {
        const std::uint64_t size = read_varint();
        if (size == 0) {
            return;
        }
        if (size > bytes_.size() - pos_) {
            fail("Thrift map larger than its buffer");
        }
        const std::uint8_t kinds = read_byte();
        const auto key = static_cast<ThriftType>(kinds >> 4U);
        const auto value = static_cast<ThriftType>(kinds & 0x0FU);
        for (std::uint64_t i = 0; i < size; ++i) {
            skip_value(key, depth + 1);
            skip_value(value, depth + 1);
        }
        return;
    }
    case ThriftType::kStruct: {
        begin_struct();
        ThriftField field;
        while (next_field(field)) {
            skip_value(field.type, depth + 1);
        }
        return;
    }
    case ThriftType::kStop:
        break;
    }
    fail(fmt::format("cannot skip Thrift type {}", static_cast<int>(type)));
}

void ThriftWriter::varint(std::uint64_t value) {
    while (value >= 0x80U) {
        out_.push_back(static_cast<std::uint8_t>((value & 0x7FU) | 0x80U));
        value >>= 7U;
    }
    out_.push_back(static_cast<std::uint8_t>(value));
}

void ThriftWriter::zigzag(std::int64_t value) {
    varint((static_cast<std::uint64_t>(value) << 1U) ^ static_cast<std::uint64_t>(value >> 63));
}

void ThriftWriter::begin_struct() {
    last_ids_.push_back(0);
}

void ThriftWriter::end_struct() {
    out_.push_back(0);
    last_ids_.pop_back();
}

void ThriftWriter::field_header(std::int16_t id, ThriftType type) {
    const int delta = id - last_ids_.back();
    if (delta > 0 && delta <= 15) {
        out_.push_back(static_cast<std::uint8_t>((delta << 4) | static_cast<int>(type)));
    } else {
        out_.push_back(static_cast<std::uint8_t>(type));
        zigzag(id);
    }
    last_ids_.back() = id;
}

void ThriftWriter::field_i32(std::int16_t id, std::int32_t value) {
    field_header(id, ThriftType::kI32);
    zigzag(value);
}

void ThriftWriter::field_i64(std::int16_t id, std::int64_t value) {
    field_header(id, ThriftType::kI64);
    zigzag(value);
}

void ThriftWriter::field_bool(std::int16_t id, bool value) {
    field_header(id, value ? ThriftType::kBoolTrue : ThriftType::kBoolFalse);
}

void ThriftWriter::field_binary(std::int16_t id, std::span<const std::uint8_t> value) {
    field_header(id, ThriftType::kBinary);
    varint(value.size());
    out_.insert(out_.end(), value.begin(), value.end());
}

void ThriftWriter::field_string(std::int16_t id, const std::string& value) {
    field_binary(id, {reinterpret_cast<const std::uint8_t*>(value.data()), value.size()});
}

void ThriftWriter::field_struct(std::int16_t id) {
    field_header(id, ThriftType::kStruct);
    begin_struct();
}

void ThriftWriter::field_list(std::int16_t id, ThriftType element, std::size_t size) {
    field_header(id, ThriftType::kList);
    if (size < 15) {
        out_.push_back(static_cast<std::uint8_t>((size << 4U) | static_cast<unsigned>(element)));
    } else {
        out_.push_back(static_cast<std::uint8_t>(0xF0U | static_cast<unsigned>(element)));
        varint(size);
    }
}

void ThriftWriter::list_i32(std::int32_t value) {
    zigzag(value);
}

void ThriftWriter::list_string(const std::string& value) {
    varint(value.size());
    out_.insert(out_.end(), value.begin(), value.end());
}

}  // namespace laddu::data::parquet
