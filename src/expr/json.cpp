#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/base/json_numbers.hpp>
#include <laddu/expr/json.hpp>

#include <nlohmann/json.hpp>

namespace laddu::expr {

namespace {

using Json = nlohmann::ordered_json;

// laddu's serde names of the operations, in enum order; the operations laddu lacks keep names
// of the same style.
constexpr std::array<const char*, 20> kUnaryNames = {
    "Neg", "Real", "Imag", "Conj", "NormSqr", "Sqrt", "Exp",  "Log", "Sin", "Cos",
    "Tan", "Asin", "Acos", "Atan", "Sinh",    "Cosh", "Tanh", "Abs", "Arg", "PowI"};
constexpr std::array<const char*, 6> kBinaryNames = {"Add", "Sub", "Mul", "Div", "Pow", "Atan2"};
constexpr std::array<const char*, 4> kComponentNames = {"E", "Px", "Py", "Pz"};

static_assert(static_cast<std::size_t>(UnaryOp::kPowI) + 1 == kUnaryNames.size());
static_assert(static_cast<std::size_t>(BinaryOp::kAtan2) + 1 == kBinaryNames.size());

// laddu's ExprSourceKind of a node.
const char* source_of(NodeKind kind) {
    switch (kind) {
    case NodeKind::kRealConst:
    case NodeKind::kComplexConst:
        return "Const";
    case NodeKind::kParameter:
        return "Param";
    case NodeKind::kEventScalar:
    case NodeKind::kEventP4Component:
        return "Event";
    case NodeKind::kUnary:
        return "Unary";
    case NodeKind::kBinary:
    case NodeKind::kNaryAdd:
    case NodeKind::kNaryMul:
        return "Binary";
    case NodeKind::kComplex:
        return "Complex";
    case NodeKind::kVector:
    case NodeKind::kComponent:
    case NodeKind::kDot:
        return "Vector";
    case NodeKind::kMatrix:
    case NodeKind::kMatrixElement:
        return "Matrix";
    case NodeKind::kMatMul:
    case NodeKind::kMatVec:
    case NodeKind::kSolve:
        return "LinearAlgebra";
    }
    return "Const";
}

Json finite_number(double value, const char* what) {
    if (!std::isfinite(value)) {
        throw ModelError(fmt::format("cannot write {} {} as JSON, which has no non-finite numbers",
                                     what, value));
    }
    return value;
}

Json parameter_json(const Parameter& p) {
    Json out;
    out["name"] = p.name;
    if (p.fixed) {
        out["state"] = Json{{"Fixed", finite_number(*p.fixed, "a fixed value")}};
    } else {
        out["state"] = "Free";
    }
    if (p.initial) {
        out["initial"] = Json{{"Value", finite_number(*p.initial, "an initial value")}};
    } else if (p.initial_range) {
        out["initial"] =
            Json{{"Uniform",
                  {{"min", finite_number(p.initial_range->lower, "an initial range")},
                   {"max", finite_number(p.initial_range->upper, "an initial range")}}}};
    } else {
        out["initial"] = "Default";
    }
    Json bounds{{"min", nullptr}, {"max", nullptr}};
    if (p.bounds && std::isfinite(p.bounds->lower)) {
        bounds["min"] = p.bounds->lower;
    }
    if (p.bounds && std::isfinite(p.bounds->upper)) {
        bounds["max"] = p.bounds->upper;
    }
    out["bounds"] = std::move(bounds);
    out["periodic"] = p.periodic;
    out["scale"] = nullptr;
    out["unit"] = p.unit.empty() ? Json(nullptr) : Json(p.unit);
    out["latex"] = p.latex.empty() ? Json(nullptr) : Json(p.latex);
    out["description"] = nullptr;
    return out;
}

// One node's payload, its children given by their indices in the output.
Json node_json(const detail::Node& n, const std::vector<std::size_t>& c) {
    switch (n.kind) {
    case NodeKind::kRealConst:
        return Json{{"RealConst", finite_number(n.re, "the constant")}};
    case NodeKind::kComplexConst:
        return Json{
            {"ComplexConst", Json::array({finite_number(n.re, "the constant's real part"),
                                          finite_number(n.im, "the constant's imaginary part")})}};
    case NodeKind::kParameter:
        return Json{{"ScalarParam", parameter_json(*n.parameter)}};
    case NodeKind::kEventScalar:
        return Json{{"EventScalar", n.name}};
    case NodeKind::kEventP4Component:
        return Json{
            {"EventP4Component", {{"name", n.name}, {"component", kComponentNames.at(n.op)}}}};
    case NodeKind::kUnary: {
        const Json op =
            n.unary_op() == UnaryOp::kPowI ? Json{{"PowI", n.index}} : Json(kUnaryNames.at(n.op));
        return Json{{"Unary", {{"op", op}, {"input", c[0]}}}};
    }
    case NodeKind::kBinary:
        return Json{{"Binary", {{"op", kBinaryNames.at(n.op)}, {"lhs", c[0]}, {"rhs", c[1]}}}};
    case NodeKind::kNaryAdd:
        return Json{{"NaryAdd", {{"terms", c}}}};
    case NodeKind::kNaryMul:
        return Json{{"NaryMul", {{"factors", c}}}};
    case NodeKind::kComplex:
        return Json{{"Complex", {{"re", c[0]}, {"im", c[1]}}}};
    case NodeKind::kVector:
        return Json{{"Vector", {{"elements", c}}}};
    case NodeKind::kMatrix:
        return Json{{"Matrix",
                     {{"rows", n.value_kind.rows}, {"cols", n.value_kind.cols}, {"elements", c}}}};
    case NodeKind::kComponent:
        return Json{{"Component", {{"input", c[0]}, {"index", n.index}}}};
    case NodeKind::kMatrixElement:
        return Json{{"MatrixElement", {{"input", c[0]}, {"row", n.index}, {"col", n.index2}}}};
    case NodeKind::kMatMul:
        return Json{{"MatMul", {{"lhs", c[0]}, {"rhs", c[1]}}}};
    case NodeKind::kMatVec:
        return Json{{"MatVec", {{"matrix", c[0]}, {"vector", c[1]}}}};
    case NodeKind::kDot:
        return Json{{"Dot", {{"lhs", c[0]}, {"rhs", c[1]}}}};
    case NodeKind::kSolve:
        return Json{{"Solve", {{"matrix", c[0]}, {"rhs", c[1]}}}};
    }
    throw InternalError("to_json: unknown node kind");
}

// Reading: a node's fields, with errors that name the node.
class Reader {
public:
    explicit Reader(const Json& graph) : graph_(graph) {}

    Expr read() {
        const Json& nodes = field(graph_, "nodes", "the graph");
        const Json& metadata = field(graph_, "metadata", "the graph");
        if (!nodes.is_array() || !metadata.is_array() || nodes.size() != metadata.size()) {
            throw ModelError("expression JSON: 'nodes' and 'metadata' must be arrays of equal "
                             "length");
        }
        built_.reserve(nodes.size());
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            index_ = i;
            Expr e = build(nodes[i]);
            const Json& tags = field(metadata[i], "tags", "the metadata");
            for (const Json& tag : tags) {
                e = e.tagged(tag.get<std::string>());
            }
            built_.push_back(std::move(e));
        }
        const auto root = field(graph_, "root", "the graph").get<std::size_t>();
        if (root >= built_.size()) {
            throw ModelError(fmt::format("expression JSON: the root {} is not one of the {} nodes",
                                         root, built_.size()));
        }
        return built_[root];
    }

private:
    const Json& field(const Json& object, const char* key, const char* what) const {
        if (!object.is_object() || !object.contains(key)) {
            throw ModelError(
                fmt::format("expression JSON, node {}: {} has no '{}'", index_, what, key));
        }
        return object.at(key);
    }

    // The node a child index refers to: an earlier one.
    const Expr& child(const Json& index) const {
        const auto i = index.get<std::size_t>();
        if (i >= built_.size()) {
            throw ModelError(fmt::format("expression JSON, node {}: child {} is not an earlier "
                                         "node",
                                         index_, i));
        }
        return built_[i];
    }

    std::vector<Expr> children(const Json& indices) const {
        std::vector<Expr> out;
        out.reserve(indices.size());
        for (const Json& i : indices) {
            out.push_back(child(i));
        }
        return out;
    }

    template <std::size_t N>
    std::uint8_t op_index(const std::array<const char*, N>& names, const std::string& name) const {
        for (std::size_t k = 0; k < N; ++k) {
            if (name == names[k]) {
                return static_cast<std::uint8_t>(k);
            }
        }
        throw ModelError(
            fmt::format("expression JSON, node {}: unknown operation '{}'", index_, name));
    }

    Expr parameter_node(const Json& p) const {
        ParameterOptions options;
        const Json& state = field(p, "state", "the parameter");
        if (state.is_object()) {
            options.fixed = field(state, "Fixed", "the parameter state").get<double>();
        } else if (state.get<std::string>() != "Free") {
            throw ModelError(fmt::format("expression JSON, node {}: unknown parameter state {}",
                                         index_, state.dump()));
        }
        const Json& initial = field(p, "initial", "the parameter");
        if (initial.is_object() && initial.contains("Uniform")) {
            const Json& range = initial.at("Uniform");
            options.initial_range = Bounds{field(range, "min", "the initial range").get<double>(),
                                           field(range, "max", "the initial range").get<double>()};
        } else if (initial.is_object()) {
            if (!initial.contains("Value")) {
                throw ModelError(fmt::format(
                    "expression JSON, node {}: the initial value {} is not supported; give "
                    "{{\"Value\": x}}, {{\"Uniform\": {{\"min\": a, \"max\": b}}}} or "
                    "\"Default\"",
                    index_, initial.dump()));
            }
            options.initial = initial.at("Value").get<double>();
        }
        const Json& bounds = field(p, "bounds", "the parameter");
        const Json& min = field(bounds, "min", "the bounds");
        const Json& max = field(bounds, "max", "the bounds");
        if (!min.is_null() || !max.is_null()) {
            options.bounds =
                Bounds{min.is_null() ? -std::numeric_limits<double>::infinity() : min.get<double>(),
                       max.is_null() ? std::numeric_limits<double>::infinity() : max.get<double>()};
        }
        options.periodic = field(p, "periodic", "the parameter").get<bool>();
        if (p.contains("unit") && !p.at("unit").is_null()) {
            options.unit = p.at("unit").get<std::string>();
        }
        if (p.contains("latex") && !p.at("latex").is_null()) {
            options.latex = p.at("latex").get<std::string>();
        }
        return parameter(field(p, "name", "the parameter").get<std::string>(), options);
    }

    Expr build(const Json& node) const {
        if (!node.is_object() && !node.is_string()) {
            throw ModelError(
                fmt::format("expression JSON, node {}: {} is not a node", index_, node.dump()));
        }
        if (!node.is_object() || node.size() != 1) {
            throw ModelError(
                fmt::format("expression JSON, node {}: {} is not a node", index_, node.dump()));
        }
        const std::string& kind = node.begin().key();
        const Json& v = node.begin().value();
        if (kind == "RealConst") {
            return constant(v.get<double>());
        }
        if (kind == "ComplexConst") {
            return constant(std::complex<double>(v.at(0).get<double>(), v.at(1).get<double>()));
        }
        if (kind == "ScalarParam") {
            return parameter_node(v);
        }
        if (kind == "EventScalar") {
            return scalar(v.get<std::string>());
        }
        if (kind == "EventP4Component") {
            const std::uint8_t c = op_index(kComponentNames, field(v, "component", kind.c_str()));
            return p4_component(field(v, "name", kind.c_str()).get<std::string>(),
                                static_cast<P4Component>(c));
        }
        if (kind == "Unary") {
            const Json& op = field(v, "op", kind.c_str());
            const Expr& input = child(field(v, "input", kind.c_str()));
            if (op.is_object()) {
                return unary(UnaryOp::kPowI, input,
                             field(op, "PowI", "the op").get<std::int32_t>());
            }
            return unary(static_cast<UnaryOp>(op_index(kUnaryNames, op.get<std::string>())), input);
        }
        if (kind == "Binary") {
            const auto op = static_cast<BinaryOp>(
                op_index(kBinaryNames, field(v, "op", kind.c_str()).get<std::string>()));
            return binary(op, child(field(v, "lhs", kind.c_str())),
                          child(field(v, "rhs", kind.c_str())));
        }
        if (kind == "NaryAdd") {
            return nary_add(children(field(v, "terms", kind.c_str())));
        }
        if (kind == "NaryMul") {
            return nary_mul(children(field(v, "factors", kind.c_str())));
        }
        if (kind == "Complex") {
            return complex(child(field(v, "re", kind.c_str())),
                           child(field(v, "im", kind.c_str())));
        }
        if (kind == "Vector") {
            return vector(children(field(v, "elements", kind.c_str())));
        }
        if (kind == "Matrix") {
            return matrix(field(v, "rows", kind.c_str()).get<std::uint32_t>(),
                          field(v, "cols", kind.c_str()).get<std::uint32_t>(),
                          children(field(v, "elements", kind.c_str())));
        }
        if (kind == "Component") {
            return component(child(field(v, "input", kind.c_str())),
                             field(v, "index", kind.c_str()).get<std::uint32_t>());
        }
        if (kind == "MatrixElement") {
            return matrix_element(child(field(v, "input", kind.c_str())),
                                  field(v, "row", kind.c_str()).get<std::uint32_t>(),
                                  field(v, "col", kind.c_str()).get<std::uint32_t>());
        }
        if (kind == "MatMul") {
            return matmul(child(field(v, "lhs", kind.c_str())),
                          child(field(v, "rhs", kind.c_str())));
        }
        if (kind == "MatVec") {
            return matvec(child(field(v, "matrix", kind.c_str())),
                          child(field(v, "vector", kind.c_str())));
        }
        if (kind == "Dot") {
            return dot(child(field(v, "lhs", kind.c_str())), child(field(v, "rhs", kind.c_str())));
        }
        if (kind == "Solve") {
            return solve(child(field(v, "matrix", kind.c_str())),
                         child(field(v, "rhs", kind.c_str())));
        }
        throw ModelError(
            fmt::format("expression JSON, node {}: unknown node kind '{}'", index_, kind));
    }

    const Json& graph_;
    std::vector<Expr> built_;
    std::size_t index_ = 0;
};

}  // namespace

std::string to_json(const Expr& e) {
    // Post-order without recursion (expressions may be deep): each node once, after its children.
    std::unordered_map<const void*, std::size_t> index;
    Json nodes = Json::array();
    Json metadata = Json::array();
    std::vector<std::pair<Expr, bool>> stack{{e, false}};
    while (!stack.empty()) {
        auto [node, expanded] = stack.back();
        stack.pop_back();
        if (index.contains(node.id())) {
            continue;
        }
        if (!expanded) {
            stack.emplace_back(node, true);
            const auto children = node.children();
            for (auto it = children.rbegin(); it != children.rend(); ++it) {
                if (!index.contains(it->id())) {
                    stack.emplace_back(*it, false);
                }
            }
            continue;
        }
        std::vector<std::size_t> c;
        c.reserve(node.children().size());
        for (const Expr& child : node.children()) {
            c.push_back(index.at(child.id()));
        }
        nodes.push_back(node_json(node.node(), c));
        Json tags = Json::array();
        for (const std::string& tag : node.tags()) {
            tags.push_back(tag);
        }
        metadata.push_back(
            Json{{"source", source_of(node.kind())}, {"name", nullptr}, {"tags", std::move(tags)}});
        index.emplace(node.id(), nodes.size() - 1);
    }
    Json graph;
    graph["root"] = index.at(e.id());
    graph["nodes"] = std::move(nodes);
    graph["metadata"] = std::move(metadata);
    return laddu_json_numbers(graph.dump());
}

Expr expr_from_json(std::string_view json) {
    Json graph;
    try {
        graph = Json::parse(json);
    } catch (const Json::exception& error) {
        throw ModelError(fmt::format("expression JSON does not parse: {}", error.what()));
    }
    try {
        return Reader(graph).read();
    } catch (const Json::exception& error) {
        // A field of the wrong type (a string where a number belongs, ...).
        throw ModelError(
            fmt::format("expression JSON has a field of the wrong type: {}", error.what()));
    }
}

std::string to_json(const Model& model) {
    return to_json(model.expression());
}

Model model_from_json(std::string_view json) {
    return Model(expr_from_json(json));
}

}  // namespace laddu::expr
