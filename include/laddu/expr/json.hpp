// laddu/expr/json.hpp: expressions and models as JSON, in laddu's format.
//
// laddu 0.21.4 writes an expression graph as {"root": i, "nodes": [...], "metadata": [...]}:
// the nodes in an order where every node comes after its children, each an externally tagged
// object ({"Binary": {"op": "Mul", "lhs": 0, "rhs": 1}}, {"EventScalar": "x"},
// {"ScalarParam": {...parameter definition...}}, {"RealConst": 1.0}, {"ComplexConst": [re, im]},
// ...), and per node its metadata {"source": "Binary", "name": null, "tags": [...]}. A model is
// the graph of its intensity (fixed parameters carry their state). laddu-cpp writes exactly that
// form, with the operations laddu lacks under their own names ("Tan", "Abs", "Pow", ...), and
// reads it back to the same expression node for node, so a round trip keeps every parameter, tag
// and value. Parameter fields laddu has and laddu-cpp does not (scale, description) are read and
// dropped: they do not change values; the latex label is kept (renderings print it). Numbers are
// written as laddu writes them: the shortest digits that read back to the same doubles, in
// serde_json's notation (base/json_numbers.hpp).
#pragma once

#include <string>
#include <string_view>

#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>

namespace laddu::expr {

/// `e` as laddu-format JSON (compact, one line).
[[nodiscard]] std::string to_json(const Expr& e);

/// The expression `json` describes. Malformed JSON, a missing field, an unknown node or
/// operation, or a child index that does not refer to an earlier node is a ModelError naming the
/// node; what the builders reject (a shape mismatch) is their ModelError.
[[nodiscard]] Expr expr_from_json(std::string_view json);

/// `model` as laddu-format JSON: the graph of its intensity.
[[nodiscard]] std::string to_json(const Model& model);

/// The model `json` describes (its root must be a real or complex scalar, as Model requires).
[[nodiscard]] Model model_from_json(std::string_view json);

}  // namespace laddu::expr
