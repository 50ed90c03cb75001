// Test helper for the Python bindings: `nll_reference FILE` reads a Parquet dataset, builds the
// K-matrix benchmark NLL with data = accepted MC = FILE through the C++ API, and prints its
// value_and_gradient at every free parameter 0.25 as hexadecimal floats (%a, exact), one per
// line: the value first, then each gradient component. test_bit_exact.py compares them with the
// same call made from Python.
#include <cstdio>
#include <vector>

#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/base/error.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/likelihood/nll.hpp>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fputs("usage: nll_reference FILE\n", stderr);
        return 2;
    }
    try {
        const auto dataset = laddu::data::read_parquet(argv[1]);
        const auto model = laddu::amplitudes::kmatrix_benchmark_model();
        const laddu::likelihood::NLL nll(model, dataset, dataset);
        const std::vector<double> params(model.parameters().free_count(), 0.25);
        const auto evaluation = nll.value_and_gradient(params);
        std::printf("%a\n", evaluation.value);
        for (const double g : evaluation.gradient) {
            std::printf("%a\n", g);
        }
        return 0;
    } catch (const laddu::Error& e) {
        std::fprintf(stderr, "nll_reference: %s\n", e.what());
    }
    return 1;
}
