// Test support: a deliberately plain evaluator of expr::Expr for one event.
//
// It walks the DAG recursively with std::complex<double> and no optimisation, following the
// kind rules of expr.hpp (Real operands use real libm, so sqrt of a negative Real is NaN). It is
// the oracle the compiler, physics and amplitudes tests evaluate expressions with, and shares
// no code with the compiler or the backends.
#pragma once

#include <array>
#include <complex>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <laddu/expr/expr.hpp>

namespace laddu::testing {

using Complex = std::complex<double>;

/// One event: named four-momenta (E, px, py, pz) and named scalars.
struct Event {
    std::map<std::string, std::array<double, 4>> p4;
    std::map<std::string, double> scalars;
};

/// Parameter values by name; missing names (and fixed parameters) take the parameter's value.
using ParameterValues = std::map<std::string, double>;

/// Evaluates expressions for one event, memoising shared subexpressions.
class ReferenceEvaluator {
public:
    ReferenceEvaluator(Event event, ParameterValues parameters)
        : event_(std::move(event)), parameters_(std::move(parameters)) {}

    /// The elements of `e` (one for a scalar; row-major for a matrix).
    std::vector<Complex> evaluate(const expr::Expr& e);

    /// The value of a scalar expression.
    Complex scalar(const expr::Expr& e);

private:
    std::vector<Complex> compute(const expr::Expr& e);

    Event event_;
    ParameterValues parameters_;
    std::unordered_map<const void*, std::vector<Complex>> memo_;
};

/// Evaluates a scalar expression for one event.
[[nodiscard]] Complex evaluate(const expr::Expr& e, const Event& event = {},
                               const ParameterValues& parameters = {});

/// Evaluates any expression (its elements) for one event.
[[nodiscard]] std::vector<Complex> evaluate_all(const expr::Expr& e, const Event& event = {},
                                                const ParameterValues& parameters = {});

/// The value of the column a compiled program loads as `column`: "name.e|px|py|pz" is a
/// component of four-momentum `name`, anything else a scalar (std::out_of_range if absent).
[[nodiscard]] double column_value(const Event& event, const std::string& column);

}  // namespace laddu::testing
