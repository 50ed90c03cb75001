#include "toy_model.hpp"

#include <cmath>
#include <complex>
#include <random>
#include <string>

#include <laddu/expr/expr.hpp>

namespace laddu::testing {

using Complex = std::complex<double>;

ToyEvents toy_events(std::size_t n, std::uint64_t seed, double weight_step) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    ToyEvents ev;
    for (std::size_t i = 0; i < n; ++i) {
        const double px = u(rng);
        const double py = u(rng);
        const double pz = u(rng);
        ev.px.push_back(px);
        ev.py.push_back(py);
        ev.pz.push_back(pz);
        ev.e.push_back(std::sqrt(px * px + py * py + pz * pz + 0.25));
        ev.x.push_back(u(rng));
        ev.w.push_back(0.5 + weight_step * (u(rng) + 1.0));
    }
    return ev;
}

data::Dataset toy_dataset(const ToyEvents& events, bool unused_column) {
    const std::vector<data::P4Input> p4s{{"k", events.e, events.px, events.py, events.pz}};
    std::vector<data::ScalarInput> scalars{{"x", events.x}};
    if (unused_column) {
        scalars.push_back({"unused", events.w});
    }
    return data::Dataset::from_arrays(p4s, scalars, events.w);
}

expr::Model toy_model(const ToyModelOptions& options) {
    using expr::Expr;
    const Expr x = expr::scalar("x");
    const Expr e = expr::p4_component("k", expr::P4Component::kE);
    const Expr px = expr::p4_component("k", expr::P4Component::kPx);
    const Expr py = expr::p4_component("k", expr::P4Component::kPy);
    const Expr pz = expr::p4_component("k", expr::P4Component::kPz);
    const Expr m2 = e * e - px * px - py * py - pz * pz;
    Expr sum = expr::constant(Complex(0.0, 0.0));
    for (int k = 0; k < kToyWaves; ++k) {
        const Expr a = expr::parameter("a" + std::to_string(k), {.initial = 1.0});
        const Expr b = expr::parameter("b" + std::to_string(k), {.initial = 0.0});
        const Expr amp = expr::cis(static_cast<double>(k) * x) * (static_cast<double>(k) + m2);
        const Expr wave = expr::complex(a, b) * amp;
        sum = sum + (options.tag_waves ? wave.tagged("w" + std::to_string(k)) : wave);
    }
    Expr intensity = expr::norm_sqr(sum);
    if (options.scale != 1.0) {
        intensity = options.scale * intensity;
    }
    if (options.offset != 0.0) {
        intensity = intensity + options.offset;
    }
    return expr::Model(intensity);
}

double toy_intensity(const ToyEvents& ev, std::size_t i, std::span<const double> params,
                     double offset) {
    const double m2 =
        ev.e[i] * ev.e[i] - ev.px[i] * ev.px[i] - ev.py[i] * ev.py[i] - ev.pz[i] * ev.pz[i];
    Complex sum = 0.0;
    for (int k = 0; k < kToyWaves; ++k) {
        const Complex c(params[static_cast<std::size_t>(2 * k)],
                        params[static_cast<std::size_t>(2 * k + 1)]);
        sum += c * std::polar(1.0, k * ev.x[i]) * (k + m2);
    }
    return std::norm(sum) + offset;
}

std::vector<double> toy_parameters() {
    return {0.7, -0.2, 0.3, 0.9, -1.1, 0.4};
}

runtime::Execution with_threads(std::size_t threads, std::size_t budget) {
    runtime::Execution execution;
    execution.threads = threads;
    if (budget > 0) {
        execution.memory = runtime::MemoryPlan::bytes(budget);
    }
    return execution;
}

runtime::Execution with_normalization(runtime::Execution execution,
                                      runtime::NormalizationMode mode) {
    execution.normalization = mode;
    return execution;
}

}  // namespace laddu::testing
