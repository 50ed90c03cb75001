// laddu/base/accurate_sum.hpp: compensated summation for deterministic reductions.
//
// Likelihoods sum 1e5-1e8 terms; a plain double sum loses digits and depends on the order the
// threads finish in. AccurateSum is Ogita-Rump-Oishi Sum2 (cascaded TwoSum), the accumulator
// laddu uses (seed-spec.md section 2.7): state (s, c); push(x): (s, e) = TwoSum(s, x), c += e;
// finish() = s + c. Partial sums over fixed chunks merged in a fixed order give results that are
// bit-identical whatever the thread or rank count.
#pragma once

#include <complex>
#include <span>

namespace laddu {

/// Knuth's TwoSum: a + b = sum + error exactly, for any doubles (no ordering requirement).
struct TwoSumResult {
    double sum;
    double error;
};

/// The exact decomposition of a + b into its rounded sum and the rounding error.
[[nodiscard]] inline TwoSumResult two_sum(double a, double b) noexcept {
    const double sum = a + b;
    const double b_virtual = sum - a;
    const double a_virtual = sum - b_virtual;
    return {sum, (a - a_virtual) + (b - b_virtual)};
}

/// A compensated (Sum2) accumulator of doubles. Value type; merge partials in a fixed order.
class AccurateSum {
public:
    AccurateSum() = default;

    /// Adds one term.
    void push(double x) noexcept {
        const TwoSumResult r = two_sum(sum_, x);
        sum_ = r.sum;
        compensation_ += r.error;
    }

    /// Adds every term of `values`, in order.
    void push(std::span<const double> values) noexcept {
        for (const double x : values) {
            push(x);
        }
    }

    /// Adds another accumulator's total (as laddu's merge does: push(other.finish())).
    void merge(const AccurateSum& other) noexcept { push(other.finish()); }

    /// The compensated total.
    [[nodiscard]] double finish() const noexcept { return sum_ + compensation_; }

    /// The uncompensated running sum (for diagnostics).
    [[nodiscard]] double raw_sum() const noexcept { return sum_; }

    /// The accumulated rounding errors (for diagnostics).
    [[nodiscard]] double compensation() const noexcept { return compensation_; }

private:
    double sum_ = 0.0;
    double compensation_ = 0.0;
};

/// A compensated accumulator of complex doubles: one AccurateSum for each part.
class AccurateComplexSum {
public:
    void push(std::complex<double> z) noexcept {
        re_.push(z.real());
        im_.push(z.imag());
    }

    void merge(const AccurateComplexSum& other) noexcept {
        re_.merge(other.re_);
        im_.merge(other.im_);
    }

    [[nodiscard]] std::complex<double> finish() const noexcept {
        return {re_.finish(), im_.finish()};
    }

private:
    AccurateSum re_;
    AccurateSum im_;
};

/// The compensated sum of `values`, in order.
[[nodiscard]] inline double accurate_sum(std::span<const double> values) noexcept {
    AccurateSum sum;
    sum.push(values);
    return sum.finish();
}

}  // namespace laddu
