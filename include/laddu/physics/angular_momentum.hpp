// laddu/physics/angular_momentum.hpp: exact angular momenta J (also used for spins S), orbital
// L and projections M.
//
// Values are stored exactly: J and M as doubled integers (J = 3/2 is doubled 3), L as an integer,
// so integer and half-integer arithmetic never rounds. The constructors from a double accept a
// value within 1e-12 of a (half-)integer; invalid inputs throw ModelError with laddu's messages
// ("Invalid value for angular momentum: expected integer or half-integer, got 0.3").
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace laddu::physics {

enum class Parity : signed char;
class M;

/// A non-negative angular momentum (total J or spin S), integer or half-integer.
class J {
public:
    /// J = doubled / 2; ModelError unless 0 <= doubled <= 2^32 - 1.
    [[nodiscard]] static J from_doubled(std::int64_t doubled);
    /// J = value (an integer); ModelError for a negative value.
    [[nodiscard]] static J from_integer(std::int64_t value);
    /// J = numerator / denominator (denominator > 0); ModelError unless 2J is an integer.
    [[nodiscard]] static J from_ratio(std::int64_t numerator, std::int64_t denominator);
    /// J from a double within 1e-12 of a (half-)integer; ModelError otherwise or if not finite.
    [[nodiscard]] static J from_double(double value);

    /// 2J.
    [[nodiscard]] std::uint32_t doubled() const { return doubled_; }

    /// J as a double.
    [[nodiscard]] double value() const { return 0.5 * doubled_; }

    /// 2J + 1.
    [[nodiscard]] std::int64_t multiplicity() const { return std::int64_t{doubled_} + 1; }

    /// Whether J is an integer.
    [[nodiscard]] bool is_integer() const { return doubled_ % 2 == 0; }

    /// The projections -J, -J + 1, ..., J.
    [[nodiscard]] std::vector<M> projections() const;
    /// The totals |J - other|, ..., J + other that J and `other` couple to.
    [[nodiscard]] std::vector<J> coupled_with(J other) const;
    /// Whether `first` and `second` couple to this J (triangle rule, integer steps).
    [[nodiscard]] bool can_couple_to(J first, J second) const;
    /// "1", "3/2".
    [[nodiscard]] std::string to_string() const;

    /// J1 + J2 (doubled values added); ModelError if the sum does not fit.
    friend J operator+(J a, J b);
    friend auto operator<=>(const J&, const J&) = default;

private:
    explicit J(std::uint32_t doubled) : doubled_(doubled) {}

    std::uint32_t doubled_ = 0;
};

/// A non-negative integer orbital angular momentum.
class L {
public:
    /// ModelError for a negative value or one above 2^32 - 1.
    [[nodiscard]] static L from_integer(std::int64_t value);
    /// L = numerator / denominator (denominator > 0); ModelError unless an integer.
    [[nodiscard]] static L from_ratio(std::int64_t numerator, std::int64_t denominator);
    /// L from a double within 1e-12 of an integer.
    [[nodiscard]] static L from_double(double value);
    /// L = J; ModelError for a half-integer J.
    [[nodiscard]] static L from_j(J j);

    /// L.
    [[nodiscard]] std::uint32_t value() const { return value_; }

    /// 2L + 1.
    [[nodiscard]] std::int64_t multiplicity() const { return 2 * std::int64_t{value_} + 1; }

    /// The orbital parity (-1)^L.
    [[nodiscard]] Parity parity() const;
    /// The projections -L, ..., L.
    [[nodiscard]] std::vector<M> projections() const;

    /// L as a J.
    [[nodiscard]] J as_j() const { return J::from_integer(value_); }

    /// The spectroscopic letter: S, P, D, F, G, H, I, then "L7", "L8", ...
    [[nodiscard]] std::string letter() const;

    friend auto operator<=>(const L&, const L&) = default;

private:
    explicit L(std::uint32_t value) : value_(value) {}

    std::uint32_t value_ = 0;
};

/// A signed projection (or helicity) M, integer or half-integer.
class M {
public:
    /// M = doubled / 2; ModelError unless doubled fits a 32-bit signed integer.
    [[nodiscard]] static M from_doubled(std::int64_t doubled);
    /// M = value.
    [[nodiscard]] static M from_integer(std::int64_t value);
    /// M = numerator / denominator (denominator > 0); ModelError unless 2M is an integer.
    [[nodiscard]] static M from_ratio(std::int64_t numerator, std::int64_t denominator);
    /// M from a double within 1e-12 of a (half-)integer.
    [[nodiscard]] static M from_double(double value);

    /// 2M.
    [[nodiscard]] std::int32_t doubled() const { return doubled_; }

    /// M as a double.
    [[nodiscard]] double value() const { return 0.5 * doubled_; }

    /// Whether M is an integer.
    [[nodiscard]] bool is_integer() const { return doubled_ % 2 == 0; }

    /// "-1", "1/2", "-3/2".
    [[nodiscard]] std::string to_string() const;

    /// Sums and differences of doubled values; ModelError on overflow.
    friend M operator+(M a, M b);
    friend M operator-(M a, M b);
    friend M operator-(M a);
    friend auto operator<=>(const M&, const M&) = default;

private:
    explicit M(std::int32_t doubled) : doubled_(doubled) {}

    std::int32_t doubled_ = 0;
};

/// "n" for an even doubled value 2n, else "doubled/2".
[[nodiscard]] std::string half_integer_text(std::int64_t doubled);

/// ModelError unless |m| <= j and m, j are both integer or both half-integer.
void validate_projection(J j, M m);

}  // namespace laddu::physics
