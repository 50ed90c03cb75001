// LaneSum's lane loops. They are compiled with -ffp-contract=off (src/base/CMakeLists.txt): a
// product fused into the TwoSum that follows it would change the bits, and would make the
// AVX2 and AVX-512 versions below (which have FMA) disagree with the baseline one.
#include <laddu/base/accurate_sum.hpp>

// GCC's function multiversioning: one copy per x86-64 level, chosen by an ifunc resolver when
// the program loads, so a default (baseline x86-64) build still sums 8 lanes per instruction on
// AVX-512 hosts. TwoSum is exact IEEE arithmetic, so every copy gives the same bits.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define LADDU_LANE_CLONES                                                                          \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LADDU_LANE_CLONES
#endif

namespace laddu::detail {

namespace {

inline void add_to(double& s, double& c, double x) noexcept {
    const TwoSumResult r = two_sum(s, x);
    s = r.sum;
    c += r.error;
}

}  // namespace

// Terms a[i] (b null) or a[i] · b[i], for i < n with n a multiple of kSumLanes, term i into
// lane i % kSumLanes. The lanes live in locals, which the terms cannot alias, so they stay in
// vector registers.
LADDU_LANE_CLONES void lane_blocks(double* sum, double* compensation, const double* a,
                                   const double* b, std::size_t n) noexcept {
    double s[kSumLanes];
    double c[kSumLanes];
    for (std::size_t l = 0; l < kSumLanes; ++l) {
        s[l] = sum[l];
        c[l] = compensation[l];
    }
    if (b == nullptr) {
        for (std::size_t i = 0; i < n; i += kSumLanes) {
            for (std::size_t l = 0; l < kSumLanes; ++l) {
                add_to(s[l], c[l], a[i + l]);
            }
        }
    } else {
        for (std::size_t i = 0; i < n; i += kSumLanes) {
            for (std::size_t l = 0; l < kSumLanes; ++l) {
                add_to(s[l], c[l], a[i + l] * b[i + l]);
            }
        }
    }
    for (std::size_t l = 0; l < kSumLanes; ++l) {
        sum[l] = s[l];
        compensation[l] = c[l];
    }
}

}  // namespace laddu::detail

namespace laddu {

void LaneSum::push(std::span<const double> values) noexcept {
    push_terms(values.data(), nullptr, values.size());
}

void LaneSum::push_products(std::span<const double> a, std::span<const double> b) noexcept {
    push_terms(a.data(), b.data(), a.size());
}

void LaneSum::push_terms(const double* a, const double* b, std::size_t n) noexcept {
    auto term = [a, b](std::size_t i) {
        return b == nullptr ? a[i] : a[i] * b[i];
    };
    std::size_t i = 0;
    // Finish the lane block a previous push left open, so term i still goes to lane i % L.
    for (; next_lane_ != 0 && i < n; ++i) {
        detail::add_to(sum_[next_lane_], compensation_[next_lane_], term(i));
        next_lane_ = (next_lane_ + 1) % kSumLanes;
    }
    const std::size_t blocks = (n - i) / kSumLanes * kSumLanes;
    if (blocks > 0) {
        detail::lane_blocks(sum_, compensation_, a + i, b == nullptr ? nullptr : b + i, blocks);
        i += blocks;
    }
    for (; i < n; ++i) {
        detail::add_to(sum_[next_lane_], compensation_[next_lane_], term(i));
        ++next_lane_;
    }
}

}  // namespace laddu
