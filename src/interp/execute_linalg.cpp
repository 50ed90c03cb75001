#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>

#include <laddu/base/target_clones.hpp>

#include "execute.hpp"

namespace laddu::interp::detail {

namespace {

template <typename T>
T norm1(T re, T im) noexcept {
    return std::fabs(re) + std::fabs(im);
}

// The LU solve of kSolveGroup lanes side by side, each lane computing exactly what a scalar
// partial-pivoting LU of its own system computes (so the JIT's scalar helper gets the same
// bits): the loops over the group's lanes are innermost and branch-free, pivots and skipped
// columns become per-lane selects. Pivoting on |re|+|im|, first row on ties; a column whose
// pivot is exactly zero is left as it is; multipliers are a · (1/pivot); the rank-1 update runs
// column by column; the triangular solves follow the recorded swaps. A lane whose U has an
// exactly zero diagonal element fails: every element of its solution is NaN.
//
// Scratch layout: element e (row-major A, then B column by column) of lane l at
// re[e·kLanes + l] and im[(E + e)·kLanes + l], E = n·n + n·m; swaps[k·kLanes + l] is lane l's
// pivot row of column k.
template <typename T>
struct Group {
    static constexpr std::size_t kLanes = kSolveGroup;
    T* re;
    T* im;
    std::size_t* swaps;
    std::size_t n;

    T* r(std::size_t e) const noexcept { return re + e * kLanes; }

    T* i(std::size_t e) const noexcept { return im + e * kLanes; }

    void factor() const noexcept {
        for (std::size_t k = 0; k < n; ++k) {
            T best[kLanes];
            choose_pivots(k, best);
            swap_rows(k, swaps + k * kLanes);
            eliminate(k, best);
        }
    }

    // Each lane's pivot row of column k (the first with the largest |re|+|im| at or below the
    // diagonal) into swaps, and that magnitude into `best`.
    void choose_pivots(std::size_t k, T* best) const noexcept {
        std::size_t* pivot = swaps + k * kLanes;
        const std::size_t kk = k * n + k;
        for (std::size_t l = 0; l < kLanes; ++l) {
            best[l] = norm1(r(kk)[l], i(kk)[l]);
            pivot[l] = k;
        }
        for (std::size_t row = k + 1; row < n; ++row) {
            const std::size_t e = row * n + k;
            for (std::size_t l = 0; l < kLanes; ++l) {
                const T v = norm1(r(e)[l], i(e)[l]);
                const bool larger = v > best[l];
                best[l] = larger ? v : best[l];
                pivot[l] = larger ? row : pivot[l];
            }
        }
    }

    // Multipliers of column k and the rank-1 update of the rows below it, column by column; a
    // lane whose pivot magnitude `best` is exactly zero keeps its values.
    void eliminate(std::size_t k, const T* best) const noexcept {
        const std::size_t kk = k * n + k;
        bool skip[kLanes];
        T inv_re[kLanes];
        T inv_im[kLanes];
        for (std::size_t l = 0; l < kLanes; ++l) {
            skip[l] = best[l] == T(0);
            const Cx<T> inv = cx_recip(Cx<T>{r(kk)[l], i(kk)[l]});
            inv_re[l] = inv.re;
            inv_im[l] = inv.im;
        }
        for (std::size_t row = k + 1; row < n; ++row) {
            const std::size_t e = row * n + k;
            for (std::size_t l = 0; l < kLanes; ++l) {
                const Cx<T> m = cx_mul(Cx<T>{r(e)[l], i(e)[l]}, Cx<T>{inv_re[l], inv_im[l]});
                r(e)[l] = skip[l] ? r(e)[l] : m.re;
                i(e)[l] = skip[l] ? i(e)[l] : m.im;
            }
        }
        for (std::size_t col = k + 1; col < n; ++col) {
            for (std::size_t row = k + 1; row < n; ++row) {
                update(row * n + col, row * n + k, k * n + col, skip);
            }
        }
    }

    // Swaps, lane by lane, row k with row pivot[l] of A (all n columns).
    void swap_rows(std::size_t k, const std::size_t* pivot) const noexcept {
        for (std::size_t row = k + 1; row < n; ++row) {
            for (std::size_t col = 0; col < n; ++col) {
                swap_elements(k * n + col, row * n + col, row, pivot);
            }
        }
    }

    // Where pivot[l] == row, swaps elements a and b of lane l.
    void swap_elements(std::size_t a, std::size_t b, std::size_t row,
                       const std::size_t* pivot) const noexcept {
        for (std::size_t l = 0; l < kLanes; ++l) {
            const bool swap = pivot[l] == row;
            const T a_re = r(a)[l];
            const T a_im = i(a)[l];
            r(a)[l] = swap ? r(b)[l] : a_re;
            i(a)[l] = swap ? i(b)[l] : a_im;
            r(b)[l] = swap ? a_re : r(b)[l];
            i(b)[l] = swap ? a_im : i(b)[l];
        }
    }

    // Solves for the right-hand side whose elements start at element `first`; marks the lanes
    // whose U has a zero diagonal element in `failed`.
    void solve(std::size_t first, bool* failed) const noexcept {
        for (std::size_t k = 0; k < n; ++k) {
            for (std::size_t row = k + 1; row < n; ++row) {
                swap_elements(first + k, first + row, row, swaps + k * kLanes);
            }
        }
        for (std::size_t j = 0; j < n; ++j) {
            for (std::size_t row = j + 1; row < n; ++row) {
                update(first + row, row * n + j, first + j, nullptr);
            }
        }
        for (std::size_t j = n; j-- > 0;) {
            const std::size_t d = j * n + j;
            const std::size_t b = first + j;
            for (std::size_t l = 0; l < kLanes; ++l) {
                failed[l] = failed[l] || (r(d)[l] == T(0) && i(d)[l] == T(0));
                const Cx<T> q = cx_div(Cx<T>{r(b)[l], i(b)[l]}, Cx<T>{r(d)[l], i(d)[l]});
                r(b)[l] = q.re;
                i(b)[l] = q.im;
            }
            for (std::size_t row = 0; row < j; ++row) {
                update(first + row, row * n + j, b, nullptr);
            }
        }
    }

    // x -= a · y, lane by lane (a lane with skip[l] keeps x; no skip when null).
    void update(std::size_t x, std::size_t a, std::size_t y, const bool* skip) const noexcept {
        for (std::size_t l = 0; l < kLanes; ++l) {
            const Cx<T> v = cx_sub(Cx<T>{r(x)[l], i(x)[l]},
                                   cx_mul(Cx<T>{r(a)[l], i(a)[l]}, Cx<T>{r(y)[l], i(y)[l]}));
            const bool keep = skip != nullptr && skip[l];
            r(x)[l] = keep ? r(x)[l] : v.re;
            i(x)[l] = keep ? i(x)[l] : v.im;
        }
    }

    // Lanes [first, first + lanes) of the operands; a short group repeats its first lane in the
    // unused ones (finite work, never written out).
    void load(std::span<const Lanes<T>> in, std::size_t elements, std::size_t first,
              std::size_t lanes) const noexcept {
        for (std::size_t e = 0; e < elements; ++e) {
            for (std::size_t l = 0; l < kLanes; ++l) {
                const std::size_t lane = first + (l < lanes ? l : 0);
                r(e)[l] = in[e].re[lane];
                i(e)[l] = in[e].is_complex() ? in[e].im[lane] : T(0);
            }
        }
    }

    // The solution's elements (after A's n·n) of lanes [first, first + lanes), NaN where failed.
    void store(std::span<const OutLanes<T>> out, std::size_t first, std::size_t lanes,
               const bool* failed) const noexcept {
        constexpr T kNaN = std::numeric_limits<T>::quiet_NaN();
        for (std::size_t e = 0; e < out.size(); ++e) {
            const T* values_re = r(n * n + e);
            const T* values_im = i(n * n + e);
            for (std::size_t l = 0; l < lanes; ++l) {
                out[e].re[first + l] = failed[l] ? kNaN : values_re[l];
                out[e].im[first + l] = failed[l] ? kNaN : values_im[l];
            }
        }
    }
};

template <typename T>
void solve_lanes(std::uint32_t attr, std::span<const Lanes<T>> in, std::span<const OutLanes<T>> out,
                 std::size_t n, T* scratch, std::size_t* swaps) noexcept {
    constexpr std::size_t kLanes = kSolveGroup;
    const std::size_t size = ir::solve_size(attr);
    const std::size_t rhs = ir::solve_rhs_count(attr);
    const std::size_t elements = size * size + size * rhs;
    const Group<T> group{scratch, scratch + elements * kLanes, swaps, size};
    for (std::size_t first = 0; first < n; first += kLanes) {
        const std::size_t lanes = std::min(kLanes, n - first);
        group.load(in, elements, first, lanes);
        group.factor();
        bool failed[kLanes] = {};
        for (std::size_t c = 0; c < rhs; ++c) {
            group.solve(size * size + c * size, failed);
        }
        group.store(out.first(size * rhs), first, lanes, failed);
    }
}

// LADDU_TARGET_CLONES, each copy with the whole solve inlined (flatten), so that the group's
// lanes are one AVX-512 register of doubles where the CPU has them.
LADDU_TARGET_CLONES __attribute__((flatten)) void solve_f64(std::uint32_t attr,
                                                            std::span<const Lanes<double>> in,
                                                            std::span<const OutLanes<double>> out,
                                                            std::size_t n, double* scratch,
                                                            std::size_t* swaps) noexcept {
    solve_lanes<double>(attr, in, out, n, scratch, swaps);
}

LADDU_TARGET_CLONES __attribute__((flatten)) void solve_f32(std::uint32_t attr,
                                                            std::span<const Lanes<float>> in,
                                                            std::span<const OutLanes<float>> out,
                                                            std::size_t n, float* scratch,
                                                            std::size_t* swaps) noexcept {
    solve_lanes<float>(attr, in, out, n, scratch, swaps);
}

}  // namespace

template <typename T>
void execute_solve(std::uint32_t attr, std::span<const Lanes<T>> in,
                   std::span<const OutLanes<T>> out, std::size_t n, std::complex<T>* scratch,
                   std::size_t* swaps) noexcept {
    // std::complex<T> is an array of two T (its re and im): the scratch as 2 · its length T.
    T* values =
        reinterpret_cast<T*>(scratch);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
    if constexpr (std::is_same_v<T, double>) {
        solve_f64(attr, in, out, n, values, swaps);
    } else {
        solve_f32(attr, in, out, n, values, swaps);
    }
}

template void execute_solve<double>(std::uint32_t, std::span<const Lanes<double>>,
                                    std::span<const OutLanes<double>>, std::size_t,
                                    std::complex<double>*, std::size_t*) noexcept;
template void execute_solve<float>(std::uint32_t, std::span<const Lanes<float>>,
                                   std::span<const OutLanes<float>>, std::size_t,
                                   std::complex<float>*, std::size_t*) noexcept;

}  // namespace laddu::interp::detail
