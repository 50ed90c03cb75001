// LaneSum's lane loops. They are compiled with -ffp-contract=off (src/base/CMakeLists.txt): the
// only fused operations are the explicit std::fma of a run, so the AVX2 and AVX-512 versions
// below (which have FMA) and the baseline one (where std::fma is glibc's correctly rounded
// fma) give the same bits.
#include <algorithm>
#include <array>
#include <cmath>

#include <laddu/base/accurate_sum.hpp>

// GCC's function multiversioning: one copy per x86-64 level, chosen by an ifunc resolver when
// the program loads, so a default (baseline x86-64) build still sums 8 lanes per instruction on
// AVX-512 hosts. fma is correctly rounded and TwoSum exact, so every copy gives the same bits.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define LADDU_LANE_CLONES                                                                          \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LADDU_LANE_CLONES
#endif

namespace laddu::detail {

namespace {

constexpr std::size_t kRunTerms = kSumLanes * kSumRun;

// A run's partial p enters the lane's Sum2 pair.
inline void close_run(double& s, double& c, double& p) noexcept {
    const TwoSumResult r = two_sum(s, p);
    s = r.sum;
    c += r.error;
    p = 0.0;
}

}  // namespace

// LaneSum::finish_lanes finishes this many sums side by side (one AVX-512 vector).
constexpr std::size_t kFinishGroup = 8;

// Whole runs: terms a[i] (b null) or a[i] · b[i], for i < n with n a multiple of kRunTerms,
// term i into lane i % kSumLanes. The lanes live in locals, which the terms cannot alias, so
// they stay in vector registers.
LADDU_LANE_CLONES void lane_runs(double* sum, double* compensation, const double* a,
                                 const double* b, std::size_t n) noexcept {
    double s[kSumLanes];
    double c[kSumLanes];
    double p[kSumLanes] = {};
    for (std::size_t l = 0; l < kSumLanes; ++l) {
        s[l] = sum[l];
        c[l] = compensation[l];
    }
    for (std::size_t run = 0; run < n; run += kRunTerms) {
        if (b == nullptr) {
            for (std::size_t i = run; i < run + kRunTerms; i += kSumLanes) {
                for (std::size_t l = 0; l < kSumLanes; ++l) {
                    p[l] += a[i + l];
                }
            }
        } else {
            for (std::size_t i = run; i < run + kRunTerms; i += kSumLanes) {
                for (std::size_t l = 0; l < kSumLanes; ++l) {
                    p[l] = std::fma(a[i + l], b[i + l], p[l]);
                }
            }
        }
        for (std::size_t l = 0; l < kSumLanes; ++l) {
            close_run(s[l], c[l], p[l]);
        }
    }
    for (std::size_t l = 0; l < kSumLanes; ++l) {
        sum[l] = s[l];
        compensation[l] = c[l];
    }
}

// LaneSum::finish for kFinishGroup sums at once, the loops over the group innermost so they
// vectorise: the same operations in the same order for each sum, so the same bits. A lane with
// no open run skips finish()'s closing TwoSum(s, 0): that gives (s, ±0) for a finite s (a
// -0 becomes +0, which the merge's first TwoSum, from +0, does anyway) and a NaN error for an
// infinite or NaN one, which the merge's TwoSum of it gives too; so the bits are the same.
LADDU_LANE_CLONES void finish_lane_group(const double* lanes, double* totals) noexcept {
    double lane_sum[kSumLanes][kFinishGroup];
    double lane_compensation[kSumLanes][kFinishGroup];
    for (std::size_t l = 0; l < kSumLanes; ++l) {
        for (std::size_t g = 0; g < kFinishGroup; ++g) {
            lane_sum[l][g] = lanes[2 * kSumLanes * g + l];
            lane_compensation[l][g] = lanes[2 * kSumLanes * g + kSumLanes + l];
        }
    }
    double sum[kFinishGroup] = {};
    double compensation[kFinishGroup] = {};
    for (std::size_t l = 0; l < kSumLanes; ++l) {
        for (std::size_t g = 0; g < kFinishGroup; ++g) {
            const TwoSumResult r = two_sum(sum[g], lane_sum[l][g]);
            sum[g] = r.sum;
            compensation[g] += r.error;
        }
    }
    for (std::size_t l = 0; l < kSumLanes; ++l) {
        for (std::size_t g = 0; g < kFinishGroup; ++g) {
            compensation[g] += lane_compensation[l][g];
        }
    }
    for (std::size_t g = 0; g < kFinishGroup; ++g) {
        totals[g] = sum[g] + compensation[g];
    }
}

}  // namespace laddu::detail

namespace laddu {

void LaneSum::finish_lanes(std::span<const double> lanes, std::span<double> totals) noexcept {
    using detail::kFinishGroup;
    const std::size_t whole = totals.size() - totals.size() % kFinishGroup;
    for (std::size_t first = 0; first < whole; first += kFinishGroup) {
        detail::finish_lane_group(lanes.data() + 2 * kSumLanes * first, totals.data() + first);
    }
    if (whole < totals.size()) {
        // The last sums, padded with zero lanes to a whole group.
        const std::size_t rest = totals.size() - whole;
        std::array<double, 2 * kSumLanes * kFinishGroup> padded{};
        std::array<double, kFinishGroup> rest_totals{};
        std::copy_n(lanes.data() + 2 * kSumLanes * whole, 2 * kSumLanes * rest, padded.data());
        detail::finish_lane_group(padded.data(), rest_totals.data());
        std::copy_n(rest_totals.data(), rest, totals.data() + whole);
    }
}

void LaneSum::push(std::span<const double> values) noexcept {
    push_terms(values.data(), nullptr, values.size());
}

void LaneSum::push_products(std::span<const double> a, std::span<const double> b) noexcept {
    push_terms(a.data(), b.data(), a.size());
}

void LaneSum::push_terms(const double* a, const double* b, std::size_t n) noexcept {
    constexpr std::size_t kRunTerms = kSumLanes * kSumRun;
    // One term into its lane's open run, closing every lane's run after the 64th.
    auto add = [&](std::size_t i) {
        const std::size_t lane = count_ % kSumLanes;
        run_[lane] = b == nullptr ? run_[lane] + a[i] : std::fma(a[i], b[i], run_[lane]);
        if (++count_ == kRunTerms) {
            count_ = 0;
            for (std::size_t l = 0; l < kSumLanes; ++l) {
                detail::close_run(sum_[l], compensation_[l], run_[l]);
            }
        }
    };
    std::size_t i = 0;
    // Finish the run a previous push left open, so that term k still goes where k says.
    for (; count_ != 0 && i < n; ++i) {
        add(i);
    }
    const std::size_t whole = (n - i) / kRunTerms * kRunTerms;
    if (whole > 0) {
        detail::lane_runs(sum_, compensation_, a + i, b == nullptr ? nullptr : b + i, whole);
        i += whole;
    }
    for (; i < n; ++i) {
        add(i);
    }
}

}  // namespace laddu
