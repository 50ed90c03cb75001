// laddu/ir/fuse_product_parts.hpp: a complex product read only through its parts, as real dots.
// A reverse-mode gradient ends in such products: a coupling's adjoint is ȳ·conj(a) for each
// amplitude a it multiplies, and its real and imaginary parameters read Re and Im of it. As one
// Complex kMul that is four multiplications and two sums per event; as two Real kDots
// (docs/ir.md) it is two multiplications and two fused multiply-adds.
#pragma once

#include <laddu/ir/program.hpp>

namespace laddu::ir {

/// `program` with every kMul of two Complex values whose every use is a kReal or kImag (not an
/// output) replaced by Real kDots of the parts those uses read: with P = p_re + i·p_im and
/// Q = q_re + i·q_im,
///     Re(P·Q) = dot([p_re, -p_im], [q_re, q_im]) = fma(-p_im, q_im, p_re·q_re),
///     Im(P·Q) = dot([p_re,  p_im], [q_im, q_re]) = fma( p_im, q_re, p_re·q_im),
/// where a factor conj(z) (kConj) enters with z's parts and the signs that follow, the
/// negations land on P's parts (one kNeg per value, shared by every product that needs it) and
/// a constant's parts are constants. Each part is rounded once less than in the product, so
/// its last bit may differ from Re or Im of the kMul; every backend gives the same bits for the
/// result (kDot's contract). A kConj used only by replaced products is dropped; inputs,
/// parameters and outputs are unchanged.
[[nodiscard]] Program fuse_product_parts(const Program& program);

}  // namespace laddu::ir
