#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <laddu/base/log.hpp>
#include <laddu/ir/hash.hpp>
#include <laddu/ir/validate.hpp>
#include <laddu/jit/jit.hpp>

#include "helpers.hpp"
#include "lower.hpp"
#include "object_cache.hpp"
#include "perf_map.hpp"
#include "schedule.hpp"

namespace laddu::jit {

namespace {

// The target machine code generation needs, created on first use: when every object of a
// compile comes from the object cache (a kernel and its reductions), none is created, which
// was a third of each such compile (0.4 of 1.2 ms on an Intel Xeon). The object key names the
// target by what the machine would report, read off its builder.
class Target {
public:
    // `opt_level` is what `builder` was given (it has no getter).
    Target(llvm::orc::JITTargetMachineBuilder builder, llvm::CodeGenOptLevel opt_level)
        : builder_(std::move(builder)), opt_level_(opt_level) {}

    [[nodiscard]] detail::TargetKey key() const {
        return detail::TargetKey{builder_.getTargetTriple().str(), builder_.getCPU(),
                                 builder_.getFeatures().getString(), static_cast<int>(opt_level_)};
    }

    // Not thread-safe: a compile owns its Target, and a module's reductions compile under its
    // lock.
    llvm::Expected<llvm::TargetMachine&> machine() {
        if (!machine_) {
            auto created = builder_.createTargetMachine();
            if (!created) {
                return created.takeError();
            }
            machine_ = std::move(*created);
        }
        return *machine_;
    }

private:
    llvm::orc::JITTargetMachineBuilder builder_;
    llvm::CodeGenOptLevel opt_level_;
    std::unique_ptr<llvm::TargetMachine> machine_;
};

}  // namespace

// One LLJIT instance per compiled program: destroying the module frees its code, and programs
// never share state, so compiles in different threads do not contend.
class JitModule {
public:
    JitModule(std::unique_ptr<llvm::orc::LLJIT> jit, Target target, detail::ReductionLayout layout,
              ir::Program program, ir::Precision precision, detail::LowerOptions options)
        : jit_(std::move(jit)), target_(std::move(target)), layout_(std::move(layout)),
          program_(std::move(program)), precision_(precision), options_(std::move(options)) {}

    // The fused reduction for `spec`, compiled into this instance on first use (`self` owns
    // this module). Compiles run under the lock: they are short, and a second caller wants the
    // same function anyway.
    Expected<JitReduction> reduction(const ReductionSpec& spec,
                                     const std::shared_ptr<const JitModule>& self) const;

    // The kernel's column layout (what its reductions are built on).
    [[nodiscard]] const detail::ReductionLayout& layout() const noexcept { return layout_; }

    // With more columns than general registers, a reduction calls its own copy of the kernel,
    // which writes the reduction's output buffer (columns at a fixed distance) and, when the
    // spec says so, reads evenly spaced input columns: every column addressed from one
    // register (LowerOptions::input_stride) instead of a pointer reloaded per access. With few
    // columns the kernel keeps its pointers in registers anyway, and a copy would only compile
    // the kernel twice.
    [[nodiscard]] bool own_kernel_copy() const noexcept {
        constexpr std::size_t kRegisterColumns = 12;
        return layout_.input_pointers + layout_.output_pointers > kRegisterColumns;
    }

private:
    std::unique_ptr<llvm::orc::LLJIT> jit_;
    mutable Target target_;  ///< generates the reductions' code (under mutex_)
    detail::ReductionLayout layout_;
    // What the kernel was compiled from: each reduction compiles its own copy of it
    // (JitModule::reduction).
    ir::Program program_;
    ir::Precision precision_;
    detail::LowerOptions options_;
    mutable std::mutex mutex_;
    mutable std::vector<JitReduction> reductions_;
    mutable std::size_t attempts_ = 0;  ///< reductions begun (each names its symbols by it)
};

using detail::ModuleFacts;

// Builds JitKernels (their constructor is private so only compile() hands them out).
struct KernelFactory {
    static JitKernel make(std::shared_ptr<const JitModule> module, KernelFn fn,
                          ir::Precision precision, InputColumns inputs, double seconds,
                          const ModuleFacts& facts, bool cached_object) {
        JitKernel kernel;
        kernel.module_ = std::move(module);
        kernel.fn_ = fn;
        kernel.precision_ = precision;
        kernel.input_columns_ = inputs;
        kernel.compile_seconds_ = seconds;
        kernel.input_pointers_ = kernel.module_->layout().input_pointers;
        kernel.output_pointers_ = kernel.module_->layout().output_pointers;
        kernel.llvm_instructions_ = facts.instructions;
        kernel.vectorized_ = facts.vectorized;
        kernel.prefetched_streams_ = facts.prefetched_streams;
        kernel.cached_object_ = cached_object;
        return kernel;
    }
};

namespace {

constexpr const char* kFunctionName = "laddu_kernel";

constexpr const char* kPipeline =
    "function(early-cse,loop-simplify,lcssa,loop-vectorize,instcombine,simplifycfg)";

Failure backend_failure(const std::string& what, llvm::Error error) {
    return failure(ErrorKind::kBackend, "jit: " + what + ": " + llvm::toString(std::move(error)));
}

void initialise_llvm() {
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
    });
}

// The IR pipeline with the host target's cost model, so the loop vectoriser picks the host's
// vector width (AVX2 where present, SSE2 otherwise).
void optimise(llvm::Module& module, llvm::TargetMachine& machine) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    // Event loops are long straight-line bodies: vectorising is what pays; interleaving and
    // unrolling them only multiplies code size and codegen time.
    llvm::PipelineTuningOptions tuning;
    tuning.LoopInterleaving = false;
    tuning.LoopUnrolling = false;
    llvm::PassBuilder builder(&machine, tuning);
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
    // The program arrives CSE'd with its invariants already hoisted, so the full O2 pipeline
    // has little left to do besides vectorising: this short one gives the same kernels for the
    // coherent sum in ~20% less compile time. O2 remains the fallback.
    llvm::ModulePassManager passes;
    if (auto error = builder.parsePassPipeline(passes, kPipeline)) {
        llvm::consumeError(std::move(error));
        passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
    }
    passes.run(module, mam);
}

// The name of a program's kernel in LADDU_JIT_DUMP's files and the perf map.
std::string kernel_label(const ir::Program& program, ir::Precision precision) {
    return "laddu_kernel_" + std::to_string(ir::hash(program)) + "_" + precision_name(precision);
}

// detail::add_object, the program's functions named after its kernel_label (hashed only when
// the perf map is on).
llvm::Error add_object(llvm::orc::LLJIT& jit, std::unique_ptr<llvm::MemoryBuffer> object,
                       const ir::Program& program, ir::Precision precision) {
    return detail::add_object(
        jit, std::move(object), [&] { return kernel_label(program, precision); }, kFunctionName);
}

// With LADDU_JIT_DUMP=<directory>, every compile writes its LLVM IR before and after the
// pipeline to <directory>/laddu_kernel_<hash>_<precision>.{lowered,opt}.ll (for inspecting what
// vectorised; `llc-19 -O2` turns the .opt.ll into the kernel's assembly). A compile served from
// the object cache runs no pipeline, so it writes only the .lowered.ll.
void dump_module(const llvm::Module& module, const ir::Program& program, ir::Precision precision,
                 const std::string& function_name, const char* stage) {
    const char* directory = std::getenv("LADDU_JIT_DUMP");
    if (directory == nullptr || *directory == '\0') {
        return;
    }
    // A reduction's copy of the kernel (JitModule::reduction) carries its own name.
    const std::string variant = function_name == kFunctionName ? "" : "_" + function_name;
    const std::string path = std::string(directory) + "/" + kernel_label(program, precision) +
                             variant + "." + stage + ".ll";
    std::error_code error;
    llvm::raw_fd_ostream out(path, error, llvm::sys::fs::OF_Text);
    if (error) {
        log(LogLevel::kWarn, "jit: cannot write " + path + ": " + error.message());
        return;
    }
    module.print(out, nullptr);
}

// Of the kernel function alone.
ModuleFacts inspect(const llvm::Module& module, const std::string& function_name) {
    ModuleFacts facts;
    if (const llvm::Function* fn = module.getFunction(function_name)) {
        for (const llvm::BasicBlock& block : *fn) {
            for (const llvm::Instruction& inst : block) {
                ++facts.instructions;
                if (inst.getType()->isVectorTy() && inst.getType()->isFPOrFPVectorTy()) {
                    facts.vectorized = true;
                }
            }
        }
    }
    return facts;
}

// A module's object code and what its IR passes found; `cached` when it came from the object
// cache (docs/jit.md, "The object cache").
struct ObjectCode {
    std::unique_ptr<llvm::MemoryBuffer> object;
    ModuleFacts facts;
    bool cached = false;
    double lower_ms = 0.0;     ///< lowering (0 when cached)
    double optimise_ms = 0.0;  ///< the IR pipeline (0 when cached)
};

// The object code of the module that `source` describes (every input of its lowering) for
// `target`: from the object cache when it holds it, without lowering or a target machine;
// else `lower(machine)` (the module, or the error), `passes(module, machine)` (the IR pipeline
// `pipeline` describes, returning what it found) and code generation, and the result is
// stored for the next process.
template <typename Lower, typename Passes>
Expected<ObjectCode> object_code(std::string_view source, Target& target, std::string_view pipeline,
                                 detail::Schedule schedule, Lower&& lower, Passes&& passes,
                                 CacheUse use = CacheUse::kCompileOnMiss) {
    const std::optional<std::string> directory = detail::object_cache_directory();
    std::string key;
    if (directory) {
        key = detail::object_key(source, target.key(),
                                 std::string(pipeline) + " schedule " +
                                     detail::schedule_name(schedule));
        if (std::optional<detail::CachedObject> hit = detail::load_object(*directory, key)) {
            return ObjectCode{std::move(hit->object), hit->facts, true};
        }
    }
    if (use == CacheUse::kCachedOnly) {
        return failure(ErrorKind::kBackend,
                       directory ? "jit: the kernel's code is not in the object cache"
                                 : "jit: the object cache is off (LADDU_JIT_CACHE)");
    }
    llvm::Expected<llvm::TargetMachine&> machine = target.machine();
    if (!machine) {
        return backend_failure("cannot create a target machine", machine.takeError());
    }
    Expected<llvm::Module*> module = lower(*machine);
    if (!module) {
        return module.error();
    }
    ObjectCode code;
    code.facts = passes(**module, *machine);
    auto object = detail::generate_code(*machine, **module, schedule);
    if (!object) {
        return backend_failure("cannot generate code", object.takeError());
    }
    code.object = std::move(*object);
    if (directory) {
        detail::store_object(*directory, key, code.object->getMemBufferRef(), code.facts);
    }
    return code;
}

// The object code of `program`'s kernel under `options` (lowered, optimised, prefetches
// inserted), from the object cache when it holds it.
Expected<ObjectCode> kernel_object(const ir::Program& program, ir::Precision precision,
                                   const detail::LowerOptions& options, Target& target,
                                   CacheUse use) {
    // What lowering reads: the program, the precision and the options.
    const std::string source =
        "kernel\n" + std::string(ir::precision_name(precision)) + "\n" + options.function_name +
        "\n" + options.cpu + "\n" + options.features + "\n" +
        std::to_string(static_cast<int>(options.inputs)) + " " +
        std::to_string(options.input_stride) + " " + std::to_string(options.output_stride) + " " +
        std::to_string(static_cast<int>(options.whole_groups)) + "\n" + ir::describe(program);
    using Clock = std::chrono::steady_clock;
    const auto ms = [](Clock::time_point from, Clock::time_point to) {
        return std::chrono::duration<double, std::milli>(to - from).count();
    };
    const Clock::time_point start = Clock::now();
    Clock::time_point lowered_at = start;
    Clock::time_point optimised_at = start;
    std::unique_ptr<llvm::LLVMContext> context;
    std::unique_ptr<llvm::Module> module;
    const auto lower = [&](llvm::TargetMachine& machine) -> Expected<llvm::Module*> {
        context = std::make_unique<llvm::LLVMContext>();
        module = std::make_unique<llvm::Module>("laddu", *context);
        module->setDataLayout(machine.createDataLayout());
        module->setTargetTriple(machine.getTargetTriple().str());
        if (auto lowered = detail::lower_program(program, precision, options, *module); !lowered) {
            return lowered.error();
        }
        lowered_at = Clock::now();
        dump_module(*module, program, precision, options.function_name, "lowered");
        return module.get();
    };
    const int locality = detail::prefetch_locality(options.cpu);
    Expected<ObjectCode> code = object_code(
        source, target,
        std::string(kPipeline) + " prefetch " + std::to_string(detail::kPrefetchBytes) + " " +
            std::to_string(locality),
        detail::schedule_for(program.outputs.size()), lower,
        [&](llvm::Module& m, llvm::TargetMachine& machine) {
            optimise(m, machine);
            const std::size_t prefetched = detail::insert_prefetches(
                *m.getFunction(options.function_name), detail::kPrefetchBytes, locality);
            dump_module(m, program, precision, options.function_name, "opt");
            optimised_at = Clock::now();
            ModuleFacts facts = inspect(m, options.function_name);
            facts.prefetched_streams = prefetched;
            return facts;
        },
        use);
    if (code && !code->cached) {
        code->lower_ms = ms(start, lowered_at);
        code->optimise_ms = ms(lowered_at, optimised_at);
    }
    return code;
}

// The LLJIT's IR compiler, which no module reaches: every module is added as object code.
class ObjectOnly final : public llvm::orc::IRCompileLayer::IRCompiler {
public:
    ObjectOnly() : IRCompiler(llvm::orc::IRSymbolMapper::ManglingOptions{}) {}

    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module&) override {
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "laddu adds its modules to the JIT as object code");
    }
};

llvm::Error define_helpers(llvm::orc::LLJIT& jit) {
    llvm::orc::SymbolMap symbols;
    for (const detail::HelperSymbol& helper : detail::helper_symbols()) {
        symbols[jit.mangleAndIntern(llvm::StringRef(helper.name.data(), helper.name.size()))] =
            llvm::orc::ExecutorSymbolDef(llvm::orc::ExecutorAddr(helper.address),
                                         llvm::JITSymbolFlags::Exported |
                                             llvm::JITSymbolFlags::Callable);
    }
    return jit.getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols)));
}

detail::ReductionLayout reduction_layout(const ir::Program& program, InputColumns inputs,
                                         const std::string& cpu, const std::string& features) {
    detail::ReductionLayout layout;
    layout.kernel_name = kFunctionName;
    layout.cpu = cpu;
    layout.features = features;
    layout.float_inputs = inputs == InputColumns::kFloat;
    for (const ir::InputSlot& slot : program.inputs) {
        layout.input_pointers += slot.kind == ir::ValueKind::kComplex ? 2U : 1U;
    }
    for (const ir::ValueId out : program.outputs) {
        const bool real = program.at(out).kind != ir::ValueKind::kComplex;
        layout.output_column.push_back(layout.output_pointers);
        layout.output_real.push_back(real);
        layout.output_pointers += real ? 1U : 2U;
    }
    return layout;
}

// The host's target and data layout, found once per process: detecting the host and the
// layout (which LLVM takes from a target machine of its own) had cost every compile 0.15 and
// 0.4 ms.
struct Host {
    std::optional<llvm::orc::JITTargetMachineBuilder> builder;
    std::optional<llvm::DataLayout> layout;
    std::string error;  ///< why there is no builder
};

const Host& host() {
    static const Host found = [] {
        Host h;
        auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
        if (!builder) {
            h.error = "cannot detect the host target: " + llvm::toString(builder.takeError());
            return h;
        }
        auto layout = builder->getDefaultDataLayoutForTarget();
        if (!layout) {
            h.error = "cannot find the host's data layout: " + llvm::toString(layout.takeError());
            return h;
        }
        h.builder = std::move(*builder);
        h.layout = std::move(*layout);
        return h;
    }();
    return found;
}

Expected<JitKernel> compile_now(const ir::Program& program, ir::Precision precision,
                                CodeGen codegen, InputColumns inputs,
                                CacheUse use = CacheUse::kCompileOnMiss) {
    const auto start = std::chrono::steady_clock::now();
    if (auto valid = ir::validate(program); !valid) {
        return failure(ErrorKind::kBackend,
                       "jit: cannot compile an invalid program: " + valid.error().message);
    }
    initialise_llvm();

    const Host& found = host();
    if (!found.builder) {
        return failure(ErrorKind::kBackend, "jit: " + found.error);
    }
    llvm::orc::JITTargetMachineBuilder builder = *found.builder;
    // Fast: instruction selection without optimisation (~5x quicker code generation, ~25%
    // slower kernels); the IR pipeline (and so vectorisation) is the same for both.
    const llvm::CodeGenOptLevel level =
        codegen == CodeGen::kFast ? llvm::CodeGenOptLevel::None : llvm::CodeGenOptLevel::Default;
    builder.setCodeGenOptLevel(level);
    // No FMA contraction: kernels must round like the interpreter.
    builder.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Strict;
    Target target(builder, level);

    const detail::LowerOptions options{kFunctionName, builder.getCPU(),
                                       builder.getFeatures().getString(), inputs};
    Expected<ObjectCode> code = kernel_object(program, precision, options, target, use);
    if (!code) {
        return code.error();
    }

    // No platform: kernels have no static initialisers, and the default platform support
    // compiles extra modules for every instance. No IR compiler either: modules reach the JIT
    // as object code (object_code()), and the default one would build a second target machine
    // per instance (0.1-0.5 ms of each cached compile); the data layout is the host's, which
    // it would otherwise get from a target machine of its own.
    auto jit =
        llvm::orc::LLJITBuilder()
            .setJITTargetMachineBuilder(std::move(builder))
            .setDataLayout(found.layout)
            .setCompileFunctionCreator(
                [](const llvm::orc::JITTargetMachineBuilder&)
                    -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                    return std::make_unique<ObjectOnly>();
                })
            .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
            .create();
    if (!jit) {
        return backend_failure("cannot create the LLVM JIT", jit.takeError());
    }
    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        (*jit)->getDataLayout().getGlobalPrefix());
    if (!process) {
        return backend_failure("cannot search the process for libm", process.takeError());
    }
    (*jit)->getMainJITDylib().addGenerator(std::move(*process));
    if (auto error = define_helpers(**jit)) {
        return backend_failure("cannot register the kernel helpers", std::move(error));
    }
    if (auto error = add_object(**jit, std::move(code->object), program, precision)) {
        return backend_failure("cannot add the kernel's object code", std::move(error));
    }
    auto symbol = (*jit)->lookup(kFunctionName);
    if (!symbol) {
        return backend_failure("cannot generate code for the kernel", symbol.takeError());
    }
    const auto fn = symbol->toPtr<KernelFn>();
    auto owner = std::make_shared<const JitModule>(
        std::move(*jit), std::move(target),
        reduction_layout(program, inputs, options.cpu, options.features), program, precision,
        options);
    const auto done = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(done - start).count();
    if (log_threshold() <= LogLevel::kDebug) {
        const double total = 1e3 * seconds;
        log(LogLevel::kDebug,
            "jit: compiled " + std::to_string(program.size()) + " IR instructions in " +
                std::to_string(total) + " ms" +
                (code->cached
                     ? std::string(", object code from the cache")
                     : ": lower " + std::to_string(code->lower_ms) + " ms, optimise " +
                           std::to_string(code->optimise_ms) + " ms, codegen and load " +
                           std::to_string(total - code->lower_ms - code->optimise_ms) + " ms"));
    }
    return KernelFactory::make(std::move(owner), fn, precision, inputs, seconds, code->facts,
                               code->cached);
}

// What besides the program a kernel is compiled for.
struct Variant {
    ir::Precision precision;
    CodeGen codegen;
    InputColumns inputs;

    friend bool operator==(const Variant&, const Variant&) = default;
};

// The process-wide cache. Entries keep a copy of their program so a hash collision can never
// return the wrong kernel.
class Cache {
public:
    Expected<JitKernel> get_or_compile(const ir::Program& program, const Variant& variant,
                                       CacheUse use) {
        const std::uint64_t key = ir::hash(program) ^
                                  static_cast<std::uint64_t>(variant.precision) ^
                                  (static_cast<std::uint64_t>(variant.codegen) << 8U) ^
                                  (static_cast<std::uint64_t>(variant.inputs) << 16U);
        {
            const std::lock_guard lock(mutex_);
            if (const JitKernel* hit = find(key, program, variant)) {
                return *hit;
            }
        }
        // Compile outside the lock; if another thread compiled the same program meanwhile,
        // keep the first one so every caller sees the same kernel.
        Expected<JitKernel> kernel =
            compile_now(program, variant.precision, variant.codegen, variant.inputs, use);
        if (!kernel) {
            return kernel;
        }
        const std::lock_guard lock(mutex_);
        if (const JitKernel* hit = find(key, program, variant)) {
            return *hit;
        }
        entries_.emplace(key, Entry{program, variant, *kernel});
        return kernel;
    }

    std::size_t size() {
        const std::lock_guard lock(mutex_);
        return entries_.size();
    }

    void clear() {
        const std::lock_guard lock(mutex_);
        entries_.clear();
    }

private:
    struct Entry {
        ir::Program program;
        Variant variant;
        JitKernel kernel;
    };

    const JitKernel* find(std::uint64_t key, const ir::Program& program, const Variant& variant) {
        auto [first, last] = entries_.equal_range(key);
        for (auto it = first; it != last; ++it) {
            if (it->second.variant == variant &&
                ir::same_computation(it->second.program, program)) {
                return &it->second.kernel;
            }
        }
        return nullptr;
    }

    std::mutex mutex_;
    std::unordered_multimap<std::uint64_t, Entry> entries_;
};

// Never destroyed: kernels cached here may be called until the process exits, and tearing down
// LLJIT instances during static destruction would race LLVM's own statics.
Cache& cache() {
    alignas(Cache) static unsigned char storage[sizeof(Cache)];
    static Cache* instance = new (storage) Cache();
    return *instance;
}

}  // namespace

Expected<JitReduction> JitModule::reduction(const ReductionSpec& requested,
                                            const std::shared_ptr<const JitModule>& self) const {
    // With few columns the reduction calls the kernel itself, which reads every pointer: the
    // columns' spacing changes nothing, so caches of different sizes share one reduction.
    ReductionSpec spec = requested;
    if (!own_kernel_copy()) {
        spec.input_stride = 0;
    }
    const std::lock_guard lock(mutex_);
    for (const JitReduction& known : reductions_) {
        if (known.spec_ == spec) {
            JitReduction found = known;
            found.module_ = self;
            return found;
        }
    }
    const auto start = std::chrono::steady_clock::now();
    if (const Expected<void> checked = detail::check_reduction(layout_, spec); !checked) {
        return checked.error();
    }
    detail::ReductionLayout layout = layout_;
    // Numbered by attempt: a compile that failed part way may have defined its symbols.
    layout.function_name = "laddu_reduce_" + std::to_string(attempts_++);
    if (own_kernel_copy()) {
        detail::LowerOptions options = options_;
        options.function_name = layout.function_name + "_kernel";
        options.input_stride = spec.input_stride;
        options.output_stride = detail::reduction_block(layout.output_pointers) * sizeof(double);
        // Whole groups only, the rest on the kernel: a masked load is two µops and folds into
        // no arithmetic (the K-matrix value kernel's copy: 10-20 % faster unmasked).
        options.whole_groups = true;
        Expected<ObjectCode> kernel =
            kernel_object(program_, precision_, options, target_, CacheUse::kCompileOnMiss);
        if (!kernel) {
            return kernel.error();
        }
        if (auto error = add_object(*jit_, std::move(kernel->object), program_, precision_)) {
            return backend_failure("cannot add the reduction's kernel", std::move(error));
        }
        layout.tail_kernel_name = layout.kernel_name;
        layout.kernel_name = options.function_name;
    }
    // What lowering reads: the layout and the spec.
    std::string source = "reduction\n" + layout.kernel_name + "\n" + layout.tail_kernel_name +
                         "\n" + layout.function_name + "\n" + layout.cpu + "\n" + layout.features +
                         "\n" + std::to_string(layout.input_pointers) + " " +
                         std::to_string(static_cast<int>(layout.float_inputs)) + " " +
                         std::to_string(layout.output_pointers) + "\n";
    for (std::size_t j = 0; j < layout.output_column.size(); ++j) {
        source += std::to_string(layout.output_column[j]) + (layout.output_real[j] ? "r " : "c ");
    }
    source += "\n" + std::to_string(static_cast<int>(spec.term)) + " " + std::to_string(spec.sums) +
              " " + std::to_string(static_cast<int>(spec.unit_weights)) + "\n";
    std::unique_ptr<llvm::LLVMContext> context;
    std::unique_ptr<llvm::Module> module;
    const auto lower = [&](llvm::TargetMachine&) -> Expected<llvm::Module*> {
        context = std::make_unique<llvm::LLVMContext>();
        module = std::make_unique<llvm::Module>("laddu_reduce", *context);
        module->setDataLayout(jit_->getDataLayout());
        module->setTargetTriple(jit_->getTargetTriple().str());
        if (auto lowered = detail::lower_reduction(layout, spec, *module); !lowered) {
            return lowered.error();
        }
        return module.get();
    };
    // Explicit vector code: no IR passes before code generation.
    Expected<ObjectCode> code =
        object_code(source, target_, "reduction", detail::Schedule::kTarget, lower,
                    [](llvm::Module&, llvm::TargetMachine&) { return ModuleFacts{}; });
    if (!code) {
        return code.error();
    }
    if (auto error = add_object(*jit_, std::move(code->object), program_, precision_)) {
        return backend_failure("cannot add the reduction's object code", std::move(error));
    }
    auto symbol = jit_->lookup(layout.function_name);
    if (!symbol) {
        return backend_failure("cannot generate code for the reduction", symbol.takeError());
    }
    // The cached copy does not own the module: the cache lives inside the module it would
    // keep alive. Copies handed out do.
    JitReduction reduction;
    reduction.fn_ = symbol->toPtr<ReductionFn>();
    reduction.spec_ = spec;
    reduction.compile_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    reductions_.push_back(reduction);
    if (log_threshold() <= LogLevel::kDebug) {
        log(LogLevel::kDebug, "jit: compiled a reduction of " + std::to_string(spec.sums) +
                                  " sums in " + std::to_string(1e3 * reduction.compile_seconds_) +
                                  " ms");
    }
    reduction.module_ = self;
    return reduction;
}

Expected<JitReduction> JitKernel::reduction(const ReductionSpec& spec) const {
    if (module_ == nullptr) {
        return failure(ErrorKind::kBackend, "jit: this kernel has no compiled module");
    }
    try {
        return module_->reduction(spec, module_);
    } catch (const std::exception& error) {
        return failure(ErrorKind::kBackend,
                       std::string("jit: reduction compilation failed: ") + error.what());
    }
}

Expected<JitKernel> compile(const ir::Program& program, ir::Precision precision, CodeGen codegen,
                            InputColumns inputs, CacheUse use) {
    try {
        return cache().get_or_compile(program, {precision, codegen, inputs}, use);
    } catch (const std::exception& error) {
        return failure(ErrorKind::kBackend,
                       std::string("jit: compilation failed: ") + error.what());
    }
}

Expected<JitKernel> compile_uncached(const ir::Program& program, ir::Precision precision,
                                     CodeGen codegen, InputColumns inputs) {
    try {
        return compile_now(program, precision, codegen, inputs);
    } catch (const std::exception& error) {
        return failure(ErrorKind::kBackend,
                       std::string("jit: compilation failed: ") + error.what());
    }
}

std::size_t cache_size() noexcept {
    try {
        return cache().size();
    } catch (...) {
        return 0;
    }
}

void clear_cache() noexcept {
    try {
        cache().clear();
    } catch (...) {  // NOLINT(bugprone-empty-catch): nothing to undo or report
        // A failed lock leaves the cache as it was, which is all a failure can do here; a log
        // line could throw in turn, from a function that must not.
    }
}

const char* host_cpu_name() noexcept {
    static const std::string name = llvm::sys::getHostCPUName().str();
    return name.c_str();
}

}  // namespace laddu::jit
