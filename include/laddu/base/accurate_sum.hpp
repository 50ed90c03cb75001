// laddu/base/accurate_sum.hpp: compensated summation for deterministic reductions.
//
// Likelihoods sum 1e5-1e8 terms; a plain double sum loses digits and depends on the order the
// threads finish in. AccurateSum is Ogita-Rump-Oishi Sum2 (cascaded TwoSum), the accumulator
// laddu uses (seed-spec.md section 2.7): state (s, c); push(x): (s, e) = TwoSum(s, x), c += e;
// finish() = s + c. Partial sums over fixed chunks merged in a fixed order give results that are
// bit-identical whatever the thread or rank count. LaneSum is a Sum2 in kSumLanes interleaved
// lanes whose terms enter in runs summed by fused multiply-add, which vectorises and costs about
// one operation per term; the runtime's chunk reductions use it.
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

/// The terms one lane of a LaneSum adds up by fused multiply-add before they enter its TwoSum
/// chain: a run. kSumLanes · kSumRun = 64 consecutive terms make one run of every lane.
inline constexpr std::size_t kSumRun = 8;

/// A compensated accumulator in kSumLanes interleaved lanes, for long reductions.
///
/// Term k of the sequence pushed since construction goes to lane k % kSumLanes. Each lane adds
/// its terms in runs of kSumRun: terms 64 r .. 64 r + 63 of the sequence form run r of every
/// lane. Within a run a lane accumulates p = fma(a, b, p) for a product term a · b (p + a for a
/// plain term), from p = 0; at the run's end, and at finish() for a run left open, p enters the
/// lane's Sum2 pair: (s, e) = TwoSum(s, p), c += e. finish() merges the lanes in the fixed order
/// 0 .. kSumLanes - 1. The result is a fixed function of the term sequence: it does not depend on
/// how the sequence is split into push() calls, and scalar or SIMD code gives the same bits (fma
/// is correctly rounded, TwoSum exact; nothing else is contracted or reassociated).
///
/// Its error is at most eps |S| + (kSumRun - 1) eps Σ|x| plus second-order terms, where one
/// Sum2 over every term has eps |S| + γ_n² Σ|x|: a run's plain sum of 8 terms is where it gives
/// up accuracy, for one fused multiply-add per term instead of a product and a six-operation
/// TwoSum (the JIT's K-matrix gradient sums cost a third as much). That is still far below a
/// plain sum's (n - 1) eps Σ|x|, and below laddu's serial sums, which are plain.
class LaneSum {
public:
    LaneSum() = default;

    /// The LaneSum whose lanes hold `sums` and `compensations` with no run open, as code that
    /// accumulated its terms the same way leaves them (a JIT-fused or device reduction).
    [[nodiscard]] static LaneSum
    from_lanes(std::span<const double, kSumLanes> sums,
               std::span<const double, kSumLanes> compensations) noexcept {
        LaneSum lanes;
        for (std::size_t l = 0; l < kSumLanes; ++l) {
            lanes.sum_[l] = sums[l];
            lanes.compensation_[l] = compensations[l];
        }
        return lanes;
    }

    /// The totals of totals.size() LaneSums stored side by side in `lanes` with no run open, as
    /// a JIT-fused or device reduction leaves them: sum k's kSumLanes lane sums at
    /// lanes[2 kSumLanes k, + kSumLanes), its compensations after them. totals[k] has the bits
    /// of from_lanes(sums, compensations).finish(); many sums finish side by side in vector
    /// registers, where one sum's finish is a chain of dependent TwoSums.
    static void finish_lanes(std::span<const double> lanes, std::span<double> totals) noexcept;

    /// Adds the terms of `values`, in order.
    void push(std::span<const double> values) noexcept;

    /// Adds the terms a[i] · b[i], in order, each by a fused multiply-add into its lane's run.
    /// `b` must hold at least a.size() values.
    void push_products(std::span<const double> a, std::span<const double> b) noexcept;

    /// The compensated total: every lane's open run closed, the lane sums accumulated by TwoSum
    /// in lane order, plus the lanes' compensations and the merge's rounding errors.
    [[nodiscard]] double finish() const noexcept {
        double lane_sum[kSumLanes];
        double lane_compensation[kSumLanes];
        for (std::size_t l = 0; l < kSumLanes; ++l) {
            const TwoSumResult closed = two_sum(sum_[l], run_[l]);
            lane_sum[l] = closed.sum;
            lane_compensation[l] = compensation_[l] + closed.error;
        }
        double sum = 0.0;
        double compensation = 0.0;
        for (std::size_t l = 0; l < kSumLanes; ++l) {
            const TwoSumResult r = two_sum(sum, lane_sum[l]);
            sum = r.sum;
            compensation += r.error;
        }
        for (std::size_t l = 0; l < kSumLanes; ++l) {
            compensation += lane_compensation[l];
        }
        return sum + compensation;
    }

    /// The lane the next pushed term goes to.
    [[nodiscard]] std::size_t next_lane() const noexcept { return count_ % kSumLanes; }

private:
    void push_terms(const double* a, const double* b, std::size_t n) noexcept;

    double sum_[kSumLanes] = {};
    double compensation_[kSumLanes] = {};
    double run_[kSumLanes] = {};
    std::size_t count_ = 0;  ///< terms pushed, modulo kSumLanes · kSumRun
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
