// The README's example, built and run as a test (tests: readme_example, readme_in_sync).
#include <cstdio>
#include <random>
#include <vector>

#include <laddu/data/dataset.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/likelihood/nll.hpp>

using namespace laddu;  // NOLINT(google-build-using-namespace): a short example

int main() {
    // A Breit-Wigner in the event scalar s, with mass and width parameters (laddu's README).
    const expr::Expr s = expr::scalar("s");
    const expr::Expr mass =
        expr::parameter("mass", {.initial = 1.0, .bounds = expr::Bounds{0.5, 1.5}});
    const expr::Expr width =
        expr::parameter("width", {.initial = 0.1, .bounds = expr::Bounds{0.01, 0.5}});
    const expr::Expr amplitude =
        1.0 / (mass * mass - s - std::complex<double>(0.0, 1.0) * mass * width);
    const expr::Model model(expr::norm_sqr(amplitude));

    // Events from arrays (laddu's Dataset.from_arrays); here flat in s.
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> flat(0.5, 1.5);
    std::vector<double> values(10000);
    for (double& v : values) {
        v = flat(rng);
    }
    const std::vector<data::ScalarInput> scalars{{"s", values}};
    const data::Dataset events = data::Dataset::from_scalars(scalars);

    // The NLL compiles the model, caches what does not depend on parameters, and evaluates
    // value and exact gradient over all cores.
    const likelihood::NLL nll(model, events, events);
    const std::vector<double> params{1.02, 0.12};
    const runtime::Evaluation result = nll.value_and_gradient(params);
    std::printf("parameters: %s, %s\n", model.parameters().names()[0].c_str(),
                model.parameters().names()[1].c_str());
    std::printf("NLL = %.6f, gradient = (%.6f, %.6f)\n", result.value, result.gradient[0],
                result.gradient[1]);
    return 0;
}
