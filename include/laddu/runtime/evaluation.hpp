// laddu/runtime/evaluation.hpp: a value with its gradient, what every reduction with a gradient,
// likelihood term and minimiser step passes around.
#pragma once

#include <vector>

namespace laddu::runtime {

/// A value and its gradient with respect to the parameters (in the producer's parameter order:
/// a program's, or a likelihood term's).
struct Evaluation {
    double value = 0.0;
    std::vector<double> gradient;

    friend bool operator==(const Evaluation&, const Evaluation&) = default;
};

}  // namespace laddu::runtime
