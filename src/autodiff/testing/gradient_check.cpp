#include "gradient_check.hpp"

#include <algorithm>
#include <cmath>

#include <laddu/ir/print.hpp>
#include <laddu/ir/validate.hpp>

namespace laddu::autodiff::testing {

Complex finite_difference(const ir::Program& program, std::span<const double> params,
                          const Event& event, std::uint32_t k, double step) {
    std::vector<double> p(params.begin(), params.end());
    const double h = step * std::max(1.0, std::fabs(params[k]));
    const auto central = [&](double delta) {
        p[k] = params[k] + delta;
        const Complex up = run_reference(program, p, event).front();
        p[k] = params[k] - delta;
        const Complex down = run_reference(program, p, event).front();
        p[k] = params[k];
        return (up - down) / (2.0 * delta);
    };
    // Two Richardson steps on h, h/2, h/4 cancel the h² and h⁴ error terms.
    const Complex d1 = central(h);
    const Complex d2 = central(h / 2.0);
    const Complex d4 = central(h / 4.0);
    const Complex r2 = (4.0 * d2 - d1) / 3.0;
    const Complex r4 = (4.0 * d4 - d2) / 3.0;
    return (16.0 * r4 - r2) / 15.0;
}

namespace {

Complex expected_component(Complex derivative, Component component) {
    switch (component) {
    case Component::kFull:
        return derivative;
    case Component::kReal:
        return Complex(derivative.real(), 0.0);
    case Component::kImag:
        return Complex(derivative.imag(), 0.0);
    }
    return derivative;
}

::testing::AssertionResult check_shape(const ir::Program& primal, const ir::Program& gradient,
                                       const char* mode, Component component) {
    if (auto ok = ir::validate(gradient); !ok) {
        return ::testing::AssertionFailure()
               << mode << " program invalid: " << ok.error().message << "\n"
               << ir::to_string(gradient);
    }
    if (gradient.outputs.size() != 1 + primal.parameter_count) {
        return ::testing::AssertionFailure() << mode << " has " << gradient.outputs.size()
                                             << " outputs, want " << 1 + primal.parameter_count;
    }
    const bool complex_root = primal.at(primal.outputs[0]).kind == ir::ValueKind::kComplex;
    const ir::ValueKind want = complex_root && component == Component::kFull
                                   ? ir::ValueKind::kComplex
                                   : ir::ValueKind::kReal;
    for (std::size_t k = 1; k < gradient.outputs.size(); ++k) {
        if (gradient.at(gradient.outputs[k]).kind != want) {
            return ::testing::AssertionFailure()
                   << mode << " output " << k << " has kind "
                   << ir::kind_name(gradient.at(gradient.outputs[k]).kind);
        }
    }
    return ::testing::AssertionSuccess();
}

}  // namespace

::testing::AssertionResult gradients_agree(const ir::Program& primal,
                                           std::span<const double> params,
                                           const std::vector<Event>& events, Component component,
                                           const Tolerances& tolerances) {
    const ir::Program fwd = forward(primal, component);
    const ir::Program rev = reverse(primal, component);
    if (auto shape = check_shape(primal, fwd, "forward", component); !shape) {
        return shape;
    }
    if (auto shape = check_shape(primal, rev, "reverse", component); !shape) {
        return shape;
    }
    for (std::size_t e = 0; e < events.size(); ++e) {
        const Complex value = run_reference(primal, params, events[e]).front();
        const std::vector<Complex> f = run_reference(fwd, params, events[e]);
        const std::vector<Complex> r = run_reference(rev, params, events[e]);
        if (!(f[0] == value) || !(r[0] == value)) {
            return ::testing::AssertionFailure() << "event " << e << ": value " << value
                                                 << " but forward " << f[0] << ", reverse " << r[0];
        }
        double scale = 1.0;
        for (std::size_t k = 1; k < f.size(); ++k) {
            scale = std::max(scale, std::abs(f[k]));
        }
        for (std::uint32_t k = 0; k < primal.parameter_count; ++k) {
            const Complex fk = f[1 + k];
            const Complex rk = r[1 + k];
            if (!(std::abs(fk - rk) <= tolerances.forward_reverse * scale)) {
                return ::testing::AssertionFailure()
                       << "event " << e << ", parameter " << k << ": forward " << fk
                       << " != reverse " << rk << "\nprimal:\n"
                       << ir::to_string(primal);
            }
            const Complex fd =
                expected_component(finite_difference(primal, params, events[e], k), component);
            if (!(std::abs(fd - fk) <=
                  tolerances.finite_difference * std::max(1.0, std::abs(fk)))) {
                return ::testing::AssertionFailure()
                       << "event " << e << ", parameter " << k << ": autodiff " << fk
                       << " != finite difference " << fd << "\nprimal:\n"
                       << ir::to_string(primal);
            }
        }
    }
    return ::testing::AssertionSuccess();
}

}  // namespace laddu::autodiff::testing
