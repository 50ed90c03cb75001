// tests/support/finite_differences.hpp: the numerical gradient that exact gradients are tested
// against.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace laddu::testing {

/// The central-difference gradient of the real function `f` at `x`, with steps
/// h_k = relative_step · max(1, |x_k|) (error O(h²) plus the rounding of f over 2h).
template <typename F>
[[nodiscard]] std::vector<double> central_differences(const F& f, std::vector<double> x,
                                                      double relative_step = 1e-5) {
    std::vector<double> g;
    g.reserve(x.size());
    for (std::size_t k = 0; k < x.size(); ++k) {
        const double h = relative_step * std::max(1.0, std::abs(x[k]));
        const double x0 = x[k];
        x[k] = x0 + h;
        const double up = f(x);
        x[k] = x0 - h;
        const double down = f(x);
        x[k] = x0;
        g.push_back((up - down) / (2.0 * h));
    }
    return g;
}

}  // namespace laddu::testing
