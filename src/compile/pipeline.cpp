// The compiler's table of contents: which passes run, in which order, and why there.
#include "pipeline.hpp"

#include <array>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string_view>

#include <laddu/expr/print.hpp>
#include <laddu/expr/traversal.hpp>

#include "passes/algebraic_simplification.hpp"
#include "passes/bake_fixed_parameters.hpp"
#include "passes/canonical_ordering.hpp"
#include "passes/collect_coefficients.hpp"
#include "passes/constant_folding.hpp"
#include "passes/cse.hpp"
#include "passes/dead_node_removal.hpp"
#include "passes/group_by_evaluation_class.hpp"
#include "passes/linear_algebra_expansion.hpp"

namespace laddu::compile::detail {
namespace {

bool dump_requested(const CompileOptions& options) {
    if (options.dump_passes) {
        return *options.dump_passes;
    }
    const char* value = std::getenv("LADDU_DUMP");  // NOLINT(concurrency-mt-unsafe): read-only
    return value != nullptr && std::string_view(value).find("passes") != std::string_view::npos;
}

// Runs one pass unless disabled, timing it and dumping its result when asked (DuckDB's
// RunOptimizer).
class PassRunner {
public:
    PassRunner(const CompileOptions& options, CompileReport& report)
        : options_(options), report_(report), dump_(dump_requested(options)) {}

    template <typename Pass>
    expr::Expr run(std::string_view name, const expr::Expr& input, Pass&& pass,
                   bool required = false) {
        if (!required &&
            (!options_.optimize || options_.disabled_passes.contains(std::string(name)))) {
            return input;
        }
        const auto start = std::chrono::steady_clock::now();
        expr::Expr output = pass(input);
        const auto stop = std::chrono::steady_clock::now();
        // Counting walks the whole graph (~15% of compile time), so only when dumping.
        const std::size_t nodes = dump_ ? expr::node_count(output) : 0;
        report_.passes.push_back({std::string(name),
                                  std::chrono::duration<double, std::milli>(stop - start).count(),
                                  nodes});
        if (dump_) {
            std::cerr << "=== after " << name << " (" << nodes << " nodes) ===\n"
                      << expr::to_string(output) << "\n";
        }
        return output;
    }

private:
    const CompileOptions& options_;
    CompileReport& report_;
    bool dump_;
};

}  // namespace

expr::Expr run_pipeline(const expr::Expr& source, const CompileOptions& options,
                        CompileReport& report) {
    PassRunner runner(options, report);
    report.source_nodes = expr::node_count(source);

    // Fixed parameters become constants first: every later pass may treat a Parameter as free,
    // and folding can then see through them. Always runs (lowering binds Parameters to free
    // slots).
    expr::Expr e = runner.run("bake_fixed_parameters", source, bake_fixed_parameters, true);

    // The simplification loop, to a fixed point (pointer equality of the hash-consed root). The
    // loop stops as soon as one full cycle of its passes, from wherever it began, left the root
    // unchanged: the root is then a fixed point of every pass, and finishing the round and
    // running one more (to see no change from the round's start) gives the same root. The
    // K-matrix benchmark model's last change is made by the first round's canonical ordering,
    // so its second round stops before cse.
    struct LoopPass {
        std::string_view name;
        expr::Expr (*pass)(const expr::Expr&);
    };

    static constexpr std::array<LoopPass, 5> kLoop{{
        // Fold first: constants produced by baking feed every rule below.
        {"constant_folding", constant_folding},
        // Literal linear algebra becomes scalar sums, so solves see literal matrices and the
        // scalar rules apply to K-matrix style products.
        {"linear_algebra_expansion", linear_algebra_expansion},
        {"algebraic_simplification", algebraic_simplification},
        // Order after simplification has flattened sums and products, so equal multisets meet.
        {"canonical_ordering", canonical_ordering},
        // CSE keys on structure; after canonical ordering most duplicates are already one node.
        {"cse", cse},
    }};
    std::size_t unchanged = 0;  // passes in a row that returned the root they were given
    for (report.rounds = 0; report.rounds < options.max_iterations && unchanged < kLoop.size();
         ++report.rounds) {
        for (const LoopPass& loop_pass : kLoop) {
            const expr::Expr before = e;
            e = runner.run(loop_pass.name, e, loop_pass.pass);
            unchanged = e == before ? unchanged + 1 : 0;
            if (unchanged == kLoop.size()) {
                break;
            }
        }
    }

    // After the loop (simplification would distribute and flatten it again): each coefficient
    // times one event-only sum, so a K-matrix costs a column per pole, not per pole and channel.
    e = runner.run("collect_coefficients", e, collect_coefficients);

    // After the loop (simplification would flatten it again): event-only operands of mixed
    // sums and products become one node, so they cost one cache column.
    e = runner.run("group_by_evaluation_class", e, group_by_evaluation_class);

    // Last: unwrap single-operand sums/products.
    return runner.run("dead_node_removal", e, dead_node_removal);
}

}  // namespace laddu::compile::detail
