#include "lower.hpp"

#include <map>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/ir/fuse_dots.hpp>

namespace laddu::compile::detail {
namespace {

using expr::BinaryOp;
using expr::Expr;
using expr::NodeKind;
using expr::UnaryOp;
using ir::OpCode;
using ir::ValueId;

enum class Context : std::uint8_t { kPrecompute, kEvaluate };

ir::OpCode unary_opcode(UnaryOp op) {
    switch (op) {
    case UnaryOp::kNeg:
        return OpCode::kNeg;
    case UnaryOp::kReal:
        return OpCode::kReal;
    case UnaryOp::kImag:
        return OpCode::kImag;
    case UnaryOp::kConj:
        return OpCode::kConj;
    case UnaryOp::kNormSqr:
        return OpCode::kNormSqr;
    case UnaryOp::kSqrt:
        return OpCode::kSqrt;
    case UnaryOp::kExp:
        return OpCode::kExp;
    case UnaryOp::kLog:
        return OpCode::kLog;
    case UnaryOp::kSin:
        return OpCode::kSin;
    case UnaryOp::kCos:
        return OpCode::kCos;
    case UnaryOp::kTan:
        return OpCode::kTan;
    case UnaryOp::kAsin:
        return OpCode::kAsin;
    case UnaryOp::kAcos:
        return OpCode::kAcos;
    case UnaryOp::kAtan:
        return OpCode::kAtan;
    case UnaryOp::kSinh:
        return OpCode::kSinh;
    case UnaryOp::kCosh:
        return OpCode::kCosh;
    case UnaryOp::kTanh:
        return OpCode::kTanh;
    case UnaryOp::kAbs:
        return OpCode::kAbs;
    case UnaryOp::kArg:
        return OpCode::kArg;
    case UnaryOp::kPowI:
        break;
    }
    return OpCode::kPowI;
}

ir::OpCode binary_opcode(BinaryOp op) {
    switch (op) {
    case BinaryOp::kAdd:
        return OpCode::kAdd;
    case BinaryOp::kSub:
        return OpCode::kSub;
    case BinaryOp::kMul:
        return OpCode::kMul;
    case BinaryOp::kDiv:
        return OpCode::kDiv;
    case BinaryOp::kPow:
        return OpCode::kPow;
    case BinaryOp::kAtan2:
        break;
    }
    return OpCode::kAtan2;
}

// Whether element `e` of `node` is Complex: literals keep their elements' kinds, other
// aggregates promise one field for all elements.
bool element_is_complex(const Expr& node, std::uint32_t e) {
    if (node.kind() == NodeKind::kVector || node.kind() == NodeKind::kMatrix) {
        return node.children()[e].value_kind().is_complex;
    }
    return node.value_kind().is_complex;
}

struct ElementKey {
    const void* node;
    std::uint32_t element;
    friend bool operator==(const ElementKey&, const ElementKey&) = default;
};

struct ElementKeyHash {
    std::size_t operator()(const ElementKey& k) const noexcept {
        return std::hash<const void*>{}(k.node) * 31U + k.element;
    }
};

// Lowers expression elements into one ir::Builder. In the evaluate context PerEvent nodes are
// read from cache columns registered in `plan`.
class ProgramLowerer {
public:
    ProgramLowerer(Context context, const GraphFacts* facts, const expr::ParamLayout* layout,
                   CachePlan* plan)
        : context_(context), facts_(facts), layout_(layout), plan_(plan) {}

    ir::Builder& builder() { return builder_; }

    // Reads every kValue column of `plan` as an input slot (in plan order, so the slots are the
    // cache's) wherever its element is reached; other elements lower from their definitions.
    void read_cache(const CachePlan& plan) {
        for (const CacheColumn& column : plan.columns) {
            const std::uint32_t slot = builder_.add_input(
                column.name, column.is_complex ? ir::ValueKind::kComplex : ir::ValueKind::kReal);
            if (column.source == CacheColumnSource::kValue) {
                cache_slots_.emplace(ElementKey{column.node.id(), column.element}, slot);
            }
        }
    }

    // Element `e` of `node` (0 for scalars), with the IR kind matching the expression kind.
    // The elements it reads are lowered first, depth first with an explicit stack (graphs can
    // be 10^5 levels deep), so lower_element() finds them memoised and never recurses.
    ValueId element(const Expr& node, std::uint32_t e) {
        if (auto it = memo_.find(ElementKey{node.id(), e}); it != memo_.end()) {
            return it->second;
        }

        struct Pending {
            Expr node;
            std::uint32_t element;
            bool expanded;
        };

        std::vector<Pending> stack{{node, e, false}};
        std::vector<std::pair<Expr, std::uint32_t>> reads;
        while (!stack.empty()) {
            const Pending top = stack.back();
            if (memo_.contains(ElementKey{top.node.id(), top.element})) {
                stack.pop_back();
                continue;
            }
            if (!top.expanded) {
                stack.back().expanded = true;
                reads.clear();
                element_reads(top.node, top.element, &reads);
                for (auto it = reads.rbegin(); it != reads.rend(); ++it) {
                    if (!memo_.contains(ElementKey{it->first.id(), it->second})) {
                        stack.push_back({it->first, it->second, false});
                    }
                }
                continue;
            }
            stack.pop_back();
            ValueId v = lower_element(top.node, top.element);
            if (element_is_complex(top.node, top.element) &&
                builder_.kind_of(v) == ir::ValueKind::kReal) {
                v = widen(v);
            }
            memo_.emplace(ElementKey{top.node.id(), top.element}, v);
        }
        return memo_.at(ElementKey{node.id(), e});
    }

    ValueId widen(ValueId v) {
        if (builder_.kind_of(v) != ir::ValueKind::kReal) {
            return v;
        }
        return builder_.complex(v, zero());
    }

    ValueId zero() {
        if (!zero_) {
            zero_ = builder_.const_real(0.0);
        }
        return *zero_;
    }

    ValueId one() {
        if (!one_) {
            one_ = builder_.const_real(1.0);
        }
        return *one_;
    }

private:
    [[nodiscard]] bool cached(const Expr& node) const {
        return context_ == Context::kEvaluate && facts_ != nullptr &&
               facts_->evaluation_class(node) == EvaluationClass::kPerEvent;
    }

    ValueId load_column(const Expr& node, std::uint32_t e) {
        LADDU_ASSERT(plan_ != nullptr) << "a parameter-only program reached event data";
        CacheColumn column;
        column.name = fmt::format("cache{}", plan_->columns.size());
        column.is_complex = element_is_complex(node, e);
        column.node = node;
        column.element = e;
        plan_->columns.push_back(column);
        const std::uint32_t slot = builder_.add_input(
            column.name, column.is_complex ? ir::ValueKind::kComplex : ir::ValueKind::kReal);
        return builder_.load(slot);
    }

    ValueId inverse_row_element(const Expr& matrix, std::uint32_t row, std::uint32_t k) {
        const ElementKey key{matrix.id(), row};
        auto it = inverse_rows_.find(key);
        if (it == inverse_rows_.end()) {
            std::vector<ValueId> loads;
            const std::uint32_t n = matrix.value_kind().rows;
            for (std::uint32_t j = 0; j < n; ++j) {
                CacheColumn column;
                column.name = fmt::format("cache{}", plan_->columns.size());
                column.is_complex = true;
                column.source = CacheColumnSource::kInverseRow;
                column.node = matrix;
                column.row = row;
                column.element = j;
                plan_->columns.push_back(column);
                loads.push_back(
                    builder_.load(builder_.add_input(column.name, ir::ValueKind::kComplex)));
            }
            it = inverse_rows_.emplace(key, std::move(loads)).first;
        }
        return it->second[k];
    }

    ValueId parameter(const Expr& node) {
        LADDU_ASSERT(layout_ != nullptr) << "a parameter in an event-only program";
        const auto free_index = layout_->free_index_of(node.node().parameter->name);
        LADDU_ASSERT(free_index.has_value())
            << "fixed parameter '" << node.node().parameter->name << "' was not baked";
        return builder_.param(static_cast<std::uint32_t>(free_index.value_or(0)));
    }

    ValueId event_input(const std::string& name) {
        auto it = inputs_.find(name);
        if (it == inputs_.end()) {
            it = inputs_.emplace(name, builder_.add_input(name, ir::ValueKind::kReal)).first;
        }
        return builder_.load(it->second);
    }

    // Element e of a scalar-or-aggregate operand used in an element-wise operation.
    ValueId operand(const Expr& child, std::uint32_t e) {
        return element(child, child.value_kind().is_scalar() ? 0 : e);
    }

    ValueId solve_vector(const Expr& node) {
        if (auto it = solves_.find(node.id()); it != solves_.end()) {
            return it->second;
        }
        const Expr& m = node.children()[0];
        const Expr& b = node.children()[1];
        const std::uint32_t n = m.value_kind().rows;
        std::vector<ValueId> operands;
        operands.reserve(std::size_t{n} * n + n);
        for (std::uint32_t i = 0; i < n * n; ++i) {
            operands.push_back(element(m, i));
        }
        for (std::uint32_t i = 0; i < n; ++i) {
            operands.push_back(element(b, i));
        }
        const ValueId v = builder_.solve(n, 1, operands);
        solves_.emplace(node.id(), v);
        return v;
    }

    ValueId dot_of(const std::vector<ValueId>& a, const std::vector<ValueId>& b) {
        if (a.size() == 1) {
            return builder_.binary(OpCode::kMul, a[0], b[0]);
        }
        return builder_.dot(a, b);
    }

    // The elements lower_element(node, e) reads through element(), in the order it reads them.
    void element_reads(const Expr& node, std::uint32_t e,
                       std::vector<std::pair<Expr, std::uint32_t>>* reads) const {
        if (cached(node) || cache_slots_.contains(ElementKey{node.id(), e})) {
            return;
        }
        const auto& n = node.node();
        const auto children = node.children();
        const auto read = [&](const Expr& child, std::uint32_t element) {
            reads->emplace_back(child, element);
        };
        const auto operand = [&](const Expr& child) {
            read(child, child.value_kind().is_scalar() ? 0 : e);
        };
        switch (node.kind()) {
        case NodeKind::kUnary:
            if (n.unary_op() == UnaryOp::kPowI) {
                read(children[0], 0);
            } else {
                operand(children[0]);
            }
            return;
        case NodeKind::kBinary:
        case NodeKind::kNaryAdd:
        case NodeKind::kNaryMul:
            for (const Expr& c : children) {
                operand(c);
            }
            return;
        case NodeKind::kComplex:
            read(children[0], 0);
            read(children[1], 0);
            return;
        case NodeKind::kVector:
        case NodeKind::kMatrix:
            read(children[e], 0);
            return;
        case NodeKind::kComponent:
            read(children[0], static_cast<std::uint32_t>(n.index));
            return;
        case NodeKind::kMatrixElement:
            read(children[0], static_cast<std::uint32_t>(n.index) * children[0].value_kind().cols +
                                  static_cast<std::uint32_t>(n.index2));
            return;
        case NodeKind::kMatMul: {
            const std::uint32_t inner = children[0].value_kind().cols;
            const std::uint32_t cols = node.value_kind().cols;
            for (std::uint32_t k = 0; k < inner; ++k) {
                read(children[0], (e / cols) * inner + k);
                read(children[1], k * cols + e % cols);
            }
            return;
        }
        case NodeKind::kMatVec:
            for (std::uint32_t k = 0; k < children[0].value_kind().cols; ++k) {
                read(children[0], e * children[0].value_kind().cols + k);
                read(children[1], k);
            }
            return;
        case NodeKind::kDot:
            for (std::uint32_t k = 0; k < children[0].value_kind().rows; ++k) {
                read(children[0], k);
                read(children[1], k);
            }
            return;
        case NodeKind::kSolve: {
            const Expr& matrix = children[0];
            const std::uint32_t rows = matrix.value_kind().rows;
            const bool solve_row = context_ == Context::kEvaluate && facts_ != nullptr &&
                                   facts_->evaluation_class(matrix) == EvaluationClass::kPerEvent;
            if (!solve_row && !solves_.contains(node.id())) {
                for (std::uint32_t i = 0; i < rows * rows; ++i) {
                    read(matrix, i);
                }
            }
            for (std::uint32_t k = 0; k < rows; ++k) {
                read(children[1], k);
            }
            return;
        }
        default:
            return;  // leaves
        }
    }

    ValueId lower_element(const Expr& node, std::uint32_t e) {
        if (cached(node)) {
            return load_column(node, e);
        }
        if (auto it = cache_slots_.find(ElementKey{node.id(), e}); it != cache_slots_.end()) {
            return builder_.load(it->second);
        }
        const auto& n = node.node();
        const auto children = node.children();
        switch (node.kind()) {
        case NodeKind::kRealConst:
            return builder_.const_real(n.re);
        case NodeKind::kComplexConst:
            return builder_.const_complex(n.re, n.im);
        case NodeKind::kParameter:
            return parameter(node);
        case NodeKind::kEventScalar:
            return event_input(n.name);
        case NodeKind::kEventP4Component:
            return event_input(fmt::format("{}.{}", n.name, expr::to_string(n.p4_component())));
        case NodeKind::kUnary:
            if (n.unary_op() == UnaryOp::kPowI) {
                return builder_.pow_i(element(children[0], 0), static_cast<std::int32_t>(n.index));
            }
            return builder_.unary(unary_opcode(n.unary_op()), operand(children[0], e));
        case NodeKind::kBinary:
            return builder_.binary(binary_opcode(n.binary_op()), operand(children[0], e),
                                   operand(children[1], e));
        case NodeKind::kNaryAdd:
        case NodeKind::kNaryMul: {
            std::vector<ValueId> operands;
            for (const Expr& c : children) {
                operands.push_back(operand(c, e));
            }
            return node.kind() == NodeKind::kNaryAdd ? builder_.add_n(operands)
                                                     : builder_.mul_n(operands);
        }
        case NodeKind::kComplex:
            return builder_.complex(element(children[0], 0), element(children[1], 0));
        case NodeKind::kVector:
        case NodeKind::kMatrix:
            return element(children[e], 0);
        case NodeKind::kComponent:
            return element(children[0], static_cast<std::uint32_t>(n.index));
        case NodeKind::kMatrixElement:
            return element(children[0],
                           static_cast<std::uint32_t>(n.index) * children[0].value_kind().cols +
                               static_cast<std::uint32_t>(n.index2));
        case NodeKind::kMatMul: {
            const std::uint32_t inner = children[0].value_kind().cols;
            const std::uint32_t cols = node.value_kind().cols;
            const std::uint32_t r = e / cols;
            const std::uint32_t c = e % cols;
            std::vector<ValueId> a;
            std::vector<ValueId> b;
            for (std::uint32_t k = 0; k < inner; ++k) {
                a.push_back(element(children[0], r * inner + k));
                b.push_back(element(children[1], k * cols + c));
            }
            return dot_of(a, b);
        }
        case NodeKind::kMatVec: {
            const std::uint32_t inner = children[0].value_kind().cols;
            std::vector<ValueId> a;
            std::vector<ValueId> b;
            for (std::uint32_t k = 0; k < inner; ++k) {
                a.push_back(element(children[0], e * inner + k));
                b.push_back(element(children[1], k));
            }
            return dot_of(a, b);
        }
        case NodeKind::kDot: {
            std::vector<ValueId> a;
            std::vector<ValueId> b;
            for (std::uint32_t k = 0; k < children[0].value_kind().rows; ++k) {
                a.push_back(element(children[0], k));
                b.push_back(element(children[1], k));
            }
            return dot_of(a, b);
        }
        case NodeKind::kSolve:
            break;
        }
        const Expr& matrix = children[0];
        const bool solve_row = context_ == Context::kEvaluate && facts_ != nullptr &&
                               facts_->evaluation_class(matrix) == EvaluationClass::kPerEvent;
        if (solve_row) {
            std::vector<ValueId> row;
            std::vector<ValueId> rhs;
            for (std::uint32_t k = 0; k < matrix.value_kind().rows; ++k) {
                row.push_back(inverse_row_element(matrix, e, k));
                rhs.push_back(element(children[1], k));
            }
            return dot_of(row, rhs);
        }
        return builder_.extract(solve_vector(node), e);
    }

    Context context_;
    const GraphFacts* facts_;
    const expr::ParamLayout* layout_;
    CachePlan* plan_;
    ir::Builder builder_;
    std::unordered_map<ElementKey, ValueId, ElementKeyHash> memo_;
    std::unordered_map<ElementKey, std::vector<ValueId>, ElementKeyHash> inverse_rows_;
    std::unordered_map<const void*, ValueId> solves_;
    std::map<std::string, std::uint32_t> inputs_;
    std::unordered_map<ElementKey, std::uint32_t, ElementKeyHash> cache_slots_;
    std::optional<ValueId> zero_;
    std::optional<ValueId> one_;
};

// The builder's program with its sums of products fused; Builder::finish validates the lowered
// program and fuse_dots's own Builder::finish the fused one.
ir::Program finish_fused(ir::Builder& builder) {
    return ir::fuse_dots(builder.finish());
}

// One kSolve of Mᵀ against the unit vectors of `rows`: its solution k is row rows[k] of M⁻¹.
ValueId solve_transposed(ProgramLowerer& lowerer, const Expr& matrix,
                         std::span<const std::uint32_t> rows) {
    const std::uint32_t n = matrix.value_kind().rows;
    std::vector<ValueId> operands;
    operands.reserve(std::size_t{n} * (n + rows.size()));
    for (std::uint32_t r = 0; r < n; ++r) {
        for (std::uint32_t c = 0; c < n; ++c) {
            operands.push_back(lowerer.element(matrix, c * n + r));  // (M^T)[r][c]
        }
    }
    for (const std::uint32_t row : rows) {
        for (std::uint32_t k = 0; k < n; ++k) {
            operands.push_back(k == row ? lowerer.one() : lowerer.zero());
        }
    }
    return lowerer.builder().solve(n, static_cast<std::uint32_t>(rows.size()), operands);
}

// The precompute program: one output per cache column, in column order.
ir::Program lower_precompute(const CachePlan& plan) {
    ProgramLowerer lowerer(Context::kPrecompute, nullptr, nullptr, nullptr);
    ir::Builder& b = lowerer.builder();
    // One kSolve of M^T against the needed unit vectors per matrix, rows in first-use order.
    std::vector<Expr> matrices;
    std::unordered_map<const void*, std::vector<std::uint32_t>> rows;
    for (const CacheColumn& column : plan.columns) {
        if (column.source == CacheColumnSource::kInverseRow && column.element == 0) {
            auto& list = rows[column.node.id()];
            if (list.empty()) {
                matrices.push_back(column.node);
            }
            list.push_back(column.row);
        }
    }
    std::unordered_map<const void*, ValueId> solves;
    for (const Expr& matrix : matrices) {
        solves.emplace(matrix.id(), solve_transposed(lowerer, matrix, rows.at(matrix.id())));
    }
    for (const CacheColumn& column : plan.columns) {
        ValueId v;
        if (column.source == CacheColumnSource::kValue) {
            v = lowerer.element(column.node, column.element);
        } else {
            const auto& needed = rows.at(column.node.id());
            const auto position = static_cast<std::uint32_t>(
                std::find(needed.begin(), needed.end(), column.row) - needed.begin());
            const std::uint32_t n = column.node.value_kind().rows;
            v = b.extract(solves.at(column.node.id()), position * n + column.element);
        }
        LADDU_ASSERT((b.kind_of(v) == ir::ValueKind::kComplex) == column.is_complex)
            << "cache column " << column.name << " lowered to the wrong kind";
        b.add_output(v, column.name);
    }
    b.set_parameter_count(0);
    return finish_fused(b);
}

}  // namespace

LoweredModel lower_model(const expr::Expr& root, const GraphFacts& facts,
                         const expr::ParamLayout& layout) {
    LoweredModel lowered;
    ProgramLowerer evaluate(Context::kEvaluate, &facts, &layout, &lowered.cache_plan);
    const ValueId value = evaluate.element(root, 0);
    evaluate.builder().set_parameter_count(static_cast<std::uint32_t>(layout.free_count()));
    evaluate.builder().add_output(value, "intensity");
    lowered.evaluate = finish_fused(evaluate.builder());
    if (!lowered.cache_plan.columns.empty()) {
        lowered.precompute = lower_precompute(lowered.cache_plan);
    }
    return lowered;
}

ir::Program lower_event_outputs(const std::vector<expr::Expr>& outputs, const CachePlan& plan) {
    ProgramLowerer lowerer(Context::kPrecompute, nullptr, nullptr, nullptr);
    lowerer.read_cache(plan);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        lowerer.builder().add_output(lowerer.widen(lowerer.element(outputs[i], 0)),
                                     fmt::format("amplitude{}", i));
    }
    lowerer.builder().set_parameter_count(0);
    return finish_fused(lowerer.builder());
}

ir::Program lower_parameter_outputs(const std::vector<expr::Expr>& outputs,
                                    const expr::ParamLayout& layout) {
    ProgramLowerer lowerer(Context::kEvaluate, nullptr, &layout, nullptr);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        lowerer.builder().add_output(lowerer.widen(lowerer.element(outputs[i], 0)),
                                     fmt::format("coefficient{}", i));
    }
    lowerer.builder().set_parameter_count(static_cast<std::uint32_t>(layout.free_count()));
    return finish_fused(lowerer.builder());
}

}  // namespace laddu::compile::detail
