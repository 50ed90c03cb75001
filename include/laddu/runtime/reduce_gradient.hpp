// laddu/runtime/reduce_gradient.hpp: the partials of a reduction with its exact gradient.
//
// A gradient reduction runs a gradient program (autodiff::gradient with Component::kReal:
// output 0 the value, outputs 1..P the real derivatives of Re f) and sums
// Σ_i w_i · T(Re f_i) and Σ_i w_i · T'(Re f_i) · ∂Re f_i/∂θ_k chunk by chunk as reduce.hpp
// describes, so value and gradient are bit-identical for any thread count, and the value
// equals the value reduction's.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include <laddu/runtime/evaluation.hpp>
#include <laddu/runtime/reduce.hpp>

namespace laddu::runtime {

/// Chunk partials of a gradient reduction: `values[c]`, and `gradients[c * parameters + k]`.
struct GradientPartials {
    std::size_t parameters = 0;
    std::vector<double> values;
    std::vector<double> gradients;
};

/// The partials of records of parameters + 1 doubles, one per chunk in chunk order: the chunk's
/// value partial, then its gradient partials.
[[nodiscard]] GradientPartials gradient_partials_of_records(std::span<const double> records,
                                                            std::size_t parameters);

/// Merges partials in chunk order with one AccurateSum per output.
[[nodiscard]] Evaluation merge_gradient_partials(const GradientPartials& partials);

}  // namespace laddu::runtime
