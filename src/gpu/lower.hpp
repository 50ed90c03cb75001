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
    std::string text;  ///< laddu_invariants, laddu_kernel, and with fp64 laddu_reduce
    std::size_t invariant_slots = 0;  ///< elements (double, or float without fp64) of `inv`
};

/// The laddu_reduce kernel of `program` (reduction_source.cpp): Kernel::reduce's sums over the
/// outputs laddu_kernel wrote, with the same output arguments. Needs cl_khr_fp64.
[[nodiscard]] std::string reduction_kernel(const ir::Program& program);

}  // namespace detail

/// lower_to_opencl() (gpu.hpp), with the invariant buffer's size.
[[nodiscard]] detail::OpenClSource lower(const ir::Program& program, ir::Precision precision,
                                         bool fp64);

}  // namespace laddu::gpu
