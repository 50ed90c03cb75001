// laddu's K-matrix benchmark NLL on the OpenCL backend (the first OpenCL device: PoCL's CPU device
// in CI) against the CPU: f64 to 1e-10 relative, f32 to laddu's 2e-3 (value) and 5e-3
// (gradient); GPU results bit-identical between runs and thread counts. Skipped when the GPU
// stage is not built or no OpenCL device exists.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/amplitudes/kmatrix_benchmark.hpp>
#include <laddu/base/error.hpp>
#include <laddu/likelihood/nll.hpp>
#include <laddu/runtime/execution.hpp>
#if LADDU_HAVE_GPU
#include <laddu/gpu/gpu.hpp>
#endif

#include "../support/ksks_events.hpp"

namespace laddu {
namespace {

bool have_gpu() {
#if LADDU_HAVE_GPU
    return !gpu::devices().empty();
#else
    return false;
#endif
}

runtime::Execution on(runtime::Device device, ir::Precision precision, std::size_t threads = 2) {
    runtime::Execution execution;
    execution.device = device;
    execution.precision = precision;
    execution.threads = threads;
    // Every accepted event through the kernel too (not only the precomputed matrix).
    execution.normalization = runtime::NormalizationMode::kGeneral;
    return execution;
}

class KMatrixGpu : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        events_ = new testing::KsKsEvents(testing::generate_ksks(5000, 2027));
        model_ = new expr::Model(amplitudes::kmatrix_benchmark_model());
    }

    static void TearDownTestSuite() {
        delete model_;
        delete events_;
    }

    static runtime::Evaluation evaluate(const runtime::Execution& execution) {
        const data::Dataset data = events_->dataset();
        const likelihood::NLL nll(*model_, data, data, execution);
        std::vector<double> p(nll.parameters().size());
        for (std::size_t k = 0; k < p.size(); ++k) {
            p[k] = 0.25 + 0.01 * static_cast<double>(k % 7);
        }
        runtime::Evaluation result = nll.value_and_gradient(p);
        // The value program (no gradient) runs on the device too.
        const double value = nll.value(p);
        EXPECT_LE(std::abs(value - result.value), 1e-9 * std::abs(result.value));
        return result;
    }

    static void expect_close(const runtime::Evaluation& got, const runtime::Evaluation& want,
                             double value_tolerance, double gradient_tolerance) {
        EXPECT_LE(std::abs(got.value - want.value), value_tolerance * std::abs(want.value))
            << got.value << " vs " << want.value;
        ASSERT_EQ(got.gradient.size(), want.gradient.size());
        double scale = 0.0;
        for (const double g : want.gradient) {
            scale = std::max(scale, std::abs(g));
        }
        for (std::size_t k = 0; k < want.gradient.size(); ++k) {
            EXPECT_LE(std::abs(got.gradient[k] - want.gradient[k]), gradient_tolerance * scale)
                << "parameter " << k << ": " << got.gradient[k] << " vs " << want.gradient[k];
        }
    }

    static testing::KsKsEvents* events_;
    static expr::Model* model_;
};

testing::KsKsEvents* KMatrixGpu::events_ = nullptr;
expr::Model* KMatrixGpu::model_ = nullptr;

TEST_F(KMatrixGpu, NllAndGradientAgreeWithTheCpu) {
    if (!have_gpu()) {
        GTEST_SKIP() << "no GPU backend or OpenCL device";
    }
    const runtime::Evaluation cpu = evaluate(on(runtime::Device::kCpu, ir::Precision::kF64));
#if LADDU_HAVE_GPU
    gpu::clear_cache();
#endif
    const runtime::Evaluation gpu64 = evaluate(on(runtime::Device::kGpu, ir::Precision::kF64));
#if LADDU_HAVE_GPU
    EXPECT_EQ(gpu::cache_size(), 2U);  // the value and the gradient programs
#endif
    std::printf("K-matrix NLL: cpu %.17g, gpu f64 %.17g\n", cpu.value, gpu64.value);
    expect_close(gpu64, cpu, 1e-10, 1e-10);
    // With the sums on the device in the CPU's lanes, f64 on PoCL (whose operations round as
    // the CPU's do for this model) is the CPU's result to the bit; another device's math library
    // may differ by an ulp here and there.
#if LADDU_HAVE_GPU
    if (gpu::devices()[0].platform.find("Portable Computing") != std::string::npos) {
        EXPECT_EQ(std::memcmp(&gpu64.value, &cpu.value, sizeof(double)), 0);
        EXPECT_EQ(gpu64.gradient, cpu.gradient);
    }
#endif
    const runtime::Evaluation gpu32 = evaluate(on(runtime::Device::kGpu, ir::Precision::kF32));
    expect_close(gpu32, cpu, 2e-3, 5e-3);
    // Bit-identical between runs and thread counts: every chunk is summed in fixed lanes.
    const runtime::Evaluation again = evaluate(on(runtime::Device::kGpu, ir::Precision::kF64, 1));
    EXPECT_EQ(std::memcmp(&again.value, &gpu64.value, sizeof(double)), 0);
    EXPECT_EQ(again.gradient, gpu64.gradient);
}

TEST_F(KMatrixGpu, MissingDeviceIsABackendError) {
    runtime::Execution execution = on(runtime::Device::kGpu, ir::Precision::kF64);
    execution.device_index = 99;
    try {
        (void)evaluate(execution);
        FAIL() << "no error";
    } catch (const BackendError& e) {
        const std::string message = e.what();
        EXPECT_TRUE(message.find("no OpenCL device 99") != std::string::npos ||
                    message.find("built without the OpenCL backend") != std::string::npos)
            << message;
    }
}

}  // namespace
}  // namespace laddu
