#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include <laddu/generation/interval.hpp>

namespace laddu::generation {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// One ulp outward: the rounded result of a correctly rounded operation (+, −, ×, ÷, √) is within
// one ulp of the exact one, so the neighbour on the outer side bounds it.
double down(double x) {
    return std::nextafter(x, -kInf);
}

double up(double x) {
    return std::nextafter(x, kInf);
}

// glibc documents exp, log and pow within one ulp, not correctly rounded: two ulps outward.
double down2(double x) {
    return down(down(x));
}

double up2(double x) {
    return up(up(x));
}

// 0 × ∞ = 0 in interval products (a zero endpoint times an unbounded one contributes 0).
double product(double a, double b) {
    return a == 0.0 || b == 0.0 ? 0.0 : a * b;
}

}  // namespace

Interval::Interval(double lo, double hi) {
    if (lo <= hi) {  // false for NaN bounds too
        lo_ = lo;
        hi_ = hi;
        empty_ = false;
    }
}

Interval Interval::entire() {
    return {-kInf, kInf};
}

Interval operator+(const Interval& a, const Interval& b) {
    if (a.empty_ || b.empty_) {
        return {};
    }
    return {down(a.lo_ + b.lo_), up(a.hi_ + b.hi_)};
}

Interval operator-(const Interval& a, const Interval& b) {
    if (a.empty_ || b.empty_) {
        return {};
    }
    return {down(a.lo_ - b.hi_), up(a.hi_ - b.lo_)};
}

Interval operator-(const Interval& a) {
    if (a.empty_) {
        return {};
    }
    return {-a.hi_, -a.lo_};  // exact
}

Interval operator*(const Interval& a, const Interval& b) {
    if (a.empty_ || b.empty_) {
        return {};
    }
    const std::array<double, 4> p{product(a.lo_, b.lo_), product(a.lo_, b.hi_),
                                  product(a.hi_, b.lo_), product(a.hi_, b.hi_)};
    const auto [lo, hi] = std::minmax_element(p.begin(), p.end());
    return {down(*lo), up(*hi)};
}

Interval operator/(const Interval& a, const Interval& b) {
    if (a.empty_ || b.empty_ || (b.lo_ == 0.0 && b.hi_ == 0.0)) {
        return {};
    }
    if (b.lo_ <= 0.0 && b.hi_ >= 0.0) {
        return Interval::entire();
    }
    const std::array<double, 4> q{a.lo_ / b.lo_, a.lo_ / b.hi_, a.hi_ / b.lo_, a.hi_ / b.hi_};
    const auto [lo, hi] = std::minmax_element(q.begin(), q.end());
    return {down(*lo), up(*hi)};
}

Interval Interval::sqr() const {
    if (empty_) {
        return {};
    }
    const double a = std::abs(lo_);
    const double b = std::abs(hi_);
    const double low = contains(0.0) ? 0.0 : down(std::min(a, b) * std::min(a, b));
    return {std::max(low, 0.0), up(std::max(a, b) * std::max(a, b))};
}

Interval Interval::sqrt() const {
    if (empty_ || hi_ < 0.0) {
        return {};
    }
    const double low = lo_ <= 0.0 ? 0.0 : std::max(down(std::sqrt(lo_)), 0.0);
    return {low, up(std::sqrt(hi_))};
}

Interval Interval::exp() const {
    if (empty_) {
        return {};
    }
    return {std::max(down2(std::exp(lo_)), 0.0), up2(std::exp(hi_))};
}

Interval Interval::log() const {
    if (empty_ || hi_ <= 0.0) {
        return {};
    }
    return {lo_ <= 0.0 ? -kInf : down2(std::log(lo_)), up2(std::log(hi_))};
}

Interval Interval::pow(double p) const {
    if (empty_ || hi_ <= 0.0 || !std::isfinite(p)) {
        return {};
    }
    const double lo = std::max(lo_, 0.0);
    // xᵖ is monotone on x > 0: increasing for p > 0, decreasing for p < 0.
    const double at_lo = lo == 0.0 ? (p > 0.0 ? 0.0 : (p < 0.0 ? kInf : 1.0)) : std::pow(lo, p);
    const double at_hi = std::pow(hi_, p);
    const double a = std::min(at_lo, at_hi);
    const double b = std::max(at_lo, at_hi);
    return {std::max(down2(a), 0.0), up2(b)};
}

Interval Interval::hull(const Interval& a, const Interval& b) {
    if (a.empty_) {
        return b;
    }
    if (b.empty_) {
        return a;
    }
    return {std::min(a.lo_, b.lo_), std::max(a.hi_, b.hi_)};
}

Interval Interval::intersect(const Interval& a, const Interval& b) {
    if (a.empty_ || b.empty_) {
        return {};
    }
    return {std::max(a.lo_, b.lo_), std::min(a.hi_, b.hi_)};
}

Interval Interval::max(const Interval& a, const Interval& b) {
    if (a.empty_ || b.empty_) {
        return {};
    }
    return {std::max(a.lo_, b.lo_), std::max(a.hi_, b.hi_)};
}

Interval Interval::min(const Interval& a, const Interval& b) {
    if (a.empty_ || b.empty_) {
        return {};
    }
    return {std::min(a.lo_, b.lo_), std::min(a.hi_, b.hi_)};
}

std::string Interval::to_string() const {
    return empty_ ? std::string("empty") : fmt::format("[{}, {}]", lo_, hi_);
}

}  // namespace laddu::generation
