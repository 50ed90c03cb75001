// The perf map (LADDU_JIT_PERF_MAP): every function of a compiled kernel and of its fused
// reductions gets a line naming it, over code the process really maps executable.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/ir/builder.hpp>
#include <laddu/ir/hash.hpp>
#include <laddu/jit/jit.hpp>

#include "perf_map.hpp"
#include "scoped_env.hpp"

namespace laddu::jit {
namespace {

using ir::OpCode;
using ir::ValueId;
using ir::ValueKind;

ir::Program program_with_gradient_outputs(double scale) {
    ir::Builder b;
    const ValueId x = b.load(b.add_input("x", ValueKind::kReal));
    const ValueId p = b.binary(OpCode::kMul, b.param(0), b.const_real(scale));
    const ValueId value =
        b.binary(OpCode::kAdd, b.unary(OpCode::kExp, x), b.unary(OpCode::kNormSqr, p));
    b.add_output(value);
    b.add_output(b.binary(OpCode::kMul, x, p));
    b.set_parameter_count(1);
    return b.finish();
}

struct Line {
    std::uint64_t start = 0;
    std::uint64_t size = 0;
};

// name -> (start, size) of each line of the perf map; empty when there is no map.
std::map<std::string, Line> read_map() {
    std::map<std::string, Line> lines;
    std::ifstream in(detail::perf_map_path());
    std::string text;
    while (std::getline(in, text)) {
        std::istringstream fields(text);
        Line line;
        std::string name;
        fields >> std::hex >> line.start >> line.size >> name;
        EXPECT_FALSE(fields.fail()) << "malformed line: " << text;
        lines[name] = line;
    }
    return lines;
}

// Whether [start, start + size) lies in one executable mapping of this process.
bool executable(const Line& line) {
    std::ifstream maps("/proc/self/maps");
    std::string text;
    while (std::getline(maps, text)) {
        std::uint64_t begin = 0;
        std::uint64_t end = 0;
        char dash = 0;
        std::string permissions;
        std::istringstream fields(text);
        fields >> std::hex >> begin >> dash >> end >> permissions;
        if (permissions.size() > 2 && permissions[2] == 'x' && begin <= line.start &&
            line.start + line.size <= end) {
            return true;
        }
    }
    return false;
}

TEST(PerfMap, NamesTheKernelAndItsReductionsOverExecutableCode) {
    std::filesystem::remove(detail::perf_map_path());
    const ir::Program program = program_with_gradient_outputs(2.0);
    const std::string label = "laddu_kernel_" + std::to_string(ir::hash(program)) + "_f64";
    const testing::ScopedEnv env("LADDU_JIT_PERF_MAP", "1");
    const Expected<JitKernel> kernel = compile_uncached(program, ir::Precision::kF64);
    ASSERT_TRUE(kernel) << kernel.error().message;
    const Expected<JitReduction> reduction =
        kernel->reduction(ReductionSpec{ReductionTerm::kLog, 2});
    ASSERT_TRUE(reduction) << reduction.error().message;
    // Checked while the kernel lives: its code is unmapped with it (the map keeps the lines).
    const std::map<std::string, Line> lines = read_map();
    ASSERT_TRUE(lines.contains(label)) << detail::perf_map_path() << " has no line for " << label;
    ASSERT_TRUE(lines.contains(label + "_laddu_reduce_0"));
    for (const auto& [name, line] : lines) {
        EXPECT_GT(line.size, 0U) << name;
        EXPECT_TRUE(executable(line)) << name << " is not in executable memory";
    }

    // Unset or "0": nothing more is written.
    for (const char* value : {"0", "off", ""}) {
        const testing::ScopedEnv off("LADDU_JIT_PERF_MAP", value);
        EXPECT_FALSE(detail::perf_map_enabled());
        const Expected<JitKernel> other =
            compile_uncached(program_with_gradient_outputs(3.0), ir::Precision::kF64);
        ASSERT_TRUE(other) << other.error().message;
    }
    EXPECT_EQ(read_map().size(), lines.size());
    std::filesystem::remove(detail::perf_map_path());
}

}  // namespace
}  // namespace laddu::jit
