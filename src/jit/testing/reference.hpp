// A straightforward per-event executor of ir::Program on std::complex, written from docs/ir.md
// alone: the independent side of the JIT's differential tests.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <laddu/ir/program.hpp>
#include <laddu/jit/jit.hpp>

namespace laddu::jit::testing {

using Complex = std::complex<double>;

/// Event values of every input slot: slots[s][event] (a Real slot's imaginary parts are ignored).
using SlotValues = std::vector<std::vector<Complex>>;

/// The outputs of one event, widened to complex. kF64 evaluates every instruction in double.
/// kF32 mirrors the f32 kernel contract: invariants in double, event instructions in float
/// (operands rounded to float; complex functions, complex division and solves evaluated in
/// double and rounded).
[[nodiscard]] std::vector<Complex> reference_event(const ir::Program& program,
                                                   std::span<const double> params,
                                                   const SlotValues& slots, std::size_t event,
                                                   Precision precision = Precision::kF64);

/// `prefix` followed by `k` ("amp3"). (GCC 12 at -O3 warns falsely, -Wrestrict, on
/// `"literal" + std::to_string(k)`.)
template <typename Integer>
[[nodiscard]] std::string numbered(std::string_view prefix, Integer k) {
    std::string text(prefix);
    text += std::to_string(k);
    return text;
}

/// A random-number source for test data and programs (splitmix64; reproducible by seed).
class Random {
public:
    explicit Random(std::uint64_t seed) : state_(seed) {}

    /// A uniform 64-bit integer.
    std::uint64_t next() noexcept;

    /// A uniform double in [lo, hi).
    double uniform(double lo, double hi) noexcept;

    /// A uniform integer in [0, n).
    std::uint32_t below(std::uint32_t n) noexcept;

private:
    std::uint64_t state_;
};

/// Shapes of the programs random_program() builds.
struct RandomProgramOptions {
    std::uint32_t instructions = 60;  ///< approximate instruction count
    std::uint32_t real_inputs = 2;
    std::uint32_t complex_inputs = 2;
    std::uint32_t parameters = 3;
    std::uint32_t outputs = 3;
    bool transcendental = true;  ///< include sin, exp, sqrt, log, pow, ... (else + - * / only)
};

/// A valid random program: a mix of every opcode family over Real and Complex values, with
/// values kept in a moderate range (transcendentals are applied to bounded arguments).
[[nodiscard]] ir::Program random_program(Random& random, const RandomProgramOptions& options);

/// Random event values for `program`'s slots: re and im uniform in [-2, 2).
[[nodiscard]] SlotValues random_slots(Random& random, const ir::Program& program,
                                      std::size_t events);

}  // namespace laddu::jit::testing
