#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <numbers>
#include <string>

#include <laddu/amplitudes/voigt.hpp>
#include <laddu/base/error.hpp>

namespace laddu::amplitudes {

using expr::Expr;

namespace {

// N = 40 is where the approximation reaches double precision (N = 32 leaves Re w with relative
// errors near 1e-3 on the real axis; N = 48 and 64 are no better).
constexpr std::size_t kTerms = 40;

struct WeidemanCoefficients {
    double l = 0.0;                  // Weideman's L = √(N/√2)
    std::array<double, kTerms> a{};  // a[k] multiplies Z^k
};

// Weideman's coefficients a_n are the Fourier coefficients of
// f(t) = exp(-t²) (L² + t²) sampled at t = L tan(θ/2), θ = kπ/M, M = 2N; his
// reference code takes them from an FFT of length 2M, a direct sum is as good at this size. The
// real part of the n-th coefficient multiplies Z^(n-1).
WeidemanCoefficients weideman_coefficients() {
    WeidemanCoefficients c;
    constexpr std::size_t kM = 2 * kTerms;
    constexpr std::size_t kSamples = 2 * kM;
    c.l = std::sqrt(static_cast<double>(kTerms) / std::numbers::sqrt2);
    // samples[j] = f(t_k) for k = j - M (k = -M gives t = ∞, where f vanishes), stored in the
    // order of the reference code's fftshift: sample j sits at index (j + M) mod 2M.
    std::array<double, kSamples> shifted{};
    for (std::size_t j = 1; j < kSamples; ++j) {
        const double k = static_cast<double>(j) - static_cast<double>(kM);
        const double theta = k * std::numbers::pi / static_cast<double>(kM);
        const double t = c.l * std::tan(0.5 * theta);
        shifted[(j + kM) % kSamples] = std::exp(-t * t) * (c.l * c.l + t * t);
    }
    for (std::size_t n = 1; n <= kTerms; ++n) {
        double sum = 0.0;
        for (std::size_t j = 0; j < kSamples; ++j) {
            const double phase = 2.0 * std::numbers::pi * static_cast<double>((n * j) % kSamples) /
                                 static_cast<double>(kSamples);
            sum += shifted[j] * std::cos(phase);
        }
        c.a[n - 1] = sum / static_cast<double>(kSamples);
    }
    return c;
}

const WeidemanCoefficients& coefficients() {
    static const WeidemanCoefficients coefficients_table = weideman_coefficients();
    return coefficients_table;
}

void check_widths(const Expr& width, const Expr& sigma, const char* who) {
    if (expr::is_constant(width) && !(constant_value(width).real() >= 0.0)) {
        throw ModelError(std::string(who) +
                         ": width = " + std::to_string(constant_value(width).real()) +
                         " must be >= 0 (the Lorentzian FWHM Γ)");
    }
    if (expr::is_constant(sigma) && !(constant_value(sigma).real() > 0.0)) {
        throw ModelError(std::string(who) +
                         ": sigma = " + std::to_string(constant_value(sigma).real()) +
                         " must be > 0 (the Gaussian resolution; use breit_wigner for σ = 0)");
    }
}

Expr profile(const Expr& m, const Expr& mass, const Expr& width, const Expr& sigma) {
    const Expr abs_sigma = expr::abs(sigma);
    const Expr z =
        expr::complex(m - mass, 0.5 * expr::abs(width)) / (std::numbers::sqrt2 * abs_sigma);
    const double norm = std::sqrt(2.0 * std::numbers::pi);
    return expr::real(faddeeva(z)) / (norm * abs_sigma);
}

}  // namespace

Expr faddeeva(const Expr& z) {
    if (!z.value_kind().is_scalar()) {
        throw ModelError("faddeeva: z must be a scalar expression");
    }
    const WeidemanCoefficients& c = coefficients();
    const Expr i{std::complex<double>(0.0, 1.0)};
    const Expr l_minus_iz = c.l - i * z;
    const Expr big_z = (c.l + i * z) / l_minus_iz;
    // Horner's rule from the highest power down.
    Expr p = c.a[kTerms - 1];
    for (std::size_t k = kTerms - 1; k-- > 0;) {
        p = p * big_z + c.a[k];
    }
    return 2.0 * p / (l_minus_iz * l_minus_iz) + std::numbers::inv_sqrtpi / l_minus_iz;
}

Expr voigt_profile(const Expr& m, const Expr& mass, const Expr& width, const Expr& sigma) {
    check_widths(width, sigma, "voigt_profile");
    return profile(m, mass, width, sigma);
}

Expr voigt(const Expr& m, const Expr& mass, const Expr& width, const Expr& sigma) {
    check_widths(width, sigma, "voigt");
    // Re w > 0 in the upper half plane, but the approximation can leave a value of order 1e-17
    // below zero far in the tails; |V| keeps the square root real there, as laddu's max(V, 0).
    return expr::sqrt(expr::abs(profile(m, mass, width, sigma)));
}

}  // namespace laddu::amplitudes
