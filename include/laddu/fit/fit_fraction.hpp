// laddu/fit/fit_fraction.hpp: fit fractions with uncertainties propagated from a fit.
//
// The fit fraction of the amplitudes tagged `tags` is Σ_acc w I_tags / Σ_acc w I, with the
// fit's own normalisation (UnbinnedNll::fit_fraction). Its uncertainty is the linear
// propagation σ² = ∇Fᵀ C ∇F with the exact gradient ∇F and the fit's covariance C.
#pragma once

#include <string>
#include <vector>

#include <laddu/fit/fit.hpp>
#include <laddu/likelihood/nll.hpp>

namespace laddu::fit {

/// A fit fraction and its propagated uncertainty (NaN when the covariance is).
struct FitFraction {
    double value = 0.0;
    double uncertainty = 0.0;
};

/// The fit fraction of `tags` in `term` at `result.values`. The term's parameters are found in
/// `result.names` by name (FitError naming a missing one); ModelError for unknown tags.
[[nodiscard]] FitFraction fit_fraction(const FitResult& result, const likelihood::UnbinnedNll& term,
                                       const std::vector<std::string>& tags);

}  // namespace laddu::fit
