// LaneSum's lane loops. They are compiled with -ffp-contract=off (src/base/CMakeLists.txt): the
// only fused operations are the explicit std::fma of a run, so the AVX2 and AVX-512 versions
// below (which have FMA) and the baseline one (where std::fma is glibc's correctly rounded
// fma) give the same bits.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include <laddu/base/accurate_sum.hpp>
#include <laddu/base/target_clones.hpp>

// The lane loops are LADDU_TARGET_CLONES: a default (baseline x86-64) build still sums 8 lanes
// per instruction on AVX-512 hosts; fma is correctly rounded and TwoSum exact, so every copy
// gives the same bits.

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
LADDU_TARGET_CLONES void lane_runs(double* sum, double* compensation, const double* a,
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

using Group = double __attribute__((vector_size(kFinishGroup * sizeof(double))));

// rows[g][l] -> columns[l][g]: three rounds of two-vector shuffles.
[[gnu::always_inline]] inline void transpose(const Group (&rows)[kFinishGroup],
                                             Group (&columns)[kFinishGroup]) noexcept {
    Group a[kFinishGroup];
    for (std::size_t p = 0; p < kFinishGroup; p += 2) {
        a[p] = __builtin_shufflevector(rows[p], rows[p + 1], 0, 8, 2, 10, 4, 12, 6, 14);
        a[p + 1] = __builtin_shufflevector(rows[p], rows[p + 1], 1, 9, 3, 11, 5, 13, 7, 15);
    }
    Group b[kFinishGroup];
    for (std::size_t q = 0; q < kFinishGroup; q += 4) {
        for (std::size_t odd = 0; odd < 2; ++odd) {
            b[q + odd] =
                __builtin_shufflevector(a[q + odd], a[q + odd + 2], 0, 1, 8, 9, 4, 5, 12, 13);
            b[q + odd + 2] =
                __builtin_shufflevector(a[q + odd], a[q + odd + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        }
    }
    for (std::size_t l = 0; l < 4; ++l) {
        columns[l] = __builtin_shufflevector(b[l], b[l + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        columns[l + 4] = __builtin_shufflevector(b[l], b[l + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
}

// LaneSum::finish for up to kFinishGroup sums at once (`rows` of them; the others read as zero
// lanes and are not stored), in vectors across the sums: the same operations in the same order
// for each sum as finish(), so the same bits. A lane with no open run skips finish()'s closing
// TwoSum(s, 0): that gives (s, ±0) for a finite s (a -0 becomes +0, which the merge's first
// TwoSum, from +0, does anyway) and a NaN error for an infinite or NaN one, which the merge's
// TwoSum of it gives too; so the bits are the same. Written with vector types and shuffles, not
// loops left to the vectoriser, which turned the compensations' loop into scalar adds (35 sums
// took 210 ns, now 70).
[[gnu::always_inline]] inline void finish_lane_group(const double* lanes, double* totals,
                                                     std::size_t rows) noexcept {
    Group sums[kFinishGroup];
    Group compensations[kFinishGroup];
    for (std::size_t g = 0; g < kFinishGroup; ++g) {
        sums[g] = Group{};
        compensations[g] = Group{};
        if (g < rows) {
            std::memcpy(&sums[g], lanes + 2 * kSumLanes * g, sizeof(Group));
            std::memcpy(&compensations[g], lanes + 2 * kSumLanes * g + kSumLanes, sizeof(Group));
        }
    }
    Group lane_sum[kSumLanes];
    Group lane_compensation[kSumLanes];
    transpose(sums, lane_sum);
    transpose(compensations, lane_compensation);
    Group sum = {};
    Group compensation = {};
    for (std::size_t l = 0; l < kSumLanes; ++l) {
        // two_sum(sum, lane_sum[l]), as in finish().
        const Group total = sum + lane_sum[l];
        const Group b_virtual = total - sum;
        const Group a_virtual = total - b_virtual;
        compensation += (sum - a_virtual) + (lane_sum[l] - b_virtual);
        sum = total;
    }
    for (std::size_t l = 0; l < kSumLanes; ++l) {
        compensation += lane_compensation[l];
    }
    const Group finished = sum + compensation;
    for (std::size_t g = 0; g < rows; ++g) {
        totals[g] = finished[g];
    }
}

// Every group of LaneSum::finish_lanes in one call: the groups' chains are independent, so
// the processor overlaps them (one call per group waited on each group's 16 dependent adds).
LADDU_TARGET_CLONES void finish_lane_groups(const double* lanes, double* totals,
                                            std::size_t sums) noexcept {
    for (std::size_t first = 0; first < sums; first += kFinishGroup) {
        finish_lane_group(lanes + 2 * kSumLanes * first, totals + first,
                          std::min(kFinishGroup, sums - first));
    }
}

}  // namespace laddu::detail

namespace laddu {

void LaneSum::finish_lanes(std::span<const double> lanes, std::span<double> totals) noexcept {
    detail::finish_lane_groups(lanes.data(), totals.data(), totals.size());
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
