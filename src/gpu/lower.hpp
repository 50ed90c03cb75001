// src/gpu/lower.hpp (private to gpu): lower_to_opencl() with what the host side needs to know.
#pragma once

#include <cstddef>
#include <string>

#include <laddu/ir/precision.hpp>
#include <laddu/ir/program.hpp>

namespace laddu::gpu {

namespace detail {

/// The generated source and the size of its invariant buffer.
struct OpenClSource {
    std::string text;                 ///< two kernels: laddu_invariants, then laddu_kernel
    std::size_t invariant_slots = 0;  ///< elements (double, or float without fp64) of `inv`
};

}  // namespace detail

/// lower_to_opencl() (gpu.hpp), with the invariant buffer's size.
[[nodiscard]] detail::OpenClSource lower(const ir::Program& program, ir::Precision precision,
                                         bool fp64);

}  // namespace laddu::gpu
