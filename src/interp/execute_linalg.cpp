#include <cmath>
#include <limits>
#include <utility>

#include "execute.hpp"

namespace laddu::interp::detail {

namespace {

template <typename T>
T norm1(Cx<T> z) noexcept {
    return std::fabs(z.re) + std::fabs(z.im);
}

// Factors the row-major n×n `a` in place (L unit-lower below the diagonal, U on and above),
// recording the row swap of each column in `swaps`. Partial pivoting on |re|+|im|, first row
// on ties; a column whose pivot is exactly zero is skipped; multipliers are a · (1/pivot);
// the rank-1 update runs column by column.
template <typename T>
void lu_factor(std::complex<T>* m, std::size_t n, std::size_t* swaps) noexcept {
    // Views the std::complex storage through the IR's arithmetic.
    auto get = [m, n](std::size_t i, std::size_t j) {
        return from_std(m[i * n + j]);
    };
    auto set = [m, n](std::size_t i, std::size_t j, Cx<T> v) {
        m[i * n + j] = to_std(v);
    };
    for (std::size_t k = 0; k < n; ++k) {
        std::size_t pivot = k;
        T best = norm1(get(k, k));
        for (std::size_t i = k + 1; i < n; ++i) {
            const T v = norm1(get(i, k));
            if (v > best) {
                best = v;
                pivot = i;
            }
        }
        swaps[k] = pivot;
        if (best == T(0)) {
            continue;
        }
        if (pivot != k) {
            for (std::size_t j = 0; j < n; ++j) {
                std::swap(m[k * n + j], m[pivot * n + j]);
            }
        }
        const Cx<T> inv = cx_recip(get(k, k));
        for (std::size_t i = k + 1; i < n; ++i) {
            set(i, k, cx_mul(get(i, k), inv));
        }
        for (std::size_t j = k + 1; j < n; ++j) {
            const Cx<T> u = get(k, j);
            for (std::size_t i = k + 1; i < n; ++i) {
                set(i, j, cx_sub(get(i, j), cx_mul(get(i, k), u)));
            }
        }
    }
}

// Solves in place for one right-hand side; false if some U_ii is exactly zero.
template <typename T>
bool lu_solve(const std::complex<T>* m, const std::size_t* swaps, std::size_t n,
              std::complex<T>* rhs) noexcept {
    auto lu = [m, n](std::size_t i, std::size_t j) {
        return from_std(m[i * n + j]);
    };
    auto b = [rhs](std::size_t i) {
        return from_std(rhs[i]);
    };
    for (std::size_t k = 0; k < n; ++k) {
        if (swaps[k] != k) {
            std::swap(rhs[k], rhs[swaps[k]]);
        }
    }
    for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t i = j + 1; i < n; ++i) {
            rhs[i] = to_std(cx_sub(b(i), cx_mul(lu(i, j), b(j))));
        }
    }
    for (std::size_t j = n; j-- > 0;) {
        const Cx<T> diag = lu(j, j);
        if (diag.re == T(0) && diag.im == T(0)) {
            return false;
        }
        rhs[j] = to_std(cx_div(b(j), diag));
        for (std::size_t i = 0; i < j; ++i) {
            rhs[i] = to_std(cx_sub(b(i), cx_mul(lu(i, j), b(j))));
        }
    }
    return true;
}

template <typename T>
Cx<T> lane_value(const Lanes<T>& v, std::size_t lane) noexcept {
    return {v.re[lane], v.is_complex() ? v.im[lane] : T(0)};
}

}  // namespace

template <typename T>
void execute_solve(std::uint32_t attr, std::span<const Lanes<T>> in,
                   std::span<const OutLanes<T>> out, std::size_t n, std::complex<T>* scratch,
                   std::size_t* swaps) noexcept {
    const std::size_t size = ir::solve_size(attr);
    const std::size_t rhs = ir::solve_rhs_count(attr);
    std::complex<T>* a = scratch;
    std::complex<T>* b = scratch + size * size;
    constexpr T kNaN = std::numeric_limits<T>::quiet_NaN();
    for (std::size_t lane = 0; lane < n; ++lane) {
        for (std::size_t e = 0; e < size * size + size * rhs; ++e) {
            a[e] = to_std(lane_value(in[e], lane));
        }
        lu_factor(a, size, swaps);
        bool ok = true;
        for (std::size_t c = 0; c < rhs && ok; ++c) {
            ok = lu_solve(a, swaps, size, b + c * size);
        }
        for (std::size_t e = 0; e < size * rhs; ++e) {
            out[e].re[lane] = ok ? b[e].real() : kNaN;
            out[e].im[lane] = ok ? b[e].imag() : kNaN;
        }
    }
}

template void execute_solve<double>(std::uint32_t, std::span<const Lanes<double>>,
                                    std::span<const OutLanes<double>>, std::size_t,
                                    std::complex<double>*, std::size_t*) noexcept;
template void execute_solve<float>(std::uint32_t, std::span<const Lanes<float>>,
                                   std::span<const OutLanes<float>>, std::size_t,
                                   std::complex<float>*, std::size_t*) noexcept;

}  // namespace laddu::interp::detail
