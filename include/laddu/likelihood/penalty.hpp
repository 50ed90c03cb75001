// laddu/likelihood/penalty.hpp: regularisation terms added to a Likelihood.
//
// RidgePenalty is λ Σ_k θ_k² (gradient 2λθ_k); LassoPenalty is λ Σ_k |θ_k| (gradient
// λ·sign(θ_k), 0 at θ_k = 0, laddu's subgradient choice). The parameters are bound by name to
// the other terms of the Likelihood they join.
#pragma once

#include <string>
#include <vector>

#include <laddu/likelihood/term.hpp>

namespace laddu::likelihood {

/// λ Σ θ² over the named parameters.
class RidgePenalty final : public Term {
public:
    /// Throws ModelError for an empty or duplicated name list or a negative or non-finite λ.
    RidgePenalty(const std::vector<std::string>& names, double lambda, std::string name = "ridge");

    [[nodiscard]] const std::string& name() const noexcept override { return name_; }

    [[nodiscard]] const std::vector<expr::Parameter>& parameters() const noexcept override {
        return parameters_;
    }

    [[nodiscard]] double value(std::span<const double> params) const override;
    [[nodiscard]] Evaluation value_and_gradient(std::span<const double> params) const override;

private:
    std::string name_;
    std::vector<expr::Parameter> parameters_;
    double lambda_;
};

/// λ Σ |θ| over the named parameters.
class LassoPenalty final : public Term {
public:
    /// Throws ModelError as RidgePenalty does.
    LassoPenalty(const std::vector<std::string>& names, double lambda, std::string name = "lasso");

    [[nodiscard]] const std::string& name() const noexcept override { return name_; }

    [[nodiscard]] const std::vector<expr::Parameter>& parameters() const noexcept override {
        return parameters_;
    }

    [[nodiscard]] double value(std::span<const double> params) const override;
    [[nodiscard]] Evaluation value_and_gradient(std::span<const double> params) const override;

private:
    std::string name_;
    std::vector<expr::Parameter> parameters_;
    double lambda_;
};

}  // namespace laddu::likelihood
