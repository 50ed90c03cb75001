// Gradient programs run by the batch interpreter: blocks of lanes, invariant hoisting and f32
// event arithmetic must give the reference executor's gradients.
#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/autodiff/gradient.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/builder.hpp>

#include "reference/program_reference.hpp"
#include "testing/random_program.hpp"

namespace laddu::autodiff {
namespace {

using ir::OpCode;
using ir::ValueId;
using testing::Complex;
using testing::Event;

// Column storage for a list of events.
struct Columns {
    std::vector<std::vector<double>> re;
    std::vector<std::vector<double>> im;
    std::vector<ir::InputColumn> columns;
    std::size_t events = 0;

    Columns(const ir::Program& program, const std::vector<Event>& list) : events(list.size()) {
        for (std::size_t slot = 0; slot < program.inputs.size(); ++slot) {
            re.emplace_back();
            im.emplace_back();
            for (const Event& event : list) {
                re.back().push_back(event[slot].real());
                im.back().push_back(event[slot].imag());
            }
        }
        for (std::size_t slot = 0; slot < program.inputs.size(); ++slot) {
            const bool complex = program.inputs[slot].kind == ir::ValueKind::kComplex;
            columns.push_back(
                ir::InputColumn{re[slot].data(), complex ? im[slot].data() : nullptr});
        }
    }

    [[nodiscard]] ir::ColumnView view() const { return ir::ColumnView{columns, events}; }
};

// result[event][output]
std::vector<std::vector<Complex>> run_interpreter(const ir::Program& program,
                                                  const std::vector<double>& params,
                                                  const std::vector<Event>& events,
                                                  ir::Precision precision) {
    const auto interpreter = interp::Interpreter::prepare(program, precision);
    interp::Workspace workspace = interpreter.make_workspace();
    const Columns columns(program, events);
    const std::size_t outputs = program.outputs.size();
    std::vector<std::vector<double>> re(outputs, std::vector<double>(events.size()));
    std::vector<std::vector<double>> im(outputs, std::vector<double>(events.size()));
    std::vector<ir::OutputColumn> out;
    for (std::size_t j = 0; j < outputs; ++j) {
        out.push_back(ir::OutputColumn{re[j].data(), im[j].data()});
    }
    interpreter.run(params, columns.view(), 0, events.size(), workspace, ir::OutputView{out});
    std::vector<std::vector<Complex>> result(events.size(), std::vector<Complex>(outputs));
    for (std::size_t e = 0; e < events.size(); ++e) {
        for (std::size_t j = 0; j < outputs; ++j) {
            result[e][j] = Complex(re[j][e], im[j][e]);
        }
    }
    return result;
}

// `count` events like the case's own (inputs redrawn near the checked ones).
std::vector<Event> more_events(const std::vector<Event>& seeds, std::size_t count,
                               std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> jitter(-1e-3, 1e-3);
    std::vector<Event> events;
    for (std::size_t e = 0; e < count; ++e) {
        Event event = seeds[e % seeds.size()];
        for (Complex& z : event) {
            z += Complex(jitter(rng), z.imag() != 0.0 ? jitter(rng) : 0.0);
        }
        events.push_back(event);
    }
    return events;
}

double max_abs(const std::vector<Complex>& values) {
    double m = 1.0;
    for (const Complex& z : values) {
        m = std::max(m, std::abs(z));
    }
    return m;
}

TEST(InterpGradients, BlocksMatchTheReferenceExecutorOnRandomPrograms) {
    testing::RandomProgramOptions options;
    options.instructions = 40;
    for (std::uint64_t seed = 0; seed < 60; ++seed) {
        const auto c = testing::random_program(seed, options);
        const std::vector<Event> events = more_events(c.events, 3 * interp::kBlockSize + 5, seed);
        for (const ir::Program& g : {forward(c.program), reverse(c.program)}) {
            const auto got = run_interpreter(g, c.params, events, ir::Precision::kF64);
            for (std::size_t e = 0; e < events.size(); ++e) {
                const auto want = testing::run_reference(g, c.params, events[e]);
                const double scale = max_abs(want);
                for (std::size_t j = 0; j < want.size(); ++j) {
                    ASSERT_LE(std::abs(got[e][j] - want[j]), 1e-12 * scale)
                        << "seed " << seed << " event " << e << " output " << j;
                }
            }
        }
    }
}

// |Σ_k (p_{2k} + i p_{2k+1}) A_k|², the shape of a coherent-sum intensity.
ir::Program coherent_sum(std::uint32_t terms) {
    ir::Builder b;
    std::vector<ValueId> products;
    for (std::uint32_t k = 0; k < terms; ++k) {
        const ValueId amplitude =
            b.load(b.add_input("A" + std::to_string(k), ir::ValueKind::kComplex));
        products.push_back(
            b.binary(OpCode::kMul, b.complex(b.param(2 * k), b.param(2 * k + 1)), amplitude));
    }
    b.add_output(b.unary(OpCode::kNormSqr, b.add_n(products)));
    return b.finish();
}

TEST(InterpGradients, F32GradientsMatchF64Within5e4) {
    const ir::Program program = coherent_sum(6);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> part(-1.0, 1.0);
    std::vector<double> params;
    for (std::uint32_t k = 0; k < program.parameter_count; ++k) {
        params.push_back(part(rng));
    }
    std::vector<Event> events(2 * interp::kBlockSize + 3);
    for (Event& event : events) {
        for (std::size_t slot = 0; slot < program.inputs.size(); ++slot) {
            event.emplace_back(part(rng), part(rng));
        }
    }
    for (const ir::Program& g : {forward(program), reverse(program)}) {
        const auto f64 = run_interpreter(g, params, events, ir::Precision::kF64);
        const auto f32 = run_interpreter(g, params, events, ir::Precision::kF32);
        for (std::size_t e = 0; e < events.size(); ++e) {
            const double scale = max_abs(f64[e]);
            for (std::size_t j = 0; j < f64[e].size(); ++j) {
                EXPECT_LE(std::abs(f32[e][j] - f64[e][j]), 5e-4 * scale)
                    << "event " << e << " output " << j;
            }
        }
    }
}

TEST(InterpGradients, F32SolveGradientsMatchF64Within5e4) {
    // A per-event solve with parameters in matrix and rhs.
    ir::Builder b;
    const ValueId x = b.load(b.add_input("x", ir::ValueKind::kReal));
    const ValueId p = b.param(0);
    const ValueId q = b.param(1);
    const std::vector<ValueId> operands{b.binary(OpCode::kAdd, x, b.const_real(2.0)),
                                        b.binary(OpCode::kMul, b.const_complex(0.0, 1.0), p),
                                        b.const_complex(2.0, -1.0),
                                        b.const_real(3.0),
                                        b.unary(OpCode::kSin, q),
                                        b.complex(q, p)};
    const ValueId solved = b.solve(2, 1, operands);
    b.add_output(b.unary(OpCode::kNormSqr, b.extract(solved, 1)));
    const ir::Program program = b.finish();
    std::vector<Event> events;
    for (std::size_t e = 0; e < interp::kBlockSize + 7; ++e) {
        events.push_back({Complex(0.01 * static_cast<double>(e))});
    }
    const std::vector<double> params{0.8, -0.4};
    for (const ir::Program& g : {forward(program), reverse(program)}) {
        const auto f64 = run_interpreter(g, params, events, ir::Precision::kF64);
        const auto f32 = run_interpreter(g, params, events, ir::Precision::kF32);
        for (std::size_t e = 0; e < events.size(); ++e) {
            const double scale = max_abs(f64[e]);
            for (std::size_t j = 0; j < f64[e].size(); ++j) {
                EXPECT_LE(std::abs(f32[e][j] - f64[e][j]), 5e-4 * scale);
            }
        }
    }
}

}  // namespace
}  // namespace laddu::autodiff
