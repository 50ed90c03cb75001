// Big-endian reading of ROOT's serialized bytes, with errors that name the file, the object and
// the byte offset (every read is bounds-checked, so a damaged file is a DataError, never a crash).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace laddu::data::root {

/// Where bytes come from, for error messages: the file, the object, and where the object's
/// bytes start (a file offset, or none for decompressed object data).
struct ErrorSite {
    std::string file;
    std::string object;
    bool in_file = true;  ///< offsets are file offsets (else offsets into uncompressed data)
    std::uint64_t base = 0;
};

/// `chars` with each control character (below 0x20, and 0x7f) written as the text \xNN.
[[nodiscard]] std::string printable(std::span<const std::uint8_t> chars);

/// Throws the DataError "ROOT file 'f', object o (byte n): what; advice".
[[noreturn]] void fail(const ErrorSite& site, std::uint64_t offset, std::string_view what);

/// A bounds-checked big-endian reader over bytes of one object.
class Cursor {
public:
    Cursor(std::span<const std::uint8_t> data, const ErrorSite& site) : data_(data), site_(&site) {}

    [[nodiscard]] std::size_t pos() const noexcept { return pos_; }

    [[nodiscard]] std::size_t size() const noexcept { return data_.size(); }

    [[nodiscard]] std::size_t remaining() const noexcept { return data_.size() - pos_; }

    [[nodiscard]] const ErrorSite& site() const noexcept { return *site_; }

    /// Moves to `pos` (at most the end).
    void seek(std::size_t pos);
    void skip(std::size_t count);

    [[nodiscard]] std::uint8_t u8();
    [[nodiscard]] std::uint16_t u16();
    [[nodiscard]] std::uint32_t u32();
    [[nodiscard]] std::uint64_t u64();

    [[nodiscard]] std::int16_t i16() { return static_cast<std::int16_t>(u16()); }

    [[nodiscard]] std::int32_t i32() { return static_cast<std::int32_t>(u32()); }

    [[nodiscard]] std::int64_t i64() { return static_cast<std::int64_t>(u64()); }

    /// A TString: a length byte (255: a 4-byte length follows) and the characters, control
    /// characters written as \xNN (printable()).
    [[nodiscard]] std::string tstring();

    /// A NUL-terminated string (a class name in an object tag), at most 256 characters.
    [[nodiscard]] std::string cstring();

    /// The next `count` bytes.
    [[nodiscard]] std::span<const std::uint8_t> bytes(std::size_t count);

    /// Throws a DataError at the current position.
    [[noreturn]] void fail(std::string_view what) const;

private:
    void need(std::size_t count) const;

    std::span<const std::uint8_t> data_;
    const ErrorSite* site_;
    std::size_t pos_ = 0;
};

/// The byte-count + version header of a streamed object.
struct ObjectHeader {
    std::size_t end = 0;  ///< the position just past the object
    int version = 0;
};

/// Reads the header of an object of class `class_name`, which must carry a byte count (all
/// objects written since ROOT 3 do) that stays inside the data.
[[nodiscard]] ObjectHeader read_header(Cursor& cursor, std::string_view class_name);

/// Skips a whole object with a byte-count header.
void skip_object(Cursor& cursor, std::string_view class_name);

/// Reads a TObject's members (version, unique id, bits, and a process id when referenced).
void read_tobject(Cursor& cursor);

/// Reads a TNamed (header, TObject, name, title); returns the name and the title.
[[nodiscard]] std::pair<std::string, std::string> read_tnamed(Cursor& cursor);

}  // namespace laddu::data::root
