// laddu/generation/interval.hpp: closed real intervals with outward rounding, the arithmetic
// of ChannelGenerator::phase_space_envelope's proof that no proposal weight exceeds its bound.
//
// Every operation returns an interval that contains the exact result of the operation on every
// pair of points of its operands: each computed endpoint is moved outward by one unit in the
// last place (two for exp, log and pow, whose libm results may be off by one ulp), so rounding
// can only widen an enclosure (R. E. Moore, R. B. Kearfott, M. J. Cloud, "Introduction to
// Interval Analysis", SIAM 2009, ch. 2-4). Functions defined on part of the line (sqrt, log,
// pow) enclose their values on the part of the operand where they are defined, and give the
// empty interval where there is none. A division by an interval holding zero gives the whole
// line.
//
// Example: a two-body breakup momentum over a box of parent masses:
//   Interval m = Interval(1.0, 1.2), a = Interval::point(0.4);
//   Interval q = ((m.sqr() - (a + a).sqr()) * m.sqr()).sqrt() / (2.0 * m);
#pragma once

#include <limits>
#include <string>

namespace laddu::generation {

/// A closed interval [lo, hi] of reals, or the empty set (see the banner).
class Interval {
public:
    /// The empty interval.
    Interval() = default;

    /// [lo, hi]; the empty interval when lo > hi or either bound is NaN.
    Interval(double lo, double hi);

    /// [x, x].
    [[nodiscard]] static Interval point(double x) { return {x, x}; }

    /// (−∞, +∞).
    [[nodiscard]] static Interval entire();

    /// True for the empty set.
    [[nodiscard]] bool is_empty() const noexcept { return empty_; }

    /// The lower bound (+∞ when empty).
    [[nodiscard]] double lo() const noexcept { return lo_; }

    /// The upper bound (−∞ when empty).
    [[nodiscard]] double hi() const noexcept { return hi_; }

    /// True when x ∈ [lo, hi].
    [[nodiscard]] bool contains(double x) const noexcept { return !empty_ && lo_ <= x && x <= hi_; }

    /// x², which is non-negative even when the interval holds zero.
    [[nodiscard]] Interval sqr() const;

    /// √x over the non-negative part.
    [[nodiscard]] Interval sqrt() const;

    /// eˣ.
    [[nodiscard]] Interval exp() const;

    /// ln x over the positive part.
    [[nodiscard]] Interval log() const;

    /// xᵖ over the positive part, for a finite constant exponent p.
    [[nodiscard]] Interval pow(double p) const;

    /// The smallest interval holding both.
    [[nodiscard]] static Interval hull(const Interval& a, const Interval& b);

    /// The common part.
    [[nodiscard]] static Interval intersect(const Interval& a, const Interval& b);

    /// {max(x, y)} over x ∈ a, y ∈ b.
    [[nodiscard]] static Interval max(const Interval& a, const Interval& b);

    /// {min(x, y)} over x ∈ a, y ∈ b.
    [[nodiscard]] static Interval min(const Interval& a, const Interval& b);

    /// "[lo, hi]" or "empty".
    [[nodiscard]] std::string to_string() const;

    friend Interval operator+(const Interval& a, const Interval& b);
    friend Interval operator-(const Interval& a, const Interval& b);
    friend Interval operator*(const Interval& a, const Interval& b);
    friend Interval operator/(const Interval& a, const Interval& b);
    friend Interval operator-(const Interval& a);

private:
    double lo_ = std::numeric_limits<double>::infinity();
    double hi_ = -std::numeric_limits<double>::infinity();
    bool empty_ = true;
};

/// Interval arithmetic with a number (the number as a point interval).
[[nodiscard]] inline Interval operator+(const Interval& a, double b) {
    return a + Interval::point(b);
}

[[nodiscard]] inline Interval operator-(const Interval& a, double b) {
    return a - Interval::point(b);
}

[[nodiscard]] inline Interval operator-(double a, const Interval& b) {
    return Interval::point(a) - b;
}

[[nodiscard]] inline Interval operator*(double a, const Interval& b) {
    return Interval::point(a) * b;
}

[[nodiscard]] inline Interval operator/(double a, const Interval& b) {
    return Interval::point(a) / b;
}

}  // namespace laddu::generation
