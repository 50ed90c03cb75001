// The OpenCL backend against the batch interpreter (interp/), on the first OpenCL device (PoCL's
// CPU device in CI). Device math libraries differ from glibc by a few ulp, so f64 is compared
// to 1e-12 relative and f32 to laddu's 2e-3; runs are compared bit for bit with each other.
// Every PoCL build compiles the program with clang, so programs are batched (one program holds
// every opcode of a test) to keep the suite short.
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/gpu/gpu.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/ir/print.hpp>

#include "reference/random_program.hpp"
#include "scoped_env.hpp"

namespace laddu::gpu {
namespace {

using ir::OpCode;
using ir::ValueId;
using ir::ValueKind;
using testing::Complex;
using testing::Random;

bool have_device() {
    return !devices().empty();
}

#define REQUIRE_DEVICE()                                                                           \
    if (!have_device()) {                                                                          \
        GTEST_SKIP() << "no OpenCL device (install pocl-opencl-icd)";                              \
    }

// Random events for a program's inputs and its outputs from one backend.
struct Events {
    std::size_t count = 0;
    std::vector<std::vector<double>> re;
    std::vector<std::vector<double>> im;
    std::vector<ir::InputColumn> columns;

    [[nodiscard]] ir::ColumnView view() const { return {columns, count}; }
};

Events random_events(const ir::Program& program, Random& random, std::size_t count) {
    Events events;
    events.count = count;
    const testing::SlotValues slots = testing::random_slots(random, program, count);
    for (const auto& slot : slots) {
        std::vector<double> re;
        std::vector<double> im;
        for (const Complex& z : slot) {
            re.push_back(z.real());
            im.push_back(z.imag());
        }
        events.re.push_back(std::move(re));
        events.im.push_back(std::move(im));
    }
    for (std::size_t s = 0; s < slots.size(); ++s) {
        const bool c = program.inputs[s].kind == ValueKind::kComplex;
        events.columns.push_back({events.re[s].data(), c ? events.im[s].data() : nullptr});
    }
    return events;
}

struct Outputs {
    std::vector<std::vector<double>> re;
    std::vector<std::vector<double>> im;
    std::vector<ir::OutputColumn> columns;

    Outputs(std::size_t outputs, std::size_t events)
        : re(outputs, std::vector<double>(events)), im(outputs, std::vector<double>(events)) {
        for (std::size_t k = 0; k < outputs; ++k) {
            columns.push_back({re[k].data(), im[k].data()});
        }
    }

    friend bool operator==(const Outputs& a, const Outputs& b) {
        // Bitwise, so that NaNs compare equal to themselves.
        for (std::size_t k = 0; k < a.re.size(); ++k) {
            for (std::size_t e = 0; e < a.re[k].size(); ++e) {
                if (std::memcmp(&a.re[k][e], &b.re[k][e], sizeof(double)) != 0 ||
                    std::memcmp(&a.im[k][e], &b.im[k][e], sizeof(double)) != 0) {
                    return false;
                }
            }
        }
        return true;
    }
};

std::vector<double> random_params(const ir::Program& program, Random& random) {
    std::vector<double> params;
    for (std::uint32_t k = 0; k < program.parameter_count; ++k) {
        params.push_back(random.uniform(-1.5, 1.5));
    }
    return params;
}

Outputs run_interpreter(const ir::Program& program, ir::Precision precision,
                        const std::vector<double>& params, const Events& events) {
    Outputs out(program.outputs.size(), events.count);
    const interp::Interpreter interpreter = interp::Interpreter::prepare(program, precision);
    interp::Workspace workspace = interpreter.make_workspace();
    interpreter.run(params, events.view(), 0, events.count, workspace, ir::OutputView{out.columns});
    return out;
}

Outputs run_gpu(const ir::Program& program, ir::Precision precision,
                const std::vector<double>& params, const Events& events,
                std::size_t work_group_size = 0) {
    Outputs out(program.outputs.size(), events.count);
    const std::shared_ptr<const Kernel> kernel = compile(program, precision, 0);
    kernel->run(params, events.view(), 0, events.count, out.columns, work_group_size);
    return out;
}

// Runs `program` on both backends over the same events and compares every output.
void expect_agrees(const ir::Program& program, std::uint64_t seed, ir::Precision precision,
                   double tolerance, std::size_t count = 150) {
    SCOPED_TRACE(ir::to_string(program));
    Random random(seed);
    const std::vector<double> params = random_params(program, random);
    const Events events = random_events(program, random, count);
    const Outputs want = run_interpreter(program, precision, params, events);
    const Outputs got = run_gpu(program, precision, params, events);
    for (std::size_t k = 0; k < program.outputs.size(); ++k) {
        const bool c = program.at(program.outputs[k]).kind == ValueKind::kComplex;
        for (std::size_t e = 0; e < count; ++e) {
            const Complex w(want.re[k][e], c ? want.im[k][e] : 0.0);
            const Complex g(got.re[k][e], c ? got.im[k][e] : 0.0);
            const bool want_nan = std::isnan(w.real()) || std::isnan(w.imag());
            const bool got_nan = std::isnan(g.real()) || std::isnan(g.imag());
            if (want_nan || got_nan) {
                ASSERT_EQ(want_nan, got_nan) << "output " << k << " event " << e;
                continue;
            }
            if (g == w) {
                continue;
            }
            ASSERT_LE(std::abs(g - w), tolerance * std::abs(w))
                << "output " << k << " event " << e << ": gpu " << g << ", interp " << w << " ("
                << precision_name(precision) << ")";
        }
    }
}

constexpr double kF64Tolerance = 1e-12;
constexpr double kF32Tolerance = 2e-3;

void expect_agrees_both(const ir::Program& program, std::uint64_t seed) {
    expect_agrees(program, seed, ir::Precision::kF64, kF64Tolerance);
    expect_agrees(program, seed, ir::Precision::kF32, kF32Tolerance);
}

TEST(GpuDevices, ListsPoclOrNothing) {
    for (const DeviceInfo& d : devices()) {
        EXPECT_FALSE(d.name.empty());
        EXPECT_GT(d.global_memory, 0U);
        EXPECT_EQ(device(d.index).name, d.name);
    }
}

TEST(GpuDevices, MissingDeviceNamesTheDevices) {
    const std::size_t n = devices().size();
    try {
        (void)device(n + 3);
        FAIL() << "no error";
    } catch (const BackendError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("no OpenCL device " + std::to_string(n + 3)), std::string::npos)
            << message;
        if (n > 0) {
            EXPECT_NE(message.find(devices()[0].name), std::string::npos) << message;
        } else {
            EXPECT_NE(message.find("pocl-opencl-icd"), std::string::npos) << message;
        }
    }
    ir::Builder b;
    b.add_output(b.param(0));
    EXPECT_THROW((void)compile(b.finish(), ir::Precision::kF64, n + 3), BackendError);
}

TEST(GpuSource, TurnsContractionOffAndNeedsDoublesForF64) {
    ir::Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kComplex));
    b.add_output(b.binary(OpCode::kMul, x, b.param(0)));
    const ir::Program program = b.finish();
    const std::string source = lower_to_opencl(program, ir::Precision::kF64);
    EXPECT_NE(source.find("#pragma OPENCL FP_CONTRACT OFF"), std::string::npos);
    EXPECT_NE(source.find("cl_khr_fp64"), std::string::npos);
    EXPECT_NE(source.find("__kernel void laddu_kernel"), std::string::npos);
    EXPECT_THROW((void)lower_to_opencl(program, ir::Precision::kF64, false), BackendError);
    const std::string f32 = lower_to_opencl(program, ir::Precision::kF32, false);
    EXPECT_EQ(f32.find("double"), std::string::npos) << f32;
}

TEST(GpuVsInterp, EveryUnaryOpcode) {
    REQUIRE_DEVICE();
    constexpr std::array<OpCode, 19> kOps = {
        OpCode::kNeg,  OpCode::kConj, OpCode::kSqrt, OpCode::kExp,    OpCode::kLog,
        OpCode::kSin,  OpCode::kCos,  OpCode::kTan,  OpCode::kAsin,   OpCode::kAcos,
        OpCode::kAtan, OpCode::kSinh, OpCode::kCosh, OpCode::kTanh,   OpCode::kReal,
        OpCode::kImag, OpCode::kAbs,  OpCode::kArg,  OpCode::kNormSqr};
    for (const ValueKind kind : {ValueKind::kReal, ValueKind::kComplex}) {
        SCOPED_TRACE(std::string(ir::kind_name(kind)));
        ir::Builder b;
        const ValueId a = b.load(b.add_input("a", kind));
        const ValueId p = kind == ValueKind::kReal ? b.param(0) : b.complex(b.param(0), b.param(1));
        for (const OpCode op : kOps) {
            b.add_output(b.unary(op, a));
            b.add_output(b.unary(op, p));
        }
        b.add_output(b.pow_i(a, 5));
        b.add_output(b.pow_i(a, -3));
        b.add_output(b.pow_i(a, 0));
        b.add_output(b.pow_i(p, 2));
        expect_agrees_both(b.finish(), 10 + static_cast<std::uint64_t>(kind));
    }
}

TEST(GpuVsInterp, EveryBinaryAndNaryOpcode) {
    REQUIRE_DEVICE();
    constexpr std::array<OpCode, 5> kOps = {OpCode::kAdd, OpCode::kSub, OpCode::kMul, OpCode::kDiv,
                                            OpCode::kPow};
    ir::Builder b;
    std::vector<ValueId> loads;
    for (const ValueKind kind : {ValueKind::kReal, ValueKind::kComplex}) {
        loads.push_back(b.load(b.add_input(std::string("in") + ir::kind_name(kind).data(), kind)));
    }
    for (const ValueId x : loads) {
        for (const ValueId y : loads) {
            for (const OpCode op : kOps) {
                b.add_output(b.binary(op, x, y));
                b.add_output(b.binary(op, b.param(0), y));
            }
            const std::vector<ValueId> ops = {x, y, b.param(1), y, x};
            b.add_output(b.add_n(ops));
            b.add_output(b.mul_n(ops));
            b.add_output(b.dot(std::vector<ValueId>{x, y}, std::vector<ValueId>{y, b.param(2)}));
            b.add_output(
                b.binary(OpCode::kAtan2, b.unary(OpCode::kReal, x), b.unary(OpCode::kImag, y)));
            b.add_output(b.complex(b.unary(OpCode::kReal, y), b.param(1)));
        }
    }
    expect_agrees_both(b.finish(), 20);
}

TEST(GpuVsInterp, SolvesAgree) {
    REQUIRE_DEVICE();
    ir::Builder b;
    const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
    const ValueId r = b.load(b.add_input("r", ValueKind::kReal));
    for (std::uint32_t n = 1; n <= 5; ++n) {
        for (std::uint32_t m = 1; m <= 2; ++m) {
            std::vector<ValueId> ops;
            for (std::uint32_t k = 0; k < n * n; ++k) {
                const ValueId scale = b.const_complex(0.1 * k, 0.3 + 0.05 * k);
                ValueId e = b.binary(OpCode::kMul, k % 3 == 0 ? z : b.param(k % 2), scale);
                if (k % (n + 1) == 0) {
                    e = b.binary(OpCode::kAdd, e, b.const_real(3.0));
                }
                ops.push_back(k == 1 ? r : e);
            }
            for (std::uint32_t k = 0; k < n * m; ++k) {
                ops.push_back(k % 2 == 0 ? z : b.param(0));
            }
            const ValueId x = b.solve(n, m, ops);
            for (std::uint32_t k = 0; k < n * m; ++k) {
                b.add_output(b.extract(x, k));
            }
        }
    }
    // A singular system (every element NaN) and an invariant one.
    const ValueId zero = b.const_real(0.0);
    const ValueId singular = b.solve(2, 1, std::vector<ValueId>{z, z, z, z, r, r});
    b.add_output(b.extract(singular, 1));
    const ValueId invariant =
        b.solve(2, 1,
                std::vector<ValueId>{b.param(0), zero, b.param(1), b.const_real(2.0), b.param(2),
                                     b.param(0)});
    b.add_output(b.binary(OpCode::kMul, b.extract(invariant, 0), z));
    expect_agrees_both(b.finish(), 30);
}

TEST(GpuVsInterp, RandomPrograms) {
    REQUIRE_DEVICE();
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        SCOPED_TRACE(testing::numbered("seed ", seed));
        Random random(seed * 7919);
        testing::RandomProgramOptions options;
        options.instructions = 40 + random.below(300);
        options.transcendental = seed % 3 != 0;
        expect_agrees_both(testing::random_program(random, options), seed);
    }
}

ir::Program coherent_sum(std::uint32_t waves) {
    ir::Builder b;
    std::vector<ValueId> terms;
    for (std::uint32_t k = 0; k < waves; ++k) {
        const ValueId amp = b.load(b.add_input(testing::numbered("amp", k), ValueKind::kComplex));
        terms.push_back(b.binary(OpCode::kMul, b.complex(b.param(2 * k), b.param(2 * k + 1)), amp));
    }
    b.add_output(b.unary(OpCode::kNormSqr, b.add_n(terms)));
    return b.finish();
}

// Arithmetic alone (no library functions): the same bits as the interpreter.
TEST(GpuVsInterp, CoherentSumIsBitIdenticalInF64) {
    REQUIRE_DEVICE();
    const ir::Program program = coherent_sum(16);
    expect_agrees(program, 40, ir::Precision::kF64, 0.0, 1000);
    expect_agrees(program, 40, ir::Precision::kF32, kF32Tolerance, 1000);
}

TEST(GpuDeterminism, RunsAndWorkGroupSizesAreBitIdentical) {
    REQUIRE_DEVICE();
    Random random(77);
    testing::RandomProgramOptions options;
    options.instructions = 200;
    const ir::Program program = testing::random_program(random, options);
    const std::vector<double> params = random_params(program, random);
    const Events events = random_events(program, random, 1000);
    for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
        const Outputs first = run_gpu(program, precision, params, events);
        EXPECT_TRUE(first == run_gpu(program, precision, params, events));
        EXPECT_TRUE(first == run_gpu(program, precision, params, events, 1));
        EXPECT_TRUE(first == run_gpu(program, precision, params, events, 64));
        EXPECT_TRUE(first == run_gpu(program, precision, params, events, 96));
    }
}

// LADDU_GPU_NO_FP64=1 builds as for a device without doubles: float invariants, parameters and
// outputs, float library functions; f64 is then refused.
TEST(GpuVsInterp, FloatOnlyKernelsForDevicesWithoutDoubles) {
    REQUIRE_DEVICE();
    auto no_fp64 = std::make_unique<laddu::testing::ScopedEnv>("LADDU_GPU_NO_FP64", "1");
    ir::Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
    const ValueId p = b.complex(b.param(0), b.param(1));
    for (const OpCode op : {OpCode::kSqrt, OpCode::kExp, OpCode::kLog, OpCode::kSin, OpCode::kAtan,
                            OpCode::kTanh, OpCode::kAsin}) {
        b.add_output(b.unary(op, z));
        b.add_output(b.unary(op, b.binary(OpCode::kMul, p, z)));
    }
    b.add_output(b.binary(OpCode::kPow, z, x));
    b.add_output(b.binary(OpCode::kDiv, b.pow_i(x, -2), z));
    const ValueId s = b.solve(2, 1, std::vector<ValueId>{z, p, x, b.const_real(3.0), z, x});
    b.add_output(b.extract(s, 1));
    const ir::Program program = b.finish();
    expect_agrees(program, 50, ir::Precision::kF32, kF32Tolerance);
    EXPECT_THROW((void)compile(program, ir::Precision::kF64, 0), BackendError);
    EXPECT_EQ(compile(program, ir::Precision::kF32, 0)->source().find("double"), std::string::npos);
    no_fp64.reset();
    EXPECT_NE(compile(program, ir::Precision::kF32, 0)->source().find("double"), std::string::npos);
}

TEST(GpuResidency, ColumnsStayOnTheDeviceUntilTheirValuesChange) {
    REQUIRE_DEVICE();
    ir::Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    b.add_output(b.binary(OpCode::kMul, x, b.param(0)));
    const ir::Program program = b.finish();
    std::vector<double> column(5000, 1.5);
    const std::array<ir::InputColumn, 1> columns = {ir::InputColumn{column.data(), nullptr}};
    const ir::ColumnView view{columns, column.size()};
    std::vector<double> out(100);
    const std::array<ir::OutputColumn, 1> outputs = {ir::OutputColumn{out.data(), nullptr}};
    const std::shared_ptr<const Kernel> kernel = compile(program, ir::Precision::kF64, 0);
    EXPECT_EQ(kernel.get(), compile(program, ir::Precision::kF64, 0).get());
    const std::vector<double> two = {2.0};
    kernel->run(two, view, 4900, 100, outputs);
    EXPECT_EQ(out[99], 3.0);
    EXPECT_GE(resident_bytes(0), column.size() * sizeof(double));
    // The same address with new values (a streaming window's cache) uploads again.
    std::fill(column.begin(), column.end(), 4.0);
    kernel->run(two, view, 4900, 100, outputs);
    EXPECT_EQ(out[0], 8.0);
    EXPECT_THROW(kernel->run({}, view, 0, 100, outputs), EvaluationError);
    EXPECT_THROW(kernel->run(two, view, 4950, 100, outputs), DataError);
}

TEST(GpuResidency, AResidentBudgetEvictsTheLeastRecentlyUsedColumns) {
    REQUIRE_DEVICE();
    clear_cache();
    ir::Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    b.add_output(b.binary(OpCode::kAdd, x, b.param(0)));
    const std::shared_ptr<const Kernel> kernel = compile(b.finish(), ir::Precision::kF64, 0);
    // Three windows of 4000 events (32000 bytes each) under a budget that holds two of them.
    constexpr std::size_t kEvents = 4000;
    constexpr std::size_t kBudget = 2 * kEvents * sizeof(double);
    std::vector<std::vector<double>> windows(3, std::vector<double>(kEvents));
    std::vector<double> out(kEvents);
    const std::array<ir::OutputColumn, 1> outputs = {ir::OutputColumn{out.data(), nullptr}};
    const std::vector<double> one = {1.0};
    for (std::size_t w = 0; w < windows.size(); ++w) {
        std::fill(windows[w].begin(), windows[w].end(), static_cast<double>(w));
        const std::array<ir::InputColumn, 1> columns = {
            ir::InputColumn{windows[w].data(), nullptr}};
        kernel->run(one, ir::ColumnView{columns, kEvents}, 0, kEvents, outputs, 0, kBudget);
        EXPECT_EQ(out[kEvents - 1], static_cast<double>(w) + 1.0);
        EXPECT_LE(resident_bytes(0), kBudget) << "window " << w;
    }
    EXPECT_EQ(resident_bytes(0), kBudget);
}

}  // namespace
}  // namespace laddu::gpu
