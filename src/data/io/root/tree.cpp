// TTree, TBranch and TLeaf streamers (the member orders of uproot's models/TTree.py, TBranch.py
// and TLeaf.py). Objects inside a TObjArray are "any" objects: a new class is named once and
// later objects refer to it by its position, so every object is walked in order even when only
// its byte count is used to skip it.
#include "tree.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>

#include <laddu/base/error.hpp>

namespace laddu::data::root {

namespace {

constexpr std::uint32_t kByteCountMask = 0x40000000U;
constexpr std::uint32_t kClassMask = 0x80000000U;
constexpr std::uint32_t kNewClassTag = 0xFFFFFFFFU;
constexpr std::size_t kMapOffset = 2;
constexpr int kMaxDepth = 8;
constexpr std::int64_t kMaxExpansion = 1000;
constexpr std::int64_t kSlackBytes = 4096;

struct LeafInfo {
    std::string class_name;
    std::int32_t length = 0;
    bool is_unsigned = false;
    bool has_count = false;
};

LeafType leaf_type(const LeafInfo& leaf) {
    const std::string& c = leaf.class_name;
    const bool u = leaf.is_unsigned;
    if (c == "TLeafF") {
        return LeafType::kFloat32;
    }
    if (c == "TLeafD") {
        return LeafType::kFloat64;
    }
    if (c == "TLeafB") {
        return u ? LeafType::kUInt8 : LeafType::kInt8;
    }
    if (c == "TLeafS") {
        return u ? LeafType::kUInt16 : LeafType::kInt16;
    }
    if (c == "TLeafI") {
        return u ? LeafType::kUInt32 : LeafType::kInt32;
    }
    if (c == "TLeafL") {
        return u ? LeafType::kUInt64 : LeafType::kInt64;
    }
    if (c == "TLeafO") {
        return LeafType::kBool;
    }
    return LeafType::kUnsupported;
}

/// A TBranch's members as streamed, before they are checked.
struct RawBranch {
    Branch out;
    std::int32_t write_basket = 0;
    std::int32_t max_baskets = 0;
    std::int64_t first_entry = 0;
    std::size_t sub_branches = 0;
    std::size_t embedded = 0;      ///< baskets kept in the TBranch (fBaskets)
    std::string embedded_problem;  ///< why an embedded basket cannot be read ("" if it can)
    std::int32_t embedded_entries = 0;
    std::vector<LeafInfo> leaves;
    std::vector<std::int32_t> bytes;  ///< fBasketBytes, fBasketEntry, fBasketSeek (fMaxBaskets)
    std::vector<std::int64_t> entry;
    std::vector<std::int64_t> seek;
};

// Why a branch cannot be read ("" when it can): the first reason found.
std::string unreadable(RawBranch& raw);

// Moves the written baskets' tables into raw.out, or sets raw.out.unsupported.
void take_baskets(RawBranch& raw);

// Walks the streamed objects of one TTree, remembering the classes named so far.
class Parser {
public:
    Parser(Cursor& cursor, std::size_t keylen) : cursor_(cursor), keylen_(keylen) {}

    Tree tree(const std::string& class_name);

private:
    using Handler = std::function<void(const std::string&)>;

    // TBufferFile::ReadObjectAny: a null, a reference to an earlier object (both skipped), or
    // an object of a new or earlier-named class, parsed by `handler` (given its class).
    void object_any(const Handler& handler);

    // A TObjArray streamed in place; each element through object_any.
    void object_array(const Handler& handler);

    Branch branch(int depth);
    void basket_tables(RawBranch& raw);
    void embedded_basket(RawBranch& raw);
    LeafInfo leaf(const std::string& class_name);

    void skip_unknown(const std::string& class_name) { skip_object(cursor_, class_name); }

    Cursor& cursor_;
    std::size_t keylen_;
    std::map<std::uint64_t, std::string> classes_;
};

void Parser::object_any(const Handler& handler) {
    const std::size_t begin = cursor_.pos();
    std::uint32_t count = cursor_.u32();
    std::uint32_t tag = count;
    std::size_t start = 0;
    const bool counted = (count & kByteCountMask) != 0 && count != kNewClassTag;
    if (counted) {
        start = cursor_.pos();
        tag = cursor_.u32();
        count &= ~kByteCountMask;
        if (count > cursor_.size() - begin - 4) {
            cursor_.seek(begin);
            cursor_.fail(fmt::format("an object's byte count {} runs past the end", count));
        }
    }
    if ((tag & kClassMask) == 0) {
        if (counted) {
            cursor_.seek(begin + 4 + count);
        }
        return;  // a null or a reference to an object already read
    }
    std::string class_name;
    if (tag == kNewClassTag) {
        class_name = cursor_.cstring();
        classes_[counted ? start + keylen_ + kMapOffset : classes_.size() + 1] = class_name;
    } else {
        const auto found = classes_.find(tag & ~kClassMask);
        if (found == classes_.end()) {
            cursor_.seek(begin);
            cursor_.fail(fmt::format("an object refers to class tag {}, which was not defined",
                                     tag & ~kClassMask));
        }
        class_name = found->second;
    }
    handler(class_name);
    if (counted) {
        if (cursor_.pos() > begin + 4 + count) {
            cursor_.fail(fmt::format("a {} object runs past its byte count", class_name));
        }
        cursor_.seek(begin + 4 + count);
    }
}

void Parser::object_array(const Handler& handler) {
    const ObjectHeader header = read_header(cursor_, "TObjArray");
    read_tobject(cursor_);
    (void)cursor_.tstring();
    const std::int32_t size = cursor_.i32();
    (void)cursor_.i32();  // fLowerBound
    if (size < 0 || static_cast<std::size_t>(size) > (header.end - cursor_.pos()) / 4) {
        cursor_.fail(fmt::format("a TObjArray claims {} elements", size));
    }
    for (std::int32_t i = 0; i < size; ++i) {
        object_any(handler);
    }
    if (cursor_.pos() > header.end) {
        cursor_.fail("a TObjArray runs past its byte count");
    }
    cursor_.seek(header.end);
}

LeafInfo Parser::leaf(const std::string& class_name) {
    LeafInfo info;
    info.class_name = class_name;
    const ObjectHeader outer = read_header(cursor_, class_name);
    const ObjectHeader base = read_header(cursor_, "TLeaf");
    (void)read_tnamed(cursor_);
    info.length = cursor_.i32();
    cursor_.skip(8);  // fLenType, fOffset
    cursor_.skip(1);  // fIsRange
    info.is_unsigned = cursor_.u8() != 0;
    object_any([&](const std::string& counter) {
        info.has_count = true;
        skip_unknown(counter);
    });
    if (cursor_.pos() > base.end) {
        cursor_.fail("a TLeaf runs past its byte count");
    }
    cursor_.seek(outer.end);
    return info;
}

Branch Parser::branch(int depth) {
    if (depth > kMaxDepth) {
        cursor_.fail("branches are nested too deeply");
    }
    const ObjectHeader header = read_header(cursor_, "TBranch");
    const int version = header.version;
    if (version < 10 || version > 13) {
        cursor_.fail(fmt::format("TBranch class version {} is not supported (laddu-cpp reads "
                                 "versions 10 to 13, ROOT 5.30 and later)",
                                 version));
    }
    RawBranch raw;
    raw.out.class_name = "TBranch";
    raw.out.name = read_tnamed(cursor_).first;
    skip_object(cursor_, "TAttFill");
    cursor_.skip(12);  // fCompress, fBasketSize, fEntryOffsetLen
    raw.write_basket = cursor_.i32();
    cursor_.skip(8);  // fEntryNumber
    if (version >= 13) {
        skip_object(cursor_, "ROOT::TIOFeatures");
    }
    cursor_.skip(4);  // fOffset
    raw.max_baskets = cursor_.i32();
    cursor_.skip(4);  // fSplitLevel
    raw.out.entries = cursor_.i64();
    raw.first_entry = version >= 11 ? cursor_.i64() : 0;
    cursor_.skip(16);  // fTotBytes, fZipBytes
    object_array([&](const std::string& cls) {
        ++raw.sub_branches;
        if (cls == "TBranch") {
            (void)branch(depth + 1);
        } else {
            skip_unknown(cls);
        }
    });
    object_array([&](const std::string& cls) {
        if (cls.rfind("TLeaf", 0) == 0 && cls != "TLeafElement" && cls != "TLeafObject") {
            raw.leaves.push_back(leaf(cls));
        } else {
            raw.leaves.push_back(LeafInfo{cls, 0, false, false});
            skip_unknown(cls);
        }
    });
    object_array([&](const std::string& cls) {
        ++raw.embedded;
        if (cls == "TBasket") {
            embedded_basket(raw);
        } else {
            skip_unknown(cls);
        }
    });
    basket_tables(raw);
    if (cursor_.pos() > header.end) {
        cursor_.fail(fmt::format("branch '{}' runs past its byte count", raw.out.name));
    }
    cursor_.seek(header.end);
    raw.out.unsupported = unreadable(raw);
    if (raw.out.unsupported.empty()) {
        take_baskets(raw);
    }
    if (raw.out.unsupported.empty()) {
        raw.out.type = leaf_type(raw.leaves[0]);
    } else {
        raw.out.type = LeafType::kUnsupported;
        raw.out.basket_entry.clear();
        raw.out.basket_seek.clear();
        raw.out.basket_bytes.clear();
    }
    return std::move(raw.out);
}

// TBasket::Streamer writes a basket kept in memory as its TKey's members, the basket header
// (the last 19 bytes of fKeylen), a flag, then, for a fixed-size leaf, the buffer: fKeylen bytes
// of key again and the fLast - fKeylen value bytes, uncompressed (uproot's models/TBasket.py
// reads it the same way). A basket with an entry-offset table is a variable-size leaf.
void Parser::embedded_basket(RawBranch& raw) {
    constexpr std::size_t kHeader = 19;
    const std::size_t start = cursor_.pos();
    cursor_.skip(4 + 2 + 4 + 4);  // fNbytes, fVersion, fObjlen, fDatime
    const std::int16_t keylen = cursor_.i16();
    if (keylen < static_cast<std::int16_t>(kHeader + 18)) {
        cursor_.fail(
            fmt::format("a TBasket kept in branch '{}' has fKeylen {}", raw.out.name, keylen));
    }
    cursor_.seek(start + static_cast<std::size_t>(keylen) - kHeader);
    cursor_.skip(2 + 4);  // fVersion, fBufferSize
    const std::int32_t entry_size = cursor_.i32();
    const std::int32_t entries = cursor_.i32();
    const std::int32_t last = cursor_.i32();
    cursor_.skip(1);  // flag
    if (entry_size < 0 || entries < 0 || last < keylen) {
        cursor_.fail(fmt::format("a TBasket kept in branch '{}' has fNevBufSize {}, fNevBuf {}, "
                                 "fLast {}",
                                 raw.out.name, entry_size, entries, last));
    }
    if (!raw.embedded_problem.empty() || raw.embedded > 1) {
        raw.embedded_problem = "it keeps several baskets inside the TTree";
        return;  // object_any skips the rest by the byte count
    }
    if (std::int64_t{entry_size} * entries + keylen != last) {
        raw.embedded_problem = "the basket kept inside the TTree has an entry-offset table (a "
                               "variable-size leaf)";
        return;
    }
    cursor_.skip(static_cast<std::size_t>(keylen));  // the buffer's copy of the key
    const auto values = cursor_.bytes(static_cast<std::size_t>(last - keylen));
    raw.out.embedded.assign(values.begin(), values.end());
    raw.embedded_entries = entries;
}

void Parser::basket_tables(RawBranch& raw) {
    if (raw.max_baskets < 0 ||
        static_cast<std::size_t>(raw.max_baskets) > cursor_.remaining() / 20) {
        cursor_.fail(fmt::format("branch '{}' claims {} baskets", raw.out.name, raw.max_baskets));
    }
    const auto n = static_cast<std::size_t>(raw.max_baskets);
    cursor_.skip(1);  // each array is preceded by a flag byte
    raw.bytes.resize(n);
    for (auto& b : raw.bytes) {
        b = cursor_.i32();
    }
    cursor_.skip(1);
    raw.entry.resize(n);
    for (auto& e : raw.entry) {
        e = cursor_.i64();
    }
    cursor_.skip(1);
    raw.seek.resize(n);
    for (auto& s : raw.seek) {
        s = cursor_.i64();
    }
}

std::string unreadable(RawBranch& raw) {
    if (raw.sub_branches > 0) {
        return fmt::format("it has {} sub-branches (a split object)", raw.sub_branches);
    }
    if (raw.leaves.size() != 1) {
        return fmt::format("it has {} leaves (a leaf list); write one branch per value",
                           raw.leaves.size());
    }
    if (leaf_type(raw.leaves[0]) == LeafType::kUnsupported) {
        return fmt::format("its leaf type {} is not a number type laddu-cpp reads",
                           raw.leaves[0].class_name);
    }
    if (raw.leaves[0].length != 1 || raw.leaves[0].has_count) {
        return "it holds an array per entry, not one value";
    }
    if (raw.write_basket < 0 || raw.write_basket > raw.max_baskets) {
        raw.out.damaged = true;
        return fmt::format("fWriteBasket {} is outside its {} baskets", raw.write_basket,
                           raw.max_baskets);
    }
    if (raw.first_entry != 0 || raw.out.entries < 0) {
        raw.out.damaged = true;
        return fmt::format("its entries start at {}, not 0", raw.first_entry);
    }
    return {};
}

void take_baskets(RawBranch& raw) {
    Branch& out = raw.out;
    const auto written = static_cast<std::size_t>(raw.write_basket);
    const auto used = static_cast<std::ptrdiff_t>(written);
    // Past the written baskets, fBasketEntry holds where the next basket would start: fewer
    // entries than the branch has means the rest are in a basket kept inside the TTree.
    const std::int64_t on_file = written < raw.entry.size() ? raw.entry[written] : out.entries;
    const std::size_t item = leaf_size(leaf_type(raw.leaves[0]));
    const bool embedded =
        raw.embedded_problem.empty() && raw.embedded_entries > 0 && on_file >= 0 &&
        on_file < out.entries && out.entries - on_file == raw.embedded_entries &&
        out.embedded.size() == static_cast<std::size_t>(raw.embedded_entries) * item;
    out.basket_bytes.assign(raw.bytes.begin(), raw.bytes.begin() + used);
    out.basket_seek.assign(raw.seek.begin(), raw.seek.begin() + used);
    out.basket_entry.assign(raw.entry.begin(), raw.entry.begin() + used);
    out.basket_entry.push_back(embedded ? on_file : out.entries);
    // Each entry takes at least one byte, and no basket compresses 1000-fold: a count past
    // that bound is damage, and refusing it bounds what reading the basket allocates.
    bool ordered = out.basket_entry.front() == 0;
    for (std::size_t b = 0; b < written; ++b) {
        ordered = ordered && out.basket_entry[b] <= out.basket_entry[b + 1] &&
                  out.basket_bytes[b] > 0 && out.basket_seek[b] > 0 &&
                  out.basket_entry[b + 1] - out.basket_entry[b] <=
                      kMaxExpansion * std::int64_t{out.basket_bytes[b]} + kSlackBytes;
    }
    if (embedded && ordered) {
        out.basket_entry.push_back(out.entries);
        out.basket_seek.push_back(0);
        out.basket_bytes.push_back(0);
        return;
    }
    out.embedded.clear();
    if (!ordered) {
        out.damaged = true;
        out.unsupported = "its basket tables (fBasketEntry, fBasketSeek, fBasketBytes) are not "
                          "ordered, positive and of plausible sizes (the TTree metadata is "
                          "damaged)";
    } else if (on_file < out.entries) {
        out.unsupported =
            fmt::format("its entries from {} on should be in a basket kept inside "
                        "the TTree, but {}",
                        on_file,
                        !raw.embedded_problem.empty() ? raw.embedded_problem
                        : raw.embedded == 0 ? std::string("there is none (the file was not "
                                                          "closed cleanly)")
                                            : std::string("the one there holds other entries"));
    }
}

Tree Parser::tree(const std::string& class_name) {
    if (class_name != "TTree") {
        (void)read_header(cursor_, class_name);  // TNtuple(D): a TTree base, then fNvar
    }
    const ObjectHeader header = read_header(cursor_, "TTree");
    const int version = header.version;
    if (version < 16 || version > 20) {
        cursor_.fail(fmt::format("TTree class version {} is not supported (laddu-cpp reads "
                                 "versions 16 to 20, ROOT 5.16 and later)",
                                 version));
    }
    skip_object(cursor_, "TNamed");
    skip_object(cursor_, "TAttLine");
    skip_object(cursor_, "TAttFill");
    skip_object(cursor_, "TAttMarker");
    Tree out;
    out.entries = cursor_.i64();
    if (out.entries < 0) {
        cursor_.fail(fmt::format("the TTree has {} entries", out.entries));
    }
    if (version <= 17) {
        cursor_.skip(version == 16 ? 84 : 88);
    } else if (version == 18) {
        cursor_.skip(104);
    } else {
        cursor_.skip(56);
        const std::uint32_t ranges = cursor_.u32();
        cursor_.skip(48);
        if (ranges > cursor_.remaining() / 16) {
            cursor_.fail(fmt::format("the TTree claims {} cluster ranges", ranges));
        }
        cursor_.skip(1 + 8 * std::size_t{ranges});  // fClusterRangeEnd
        cursor_.skip(1 + 8 * std::size_t{ranges});  // fClusterSize
        if (version == 20) {
            skip_object(cursor_, "ROOT::TIOFeatures");
        }
    }
    object_array([&](const std::string& cls) {
        if (cls == "TBranch") {
            out.branches.push_back(branch(0));
            return;
        }
        // TBranchElement / TBranchObject: a TBranch base first; keep the name for errors.
        // Its own TBranch base may be of another version: then only its byte count is used.
        const ObjectHeader outer = read_header(cursor_, cls);
        Branch other;
        try {
            other = branch(0);
        } catch (const DataError&) {
            other = Branch{};
        }
        other.class_name = cls;
        other.type = LeafType::kUnsupported;
        other.unsupported = fmt::format("it is a {} (an object or STL branch)", cls);
        other.basket_entry.clear();
        if (!other.name.empty()) {
            out.branches.push_back(std::move(other));
        }
        cursor_.seek(outer.end);
    });
    return out;
}

}  // namespace

std::size_t leaf_size(LeafType type) noexcept {
    switch (type) {
    case LeafType::kInt8:
    case LeafType::kUInt8:
    case LeafType::kBool:
        return 1;
    case LeafType::kInt16:
    case LeafType::kUInt16:
        return 2;
    case LeafType::kFloat32:
    case LeafType::kInt32:
    case LeafType::kUInt32:
        return 4;
    case LeafType::kFloat64:
    case LeafType::kInt64:
    case LeafType::kUInt64:
        return 8;
    case LeafType::kUnsupported:
        break;
    }
    return 0;
}

Tree parse_tree(std::span<const std::uint8_t> data, std::size_t keylen,
                const std::string& class_name, const ErrorSite& site) {
    Cursor cursor(data, site);
    Parser parser(cursor, keylen);
    return parser.tree(class_name);
}

}  // namespace laddu::data::root
