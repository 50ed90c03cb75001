// Exact angular momenta: conversions with laddu's validation messages, coupling and projections.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <laddu/base/error.hpp>
#include <laddu/physics/angular_momentum.hpp>
#include <laddu/physics/quantum_numbers.hpp>

namespace laddu::physics {

namespace {

constexpr double kTolerance = 1.0e-12;

// How one kind of quantum number is scaled, bounded and named in messages.
struct Conversion {
    std::int64_t scale;  // 2 for J and M (stored doubled), 1 for L
    bool nonnegative;    // negative integers rejected before scaling
    std::int64_t min;    // stored-value bounds
    std::int64_t max;
    const char* domain;      // "angular momentum"
    const char* physical;    // "integer or half-integer"
    const char* storage;     // "nonnegative and representable as doubled u32"
    const char* non_finite;  // message for NaN/inf, or nullptr for the generic one
};

constexpr Conversion kJ{2,
                        true,
                        0,
                        std::numeric_limits<std::uint32_t>::max(),
                        "angular momentum",
                        "integer or half-integer",
                        "nonnegative and representable as doubled u32",
                        nullptr};
constexpr Conversion kL{1,
                        true,
                        0,
                        std::numeric_limits<std::uint32_t>::max(),
                        "orbital angular momentum",
                        "integer",
                        "nonnegative and representable as u32",
                        nullptr};
constexpr Conversion kM{2,
                        false,
                        std::numeric_limits<std::int32_t>::min(),
                        std::numeric_limits<std::int32_t>::max(),
                        "projection",
                        "integer or half-integer",
                        "representable as i32",
                        "projection must be finite"};

// A double as Rust's Display prints it: shortest round trip, never an exponent.
std::string float_text(double value) {
    if (std::isnan(value)) {
        return "NaN";
    }
    if (std::isinf(value)) {
        return value > 0 ? "inf" : "-inf";
    }
    char buffer[400];
    const auto result =
        std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed);
    return std::string(buffer, result.ptr);
}

[[noreturn]] void invalid(const Conversion& c, const char* expected, const std::string& got) {
    throw ModelError(std::string("Invalid value for ") + c.domain + ": expected " + expected +
                     ", got " + got);
}

std::int64_t stored(const Conversion& c, std::int64_t scaled) {
    if (scaled < c.min || scaled > c.max) {
        invalid(c, c.storage, std::to_string(scaled));
    }
    return scaled;
}

std::int64_t from_integer(const Conversion& c, std::int64_t value) {
    if (c.nonnegative && value < 0) {
        invalid(c, "nonnegative", std::to_string(value));
    }
    // |value| < 2^63 and scale <= 2: the product overflows only past the storage bounds anyway.
    if (value > std::numeric_limits<std::int64_t>::max() / c.scale ||
        value < std::numeric_limits<std::int64_t>::min() / c.scale) {
        throw ModelError(std::string("Numeric overflow while computing ") +
                         std::to_string(c.scale) + " * " + c.domain + " for value " +
                         std::to_string(value));
    }
    return stored(c, value * c.scale);
}

std::int64_t from_ratio(const Conversion& c, std::int64_t numerator, std::int64_t denominator) {
    if (denominator == 0) {
        throw ModelError("quantum-number denominator cannot be zero");
    }
    if (denominator < 0) {
        numerator = -numerator;
        denominator = -denominator;
    }
    std::int64_t scaled = 0;
    if (__builtin_mul_overflow(numerator, c.scale, &scaled)) {
        throw ModelError(std::string("Numeric overflow while computing ") +
                         std::to_string(c.scale) + " * " + c.domain + " numerator " +
                         std::to_string(numerator));
    }
    if (scaled % denominator != 0) {
        invalid(c, c.physical, std::to_string(numerator) + "/" + std::to_string(denominator));
    }
    return stored(c, scaled / denominator);
}

std::int64_t from_double(const Conversion& c, double value) {
    if (!std::isfinite(value)) {
        if (c.non_finite != nullptr) {
            throw ModelError(c.non_finite);
        }
        invalid(c, "finite", float_text(value));
    }
    const double scaled = static_cast<double>(c.scale) * value;
    const double rounded = std::round(scaled);
    if (std::abs(scaled - rounded) > kTolerance) {
        invalid(c, c.physical, float_text(value));
    }
    if (rounded < static_cast<double>(c.min) || rounded > static_cast<double>(c.max)) {
        invalid(c, c.storage, float_text(rounded));
    }
    return static_cast<std::int64_t>(rounded);
}

}  // namespace

std::string half_integer_text(std::int64_t doubled) {
    if (doubled % 2 == 0) {
        return std::to_string(doubled / 2);
    }
    return std::to_string(doubled) + "/2";
}

// ---- J ----

J J::from_doubled(std::int64_t doubled) {
    if (doubled < 0) {
        invalid(kJ, "nonnegative", half_integer_text(doubled));
    }
    return J(static_cast<std::uint32_t>(stored(kJ, doubled)));
}

J J::from_integer(std::int64_t value) {
    return J(static_cast<std::uint32_t>(physics::from_integer(kJ, value)));
}

J J::from_ratio(std::int64_t numerator, std::int64_t denominator) {
    return J(static_cast<std::uint32_t>(physics::from_ratio(kJ, numerator, denominator)));
}

J J::from_double(double value) {
    return J(static_cast<std::uint32_t>(physics::from_double(kJ, value)));
}

std::vector<M> J::projections() const {
    std::vector<M> out;
    out.reserve(doubled_ + 1);
    const std::int64_t twice = doubled_;
    for (std::int64_t m = -twice; m <= twice; m += 2) {
        out.push_back(M::from_doubled(m));
    }
    return out;
}

std::vector<J> J::coupled_with(J other) const {
    const std::int64_t a = doubled_;
    const std::int64_t b = other.doubled_;
    std::vector<J> out;
    for (std::int64_t total = std::llabs(a - b); total <= a + b; total += 2) {
        out.push_back(J::from_doubled(total));
    }
    return out;
}

bool J::can_couple_to(J first, J second) const {
    const std::int64_t a = first.doubled_;
    const std::int64_t b = second.doubled_;
    const std::int64_t j = doubled_;
    const std::int64_t low = std::llabs(a - b);
    return j >= low && j <= a + b && (j - low) % 2 == 0;
}

std::string J::to_string() const {
    return half_integer_text(doubled_);
}

J operator+(J a, J b) {
    return J::from_doubled(std::int64_t{a.doubled_} + b.doubled_);
}

// ---- L ----

L L::from_integer(std::int64_t value) {
    return L(static_cast<std::uint32_t>(physics::from_integer(kL, value)));
}

L L::from_ratio(std::int64_t numerator, std::int64_t denominator) {
    return L(static_cast<std::uint32_t>(physics::from_ratio(kL, numerator, denominator)));
}

L L::from_double(double value) {
    return L(static_cast<std::uint32_t>(physics::from_double(kL, value)));
}

L L::from_j(J j) {
    if (!j.is_integer()) {
        invalid(kL, "integer", j.to_string());
    }
    return L(j.doubled() / 2);
}

Parity L::parity() const {
    return value_ % 2 == 0 ? Parity::kPositive : Parity::kNegative;
}

std::vector<M> L::projections() const {
    return as_j().projections();
}

std::string L::letter() const {
    static constexpr const char* kLetters[] = {"S", "P", "D", "F", "G", "H", "I"};
    if (value_ < 7) {
        return kLetters[value_];
    }
    return "L" + std::to_string(value_);
}

// ---- M ----

M M::from_doubled(std::int64_t doubled) {
    return M(static_cast<std::int32_t>(stored(kM, doubled)));
}

M M::from_integer(std::int64_t value) {
    return M(static_cast<std::int32_t>(physics::from_integer(kM, value)));
}

M M::from_ratio(std::int64_t numerator, std::int64_t denominator) {
    return M(static_cast<std::int32_t>(physics::from_ratio(kM, numerator, denominator)));
}

M M::from_double(double value) {
    return M(static_cast<std::int32_t>(physics::from_double(kM, value)));
}

std::string M::to_string() const {
    return half_integer_text(doubled_);
}

M operator+(M a, M b) {
    return M::from_doubled(std::int64_t{a.doubled_} + b.doubled_);
}

M operator-(M a, M b) {
    return M::from_doubled(std::int64_t{a.doubled_} - b.doubled_);
}

M operator-(M a) {
    return M::from_doubled(-std::int64_t{a.doubled_});
}

void validate_projection(J j, M m) {
    if (std::llabs(m.doubled()) > std::int64_t{j.doubled()}) {
        throw ModelError("Invalid relation: spin projection must satisfy -J <= m <= J, got J = " +
                         j.to_string() + ", m = " + m.to_string());
    }
    if ((j.doubled() % 2 == 0) != m.is_integer()) {
        throw ModelError(
            "Invalid relation: spin projection must have the same integer/half-integer parity "
            "as spin, got J = " +
            j.to_string() + ", m = " + m.to_string());
    }
}

}  // namespace laddu::physics
