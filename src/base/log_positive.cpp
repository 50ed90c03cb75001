// Compiled with -ffp-contract=off (src/base/CMakeLists.txt): a product fused into the sum after
// it would change the bits against the JIT's copy of these operations.
#include <bit>
#include <cmath>
#include <cstdint>

#include <laddu/base/log_positive.hpp>
#include <laddu/base/target_clones.hpp>

#if defined(__GNUC__) && !defined(__clang__)
// The vectoriser's full cost model: the -O2 default ("very cheap") will not vectorise a loop
// with a remainder.
#define LADDU_LOG_VECTORISE __attribute__((optimize("vect-cost-model=dynamic")))
#else
#define LADDU_LOG_VECTORISE
#endif

namespace laddu {

namespace {

constexpr double from_bits(std::uint64_t bits) noexcept {
    return std::bit_cast<double>(bits);
}

// Every step is spelled out in the order src/jit/lower_reduction.cpp and
// src/gpu/reduction_source.cpp emit it. The row index is masked, so any input (also the ones
// the caller should have checked) reads inside the table.
inline double log_of(double x) noexcept {
    namespace c = log_positive_constants;
    const std::uint64_t raw = std::bit_cast<std::uint64_t>(x);
    const bool subnormal = raw < 0x0010000000000000ULL;
    const double scaled = subnormal ? x * from_bits(c::kTwo54) : x;
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(scaled);
    const std::uint64_t offset = bits - c::kReductionStart;
    const std::uint64_t row = (offset >> c::kTableShift) & ((1U << c::kTableBits) - 1U);
    // x = 2^k z, z in [0.6875, 1.375): the exponent is the top 12 bits of the offset (signed).
    const std::int64_t k = (static_cast<std::int64_t>(offset) >> 52) + (subnormal ? -54 : 0);
    const double z = std::bit_cast<double>(bits - (offset & 0xfff0000000000000ULL));
    const double invc = from_bits(c::kTable[row].invc);
    const double logc = from_bits(c::kTable[row].logc);
    const double r = std::fma(z, invc, -1.0);
    const auto kd = static_cast<double>(k);
    // k ln2_hi is exact (32 + 11 bits) and at least |log c| unless k = 0, |log c| >= |r| unless
    // c = 1: both sums are Fast2Sums, so hi + lo is k ln 2 + log c + r to a few ulps of lo.
    const double k_ln2 = kd * from_bits(c::kLn2Hi);
    const double w = k_ln2 + logc;
    const double w_error = (k_ln2 - w) + logc;
    const double hi = w + r;
    const double lo = std::fma(kd, from_bits(c::kLn2Lo), ((w - hi) + r) + w_error);
    const double r2 = r * r;
    const double p01 = std::fma(r, c::kPoly[1], c::kPoly[0]);
    const double p23 = std::fma(r, c::kPoly[3], c::kPoly[2]);
    const double p45 = std::fma(r, c::kPoly[5], c::kPoly[4]);
    const double p46 = std::fma(r2, c::kPoly[6], p45);
    const double p26 = std::fma(r2, p46, p23);
    const double p06 = std::fma(r2, p26, p01);
    return hi + std::fma(r2, p06, lo);
}

}  // namespace

double log_positive(double x) noexcept {
    return log_of(x);
}

LADDU_TARGET_CLONES LADDU_LOG_VECTORISE void log_positive_f32(std::span<const double> x,
                                                              std::span<double> out) noexcept {
    const double* in = x.data();
    double* to = out.data();
    const std::size_t n = x.size();
    for (std::size_t i = 0; i < n; ++i) {
        const auto narrow = static_cast<double>(static_cast<float>(in[i]));
        to[i] = static_cast<double>(static_cast<float>(log_of(narrow)));
    }
}

LADDU_TARGET_CLONES LADDU_LOG_VECTORISE void log_positive(std::span<const double> x,
                                                          std::span<double> out) noexcept {
    const double* in = x.data();
    double* to = out.data();
    const std::size_t n = x.size();
    for (std::size_t i = 0; i < n; ++i) {
        to[i] = log_of(in[i]);
    }
}

}  // namespace laddu
