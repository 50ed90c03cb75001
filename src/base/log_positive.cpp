// Compiled with -ffp-contract=off (src/base/CMakeLists.txt): a product fused into the sum after
// it would change the bits against the JIT's copy of these operations.
#include <bit>
#include <cstdint>

#include <laddu/base/log_positive.hpp>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
// One copy per x86-64 level (as LaneSum's lane loop), and the vectoriser's full cost model: the
// -O2 default ("very cheap") will not vectorise a loop with a remainder.
#define LADDU_LOG_CLONES                                                                           \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"),                   \
                   optimize("vect-cost-model=dynamic")))
#else
#define LADDU_LOG_CLONES
#endif

namespace laddu {

namespace {

constexpr double from_bits(std::uint64_t bits) noexcept {
    return std::bit_cast<double>(bits);
}

// Every step is spelled out in the order src/jit/lower_reduction.cpp emits it; fdlibm's two
// shortcuts (|f| < 2^-20, and k == 0) are left out, since the general formula gives the same
// accuracy there (and, for k == 0, the same bits: 0 · ln2 terms vanish exactly).
inline double log_of(double x) noexcept {
    namespace c = log_positive_constants;
    const std::uint64_t raw = std::bit_cast<std::uint64_t>(x);
    const bool subnormal = raw < 0x0010000000000000ULL;
    const double scaled = subnormal ? x * from_bits(c::kTwo54) : x;
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(scaled);
    std::int64_t high = static_cast<std::int64_t>(bits >> 32U);
    std::int64_t k = (subnormal ? -54 : 0) + (high >> 20) - 1023;
    high &= 0x000fffff;
    // Normalise the mantissa into [sqrt(2)/2, sqrt(2)): i is 2^20 when it is above sqrt(2).
    const std::int64_t i = (high + 0x95f64) & 0x100000;
    const auto top = static_cast<std::uint64_t>(high | (i ^ 0x3ff00000));
    const double m = std::bit_cast<double>((top << 32U) | (bits & 0xffffffffULL));
    k += i >> 20;
    const double f = m - 1.0;
    const double s = f / (2.0 + f);
    const auto dk = static_cast<double>(k);
    const double z = s * s;
    const double w = z * z;
    const double t1 =
        w * (from_bits(c::kLg[1]) + w * (from_bits(c::kLg[3]) + w * from_bits(c::kLg[5])));
    const double t2 =
        z * (from_bits(c::kLg[0]) +
             w * (from_bits(c::kLg[2]) + w * (from_bits(c::kLg[4]) + w * from_bits(c::kLg[6]))));
    const double r = t2 + t1;
    // fdlibm's choice between its two final forms: the half-square one away from 1 + f ≈ 1.
    const bool wide = ((high - 0x6147a) | (0x6b851 - high)) > 0;
    const double hfsq = 0.5 * f * f;
    const double ln2_hi = dk * from_bits(c::kLn2Hi);
    const double ln2_lo = dk * from_bits(c::kLn2Lo);
    const double away = ln2_hi - ((hfsq - (s * (hfsq + r) + ln2_lo)) - f);
    const double near = ln2_hi - ((s * (f - r) - ln2_lo) - f);
    return wide ? away : near;
}

}  // namespace

double log_positive(double x) noexcept {
    return log_of(x);
}

LADDU_LOG_CLONES void log_positive_f32(std::span<const double> x, std::span<double> out) noexcept {
    const double* in = x.data();
    double* to = out.data();
    const std::size_t n = x.size();
    for (std::size_t i = 0; i < n; ++i) {
        const auto narrow = static_cast<double>(static_cast<float>(in[i]));
        to[i] = static_cast<double>(static_cast<float>(log_of(narrow)));
    }
}

LADDU_LOG_CLONES void log_positive(std::span<const double> x, std::span<double> out) noexcept {
    const double* in = x.data();
    double* to = out.data();
    const std::size_t n = x.size();
    for (std::size_t i = 0; i < n; ++i) {
        to[i] = log_of(in[i]);
    }
}

}  // namespace laddu
