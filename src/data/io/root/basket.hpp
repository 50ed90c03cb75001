// Reading one basket of a flat branch: its key, its (decompressed) bytes, its values.
#pragma once

#include <cstddef>

#include <laddu/base/aligned.hpp>

#include "root_file.hpp"
#include "tree.hpp"

namespace laddu::data::root {

/// The values of basket `basket` of `branch` (a readable branch of a tree in `file`) as
/// doubles, one per entry the basket holds. Every size in the basket's key is checked against
/// the branch's tables and the file before anything is allocated; a mismatch is a DataError
/// naming the branch, the basket and its file offset.
[[nodiscard]] AlignedVector<double> read_basket(const RootFile& file, const Branch& branch,
                                                std::size_t basket);

}  // namespace laddu::data::root
