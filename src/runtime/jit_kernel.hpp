// src/runtime/jit_kernel.hpp (private): the JIT ChunkKernel, built only with LADDU_HAVE_JIT.
#pragma once

#include <memory>

#include <laddu/base/expected.hpp>

#include "chunk_kernel.hpp"

namespace laddu::runtime::detail {

/// Compiles `program` with the LLVM JIT, or the reason it could not (kBackend failure). With
/// `cached_only`, only a kernel whose code this process or the object cache already holds
/// (jit::CacheUse::kCachedOnly): a failure, compiling nothing, otherwise.
[[nodiscard]] Expected<std::shared_ptr<const ChunkKernel>>
make_jit_kernel(const ir::Program& program, ir::Precision precision, bool cached_only = false);

}  // namespace laddu::runtime::detail
