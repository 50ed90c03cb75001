// The parts of a streamed TTree a flat reader needs: the entry count and, per branch, its leaf
// type and where its baskets are. Read member by member as uproot's models do (TTree versions
// 16-20, TBranch 10-13), skipping what is not needed by the byte counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cursor.hpp"

namespace laddu::data::root {

/// The value type of a flat branch.
enum class LeafType : unsigned char {
    kFloat32,
    kFloat64,
    kInt8,
    kUInt8,
    kInt16,
    kUInt16,
    kInt32,
    kUInt32,
    kInt64,
    kUInt64,
    kBool,
    kUnsupported,  ///< anything else: `Branch::unsupported` says why
};

/// Bytes per value of `type` (0 for kUnsupported).
[[nodiscard]] std::size_t leaf_size(LeafType type) noexcept;

/// One top-level branch.
struct Branch {
    std::string name;
    std::string class_name;  ///< TBranch, TBranchElement, ...
    LeafType type = LeafType::kUnsupported;
    std::string unsupported;  ///< why a kUnsupported branch cannot be read
    bool damaged = false;     ///< its metadata is inconsistent (not merely an unsupported kind)
    std::int64_t entries = 0;
    /// Baskets: first entry of each (plus the end entry), file offset, bytes on file. A basket
    /// with offset 0 is the one kept inside the TTree (always the last): its values are
    /// `embedded`.
    std::vector<std::int64_t> basket_entry;
    std::vector<std::int64_t> basket_seek;
    std::vector<std::int32_t> basket_bytes;
    /// The uncompressed big-endian values of the basket kept inside the TTree (fBaskets), which
    /// ROOT 5, an interrupted job or TDirectory::WriteObject leave there; empty when none.
    std::vector<std::uint8_t> embedded;
};

/// A TTree's entry count and top-level branches.
struct Tree {
    std::int64_t entries = 0;
    std::vector<Branch> branches;
};

/// Parses the streamed `class_name` (TTree, TNtuple, TNtupleD) object `data` whose key is
/// `keylen` bytes (object references count from the key's start). Each branch's basket tables
/// are checked (ascending entries, fWriteBasket within fMaxBaskets, entries covered by baskets
/// on file or kept inside the TTree); a branch that fails is kUnsupported with the reason (and
/// `damaged` unless it is only of a kind laddu-cpp does not read).
[[nodiscard]] Tree parse_tree(std::span<const std::uint8_t> data, std::size_t keylen,
                              const std::string& class_name, const ErrorSite& site);

}  // namespace laddu::data::root
