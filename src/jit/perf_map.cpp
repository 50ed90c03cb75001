#include "perf_map.hpp"

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <laddu/base/log.hpp>

#include <unistd.h>

namespace laddu::jit::detail {

namespace {

struct Function {
    std::string name;
    std::uint64_t size = 0;
};

// The global functions `object` defines, with their ELF sizes (the only object format the JIT
// makes here); empty when it cannot be read.
std::vector<Function> defined_functions(const llvm::MemoryBuffer& object) {
    std::vector<Function> functions;
    auto file = llvm::object::ObjectFile::createObjectFile(object.getMemBufferRef());
    if (!file) {
        log(LogLevel::kWarn,
            "jit: perf map: cannot read the object code: " + llvm::toString(file.takeError()));
        return functions;
    }
    const auto* elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(file->get());
    if (elf == nullptr) {
        return functions;
    }
    for (const llvm::object::ELFSymbolRef symbol : elf->symbols()) {
        auto type = symbol.getType();
        auto flags = symbol.getFlags();
        auto name = symbol.getName();
        if (!type || !flags || !name) {
            llvm::consumeError(type.takeError());
            llvm::consumeError(flags.takeError());
            llvm::consumeError(name.takeError());
            continue;
        }
        const bool defined_global = (*flags & llvm::object::SymbolRef::SF_Global) != 0U &&
                                    (*flags & llvm::object::SymbolRef::SF_Undefined) == 0U;
        if (*type == llvm::object::SymbolRef::ST_Function && defined_global &&
            symbol.getSize() > 0) {
            functions.push_back({name->str(), symbol.getSize()});
        }
    }
    return functions;
}

}  // namespace

bool perf_map_enabled() {
    // NOLINTNEXTLINE(concurrency-mt-unsafe): a read-only lookup of the environment
    const char* value = std::getenv("LADDU_JIT_PERF_MAP");
    if (value == nullptr) {
        return false;
    }
    const std::string_view set(value);
    return !set.empty() && set != "0" && set != "off";
}

std::string perf_map_path() {
    return "/tmp/perf-" + std::to_string(::getpid()) + ".map";
}

llvm::Error add_object(llvm::orc::LLJIT& jit, std::unique_ptr<llvm::MemoryBuffer> object,
                       const std::function<std::string()>& prefix, const std::string& main_symbol) {
    if (!perf_map_enabled()) {
        return jit.addObjectFile(std::move(object));
    }
    const std::vector<Function> functions = defined_functions(*object);
    if (auto error = jit.addObjectFile(std::move(object))) {
        return error;
    }
    const std::string name = prefix();
    std::string lines;
    llvm::raw_string_ostream out(lines);
    for (const Function& function : functions) {
        auto address = jit.lookup(function.name);
        if (!address) {
            log(LogLevel::kWarn, "jit: perf map: cannot look up " + function.name + ": " +
                                     llvm::toString(address.takeError()));
            continue;
        }
        out << llvm::format_hex_no_prefix(address->getValue(), 1) << ' '
            << llvm::format_hex_no_prefix(function.size, 1) << ' ' << name
            << (function.name == main_symbol ? "" : "_" + function.name) << '\n';
    }
    // One append per object under one lock: lines of concurrent compiles never interleave.
    static std::mutex mutex;
    const std::lock_guard lock(mutex);
    std::error_code error;
    llvm::raw_fd_ostream map(perf_map_path(), error, llvm::sys::fs::OF_Append);
    if (error) {
        log(LogLevel::kWarn,
            "jit: perf map: cannot write " + perf_map_path() + ": " + error.message());
        return llvm::Error::success();
    }
    map << lines;
    return llvm::Error::success();
}

}  // namespace laddu::jit::detail
