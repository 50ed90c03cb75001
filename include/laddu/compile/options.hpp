// laddu/compile/options.hpp: knobs of compile_model().
#pragma once

#include <optional>
#include <set>
#include <string>

namespace laddu::compile {

/// Options of compile_model().
struct CompileOptions {
    /// Names of passes to skip, for bisecting a miscompile: "constant_folding",
    /// "linear_algebra_expansion", "algebraic_simplification", "canonical_ordering", "cse",
    /// "group_by_evaluation_class", "dead_node_removal". ("bake_fixed_parameters" cannot be
    /// disabled: lowering needs it.)
    std::set<std::string> disabled_passes = {};

    /// false skips every optimisation pass (the unoptimised reference compile).
    bool optimize = true;

    /// Print the expression after each pass to stderr; default: LADDU_DUMP contains "passes".
    std::optional<bool> dump_passes = std::nullopt;

    /// Maximum rounds of the fixed-point optimisation loop.
    int max_iterations = 16;

    /// Run the normalisation analysis (the Hermitian-form decomposition).
    bool analyse_normalization = true;
};

}  // namespace laddu::compile
