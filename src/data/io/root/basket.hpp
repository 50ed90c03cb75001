// Reading one basket of a flat branch: its key, its (decompressed) bytes, its values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <laddu/base/aligned.hpp>

#include "root_file.hpp"
#include "tree.hpp"

namespace laddu::data::root {

/// The byte buffers a reader reuses from basket to basket, so that reading a tree allocates
/// (and the kernel zero-fills pages) once, not once per basket.
struct BasketScratch {
    std::vector<std::uint8_t> stored;  ///< the basket's key and (compressed) bytes
    std::vector<std::uint8_t> data;    ///< its decompressed bytes
};

/// The values of basket `basket` of `branch` (a readable branch of a tree in `file`) as
/// doubles in `out` (resized to the entries the basket holds). Every size in the basket's key
/// is checked against the branch's tables and the file before anything is allocated; a
/// mismatch is a DataError naming the branch, the basket and its file offset.
void read_basket(const RootFile& file, const Branch& branch, std::size_t basket,
                 BasketScratch& scratch, AlignedVector<double>& out);

}  // namespace laddu::data::root
