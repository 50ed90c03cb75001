#include <random>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/expr/print.hpp>
#include <laddu/expr/traversal.hpp>

#include "../test_support/reference.hpp"
#include "algebraic_simplification.hpp"
#include "bake_fixed_parameters.hpp"
#include "canonical_ordering.hpp"
#include "constant_folding.hpp"
#include "cse.hpp"
#include "dead_node_removal.hpp"
#include "group_by_evaluation_class.hpp"
#include "linear_algebra_expansion.hpp"

namespace laddu::compile {
namespace {

using expr::Expr;
using testing::close;
using testing::evaluate_reference;

const Expr kX = expr::scalar("x");
const Expr kY = expr::scalar("y");
const Expr kP = expr::parameter("p");
const Expr kQ = expr::parameter("q");

// Models touching every rule; each pass must keep their values on random inputs.
std::vector<Expr> sample_expressions() {
    const Expr z = expr::complex(kX, kP);
    const Expr w = expr::cis(kY) * kQ;
    const Expr m = expr::matrix({{kX + 2.0, kY}, {kY * kP, 3.0}});
    const Expr v = expr::vector({kP, kX * kQ});
    return {
        (kX * 1.0 + 0.0) * (2.0 * 3.0) - -(-kY),
        expr::norm_sqr(z * w * 2.0) +
            expr::real(expr::complex(kX, kY)) * expr::imag(expr::complex(kP, kX)),
        expr::conj(expr::conj(z)) * expr::conj(kX) + expr::real(kY) + expr::imag(kY),
        (kP * 0.0) + kX * expr::constant(std::complex<double>(1.0, 0.0)) +
            expr::sqrt(kX * kX + 1.0),
        expr::norm_sqr(expr::dot(expr::matvec(m, v), expr::vector({1.0, kY}))),
        expr::norm_sqr(expr::solve(m, v)[1] +
                       expr::solve(expr::matrix({{2.0, 1.0}, {1.0, 3.0}}), v)[0]),
        expr::real(expr::matmul(m, m).at(1, 0) * expr::pow(kX * kX + 1.0, 0.3)) +
            expr::atan2(kY, kX),
        expr::powi(kX + kY, 3) * expr::exp(kP) - expr::log(expr::as_complex(kY)) * expr::tanh(kQ),
        ((kX + kY) + (kY + kX)) * ((kP * kX) + (kX * kP)),
    };
}

void expect_values_kept(const Expr& before, const Expr& after, const char* pass) {
    std::mt19937 rng(1234);
    const expr::ParamLayout layout = expr::collect_parameters(before);
    for (int trial = 0; trial < 10; ++trial) {
        const auto event = testing::random_event(before, rng, 0.2, 1.5);
        const auto params = testing::random_params(layout, rng);
        const auto a = evaluate_reference(before, params, event);
        const auto b = evaluate_reference(after, params, event);
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            EXPECT_TRUE(close(a[i], b[i]))
                << pass << ": " << a[i] << " vs " << b[i] << "\nbefore: " << expr::to_string(before)
                << "\nafter: " << expr::to_string(after);
        }
    }
    EXPECT_EQ(before.value_kind(), after.value_kind()) << pass;
}

TEST(Passes, EveryRewriteKeepsValuesOnRandomInputs) {
    for (const Expr& e : sample_expressions()) {
        expect_values_kept(e, constant_folding(e), "constant_folding");
        expect_values_kept(e, linear_algebra_expansion(e), "linear_algebra_expansion");
        expect_values_kept(e, algebraic_simplification(e), "algebraic_simplification");
        expect_values_kept(e, canonical_ordering(algebraic_simplification(e)),
                           "canonical_ordering");
        expect_values_kept(e, cse(e), "cse");
        expect_values_kept(e, group_by_evaluation_class(algebraic_simplification(e)),
                           "group_by_evaluation_class");
        expect_values_kept(e, dead_node_removal(e), "dead_node_removal");
    }
}

TEST(BakeFixedParameters, ReplacesFixedParametersAndDropsTags) {
    const Expr fixed = expr::parameter("f", {.fixed = 2.5});
    const Expr e = (fixed * kX + kP).tagged("A");
    EXPECT_EQ(bake_fixed_parameters(e), expr::constant(2.5) * kX + kP);
}

TEST(ConstantFolding, FoldsConstantSubtreesWithIrSemantics) {
    EXPECT_EQ(constant_folding(expr::constant(2.0) * 3.0 + expr::sin(expr::constant(0.0))),
              expr::constant(6.0));
    EXPECT_EQ(constant_folding(expr::complex(1.0, 2.0) * 2.0),
              expr::constant(std::complex<double>(2.0, 4.0)));
    // A Real-kinded sqrt of a negative constant is NaN, as the IR's real sqrt.
    EXPECT_TRUE(std::isnan(constant_folding(expr::sqrt(expr::constant(-1.0))).node().re));
    EXPECT_EQ(constant_folding(expr::sqrt(expr::as_complex(-4.0))),
              expr::constant(std::complex<double>(0.0, 2.0)));
    EXPECT_EQ(constant_folding(kX + 2.0 * 3.0), kX + 6.0);
}

TEST(ConstantFolding, SolvesConstantMatricesAtCompileTime) {
    const Expr m = expr::matrix({{2.0, 0.0}, {0.0, 4.0}});
    const Expr folded = constant_folding(expr::solve(m, expr::vector({1.0, 1.0})));
    ASSERT_EQ(folded.kind(), expr::NodeKind::kVector);
    EXPECT_EQ(expr::constant_value(folded.children()[1]), std::complex<double>(0.25, 0.0));
    const Expr with_rhs = constant_folding(expr::solve(m, expr::vector({kP, kX})));
    EXPECT_EQ(with_rhs.kind(), expr::NodeKind::kMatVec);
}

TEST(ConstantFolding, SingularConstantMatrixNamesTheNode) {
    const Expr m = expr::matrix({{1.0, 2.0}, {2.0, 4.0}});
    try {
        (void)constant_folding(expr::solve(m, expr::vector({kP, 1.0})));
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
        EXPECT_NE(std::string(e.what()).find("constant singular matrix [[1, 2], [2, 4]]"),
                  std::string::npos)
            << e.what();
    }
}

TEST(AlgebraicSimplification, RemovesNeutralElementsAndDoubleNegations) {
    EXPECT_EQ(algebraic_simplification(kX * 1.0), kX);
    EXPECT_EQ(algebraic_simplification(kX + 0.0), kX);
    EXPECT_EQ(algebraic_simplification(-(-kX)), kX);
    const Expr z = expr::complex(kX, kP);
    EXPECT_EQ(algebraic_simplification(expr::conj(expr::conj(expr::cis(kX)))), expr::cis(kX));
    EXPECT_EQ(algebraic_simplification(expr::real(z)), kX);
    EXPECT_EQ(algebraic_simplification(expr::imag(z)), kP);
    EXPECT_EQ(algebraic_simplification(expr::conj(kX)), kX);
    // x * 1 with a Complex one keeps the Complex kind.
    EXPECT_EQ(algebraic_simplification(kX * expr::constant(std::complex<double>(1.0, 0.0))),
              expr::as_complex(kX));
}

TEST(AlgebraicSimplification, MultipliesByZeroOnlyWhenFiniteSafe) {
    EXPECT_EQ(algebraic_simplification(kP * kX * 0.0), expr::constant(0.0));
    const Expr unsafe = (1.0 / kX) * 0.0;
    EXPECT_EQ(algebraic_simplification(unsafe).kind(), expr::NodeKind::kNaryMul);
}

TEST(AlgebraicSimplification, FlattensSumsAndProducts) {
    const Expr e = algebraic_simplification(((kX + kY) + kP) - kQ);
    ASSERT_EQ(e.kind(), expr::NodeKind::kNaryAdd);
    EXPECT_EQ(e.children().size(), 4U);
    const Expr m = algebraic_simplification((kX * 2.0) * (kY * 3.0) * (-kP));
    ASSERT_EQ(m.kind(), expr::NodeKind::kNaryMul);
    EXPECT_EQ(m.children().size(), 4U);
    EXPECT_EQ(m.children()[0], expr::constant(-6.0));
}

// A sum built with += (and a product built with *=) is flattened in linear work: each operand
// is placed once, not once per enclosing prefix (issue 21: 40,000 terms took 101 s, 12.5 GB).
TEST(AlgebraicSimplification, FlatteningALoopBuiltChainIsLinear) {
    constexpr std::size_t kTerms = 40'000;
    Expr sum = kX;
    Expr right = kX;
    Expr product = kX;
    for (std::size_t i = 0; i < kTerms; ++i) {
        const Expr term = kP * expr::constant(static_cast<double>(i + 1));
        sum = sum + term;
        right = term + right;
        product = product * (kY + static_cast<double>(i));
    }
    for (const Expr& chain : {sum, right, product}) {
        SimplificationCounts counts;
        const Expr flat = algebraic_simplification_counted(chain, counts);
        EXPECT_EQ(flat.children().size(), kTerms + 1);
        EXPECT_LE(counts.operands_placed, 3 * kTerms);
    }
}

// A difference with a constant subtrahend gets the negated constant, not a neg node that only
// the next round's constant folding would fold (the pipeline would need a round more).
TEST(AlgebraicSimplification, NegatesConstantsOfADifference) {
    const std::complex<double> pi_i(0.0, 3.141592653589793);
    const Expr z = expr::complex(kX, kP);
    const Expr e = algebraic_simplification(z - expr::constant(pi_i));
    ASSERT_EQ(e.kind(), expr::NodeKind::kNaryAdd);
    ASSERT_TRUE(expr::is_constant(e.children()[0]));
    EXPECT_EQ(expr::constant_value(e.children()[0]), -pi_i);
    EXPECT_EQ(constant_folding(e), e);
    EXPECT_EQ(algebraic_simplification(kX - 2.0).children()[0], expr::constant(-2.0));
}

TEST(AlgebraicSimplification, SplitsNormSqrOfProducts) {
    const Expr a = expr::cis(kX);
    const Expr b = expr::complex(kP, kQ);
    const Expr e = algebraic_simplification(expr::norm_sqr(a * b));
    EXPECT_EQ(e, expr::nary_mul({expr::norm_sqr(a), expr::norm_sqr(b)}));
}

TEST(CanonicalOrdering, WritesEqualSumsAsOneNode) {
    const Expr a = canonical_ordering(expr::nary_add({kX, kY, kP}));
    const Expr b = canonical_ordering(expr::nary_add({kP, kX, kY}));
    EXPECT_EQ(a, b);
    const Expr c = canonical_ordering(expr::nary_mul({kX, 2.0}));
    EXPECT_EQ(c.children()[0], expr::constant(2.0));  // constants first
}

TEST(CanonicalOrdering, KeepsANodeAlreadyInOrder) {
    const Expr sorted = canonical_ordering(expr::nary_add({kX, kY, kP, 2.0}));
    EXPECT_EQ(canonical_ordering(sorted), sorted);
    EXPECT_EQ(sorted.children()[0], expr::constant(2.0));
}

TEST(Cse, MergesDuplicateSubtrees) {
    // x*y and y*x are different nodes until CSE treats commutative operands as a multiset.
    const Expr e = expr::sin(kX * kY) + expr::sin(kY * kX);
    EXPECT_EQ(expr::node_count(e), 7U);
    const Expr merged = cse(e);
    EXPECT_EQ(expr::node_count(merged), 5U);
    EXPECT_EQ(merged, expr::sin(kX * kY) + expr::sin(kX * kY));
}

TEST(GroupByEvaluationClass, GathersEventOnlyOperands) {
    const Expr e = expr::nary_mul({kP, kX, expr::constant(2.0), kY});
    EXPECT_EQ(group_by_evaluation_class(e),
              expr::nary_mul({kP, expr::nary_mul({kX, expr::constant(2.0), kY})}));
    EXPECT_EQ(group_by_evaluation_class(expr::nary_mul({kP, kX})), expr::nary_mul({kP, kX}));
}

TEST(DeadNodeRemoval, UnwrapsSingleOperandForms) {
    const Expr live = dead_node_removal(expr::sin(expr::nary_add({kX})));
    EXPECT_EQ(live, expr::sin(kX));
    EXPECT_EQ(expr::node_count(live), 2U);
}

TEST(LinearAlgebraExpansion, ExpandsLiteralProducts) {
    const Expr m = expr::matrix({{kX, kY}, {kP, kQ}});
    const Expr e = linear_algebra_expansion(expr::matvec(m, expr::vector({1.0, 2.0}))[0]);
    EXPECT_EQ(e, expr::nary_add({kX * 1.0, kY * 2.0}));
    const Expr d =
        linear_algebra_expansion(expr::dot(expr::vector({kX, kY}), expr::vector({kP, kQ})));
    EXPECT_EQ(d, expr::nary_add({kX * kP, kY * kQ}));
}

}  // namespace
}  // namespace laddu::compile
