// Uses the installed headers and libraries the way a user would: build a model, compile it,
// and evaluate an NLL over a small dataset.
#include <cmath>
#include <cstdio>
#include <vector>

#include <laddu/laddu.hpp>

int main() {
    using namespace laddu;  // NOLINT(google-build-using-namespace)
    const expr::Expr x = expr::scalar("x");
    const expr::Expr a = expr::parameter("a", {.initial = 1.0});
    const expr::Model model(expr::norm_sqr(a * expr::cis(x)) + 0.5 * x * x);
    std::vector<double> values;
    for (int i = 0; i < 100; ++i) {
        values.push_back(-1.0 + 0.02 * i);
    }
    const std::vector<data::ScalarInput> scalars{{"x", values}};
    const data::Dataset events = data::Dataset::from_scalars(scalars);
    const likelihood::NLL nll(model, events, events);
    const std::vector<double> params{1.5};
    const runtime::Evaluation e = nll.value_and_gradient(params);
    std::printf("consumer: NLL = %.6f, dNLL/da = %.6f\n", e.value, e.gradient[0]);
    try {
        (void)nll.value(std::vector<double>{});
    } catch (const EvaluationError& error) {
        std::printf("consumer: caught %s\n", error.what());
        return std::isfinite(e.value) ? 0 : 1;
    }
    return 1;
}
