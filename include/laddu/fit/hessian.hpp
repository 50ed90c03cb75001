// laddu/fit/hessian.hpp: Hessians from exact gradients and the covariance they imply.
//
// The Hessian of an objective at its minimum is taken by central differences of its exact
// gradient (row k: (∇f(x + h_k e_k) − ∇f(x − h_k e_k)) / 2h_k with h_k = ∛ε · max(1, |x_k|)),
// then symmetrised. For a negative log-likelihood its inverse is the covariance of the
// estimates. A singular or indefinite Hessian gives NaN uncertainties and a message.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <laddu/fit/minimizer.hpp>

namespace laddu::fit {

/// The n × n Hessian (row-major) of `objective` at `x`, from 2n gradient evaluations.
[[nodiscard]] std::vector<double> finite_difference_hessian(const Objective& objective,
                                                            std::span<const double> x);

/// The inverse of a Hessian and what follows from it.
struct Covariance {
    std::vector<double> covariance;     ///< n × n row-major (NaN when singular)
    std::vector<double> correlation;    ///< n × n row-major (NaN when singular)
    std::vector<double> uncertainties;  ///< √diag (NaN for a non-positive diagonal entry)
    bool valid = false;                 ///< false when any of the above is NaN
    std::string message;                ///< why not valid ("" when valid)
};

/// Inverts the n × n `hessian` by Gauss-Jordan elimination with partial pivoting. A pivot below
/// 1e-13 of the largest entry counts as singular.
[[nodiscard]] Covariance covariance_from_hessian(std::span<const double> hessian, std::size_t n);

}  // namespace laddu::fit
