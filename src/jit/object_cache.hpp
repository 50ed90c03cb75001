// The JIT's object code on disk. Generating machine code is most of a compile (a K-matrix
// gradient kernel: 17 ms of 22), and a fit, a test run or a Python session compiles the same
// programs again in every process. A lowered module's object code is stored under a key that
// covers everything that shapes it, and later compiles of the same module load it instead.
//
// The key is a SHA-256 over a description of everything lowering reads (the ir::Program field
// by field with the precision and lowering options, or a reduction's layout and spec), the
// target (triple, CPU, features, code-generation level), LLVM's version, the IR pipeline, and
// the identity of the binary doing the compiling (its path, size and modification time), so a
// rebuilt laddu-cpp, whose lowering may differ, never loads objects made by another build. A
// hit needs no lowering at all. A file holds a header (magic, sizes, what the compile found
// in the kernel) and the object, with a SHA-256 of both; a file that is cut short or changed
// is a miss and is replaced. Files are written to a temporary and renamed, so concurrent
// processes see whole files or none. The directory is LADDU_JIT_CACHE when set (`off` or empty:
// no cache), else $XDG_CACHE_HOME/laddu-cpp/jit, else $HOME/.cache/laddu-cpp/jit; a directory
// that cannot be created or written is logged once and the cache is skipped.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace llvm {
class MemoryBuffer;
class MemoryBufferRef;
}  // namespace llvm

namespace laddu::jit::detail {

/// The most objects a directory keeps: a store's sweep (at most daily) removes the oldest-written
/// beyond it, after those not written for 30 days.
inline constexpr std::size_t kMaxObjects = 4096;

/// What a compile found in the optimised kernel function.
struct ModuleFacts {
    std::size_t instructions = 0;
    bool vectorized = false;
    std::size_t prefetched_streams = 0;
};

/// The object code of a module and the facts of its compile.
struct CachedObject {
    std::unique_ptr<llvm::MemoryBuffer> object;
    ModuleFacts facts;
};

/// The cache directory the environment names now, or nullopt when caching is off.
[[nodiscard]] std::optional<std::string> object_cache_directory();

/// The target machine a module's code is generated for, as the object key names it (what
/// llvm::TargetMachine reports for each: its triple, CPU, feature string, code-generation level).
struct TargetKey {
    std::string triple;
    std::string cpu;
    std::string features;
    int opt_level = 0;
};

/// The key of the module that `source` describes (every input of its lowering:
/// ir::describe() of the program, a reduction's layout and spec) compiled for `target` after
/// the IR passes that `pipeline` describes: 64 hex digits.
[[nodiscard]] std::string object_key(std::string_view source, const TargetKey& target,
                                     std::string_view pipeline);

/// The object stored under `key` in `directory`, if a whole one with a matching checksum is
/// there.
[[nodiscard]] std::optional<CachedObject> load_object(const std::string& directory,
                                                      const std::string& key);

/// Stores `object` and `facts` under `key` (creating `directory`). A failure is logged once and
/// otherwise ignored: the cache only saves time.
void store_object(const std::string& directory, const std::string& key,
                  llvm::MemoryBufferRef object, const ModuleFacts& facts);

}  // namespace laddu::jit::detail
