// laddu/likelihood/term.hpp: the interface every likelihood term implements.
//
// A term is a scalar function of named real parameters with an exact gradient: an unbinned
// negative log-likelihood, a penalty, or a test function. A Likelihood sums terms and matches
// their parameters by name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <laddu/expr/parameter.hpp>
#include <laddu/runtime/evaluation.hpp>

namespace laddu::likelihood {

/// A scalar objective of named parameters (minimised by fits).
class Term {
public:
    Term() = default;
    Term(const Term&) = default;
    Term(Term&&) = default;
    Term& operator=(const Term&) = default;
    Term& operator=(Term&&) = default;
    virtual ~Term() = default;

    /// The term's name ("nll", "ridge", ...), for reports.
    [[nodiscard]] virtual const std::string& name() const noexcept = 0;

    /// The definitions (name, initial value, bounds) of the parameters, in the order parameter
    /// vectors use.
    [[nodiscard]] virtual const std::vector<expr::Parameter>& parameters() const noexcept = 0;

    /// True when parameters() are definitions (a model's); false when the term only names
    /// parameters that other terms define (a penalty), so its bare definitions never conflict.
    [[nodiscard]] virtual bool defines_parameters() const noexcept { return true; }

    /// The value at `params` (one value per parameter()).
    [[nodiscard]] virtual double value(std::span<const double> params) const = 0;

    /// The value and its exact gradient at `params`.
    [[nodiscard]] virtual runtime::Evaluation
    value_and_gradient(std::span<const double> params) const = 0;

    /// An unbiased estimate of value_and_gradient() from a random batch of the events (laddu's
    /// stochastic objective for Adam): a term over data evaluates a `fraction` of them, chosen
    /// by `seed`, and scales by 1/fraction; the default (a term without events, such as a
    /// penalty) is value_and_gradient() itself.
    [[nodiscard]] virtual runtime::Evaluation
    stochastic_value_and_gradient(std::span<const double> params, double fraction,
                                  std::uint64_t seed) const {
        (void)fraction;
        (void)seed;
        return value_and_gradient(params);
    }

    /// The gradient at `params` (value_and_gradient().gradient).
    [[nodiscard]] std::vector<double> gradient(std::span<const double> params) const {
        return value_and_gradient(params).gradient;
    }

    /// The parameter names, in order.
    [[nodiscard]] std::vector<std::string> parameter_names() const;
};

/// Terms are shared, immutable after construction.
using TermPtr = std::shared_ptr<const Term>;

/// Throws EvaluationError when `params` does not have `expected` values, naming `term`.
void check_parameter_count(const std::string& term, std::size_t expected, std::size_t got);

}  // namespace laddu::likelihood
