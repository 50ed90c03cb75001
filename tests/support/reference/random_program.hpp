// Test support: seeded random ir::Programs and event values for differential tests of the
// backends. The programs mix every opcode family over Real and Complex values and keep values in
// a moderate range (transcendental functions get bounded arguments, denominators stay away from
// zero, solves are diagonally dominant), so two backends can be compared on them tightly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <laddu/ir/program.hpp>

#include "program_reference.hpp"

namespace laddu::testing {

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

}  // namespace laddu::testing
