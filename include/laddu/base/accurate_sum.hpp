// laddu/base/accurate_sum.hpp: compensated summation for deterministic reductions.
//
// Likelihoods sum 1e5-1e8 terms; a plain double sum loses digits and depends on the order the
// threads finish in. AccurateSum is Ogita-Rump-Oishi Sum2 (cascaded TwoSum), the accumulator
// laddu uses (seed-spec.md section 2.7): state (s, c); push(x): (s, e) = TwoSum(s, x), c += e;
// finish() = s + c. Partial sums over fixed chunks merged in a fixed order give results that are
// bit-identical whatever the thread or rank count. LaneSum is the same accumulator in kSumLanes
// interleaved lanes, which vectorises; the runtime's chunk reductions use it.
#pragma once

#include <complex>
#include <cstddef>
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

/// The number of lanes of a LaneSum. Fixed (not the host's SIMD width) so that a sum has the
/// same bits on every machine: 8 doubles are one AVX-512 vector, two AVX2 or four SSE2 ones.
inline constexpr std::size_t kSumLanes = 8;

/// A compensated (Sum2) accumulator in kSumLanes interleaved lanes, for long reductions.
///
/// Term i of the sequence pushed since construction goes to lane i % kSumLanes, and each lane
/// is an AccurateSum-style (s, c) pair. finish() merges the lanes in the fixed order
/// 0 .. kSumLanes - 1. The result is therefore a fixed function of the term sequence: it does
/// not depend on how the sequence is split into push() calls, and scalar or SIMD code gives
/// the same bits (TwoSum is exact IEEE arithmetic; nothing here is contracted or reassociated).
/// Its error bound is Sum2's (a few ulp of the sum plus cond · eps²), but it rounds differently
/// from one AccurateSum over the same terms. The lane loop vectorises (an AccurateSum's single
/// (s, c) chain cannot); on x86-64 it is compiled for AVX-512, AVX2 and the baseline, picked
/// when the program loads, and every version gives the same bits.
class LaneSum {
public:
    LaneSum() = default;

    /// The LaneSum whose lanes hold `sums` and `compensations` (from code that accumulated its
    /// terms the same way, such as a JIT-fused reduction), the next term going to lane
    /// `next_lane` (below kSumLanes).
    [[nodiscard]] static LaneSum from_lanes(std::span<const double, kSumLanes> sums,
                                            std::span<const double, kSumLanes> compensations,
                                            std::size_t next_lane = 0) noexcept {
        LaneSum lanes;
        for (std::size_t l = 0; l < kSumLanes; ++l) {
            lanes.sum_[l] = sums[l];
            lanes.compensation_[l] = compensations[l];
        }
        lanes.next_lane_ = next_lane % kSumLanes;
        return lanes;
    }

    /// Adds the terms of `values`, in order.
    void push(std::span<const double> values) noexcept;

    /// Adds the terms a[i] · b[i] (each product rounded to double, never fused), in order. `b`
    /// must hold at least a.size() values.
    void push_products(std::span<const double> a, std::span<const double> b) noexcept;

    /// The compensated total: the lane sums accumulated by TwoSum in lane order, plus the
    /// lanes' compensations and the merge's rounding errors.
    [[nodiscard]] double finish() const noexcept {
        double sum = 0.0;
        double compensation = 0.0;
        for (std::size_t l = 0; l < kSumLanes; ++l) {
            const TwoSumResult r = two_sum(sum, sum_[l]);
            sum = r.sum;
            compensation += r.error;
        }
        for (std::size_t l = 0; l < kSumLanes; ++l) {
            compensation += compensation_[l];
        }
        return sum + compensation;
    }

    /// The lane the next pushed term goes to.
    [[nodiscard]] std::size_t next_lane() const noexcept { return next_lane_; }

private:
    void push_terms(const double* a, const double* b, std::size_t n) noexcept;

    double sum_[kSumLanes] = {};
    double compensation_[kSumLanes] = {};
    std::size_t next_lane_ = 0;
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
