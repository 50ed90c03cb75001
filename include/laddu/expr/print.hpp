// laddu/expr/print.hpp: readable text of expressions (renderings as laddu writes them, DOT
// among them, are in render.hpp).
//
// to_string() prints infix text. Non-leaf nodes used more than once are printed once as
// numbered bindings ("t1 = ...") before the final expression, so the text grows with the DAG,
// not with the expanded tree.
#pragma once

#include <iosfwd>
#include <string>

#include <laddu/expr/expr.hpp>

namespace laddu::expr {

/// Readable infix text of `root`, e.g. "norm_sqr((c * cache) + 2)".
[[nodiscard]] std::string to_string(const Expr& root);

/// Writes to_string(e) (so test frameworks print expressions).
std::ostream& operator<<(std::ostream& out, const Expr& e);

}  // namespace laddu::expr
