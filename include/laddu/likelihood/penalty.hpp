// laddu/likelihood/penalty.hpp: regularisation terms added to a Likelihood.
//
// RidgePenalty is λ Σ_k θ_k² (gradient 2λθ_k); LassoPenalty is λ Σ_k |θ_k| (gradient
// λ·sign(θ_k), 0 at θ_k = 0, laddu's subgradient choice). The parameters are bound by name to
// the other terms of the Likelihood they join.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include <laddu/likelihood/term.hpp>

namespace laddu::likelihood {

/// λ Σ_k p(θ_k) over named parameters, for a per-parameter penalty p (the base of the ridge
/// and lasso terms).
class ParameterPenalty : public Term {
public:
    [[nodiscard]] const std::string& name() const noexcept final { return name_; }

    [[nodiscard]] const std::vector<expr::Parameter>& parameters() const noexcept final {
        return parameters_;
    }

    /// A penalty names parameters without defining them.
    [[nodiscard]] bool defines_parameters() const noexcept final { return false; }

    /// Throws EvaluationError for a wrong parameter count.
    [[nodiscard]] double value(std::span<const double> params) const final;
    [[nodiscard]] runtime::Evaluation
    value_and_gradient(std::span<const double> params) const final;

    /// The strength λ.
    [[nodiscard]] double lambda() const noexcept { return lambda_; }

protected:
    /// Throws ModelError for an empty or duplicated name list or a negative or non-finite λ.
    ParameterPenalty(const std::vector<std::string>& names, double lambda, std::string name);

private:
    /// p(θ) and p'(θ).
    [[nodiscard]] virtual double penalty(double theta) const noexcept = 0;
    [[nodiscard]] virtual double slope(double theta) const noexcept = 0;

    std::string name_;
    std::vector<expr::Parameter> parameters_;
    double lambda_;
};

/// λ Σ θ² over the named parameters.
class RidgePenalty final : public ParameterPenalty {
public:
    /// Throws ModelError for an empty or duplicated name list or a negative or non-finite λ.
    RidgePenalty(const std::vector<std::string>& names, double lambda, std::string name = "ridge")
        : ParameterPenalty(names, lambda, std::move(name)) {}

private:
    [[nodiscard]] double penalty(double theta) const noexcept override { return theta * theta; }

    [[nodiscard]] double slope(double theta) const noexcept override { return 2.0 * theta; }
};

/// λ Σ |θ| over the named parameters.
class LassoPenalty final : public ParameterPenalty {
public:
    /// Throws ModelError as RidgePenalty does.
    LassoPenalty(const std::vector<std::string>& names, double lambda, std::string name = "lasso")
        : ParameterPenalty(names, lambda, std::move(name)) {}

private:
    [[nodiscard]] double penalty(double theta) const noexcept override;
    [[nodiscard]] double slope(double theta) const noexcept override;
};

}  // namespace laddu::likelihood
