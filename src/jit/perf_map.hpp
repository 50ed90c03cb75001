// src/jit/perf_map.hpp (private to jit): adding object code to a JIT, named for perf.
//
// perf shows the samples of code in anonymous executable memory as "[JIT] tid N" at raw
// addresses, unless the process lists that code in /tmp/perf-<pid>.map: one line
// "START SIZE NAME" (START and SIZE in hex) per function, the map file convention of perf's
// jit-interface.txt (Linux tools/perf/Documentation). perf reads the file when it reports, so
// it outlives the process.
#pragma once

#include <functional>
#include <memory>
#include <string>

// Declared only: the tests, which do not see LLVM's headers, include this file too.
namespace llvm {
class Error;
class MemoryBuffer;

namespace orc {
class LLJIT;
}  // namespace orc
}  // namespace llvm

namespace laddu::jit::detail {

/// Whether LADDU_JIT_PERF_MAP asks for the perf map (set, and not "", "0" or "off").
[[nodiscard]] bool perf_map_enabled();

/// /tmp/perf-<pid>.map of this process.
[[nodiscard]] std::string perf_map_path();

/// Adds `object` to `jit`'s main library (LLJIT::addObjectFile). When perf_map_enabled(), it
/// then looks up every global function the object defines and appends its line to
/// perf_map_path(), named prefix() for the function `main_symbol` and prefix()_<symbol> for the
/// others (the names of LADDU_JIT_DUMP's files); `prefix` is called only then. A function that
/// cannot be looked up, or a map that cannot be written, is logged and skipped: profiling never
/// fails a compile.
[[nodiscard]] llvm::Error add_object(llvm::orc::LLJIT& jit,
                                     std::unique_ptr<llvm::MemoryBuffer> object,
                                     const std::function<std::string()>& prefix,
                                     const std::string& main_symbol);

}  // namespace laddu::jit::detail
