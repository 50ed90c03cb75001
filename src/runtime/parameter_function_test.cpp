#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/runtime/normalization_matrix.hpp>

namespace laddu::runtime {
namespace {

using ir::Builder;
using ir::OpCode;
using ir::ValueId;

// c0 · conj(c1) and |c0|², for c0 = p0 + i p1, c1 = p2 + i p3.
ir::Program coefficients() {
    Builder b;
    const ValueId c0 = b.complex(b.param(0), b.param(1));
    const ValueId c1 = b.complex(b.param(2), b.param(3));
    b.add_output(b.binary(OpCode::kMul, c0, b.unary(OpCode::kConj, c1)), "cross");
    b.add_output(b.unary(OpCode::kNormSqr, c0), "norm");
    b.set_parameter_count(4);
    return b.finish();
}

TEST(ParameterFunction, EvaluatesTheProgramAtEachParameterVector) {
    const ParameterFunction f(coefficients());
    for (int k = 0; k < 3; ++k) {
        const double s = 1.0 + k;
        const std::vector<double> params{s, 2.0, -1.0, 0.5 * s};
        const std::vector<std::complex<double>> out = f(params);
        ASSERT_EQ(out.size(), 2U);
        const std::complex<double> c0(s, 2.0);
        const std::complex<double> c1(-1.0, 0.5 * s);
        EXPECT_DOUBLE_EQ(out[0].real(), (c0 * std::conj(c1)).real());
        EXPECT_DOUBLE_EQ(out[0].imag(), (c0 * std::conj(c1)).imag());
        EXPECT_DOUBLE_EQ(out[1].real(), std::norm(c0));
        EXPECT_EQ(out[1].imag(), 0.0);
    }
}

// Its workspaces (interpreter) and bound kernels (JIT) are kept between calls: callers on
// several threads at once each get their own and the same numbers as one caller alone; a
// failed call leaves the function usable.
TEST(ParameterFunction, CallersOnSeveralThreadsGetTheSameNumbers) {
    std::vector<ParameterFunction> functions{ParameterFunction(coefficients())};
#if LADDU_HAVE_JIT
    functions.emplace_back(coefficients(), JitPolicy::kEnabled);
#endif
    for (const ParameterFunction& f : functions) {
        EXPECT_THROW((void)f(std::vector<double>{1.0}), EvaluationError);
        constexpr std::size_t kThreads = 4;
        constexpr std::size_t kCalls = 500;
        std::vector<std::vector<std::complex<double>>> expected;
        const auto params = [](std::size_t c) {
            const double x = static_cast<double>(c);
            return std::vector<double>{0.01 * x, 1.0, -0.5, 0.02 * x};
        };
        for (std::size_t c = 0; c < kCalls; ++c) {
            expected.push_back(f(params(c)));
        }
        std::vector<int> mismatches(kThreads, 0);
        std::vector<std::thread> threads;
        for (std::size_t t = 0; t < kThreads; ++t) {
            threads.emplace_back([&, t] {
                for (std::size_t c = 0; c < kCalls; ++c) {
                    if (f(params(c)) != expected[c]) {
                        ++mismatches[t];
                    }
                }
            });
        }
        for (std::thread& thread : threads) {
            thread.join();
        }
        EXPECT_EQ(mismatches, std::vector<int>(kThreads, 0));
    }
}

// On the JIT (which a likelihood's policy gives it from the event count its kernels take the
// JIT at) a parameter function gives the interpreter's bits, and checks its parameter count.
TEST(ParameterFunction, TheJitGivesTheInterpretersBits) {
    const ParameterFunction interpreted(coefficients());
    EXPECT_THROW((void)interpreted(std::vector<double>{1.0}), EvaluationError);
    const ParameterFunction automatic(coefficients(), JitPolicy::kAuto, 1'000'000);
#if LADDU_HAVE_JIT
    const ParameterFunction compiled(coefficients(), JitPolicy::kEnabled);
    EXPECT_THROW((void)compiled(std::vector<double>{1.0}), EvaluationError);
#else
    EXPECT_THROW(ParameterFunction(coefficients(), JitPolicy::kEnabled), BackendError);
    const ParameterFunction& compiled = automatic;
#endif
    for (int k = 0; k < 50; ++k) {
        const double x = 0.37 * k - 4.0;
        const std::vector<double> params{x, 1.0 / (k + 1.0), -0.5 * x, std::exp2(-k)};
        const std::vector<std::complex<double>> want = interpreted(params);
        for (const ParameterFunction* f : {&automatic, &compiled}) {
            const std::vector<std::complex<double>> got = (*f)(params);
            ASSERT_EQ(got.size(), want.size());
            for (std::size_t j = 0; j < want.size(); ++j) {
                EXPECT_EQ(std::bit_cast<std::uint64_t>(got[j].real()),
                          std::bit_cast<std::uint64_t>(want[j].real()));
                EXPECT_EQ(std::bit_cast<std::uint64_t>(got[j].imag()),
                          std::bit_cast<std::uint64_t>(want[j].imag()));
            }
        }
    }
}

TEST(ParameterFunction, AProgramThatReadsEventsIsACompileError) {
    Builder b;
    b.add_output(b.load(b.add_input("x", ir::ValueKind::kReal)), "x");
    EXPECT_THROW(ParameterFunction{b.finish()}, CompileError);
}

}  // namespace
}  // namespace laddu::runtime
