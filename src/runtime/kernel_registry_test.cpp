// select_kernel's JIT policy: which backend each kind of pass gets under JitPolicy::kAuto. Each
// test runs in its own process (ctest), so the JIT's in-process cache starts empty, and
// LADDU_JIT_CACHE points at a directory of the test's own.
#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include <laddu/ir/builder.hpp>

#include "chunk_kernel.hpp"
#include "scoped_env.hpp"

namespace laddu::runtime::detail {
namespace {

namespace fs = std::filesystem;

// f(x) · p0 + x² (f = exp unless given), a small precompute-like program over one event column.
// A test that looks at the object cache uses an f of its own: the process keeps every kernel
// it compiled, so a program another test compiled is never looked up on disk again.
ir::Program program(ir::OpCode f = ir::OpCode::kExp) {
    ir::Builder b;
    const ir::ValueId x = b.load(b.add_input("x", ir::ValueKind::kReal));
    b.add_output(b.binary(ir::OpCode::kAdd, b.binary(ir::OpCode::kMul, b.unary(f, x), b.param(0)),
                          b.binary(ir::OpCode::kMul, x, x)));
    return b.finish();
}

class KernelRegistryTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("laddu_kernel_registry_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        env_.set("LADDU_JIT_CACHE", dir_.string());
    }

    void TearDown() override { fs::remove_all(dir_); }

    static std::string backend(JitPolicy policy, std::size_t events, Passes passes,
                               ir::OpCode f = ir::OpCode::kExp) {
        return std::string(
            select_kernel(program(f), ir::Precision::kF64, policy, events, passes)->backend());
    }

    fs::path dir_;
    laddu::testing::ScopedEnv env_;
};

TEST_F(KernelRegistryTest, AutoGivesOnePassProgramsTheJitOnlyWhenItRepaysOrIsCompiledAlready) {
#if LADDU_HAVE_JIT
    // Never compiled: a pass run once per preparation stays on the interpreter, and compiles
    // nothing.
    EXPECT_EQ(backend(JitPolicy::kAuto, 100000, Passes::kOnce), "interpreter");
    EXPECT_FALSE(fs::exists(dir_) && !fs::is_empty(dir_));
    // A program run once per evaluation is compiled from a few thousand events on...
    EXPECT_EQ(backend(JitPolicy::kAuto, 1000, Passes::kMany), "interpreter");
    EXPECT_EQ(backend(JitPolicy::kAuto, 100000, Passes::kMany), "jit");
    // ...after which a one-pass run of it over as many events loads that code.
    EXPECT_EQ(backend(JitPolicy::kAuto, 100000, Passes::kOnce), "jit");
    EXPECT_EQ(backend(JitPolicy::kAuto, 1000, Passes::kOnce), "interpreter");
    // kEnabled and kDisabled ask no questions.
    EXPECT_EQ(backend(JitPolicy::kEnabled, 10, Passes::kOnce), "jit");
    EXPECT_EQ(backend(JitPolicy::kDisabled, 100000, Passes::kMany), "interpreter");
#else
    EXPECT_EQ(backend(JitPolicy::kAuto, 100000, Passes::kMany), "interpreter");
#endif
}

#if LADDU_HAVE_JIT
TEST_F(KernelRegistryTest, AutoCompilesAOnePassProgramOverAMillionEvents) {
    // The compile repays itself in the one pass, and leaves the code for later preparations.
    EXPECT_EQ(backend(JitPolicy::kAuto, 1000000, Passes::kOnce, ir::OpCode::kSin), "jit");
    EXPECT_TRUE(fs::exists(dir_) && !fs::is_empty(dir_));
}
#endif

}  // namespace
}  // namespace laddu::runtime::detail
