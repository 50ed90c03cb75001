// laddu/expr/parameter.hpp: the definition of a real model parameter.
//
// A parameter is bound by name: two Parameter nodes with the same name are one parameter of the
// model, and they must agree on their definition (Model rejects conflicting ones).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace laddu::expr {

/// Lower and upper bounds of a parameter (either may be infinite).
struct Bounds {
    double lower;
    double upper;

    friend bool operator==(const Bounds&, const Bounds&) = default;
};

/// Optional settings of parameter(); use designated initialisers: {.initial = 1.0}.
struct ParameterOptions {
    // Default member initialisers keep g++ quiet about designated initialisers that skip fields.
    std::optional<double> initial = std::nullopt;  ///< start value; default: bounds midpoint or 0
    std::optional<Bounds> bounds = std::nullopt;   ///< allowed range
    std::optional<double> fixed = std::nullopt;    ///< fixed at this value (not varied by fits)
    bool periodic = false;                         ///< an angle wrapped into its bounds
    std::string unit = {};                         ///< free text ("GeV", "rad")
    std::string latex = {};  ///< LaTeX label for renderings ("\\Gamma"); empty: the name
    /// a (low, high) range a start value is drawn from (sample_initial); the default value is
    /// its midpoint. Exclusive with `initial`.
    std::optional<Bounds> initial_range = std::nullopt;
};

/// The full definition of a parameter. Equal definitions compare equal.
struct Parameter {
    std::string name;
    std::optional<double> initial;
    std::optional<Bounds> bounds;
    std::optional<double> fixed;
    bool periodic = false;
    std::string unit;
    std::string latex;  ///< LaTeX label (to_latex prints it instead of the name); may be empty
    std::optional<Bounds> initial_range;  ///< see ParameterOptions::initial_range

    /// Validates and builds a definition; throws ModelError for an empty name, lower >= upper,
    /// an initial/fixed value or initial range outside the bounds, a range with low > high, or
    /// both an initial value and a range.
    [[nodiscard]] static Parameter make(std::string name, const ParameterOptions& options = {});

    /// True when the parameter is fixed.
    [[nodiscard]] bool is_fixed() const { return fixed.has_value(); }

    /// The default value: the fixed value, the initial value, the midpoint of the initial
    /// range, the midpoint of finite bounds, or 0.
    [[nodiscard]] double default_value() const;

    /// A readable definition, e.g. "m (initial 1, bounds [0, 2], unit GeV)".
    [[nodiscard]] std::string describe() const;

    friend bool operator==(const Parameter&, const Parameter&) = default;
};

/// laddu's start values drawn for `parameters` (free ones, in order) from `seed`: a parameter
/// with an initial range takes the next draw of fastrand's stream of `seed` (WyRand), uniform
/// on [low, high); the others their default value (laddu's ParamLayout::sample_initial).
[[nodiscard]] std::vector<double> sample_initial(std::span<const Parameter> parameters,
                                                 std::uint64_t seed);

}  // namespace laddu::expr
