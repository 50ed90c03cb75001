// Hostile models: a NaN or inf from a singular matrix, sqrt(-1) or log(0) is an EvaluationError
// naming the event by its global index and the operation it came from, in every reduction and
// evaluation, for every backend, precision and storage policy, with the same message.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/expr/expr.hpp>
#include <laddu/expr/model.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/runtime/prepared_model.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/reduce_gradient.hpp>

#include "test_collective.hpp"
#include "test_reductions.hpp"
#include "toy_model.hpp"

namespace laddu::runtime {
namespace {

using data::MemoryPolicy;
using expr::Expr;
using laddu::testing::with_threads;

constexpr std::size_t kEvents = 10007;  // ten chunks, the last partial
constexpr std::size_t kBad = 6007;      // in chunk 5

// Scalar columns with the given values (each kEvents long) and unit weights.
data::Dataset dataset(const std::vector<std::pair<std::string, std::vector<double>>>& columns) {
    std::vector<data::ScalarInput> scalars;
    for (const auto& [name, values] : columns) {
        scalars.push_back(data::ScalarInput{name, values});
    }
    return data::Dataset::from_scalars(scalars);
}

// x_i in [1.1, 2.1): x + p - 1 > 0 for p >= 0, except at the events the tests set.
std::vector<double> spread() {
    std::vector<double> x(kEvents);
    for (std::size_t i = 0; i < kEvents; ++i) {
        x[i] = 1.1 + 1e-4 * static_cast<double>(i);
    }
    return x;
}

// The message of the EvaluationError `fn` throws.
std::string error_of(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const EvaluationError& error) {
        return error.what();
    }
    return "(no EvaluationError)";
}

// Every backend (the JIT when it is built), precision and storage policy.
struct Variant {
    JitPolicy jit = JitPolicy::kDisabled;
    ir::Precision precision = ir::Precision::kF64;
    MemoryPolicy policy = MemoryPolicy::kResident;

    [[nodiscard]] std::string name() const {
        return std::string(jit == JitPolicy::kEnabled ? "jit" : "interpreter") + " " +
               ir::precision_name(precision) +
               (policy == MemoryPolicy::kResident ? " resident" : " streaming");
    }
};

// Calls fn(prepared, variant) for every variant the build supports.
void for_each_variant(const expr::Model& model, const data::Dataset& data,
                      const std::function<void(const PreparedModel&, const Variant&)>& fn) {
    const compile::CompiledModel compiled = compile::compile_model(model);
    for (const JitPolicy jit : {JitPolicy::kDisabled, JitPolicy::kEnabled}) {
        for (const ir::Precision precision : {ir::Precision::kF64, ir::Precision::kF32}) {
            for (const MemoryPolicy policy : {MemoryPolicy::kResident, MemoryPolicy::kStreaming}) {
                const Variant variant{jit, precision, policy};
                SCOPED_TRACE(variant.name());
                Execution execution = with_threads(2);
                execution.jit = jit;
                execution.precision = precision;
                try {
                    const auto prepared =
                        PreparedModel::prepare(compiled, data::EventData(data, policy), execution);
                    EXPECT_EQ(prepared.backend(),
                              jit == JitPolicy::kEnabled ? "jit" : "interpreter");
                    EXPECT_EQ(prepared.is_resident(), policy == MemoryPolicy::kResident);
                    fn(prepared, variant);
                } catch (const BackendError& error) {
                    // Only a build without LLVM may refuse the JIT.
                    EXPECT_NE(std::string(error.what()).find("without LLVM"), std::string::npos)
                        << error.what();
                }
            }
        }
    }
}

// The messages of every reduction and evaluation path at `params`.
std::vector<std::string> every_path(const PreparedModel& prepared,
                                    const std::vector<double>& params, std::size_t row) {
    std::vector<std::string> messages;
    for (const ReductionTransform transform :
         {ReductionTransform::kReal, ReductionTransform::kLogPositiveReal}) {
        messages.push_back(error_of([&] { (void)prepared.reduce(params, transform); }));
        messages.push_back(
            error_of([&] { (void)prepared.reduce_with_gradient(params, transform); }));
    }
    messages.push_back(error_of([&] { (void)prepared.evaluate(params); }));
    messages.push_back(error_of([&] { (void)prepared.evaluate_row(params, row); }));
    return messages;
}

void expect_same_everywhere(std::vector<std::string>& reference,
                            const std::vector<std::string>& messages) {
    if (reference.empty()) {
        reference = messages;
        return;
    }
    EXPECT_EQ(messages, reference);
}

TEST(NonFinite, AParameterDependentSingularMatrixNamesTheEventInEveryPath) {
    // [[x + p, 1], [1, 1]] is singular where x + p = 1: only at event kBad, and only for p = 0.5.
    const Expr x = expr::scalar("x");
    const Expr p = expr::parameter("p", {.initial = 0.5});
    const Expr m = expr::matrix({{x + p, 1.0}, {1.0, 1.0}});
    const expr::Model model(expr::norm_sqr(expr::solve(m, expr::vector({1.0, x}))[0]));
    std::vector<double> values = spread();
    values[kBad] = 0.5;
    const data::Dataset data = dataset({{"x", values}});
    std::vector<std::string> reference;
    for_each_variant(model, data, [&](const PreparedModel& prepared, const Variant&) {
        const std::vector<std::string> messages = every_path(prepared, {0.5}, kBad);
        const std::string singular =
            "at event 6007: solve of a 2x2 matrix is singular: [[1, 1], [1, 1]]";
        EXPECT_EQ(messages[0], "Real reduction requires a finite real value, got nan " + singular);
        EXPECT_EQ(messages[2], "LogPositiveReal reduction requires a positive finite real value, "
                               "got nan " +
                                   singular);
        EXPECT_EQ(messages[1], messages[0]);  // the gradient program explains the same event
        EXPECT_EQ(messages[3], messages[2]);
        EXPECT_EQ(messages[4], "the model value is nan " + singular);
        EXPECT_EQ(messages[5], messages[4]);
        expect_same_everywhere(reference, messages);
        // Away from p = 0.5 every path is finite.
        for (const std::string& message : every_path(prepared, {0.6}, kBad)) {
            EXPECT_EQ(message, "(no EvaluationError)");
        }
    });
}

TEST(NonFinite, APerEventSingularMatrixIsTracedToThePrecomputeProgram) {
    // [[x, 1], [y, 1]] is singular where x = y; parameter-free, so it is solved by precompute
    // and the evaluate program reads the bad cache column.
    const Expr x = expr::scalar("x");
    const Expr y = expr::scalar("y");
    const Expr p = expr::parameter("p", {.initial = 1.0});
    const Expr m = expr::matrix({{x, 1.0}, {y, 1.0}});
    const expr::Model model(expr::norm_sqr(expr::solve(m, expr::vector({p, 1.0}))[0]) + 1.0);
    const std::vector<double> xs = spread();
    std::vector<double> ys(kEvents, 0.5);
    ys[kBad] = xs[kBad];
    const data::Dataset data = dataset({{"x", xs}, {"y", ys}});
    std::vector<std::string> reference;
    for_each_variant(model, data, [&](const PreparedModel& prepared, const Variant&) {
        const std::vector<std::string> messages = every_path(prepared, {1.0}, kBad);
        for (const std::string& message : messages) {
            EXPECT_NE(message.find("at event 6007: solve of a 2x2 matrix is singular"),
                      std::string::npos)
                << message;
            EXPECT_EQ(message.find("cache"), std::string::npos) << message;
        }
        expect_same_everywhere(reference, messages);
    });
}

TEST(NonFinite, SqrtAndLogOutsideTheirDomainAreNamedWithTheirOperands) {
    const Expr x = expr::scalar("x");
    const Expr p = expr::parameter("p", {.initial = 1.0});
    std::vector<double> values = spread();
    values[kBad] = 0.0;
    const data::Dataset data = dataset({{"x", values}});
    for (const bool log : {false, true}) {
        // sqrt(x - 1) = sqrt(-1) and log(x - 0) = log(0) at event kBad only.
        const expr::Model model(log ? expr::log(x - p) : expr::sqrt(x - p));
        const std::vector<double> params{log ? 0.0 : 1.0};
        const std::string why =
            log ? "-inf at event 6007: log(0) is -inf" : "nan at event 6007: sqrt(-1) is nan";
        for_each_variant(model, data, [&](const PreparedModel& prepared, const Variant&) {
            EXPECT_EQ(error_of([&] { (void)prepared.evaluate(params); }),
                      "the model value is " + why);
            EXPECT_EQ(error_of([&] { (void)prepared.reduce(params, ReductionTransform::kReal); }),
                      "Real reduction requires a finite real value, got " + why);
            // Kept for selections and binning.
            const auto kept = prepared.evaluate(params, NonFiniteValues::kKeep);
            EXPECT_FALSE(std::isfinite(kept[kBad].real()));
        });
    }
}

TEST(NonFinite, ANonFiniteGradientAloneNamesItsParameter) {
    // sqrt(x - p) + 2 is finite at x = p, its derivative in p is not.
    const Expr x = expr::scalar("x");
    const Expr p = expr::parameter("p", {.initial = 0.5});
    const expr::Model model(expr::sqrt(x - p) + 2.0);
    std::vector<double> values = spread();
    values[kBad] = 0.5;
    const data::Dataset data = dataset({{"x", values}});
    for_each_variant(model, data, [&](const PreparedModel& prepared, const Variant& variant) {
        const std::vector<double> params{0.5};
        EXPECT_NO_THROW((void)prepared.reduce(params, ReductionTransform::kReal));
        const std::string message = error_of(
            [&] { (void)prepared.reduce_with_gradient(params, ReductionTransform::kReal); });
        EXPECT_NE(message.find("Real reduction requires a finite gradient, got "),
                  std::string::npos)
            << message;
        EXPECT_NE(message.find(" for parameter 0 at event 6007: "), std::string::npos)
            << variant.name() << ": " << message;
    });
}

// The Interpreter-level API over a hand-filled cache: no precompute to trace, so the cache
// column is named.
TEST(NonFinite, TheInterpreterApiNamesTheEventAndTheCacheColumn) {
    ir::Builder b;
    const ir::ValueId a = b.load(b.add_input("a", ir::ValueKind::kReal));
    b.add_output(b.binary(ir::OpCode::kMul, a, b.param(0)));
    const ir::Program program = b.finish();
    EventCache cache = EventCache::allocate(program, kEvents);
    std::fill(cache.mutable_re(0).begin(), cache.mutable_re(0).end(), 1.0);
    cache.mutable_re(0)[kBad] = std::numeric_limits<double>::infinity();
    const auto interp = interp::Interpreter::prepare(program);
    const std::vector<double> params{2.0};
    EXPECT_EQ(error_of([&] { (void)reduce(interp, params, cache, ReductionTransform::kReal); }),
              "Real reduction requires a finite real value, got inf at event 6007: input 'a' is "
              "inf");
    std::vector<double> re(kEvents);
    const std::vector<ir::OutputColumn> out{ir::OutputColumn{re.data(), nullptr}};
    EXPECT_EQ(error_of([&] { evaluate_cached(interp, params, cache, ir::OutputView{out}); }),
              "the model value is inf at event 6007: input 'a' is inf");
}

// Under a collective the event is named by its global index, on every rank.
TEST(NonFinite, ACollectiveNamesTheGlobalEventOnEveryRank) {
    const Expr x = expr::scalar("x");
    const Expr p = expr::parameter("p", {.initial = 1.0});
    const compile::CompiledModel compiled = compile::compile_model(expr::Model(expr::sqrt(x - p)));
    std::vector<double> values = spread();
    values[kBad] = 0.0;
    const data::Dataset data = dataset({{"x", values}});
    const std::vector<double> params{1.0};
    for (const auto partition :
         {testing::Partition::kContiguous, testing::Partition::kRoundRobin}) {
        constexpr int kRanks = 2;
        testing::Hub hub(kRanks);
        std::vector<std::string> messages(kRanks);
        std::vector<std::thread> threads;
        for (int rank = 0; rank < kRanks; ++rank) {
            threads.emplace_back([&, rank] {
                Execution execution = with_threads(1);
                execution.collective =
                    std::make_shared<testing::TestCollective>(hub, rank, partition);
                const auto prepared = PreparedModel::prepare(compiled, data, execution);
                messages[static_cast<std::size_t>(rank)] = error_of([&] {
                    (void)prepared.reduce_with_gradient(params, ReductionTransform::kReal);
                });
            });
        }
        for (std::thread& thread : threads) {
            thread.join();
        }
        // kBad's chunk is in the second half (rank 1's) under the contiguous partition,
        // and odd (rank 1's) under round robin.
        const std::size_t chunk = kBad / kReductionChunk;
        const std::size_t chunks = (kEvents + kReductionChunk - 1) / kReductionChunk;
        const int owner = partition == testing::Partition::kContiguous
                              ? (chunk < (chunks + 1) / 2 ? 0 : 1)
                              : static_cast<int>(chunk % 2);
        for (const std::string& message : messages) {
            EXPECT_EQ(message, fmt::format("rank {} of 2: Real reduction requires a finite real "
                                           "value, got nan at event 6007: sqrt(-1) is nan",
                                           owner));
        }
    }
}

}  // namespace
}  // namespace laddu::runtime
