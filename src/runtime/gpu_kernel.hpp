// src/runtime/gpu_kernel.hpp (private): the OpenCL ChunkKernel, built only with LADDU_HAVE_GPU.
#pragma once

#include <cstddef>
#include <memory>

#include "chunk_kernel.hpp"

namespace laddu::runtime::detail {

/// Builds `program` for OpenCL device `device` (gpu::compile), keeping its resident input
/// columns within `resident_budget` bytes (0: 3/4 of the device); throws BackendError when there
/// is no such device or the driver cannot build it.
[[nodiscard]] std::shared_ptr<const ChunkKernel> make_gpu_kernel(const ir::Program& program,
                                                                 ir::Precision precision,
                                                                 std::size_t device,
                                                                 std::size_t resident_budget);

}  // namespace laddu::runtime::detail
