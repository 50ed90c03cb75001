// laddu/likelihood/likelihood.hpp: a sum of terms sharing parameters by name.
//
// The parameters of a Likelihood are the union of its terms' parameter names, in order of
// first appearance across the terms. Terms that share a name must define it identically (as
// laddu requires): add() throws ModelError naming the parameter and both definitions
// otherwise. Penalties name parameters without defining them, so they take the models'.
//
// Example:
//   likelihood::Likelihood total;
//   total.add(std::make_shared<likelihood::NLL>(model, data, accepted));
//   total.add(std::make_shared<likelihood::RidgePenalty>(std::vector<std::string>{"a"}, 0.1));
//   const auto start = total.values_from({{"a", 0.5}});
//   const runtime::Evaluation e = total.value_and_gradient(start);
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <laddu/expr/parameter.hpp>
#include <laddu/likelihood/term.hpp>

namespace laddu::likelihood {

/// How often a Likelihood was evaluated (laddu's diagnostics counts).
struct EvaluationCounts {
    std::uint64_t objective = 0;  ///< value() calls
    std::uint64_t gradient = 0;   ///< value_and_gradient() calls (gradient() calls it)
};

/// Σ_t term_t(θ restricted to term t's names).
class Likelihood {
public:
    /// An empty likelihood (value 0, no parameters).
    Likelihood() = default;

    /// The sum of `terms` (ModelError for a null term).
    explicit Likelihood(std::vector<TermPtr> terms);

    /// Appends a term; its new parameter names go after the existing ones. Throws ModelError
    /// when it defines a parameter differently from an earlier term (naming both definitions).
    Likelihood& add(TermPtr term);

    /// The terms, in order.
    [[nodiscard]] const std::vector<TermPtr>& terms() const noexcept { return terms_; }

    /// The parameter names (union of the terms', order of first appearance).
    [[nodiscard]] const std::vector<std::string>& parameter_names() const noexcept {
        return names_;
    }

    /// The merged parameter definitions, in parameter_names() order.
    [[nodiscard]] const std::vector<expr::Parameter>& parameters() const noexcept {
        return parameters_;
    }

    /// The number of parameters.
    [[nodiscard]] std::size_t size() const noexcept { return names_.size(); }

    /// Each parameter's default value (initial, bounds midpoint or 0).
    [[nodiscard]] std::vector<double> default_parameters() const;

    /// Each parameter's bounds ((-inf, inf) for an unbounded one).
    [[nodiscard]] std::vector<expr::Bounds> bounds() const;

    /// The index of `name`; ModelError listing the known names when unknown.
    [[nodiscard]] std::size_t index_of(const std::string& name) const;

    /// default_parameters() with the entries named in `values` replaced. Throws ModelError
    /// naming an unknown name and listing the known ones.
    [[nodiscard]] std::vector<double>
    values_from(const std::map<std::string, double>& values) const;

    /// The sum of the terms' values. EvaluationError for a wrong parameter count.
    [[nodiscard]] double value(std::span<const double> params) const;

    /// The gradient of value().
    [[nodiscard]] std::vector<double> gradient(std::span<const double> params) const;

    /// value() and gradient() in one pass over the terms.
    [[nodiscard]] runtime::Evaluation value_and_gradient(std::span<const double> params) const;

    /// laddu's stochastic objective: the sum of the terms' stochastic_value_and_gradient, term t
    /// with seed + t · 0x9E3779B97F4A7C15 (its own batch). ModelError unless 0 < fraction ≤ 1.
    [[nodiscard]] runtime::Evaluation stochastic_value_and_gradient(std::span<const double> params,
                                                                    double fraction,
                                                                    std::uint64_t seed) const;

    /// The evaluations so far (a copy starts from the counts of its source).
    [[nodiscard]] EvaluationCounts evaluation_counts() const noexcept;

private:
    // Counted by const evaluations, which fits may run from several threads at once.
    class Counter {
    public:
        Counter() = default;

        Counter(const Counter& other) noexcept : count_(other.load()) {}

        Counter& operator=(const Counter& other) noexcept {
            count_.store(other.load(), std::memory_order_relaxed);
            return *this;
        }

        Counter(Counter&& other) noexcept : count_(other.load()) {}

        Counter& operator=(Counter&& other) noexcept {
            count_.store(other.load(), std::memory_order_relaxed);
            return *this;
        }

        ~Counter() = default;

        void add() const noexcept { count_.fetch_add(1, std::memory_order_relaxed); }

        [[nodiscard]] std::uint64_t load() const noexcept {
            return count_.load(std::memory_order_relaxed);
        }

    private:
        mutable std::atomic<std::uint64_t> count_{0};
    };

    std::vector<double> gather(std::size_t term, std::span<const double> params) const;

    std::vector<TermPtr> terms_;
    std::vector<std::vector<std::size_t>> indices_;  ///< per term: global index of its params
    std::vector<std::string> names_;
    std::vector<expr::Parameter> parameters_;
    std::vector<std::optional<std::string>> defined_by_;  ///< the defining term's name, if any
    Counter objective_evaluations_;
    Counter gradient_evaluations_;
};

}  // namespace laddu::likelihood
