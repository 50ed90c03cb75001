// laddu/physics/quantum_numbers.hpp: the discrete quantum numbers of particles and rules:
// parity (also used for C- and G-parity), statistics, isospin with an optional projection, and
// the Mandelstam channel label.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <laddu/physics/angular_momentum.hpp>

namespace laddu::physics {

/// Intrinsic, C- or G-parity: +1 or -1.
enum class Parity : signed char { kNegative = -1, kPositive = 1 };

/// +1 or -1.
[[nodiscard]] inline int parity_value(Parity p) {
    return static_cast<int>(p);
}

/// The product of two parities.
[[nodiscard]] inline Parity operator*(Parity a, Parity b) {
    return parity_value(a) * parity_value(b) > 0 ? Parity::kPositive : Parity::kNegative;
}

/// The opposite parity.
[[nodiscard]] inline Parity operator-(Parity p) {
    return p == Parity::kPositive ? Parity::kNegative : Parity::kPositive;
}

/// "Positive" or "Negative" (the word laddu's rule messages use).
[[nodiscard]] std::string_view parity_name(Parity p);
/// Parses "+", "plus", "pos", "positive", "-", "minus", "neg", "negative" (any case);
/// ModelError otherwise: `Failed to parse string: "x" does not correspond to a valid "Parity"!`.
[[nodiscard]] Parity parse_parity(std::string_view text);

/// Bose-Einstein or Fermi-Dirac statistics.
enum class Statistics : unsigned char { kBoson, kFermion };

/// Boson for an integer spin, fermion for a half-integer one.
[[nodiscard]] inline Statistics statistics_from_spin(J spin) {
    return spin.is_integer() ? Statistics::kBoson : Statistics::kFermion;
}

/// Parses "boson" or "fermion" (any case); ModelError otherwise.
[[nodiscard]] Statistics parse_statistics(std::string_view text);

/// Isospin I with an optional projection I3.
struct Isospin {
    J isospin = J::from_integer(0);  ///< I
    std::optional<M> projection;     ///< I3, when known

    /// ModelError when the projection is not one of I's projections.
    [[nodiscard]] static Isospin make(J isospin, std::optional<M> projection = std::nullopt);

    friend bool operator==(const Isospin&, const Isospin&) = default;
};

/// The s, t or u channel of a 2 -> 2 process.
enum class MandelstamChannel : unsigned char { kS, kT, kU };

/// Parses "s", "t", "u" (any case); ModelError otherwise.
[[nodiscard]] MandelstamChannel parse_mandelstam_channel(std::string_view text);

/// laddu's message for text that names no value of `object`.
[[nodiscard]] std::string parse_error_message(std::string_view text, std::string_view object);

}  // namespace laddu::physics
