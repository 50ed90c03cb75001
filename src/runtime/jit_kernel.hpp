// src/runtime/jit_kernel.hpp (private): the JIT ChunkKernel, built only with LADDU_HAVE_JIT.
#pragma once

#include <memory>

#include <laddu/base/expected.hpp>

#include "chunk_kernel.hpp"

namespace laddu::runtime::detail {

/// Compiles `program` with the LLVM JIT, or the reason it could not (kBackend failure).
[[nodiscard]] Expected<std::shared_ptr<const ChunkKernel>>
make_jit_kernel(const ir::Program& program, ir::Precision precision);

}  // namespace laddu::runtime::detail
