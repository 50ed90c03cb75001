#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/interp/interpreter.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/ir/precision.hpp>
#include <laddu/runtime/event_cache.hpp>
#include <laddu/runtime/reduce.hpp>
#include <laddu/runtime/thread_pool.hpp>

namespace laddu::runtime {
namespace {

using ir::Builder;
using ir::OpCode;
using ir::ValueKind;

// precompute: x -> (x² real, exp(i x) complex); evaluate reads them with one parameter.
ir::Program precompute_program() {
    Builder b;
    const auto x = b.load(b.add_input("x", ValueKind::kReal));
    b.add_output(b.binary(OpCode::kMul, x, x), "x2");
    b.add_output(b.unary(OpCode::kExp, b.complex(b.const_real(0.0), x)), "phase");
    return b.finish();
}

ir::Program evaluate_program() {
    Builder b;
    const auto x2 = b.load(b.add_input("x2", ValueKind::kReal));
    const auto phase = b.load(b.add_input("phase", ValueKind::kComplex));
    b.add_output(b.binary(OpCode::kAdd, b.binary(OpCode::kMul, b.param(0), phase), x2));
    return b.finish();
}

template <typename E, typename Fn>
void expect_error(Fn&& fn, const std::string& fragment) {
    try {
        fn();
        FAIL() << "expected an exception containing '" << fragment << "'";
    } catch (const E& error) {
        EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
}

TEST(EventCache, BuildRunsThePrecomputeProgram) {
    std::vector<double> x(10000);
    std::vector<double> w(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = 0.001 * static_cast<double>(i);
        w[i] = 1.0 + 0.5 * std::sin(static_cast<double>(i));
    }
    const std::vector<std::span<const double>> columns{x};
    ThreadPool pool(2);
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
        const EventCache cache =
            EventCache::build(precompute_program(), evaluate_program(), columns, w, p);
        ASSERT_EQ(cache.events(), x.size());
        ASSERT_EQ(cache.slot_count(), 2U);
        const auto view = cache.view();
        for (std::size_t i = 0; i < x.size(); ++i) {
            ASSERT_EQ(view.columns[0].re[i], x[i] * x[i]);
            ASSERT_NEAR(view.columns[1].re[i], std::cos(x[i]), 1e-15);
            ASSERT_NEAR(view.columns[1].im[i], std::sin(x[i]), 1e-15);
        }
        EXPECT_EQ(view.columns[0].im, nullptr);
        long double naive = 0;
        for (const double wi : w) {
            naive += wi;
        }
        EXPECT_NEAR(cache.sum_weights(), static_cast<double>(naive), 1e-9);
        EXPECT_EQ(cache.weights()[3], w[3]);
    }
}

// The JIT runs precompute with the interpreter's bits (f64 kernels round like it), in double
// and in float storage.
TEST(EventCache, TheJitFillsTheSameBitsAsTheInterpreter) {
    std::vector<double> x(2 * kReductionChunk + 37);
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = 0.37 * static_cast<double>(i) - 250.0;
    }
    const std::vector<std::span<const double>> columns{x};
    ThreadPool pool(2);
    for (const ir::Precision storage : {ir::Precision::kF64, ir::Precision::kF32}) {
        const EventCache interpreted =
            EventCache::build(precompute_program(), evaluate_program(), columns, {}, &pool, storage,
                              JitPolicy::kDisabled);
        std::optional<EventCache> jit;
        try {
            jit.emplace(EventCache::build(precompute_program(), evaluate_program(), columns, {},
                                          &pool, storage, JitPolicy::kEnabled));
        } catch (const BackendError& error) {
            EXPECT_NE(std::string(error.what()).find("without LLVM"), std::string::npos)
                << error.what();
            GTEST_SKIP() << "built without the JIT";
        }
        const EventCache& compiled = *jit;
        const auto a = interpreted.view();
        const auto b = compiled.view();
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (storage == ir::Precision::kF64) {
                ASSERT_EQ(a.columns[0].re[i], b.columns[0].re[i]) << i;
                ASSERT_EQ(a.columns[1].re[i], b.columns[1].re[i]) << i;
                ASSERT_EQ(a.columns[1].im[i], b.columns[1].im[i]) << i;
            } else {
                ASSERT_EQ(a.columns[0].re32[i], b.columns[0].re32[i]) << i;
                ASSERT_EQ(a.columns[1].re32[i], b.columns[1].re32[i]) << i;
                ASSERT_EQ(a.columns[1].im32[i], b.columns[1].im32[i]) << i;
            }
        }
    }
}

TEST(EventCache, ColumnsAreAligned) {
    const EventCache cache = EventCache::allocate(evaluate_program(), 100);
    for (const auto& column : cache.view().columns) {
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(column.re) % kColumnAlignment, 0U);
        if (column.im != nullptr) {
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(column.im) % kColumnAlignment, 0U);
        }
    }
    EXPECT_EQ(cache.sum_weights(), 100.0);
}

// Kernels address every column from the first (jit::ReductionSpec::input_stride), and the
// same event of different columns must not share a cache set.
TEST(EventCache, ColumnsAreEvenlySpacedAnOddNumberOfCacheLinesApart) {
    EXPECT_EQ(ColumnBlock::stride_for(0 * 8), 0U);
    EXPECT_EQ(ColumnBlock::stride_for(1 * 8), 64U);
    EXPECT_EQ(ColumnBlock::stride_for(8 * 8), 64U);
    EXPECT_EQ(ColumnBlock::stride_for(16 * 8), 192U);     // 2 lines -> 3
    EXPECT_EQ(ColumnBlock::stride_for(1024 * 8), 8256U);  // 128 lines -> 129
    EXPECT_EQ(ColumnBlock::stride_for(1024 * 4), 4160U);
    const ir::Program evaluate = evaluate_program();  // one Real, one Complex slot
    for (const ir::Precision storage : {ir::Precision::kF64, ir::Precision::kF32}) {
        for (const std::size_t events : {std::size_t{1}, std::size_t{1000}, std::size_t{4096}}) {
            SCOPED_TRACE(testing::Message()
                         << events << " events, " << ir::precision_name(storage));
            const EventCache cache = EventCache::allocate(evaluate, events, storage);
            const bool f32 = storage == ir::Precision::kF32;
            const std::size_t stride = ColumnBlock::stride_for(events * (f32 ? 4 : 8));
            EXPECT_EQ(stride / 64 % 2, 1U);
            const ir::ColumnView view = cache.view();
            const auto address = [&](std::size_t slot, bool im) {
                const ir::InputColumn& c = view.columns[slot];
                const void* p = f32 ? static_cast<const void*>(im ? c.im32 : c.re32)
                                    : static_cast<const void*>(im ? c.im : c.re);
                return reinterpret_cast<std::uintptr_t>(p);
            };
            const std::uintptr_t first = address(0, false);
            const std::uintptr_t second = address(1, false);
            const std::uintptr_t third = address(1, true);
            EXPECT_EQ(second - first, stride);
            EXPECT_EQ(third - second, stride);
            EXPECT_EQ(first % 64, 0U);
        }
    }
}

TEST(EventCache, RealSlotsTakeHalfTheBytesOfComplexSlots) {
    const ir::Program evaluate = evaluate_program();  // one Real, one Complex slot
    const std::size_t zero = EventCache::memory_estimate(evaluate, 0);
    const std::size_t one = EventCache::memory_estimate(evaluate, 1);
    EXPECT_GT(zero, 0U);
    EXPECT_EQ(one - zero, 8U + 8U + 16U);  // weight + Real + Complex
    EXPECT_EQ(EventCache::memory_estimate(evaluate, 1000), zero + 1000 * 32);
    const EventCache cache = EventCache::allocate(evaluate, 2);
    // Three columns of one cache line each, and the weights.
    EXPECT_EQ(cache.resident_bytes(), 2 * 8U + 3 * 64U);
    EXPECT_LE(cache.resident_bytes(), EventCache::memory_estimate(evaluate, 2));
    // A Complex-only program needs 16 per event per slot.
    Builder b;
    b.add_output(b.load(b.add_input("z", ValueKind::kComplex)));
    const ir::Program complex_only = b.finish();
    EXPECT_EQ(EventCache::memory_estimate(complex_only, 1) -
                  EventCache::memory_estimate(complex_only, 0),
              24U);
    EXPECT_EQ(EventCache::memory_estimate(complex_only, SIZE_MAX), SIZE_MAX);  // saturates
}

TEST(EventCache, ChecksTheProgramItWasBuiltFor) {
    const EventCache cache = EventCache::allocate(evaluate_program(), 4);
    cache.check_program(evaluate_program());
    ir::Program other = evaluate_program();
    other.parameter_count = 2;
    expect_error<DataError>([&] { cache.check_program(other); },
                            "event cache was built for a different program");
}

TEST(EventCache, RejectsMismatchedPrograms) {
    std::vector<double> x(8, 1.0);
    const std::vector<std::span<const double>> columns{x};
    Builder b;
    b.add_output(b.load(b.add_input("x", ValueKind::kReal)));
    const ir::Program one_output = b.finish();
    expect_error<CompileError>(
        [&] { (void)EventCache::build(one_output, evaluate_program(), columns, {}); },
        "1 outputs but the evaluate program reads 2");
    Builder c;
    const auto xx = c.load(c.add_input("x", ValueKind::kReal));
    c.add_output(xx);
    c.add_output(xx);
    expect_error<CompileError>(
        [&] { (void)EventCache::build(c.finish(), evaluate_program(), columns, {}); },
        "cache column 1 ('phase'): the precompute output is Real");
    Builder d;
    const auto y = d.load(d.add_input("x", ValueKind::kReal));
    d.add_output(d.binary(OpCode::kMul, y, d.param(0)));
    d.add_output(d.complex(y, y));
    expect_error<CompileError>(
        [&] { (void)EventCache::build(d.finish(), evaluate_program(), columns, {}); },
        "1 parameters");
    const std::vector<double> three_weights(3, 1.0);
    expect_error<DataError>(
        [&] {
            (void)EventCache::build(precompute_program(), evaluate_program(), columns,
                                    three_weights);
        },
        "3 weights given for 8 events");
    std::vector<double> short_column(5, 1.0);
    Builder e;
    const auto e0 = e.load(e.add_input("a", ValueKind::kReal));
    const auto e1 = e.load(e.add_input("b", ValueKind::kReal));
    e.add_output(e0);
    e.add_output(e.complex(e0, e1));
    const std::vector<std::span<const double>> ragged{x, short_column};
    expect_error<DataError>(
        [&] { (void)EventCache::build(e.finish(), evaluate_program(), ragged, {}); },
        "input column 1 has 5 events but column 0 has 8");
}

TEST(EventCache, MutableAccessorsCheckSlots) {
    EventCache cache = EventCache::allocate(evaluate_program(), 3);
    EXPECT_EQ(cache.mutable_re(1).size(), 3U);
    EXPECT_EQ(cache.mutable_im(1).size(), 3U);
    expect_error<DataError>([&] { (void)cache.mutable_im(0); }, "slot 0 is not a Complex slot");
    expect_error<DataError>([&] { (void)cache.mutable_re(2); }, "slot 2 is out of range");
    cache.mutable_weights()[0] = 5.0;
    cache.refresh_sum_weights();
    EXPECT_EQ(cache.sum_weights(), 7.0);
}

TEST(EventCache, FloatStorageHoldsTheDoubleColumnsRoundedOnce) {
    std::vector<double> x(5000);
    std::vector<double> w(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = 0.37 * static_cast<double>(i) - 400.0;
        w[i] = 0.5 + 0.25 * std::cos(static_cast<double>(i));
    }
    const std::vector<std::span<const double>> columns{x};
    ThreadPool pool(2);
    const EventCache wide =
        EventCache::build(precompute_program(), evaluate_program(), columns, w, nullptr);
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
        const EventCache narrow = EventCache::build(precompute_program(), evaluate_program(),
                                                    columns, w, p, ir::Precision::kF32);
        EXPECT_EQ(narrow.storage(), ir::Precision::kF32);
        ASSERT_EQ(narrow.events(), x.size());
        const auto a = wide.view();
        const auto b = narrow.view();
        EXPECT_EQ(b.columns[0].re, nullptr);
        EXPECT_EQ(b.columns[1].im32 != nullptr, true);
        EXPECT_EQ(b.columns[0].im32, nullptr);
        for (std::size_t i = 0; i < x.size(); ++i) {
            ASSERT_EQ(b.columns[0].re32[i], static_cast<float>(a.columns[0].re[i])) << i;
            ASSERT_EQ(b.columns[1].re32[i], static_cast<float>(a.columns[1].re[i])) << i;
            ASSERT_EQ(b.columns[1].im32[i], static_cast<float>(a.columns[1].im[i])) << i;
        }
        // Weights stay double.
        EXPECT_EQ(narrow.sum_weights(), wide.sum_weights());
        EXPECT_EQ(narrow.weights()[7], w[7]);
    }
    // Half the column bytes: weight 8 + Real 4 + Complex 8 per event.
    const ir::Program evaluate = evaluate_program();
    const auto f32 = ir::Precision::kF32;
    EXPECT_EQ(EventCache::memory_estimate(evaluate, 1, f32) -
                  EventCache::memory_estimate(evaluate, 0, f32),
              8U + 4U + 8U);
    EXPECT_EQ(EventCache::allocate(evaluate, 2, f32).resident_bytes(), 2 * 8U + 3 * 64U);
}

TEST(EventCache, FloatColumnsGiveAnF32ProgramTheSameBitsAndAnF64ProgramAnError) {
    std::vector<double> x(700);
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = std::sqrt(static_cast<double>(i) + 0.1);
    }
    const std::vector<std::span<const double>> columns{x};
    const EventCache wide =
        EventCache::build(precompute_program(), evaluate_program(), columns, {});
    const EventCache narrow = EventCache::build(precompute_program(), evaluate_program(), columns,
                                                {}, nullptr, ir::Precision::kF32);
    const auto f32 = interp::Interpreter::prepare(evaluate_program(), ir::Precision::kF32);
    const std::vector<double> params{0.3};
    for (const std::size_t row : {0U, 1U, 257U, 699U}) {
        EXPECT_EQ(f32.evaluate_row(params, narrow.view(), row),
                  f32.evaluate_row(params, wide.view(), row))
            << row;
    }
    const auto f64 = interp::Interpreter::prepare(evaluate_program(), ir::Precision::kF64);
    expect_error<DataError>(
        [&] { ir::check_inputs(f64.program(), f64.precision(), narrow.view()); },
        "input column 0 ('x2') is stored in float");
}

TEST(EventCache, PlaceAssemblesWindowsAndChecksWhatItIsGiven) {
    std::vector<double> x(3000);
    std::vector<double> w(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = 0.01 * static_cast<double>(i);
        w[i] = 1.0 + static_cast<double>(i % 3);
    }
    for (const auto storage : {ir::Precision::kF64, ir::Precision::kF32}) {
        const EventCache whole =
            EventCache::build(precompute_program(), evaluate_program(),
                              std::vector<std::span<const double>>{x}, w, nullptr, storage);
        EventCache full = EventCache::allocate(evaluate_program(), x.size(), storage);
        for (const std::size_t first : {2000U, 0U, 1000U}) {
            const std::span<const double> xs(x.data() + first, 1000);
            const std::span<const double> ws(w.data() + first, 1000);
            full.place(EventCache::build(precompute_program(), evaluate_program(),
                                         std::vector<std::span<const double>>{xs}, ws, nullptr,
                                         storage),
                       first);
        }
        full.refresh_sum_weights();
        EXPECT_EQ(full.sum_weights(), whole.sum_weights());
        const auto a = whole.view();
        const auto b = full.view();
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (storage == ir::Precision::kF32) {
                ASSERT_EQ(b.columns[1].im32[i], a.columns[1].im32[i]) << i;
            } else {
                ASSERT_EQ(b.columns[1].im[i], a.columns[1].im[i]) << i;
            }
        }
        const EventCache other = EventCache::allocate(
            evaluate_program(), 10,
            storage == ir::Precision::kF32 ? ir::Precision::kF64 : ir::Precision::kF32);
        expect_error<DataError>([&] { full.place(other, 0); }, "cannot place a cache part");
        expect_error<DataError>([&] { full.place(whole, 1); },
                                "does not fit at event 1 of a cache of 3000 events");
    }
    EventCache narrow = EventCache::allocate(evaluate_program(), 3, ir::Precision::kF32);
    expect_error<DataError>([&] { (void)narrow.mutable_re(0); }, "a float event cache");
}

}  // namespace
}  // namespace laddu::runtime
