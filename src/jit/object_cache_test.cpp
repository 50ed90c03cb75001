// The on-disk object cache: each test runs in its own process (ctest), so LADDU_JIT_CACHE set
// here reaches only this test's compiles.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/aligned.hpp>
#include <laddu/ir/builder.hpp>
#include <laddu/jit/jit.hpp>

#include "object_cache.hpp"
#include "scoped_env.hpp"

namespace laddu::jit {
namespace {

using ir::OpCode;
using ir::ValueId;
using ir::ValueKind;
namespace fs = std::filesystem;

constexpr std::size_t kEvents = 203;

// |c z|² + exp(x) and two more outputs, over Complex z and Real x.
ir::Program program() {
    ir::Builder b;
    const ValueId z = b.load(b.add_input("z", ValueKind::kComplex));
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId cz = b.binary(OpCode::kMul, b.complex(b.param(0), b.param(1)), z);
    b.add_output(b.binary(OpCode::kAdd, b.unary(OpCode::kNormSqr, cz), b.unary(OpCode::kExp, x)));
    b.add_output(b.unary(OpCode::kReal, cz));
    b.add_output(b.binary(OpCode::kMul, x, b.param(2)));
    return b.finish();
}

class ObjectCacheTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("laddu_object_cache_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        env_.set("LADDU_JIT_CACHE", dir_.string());
        for (std::size_t i = 0; i < kEvents; ++i) {
            const double t = static_cast<double>(i) / kEvents;
            z_re_.push_back(std::cos(7.0 * t));
            z_im_.push_back(std::sin(3.0 * t) - 0.2);
            x_.push_back(t - 0.5);
            weights_.push_back(1.0 + 0.5 * t);
        }
    }

    void TearDown() override { fs::remove_all(dir_); }

    [[nodiscard]] std::vector<fs::path> objects() const {
        std::vector<fs::path> found;
        if (fs::exists(dir_)) {
            for (const fs::directory_entry& entry : fs::directory_iterator(dir_)) {
                if (entry.path().extension() == ".o") {
                    found.push_back(entry.path());
                }
            }
        }
        return found;
    }

    // Every output of every event.
    [[nodiscard]] std::vector<double> run(const JitKernel& kernel) const {
        const std::vector<const double*> inputs{z_re_.data(), z_im_.data(), x_.data()};
        std::vector<AlignedVector<double>> columns(3, AlignedVector<double>(kEvents));
        std::vector<double*> outputs{columns[0].data(), columns[1].data(), columns[2].data()};
        const std::vector<double> params{0.3, -1.1, 0.7};
        kernel.run(params.data(), inputs.data(), outputs.data(), 0, kEvents);
        std::vector<double> all;
        for (const auto& column : columns) {
            all.insert(all.end(), column.begin(), column.end());
        }
        return all;
    }

    // The lanes of the kernel's fused log-reduction with gradient sums.
    [[nodiscard]] std::vector<double> reduce(const JitKernel& kernel) const {
        auto reduction = kernel.reduction({ReductionTerm::kLog, 3});
        EXPECT_TRUE(reduction.has_value());
        const std::vector<const double*> inputs{z_re_.data(), z_im_.data(), x_.data()};
        const std::vector<double> params{0.3, -1.1, 0.7};
        std::vector<double> lanes(3 * 2 * kReductionLanes, 0.0);
        EXPECT_TRUE(
            reduction->run(params.data(), inputs.data(), weights_.data(), kEvents, lanes.data()));
        return lanes;
    }

    fs::path dir_;
    laddu::testing::ScopedEnv env_;
    AlignedVector<double> z_re_, z_im_, x_, weights_;
};

TEST_F(ObjectCacheTest, TheNextCompileLoadsTheObjectAndComputesTheSameBits) {
    auto first = compile_uncached(program(), ir::Precision::kF64);
    ASSERT_TRUE(first.has_value()) << first.error().message;
    EXPECT_FALSE(first->cached_object());
    EXPECT_EQ(objects().size(), 1U);
    auto second = compile_uncached(program(), ir::Precision::kF64);
    ASSERT_TRUE(second.has_value()) << second.error().message;
    EXPECT_TRUE(second->cached_object());
    EXPECT_NE(first->function(), second->function());  // two modules, one object code
    EXPECT_EQ(run(*second), run(*first));
    EXPECT_EQ(second->vectorized(), first->vectorized());
    EXPECT_EQ(second->prefetched_streams(), first->prefetched_streams());
    EXPECT_EQ(second->llvm_instruction_count(), first->llvm_instruction_count());
    // Another precision or code generation is another object.
    auto f32 = compile_uncached(program(), ir::Precision::kF32);
    auto fast = compile_uncached(program(), ir::Precision::kF64, CodeGen::kFast);
    ASSERT_TRUE(f32.has_value() && fast.has_value());
    EXPECT_FALSE(f32->cached_object());
    EXPECT_FALSE(fast->cached_object());
    EXPECT_EQ(objects().size(), 3U);
}

// CacheUse::kCachedOnly compiles nothing: it takes a kernel compiled before, from the object
// cache or from this process, and otherwise fails.
TEST_F(ObjectCacheTest, CachedOnlyTakesAKernelCompiledBeforeAndCompilesNothing) {
    auto missing = compile(program(), ir::Precision::kF64, CodeGen::kOptimized,
                           InputColumns::kDouble, CacheUse::kCachedOnly);
    ASSERT_FALSE(missing.has_value());
    EXPECT_EQ(missing.error().kind, ErrorKind::kBackend);
    EXPECT_NE(missing.error().message.find("not in the object cache"), std::string::npos);
    EXPECT_TRUE(objects().empty());

    auto compiled = compile_uncached(program(), ir::Precision::kF64);
    ASSERT_TRUE(compiled.has_value()) << compiled.error().message;
    auto loaded = compile(program(), ir::Precision::kF64, CodeGen::kOptimized,
                          InputColumns::kDouble, CacheUse::kCachedOnly);
    ASSERT_TRUE(loaded.has_value()) << loaded.error().message;
    EXPECT_TRUE(loaded->cached_object());
    EXPECT_EQ(run(*loaded), run(*compiled));
    // Another precision was never compiled.
    EXPECT_FALSE(compile(program(), ir::Precision::kF32, CodeGen::kOptimized, InputColumns::kDouble,
                         CacheUse::kCachedOnly)
                     .has_value());

    // With the disk cache off, a kernel this process holds is still found, and nothing else.
    env_.set("LADDU_JIT_CACHE", "off");
    auto held = compile(program(), ir::Precision::kF64, CodeGen::kOptimized, InputColumns::kDouble,
                        CacheUse::kCachedOnly);
    ASSERT_TRUE(held.has_value());
    EXPECT_EQ(held->function(), loaded->function());
    auto off = compile(program(), ir::Precision::kF64, CodeGen::kFast, InputColumns::kDouble,
                       CacheUse::kCachedOnly);
    ASSERT_FALSE(off.has_value());
    EXPECT_NE(off.error().message.find("object cache is off"), std::string::npos);
}

// A program that differs only in a constant's sign is another object, not the stored one.
TEST_F(ObjectCacheTest, AProgramDifferingInOneConstantIsCompiledNotLoaded) {
    const auto divide = [](double constant) {
        ir::Builder b;
        const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
        b.add_output(b.binary(OpCode::kDiv, b.const_real(1.0),
                              b.binary(OpCode::kAdd, x, b.const_real(constant))));
        return b.finish();
    };
    auto positive = compile_uncached(divide(0.0), ir::Precision::kF64);
    auto negative = compile_uncached(divide(-0.0), ir::Precision::kF64);
    ASSERT_TRUE(positive.has_value() && negative.has_value());
    EXPECT_FALSE(negative->cached_object());
    EXPECT_EQ(objects().size(), 2U);
    // 1 / (-0 + -0) is -inf, 1 / (-0 + 0) is +inf.
    const double zero = -0.0;
    double out_positive = 0.0;
    double out_negative = 0.0;
    const double* inputs[] = {&zero};
    double* outputs_positive[] = {&out_positive};
    double* outputs_negative[] = {&out_negative};
    positive->run(nullptr, inputs, outputs_positive, 0, 1);
    negative->run(nullptr, inputs, outputs_negative, 0, 1);
    EXPECT_EQ(out_positive, std::numeric_limits<double>::infinity());
    EXPECT_EQ(out_negative, -std::numeric_limits<double>::infinity());
}

TEST_F(ObjectCacheTest, ReductionsAreCachedWithTheirKernel) {
    auto first = compile_uncached(program(), ir::Precision::kF64);
    ASSERT_TRUE(first.has_value());
    const std::vector<double> expected = reduce(*first);
    // The kernel and the reduction (which calls the kernel itself: the program has fewer
    // columns than general registers, so the reduction compiles no copy of it).
    EXPECT_EQ(objects().size(), 2U);
    auto second = compile_uncached(program(), ir::Precision::kF64);
    ASSERT_TRUE(second.has_value());
    EXPECT_TRUE(second->cached_object());
    EXPECT_EQ(reduce(*second), expected);
    EXPECT_EQ(objects().size(), 2U);
}

TEST_F(ObjectCacheTest, AFileCutShortOrChangedIsCompiledAgainAndReplaced) {
    ASSERT_TRUE(compile_uncached(program(), ir::Precision::kF64).has_value());
    ASSERT_EQ(objects().size(), 1U);
    const fs::path file = objects().front();
    const auto size = fs::file_size(file);
    const std::vector<double> expected = run(*compile_uncached(program(), ir::Precision::kF64));
    for (const bool cut : {true, false}) {
        if (cut) {
            fs::resize_file(file, size - 9);
        } else {
            std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
            f.seekp(static_cast<std::streamoff>(size - 100));
            f.put('\x5a');
        }
        auto again = compile_uncached(program(), ir::Precision::kF64);
        ASSERT_TRUE(again.has_value()) << again.error().message;
        EXPECT_FALSE(again->cached_object()) << (cut ? "cut short" : "changed");
        EXPECT_EQ(run(*again), expected);
        EXPECT_EQ(fs::file_size(file), size);
        auto after = compile_uncached(program(), ir::Precision::kF64);
        ASSERT_TRUE(after.has_value());
        EXPECT_TRUE(after->cached_object());
    }
}

TEST_F(ObjectCacheTest, OffWritesNothing) {
    env_.set("LADDU_JIT_CACHE", "off");
    for (int k = 0; k < 2; ++k) {
        auto kernel = compile_uncached(program(), ir::Precision::kF64);
        ASSERT_TRUE(kernel.has_value());
        EXPECT_FALSE(kernel->cached_object());
    }
    EXPECT_FALSE(fs::exists(dir_));
}

TEST_F(ObjectCacheTest, ADirectoryThatCannotBeWrittenOnlyCostsTheCache) {
    fs::create_directories(dir_);
    const fs::path blocked = dir_ / "a-file";
    std::ofstream(blocked) << "not a directory";
    env_.set("LADDU_JIT_CACHE", (blocked / "jit").string());
    auto kernel = compile_uncached(program(), ir::Precision::kF64);
    ASSERT_TRUE(kernel.has_value()) << kernel.error().message;
    EXPECT_FALSE(kernel->cached_object());
    EXPECT_EQ(run(*kernel), run(*compile_uncached(program(), ir::Precision::kF64)));
}

TEST_F(ObjectCacheTest, ObjectsNotWrittenForAMonthAreRemoved) {
    fs::create_directories(dir_);
    const fs::path old_object = dir_ / "0123.o";
    const fs::path recent_object = dir_ / "4567.o";
    const fs::path other = dir_ / "notes.txt";
    for (const fs::path& p : {old_object, recent_object, other}) {
        std::ofstream(p) << "x";
    }
    const auto now = fs::file_time_type::clock::now();
    fs::last_write_time(old_object, now - std::chrono::hours(24 * 31));
    fs::last_write_time(other, now - std::chrono::hours(24 * 365));
    fs::last_write_time(recent_object, now - std::chrono::hours(24 * 29));
    ASSERT_TRUE(compile_uncached(program(), ir::Precision::kF64).has_value());
    EXPECT_FALSE(fs::exists(old_object));
    EXPECT_TRUE(fs::exists(recent_object));
    EXPECT_TRUE(fs::exists(other));
    EXPECT_TRUE(fs::exists(dir_ / ".swept"));
}

TEST_F(ObjectCacheTest, ADirectorySweptWithinADayIsNotReadAgain) {
    fs::create_directories(dir_);
    const fs::path old_object = dir_ / "0123.o";
    std::ofstream(old_object) << "x";
    std::ofstream(dir_ / ".swept").flush();
    const auto now = fs::file_time_type::clock::now();
    fs::last_write_time(old_object, now - std::chrono::hours(24 * 31));
    fs::last_write_time(dir_ / ".swept", now - std::chrono::hours(23));
    ASSERT_TRUE(compile_uncached(program(), ir::Precision::kF64).has_value());
    EXPECT_TRUE(fs::exists(old_object));  // the sweep waits for the marker to be a day old
}

TEST_F(ObjectCacheTest, TheOldestObjectsBeyondTheBoundAreRemoved) {
    fs::create_directories(dir_);
    const auto now = fs::file_time_type::clock::now();
    const std::size_t extra = 5;
    std::vector<fs::path> made;
    for (std::size_t i = 0; i < detail::kMaxObjects + extra; ++i) {
        made.push_back(dir_ / (std::to_string(i) + ".o"));
        std::ofstream(made.back()) << "x";
        // Object i was written i minutes after the oldest, all within the month.
        fs::last_write_time(made.back(), now - std::chrono::hours(24 * 20) +
                                             std::chrono::minutes(static_cast<int>(i)));
    }
    ASSERT_TRUE(compile_uncached(program(), ir::Precision::kF64).has_value());
    const auto oldest_left =
        std::find_if(made.begin(), made.end(), [](const fs::path& p) { return fs::exists(p); });
    EXPECT_EQ(oldest_left - made.begin(), static_cast<std::ptrdiff_t>(extra));
    EXPECT_TRUE(fs::exists(made.back()));
    // The bound, plus what this compile stored after its sweep.
    EXPECT_LE(objects().size(), detail::kMaxObjects + 2);
    EXPECT_GT(objects().size(), detail::kMaxObjects);
}

}  // namespace
}  // namespace laddu::jit
