// laddu/expr/value_kind.hpp: the shape and number field of an expression's value.
//
// Every node knows its kind when it is built, and builders reject mismatches with a ModelError
// naming both kinds ("cannot add Vector(3) and Matrix(2x2)"). Aggregates carry one flag for
// their elements: a Vector of Real elements is cached as Real columns (8 bytes each).
#pragma once

#include <cstdint>
#include <string>

namespace laddu::expr {

/// Scalar, vector or matrix.
enum class Shape : std::uint8_t { kScalar, kVector, kMatrix };

/// The kind of an expression's value: Real, Complex, Vector(n) or Matrix(r x c).
struct ValueKind {
    Shape shape = Shape::kScalar;
    bool is_complex = false;  ///< for aggregates: at least one element may be complex
    std::uint32_t rows = 1;   ///< vector length, or matrix rows
    std::uint32_t cols = 1;   ///< matrix columns (1 for scalars and vectors)

    /// A real scalar.
    [[nodiscard]] static ValueKind real() { return {}; }

    /// A complex scalar.
    [[nodiscard]] static ValueKind complex() { return {Shape::kScalar, true, 1, 1}; }

    /// A vector of `n` elements.
    [[nodiscard]] static ValueKind vector(std::uint32_t n, bool is_complex) {
        return {Shape::kVector, is_complex, n, 1};
    }

    /// A `rows` x `cols` matrix (row-major elements).
    [[nodiscard]] static ValueKind matrix(std::uint32_t rows, std::uint32_t cols, bool is_complex) {
        return {Shape::kMatrix, is_complex, rows, cols};
    }

    /// True for Real and Complex.
    [[nodiscard]] bool is_scalar() const { return shape == Shape::kScalar; }

    /// True for Real.
    [[nodiscard]] bool is_real_scalar() const { return is_scalar() && !is_complex; }

    /// Number of scalar elements (1 for scalars).
    [[nodiscard]] std::uint32_t size() const { return rows * cols; }

    /// Equal shapes, sizes and fields.
    friend bool operator==(const ValueKind&, const ValueKind&) = default;
};

/// "Real", "Complex", "Vector(3)", "Matrix(2x3)".
[[nodiscard]] std::string to_string(const ValueKind& kind);

}  // namespace laddu::expr
