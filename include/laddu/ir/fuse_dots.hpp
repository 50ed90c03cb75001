// laddu/ir/fuse_dots.hpp: sums of products as kDot. A sum whose terms are products,
// Σ_k a_k·b_k, is the IR's kDot, which every backend evaluates with fused multiply-adds
// (docs/ir.md): one rounding per product instead of two, and about half the operations of the
// separate multiplications and additions (the coupling sums of amplitude models). The compiler
// applies it to every program it lowers, autodiff to every gradient program.
#pragma once

#include <laddu/ir/program.hpp>

namespace laddu::ir {

/// `program` with every kAddN that has at least one product operand (a kMul, or a kMulN of
/// two or more factors, used by this sum alone) replaced by a kDot over the same terms in the
/// same order: a product a·…·y·z enters as the pair (a·…·y, z), any other term x as (x, 1).
/// The absorbed products are dropped, and so is every instruction no output reads; inputs,
/// parameters and outputs are unchanged. In every product (kMul, or a pair of a kDot) of two
/// Complex factors, a factor x + i·0 (kComplex of a constant zero imaginary part, as a
/// coupling whose imaginary part is fixed; or such a constant) enters as the Real x: two real
/// products instead of four and two sums, with the same bits wherever the other factor is
/// finite (but for the sign of a zero part).
[[nodiscard]] Program fuse_dots(const Program& program);

}  // namespace laddu::ir
