// The oracle the autodiff tests share: forward and reverse gradient programs of one primal,
// run by the reference executor, compared with each other and with finite differences.
#pragma once

#include <span>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/ir/program.hpp>

#include "reference/program_reference.hpp"

namespace laddu::autodiff::testing {

// The shared reference executor (tests/support/reference), under this namespace's names.
using laddu::testing::Complex;
using laddu::testing::evaluate_instruction;
using laddu::testing::program_values;
using laddu::testing::reference_solve;
using laddu::testing::RefValue;
using laddu::testing::run_reference;

/// One event's input column values (a Real slot reads the real part).
using Event = std::vector<Complex>;

struct Tolerances {
    double forward_reverse = 1e-12;   ///< |fwd - rev| <= tol · max(1, max_k |fwd_k|)
    double finite_difference = 1e-7;  ///< |fd - ad| <= tol · max(1, |ad|)
};

/// d output0 / d params[k] by Richardson-extrapolated central differences (O(h⁶)) with base
/// step `step`·max(1, |params[k]|).
[[nodiscard]] Complex finite_difference(const ir::Program& program, std::span<const double> params,
                                        const Event& event, std::uint32_t k, double step = 2e-3);

/// Checks, for every event: both gradient programs validate and have 1 + P outputs of the right
/// kinds, output 0 equals the primal value exactly, forward == reverse, and both match finite
/// differences of the primal.
[[nodiscard]] ::testing::AssertionResult gradients_agree(const ir::Program& primal,
                                                         std::span<const double> params,
                                                         const std::vector<Event>& events,
                                                         Component component = Component::kFull,
                                                         const Tolerances& tolerances = {});

}  // namespace laddu::autodiff::testing
