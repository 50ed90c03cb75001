// Execution options as laddu 0.21.4 spells them: ld.Execution(backend="auto", *, precision=,
// autodiff=, normalization=, threads=, device=, memory=, mpi=, partitioning=) over
// runtime::Execution, with the memory vocabulary (MemoryBudget, MemoryPlan, MemoryResource,
// MemoryState; memory.cpp) and backend discovery (backend(), capabilities(), ld.gpu); then
// Model.evaluate(dataset, parameters=, real=) returning a numpy array, which releases the GIL.
// The build system passes LADDU_HAVE_JIT and the notes on the JIT and MPI (python/CMakeLists.txt).
#include <cctype>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>
#include <laddu/compile/compiled_model.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/expr/model.hpp>
#if LADDU_HAVE_GPU
#include <laddu/gpu/gpu.hpp>
#endif
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/memory_pool.hpp>
#include <laddu/runtime/prepared_model.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "event_data.hpp"
#include "memory.hpp"
#include "parameters.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

// Model.evaluate keeps its work: one compiled model per Model object and one prepared state per
// (Dataset object, execution settings). Both sit in weak-keyed dictionaries, so they live
// exactly as long as the model and the dataset objects (models and datasets are immutable).
struct CompiledEvaluations {
    std::shared_ptr<const compile::CompiledModel> compiled;
    py::object by_dataset;  ///< WeakKeyDictionary: dataset -> {execution key: PreparedEvaluation}
};

struct PreparedEvaluation {
    std::shared_ptr<const runtime::PreparedModel> prepared;
};

// Settings that change what prepare builds, and the pool it leases from and records its memory
// report in: the collective and the pool are held by the prepared state, so their addresses
// cannot be reused while the entry lives.
std::string execution_key(const runtime::Execution& e) {
    return fmt::format("{}:{}|{}|{}|{}|{}|{}|{}|{}", static_cast<int>(e.device), e.device_index,
                       e.threads, static_cast<int>(e.precision), static_cast<int>(e.autodiff),
                       static_cast<int>(e.jit), e.memory.to_string(),
                       static_cast<const void*>(e.collective.get()),
                       static_cast<const void*>(e.memory_pool.get()));
}

std::shared_ptr<const runtime::PreparedModel>
prepared_evaluation(const py::object& cache, const py::object& model_object,
                    const py::object& dataset_object, const expr::Model& model,
                    const data::EventData& dataset, const runtime::Execution& execution,
                    const std::string& key) {
    if (!cache.contains(model_object)) {
        CompiledEvaluations entry;
        {
            const py::gil_scoped_release release;
            entry.compiled =
                std::make_shared<const compile::CompiledModel>(compile::compile_model(model));
        }
        entry.by_dataset = py::module_::import("weakref").attr("WeakKeyDictionary")();
        cache[model_object] = py::cast(std::move(entry));
    }
    const py::object compiled_object = cache[model_object];
    const auto& compiled = compiled_object.cast<const CompiledEvaluations&>();
    if (!compiled.by_dataset.contains(dataset_object)) {
        compiled.by_dataset[dataset_object] = py::dict();
    }
    const py::dict by_execution = compiled.by_dataset[dataset_object];
    if (by_execution.contains(key)) {
        return by_execution[py::str(key)].cast<const PreparedEvaluation&>().prepared;
    }
    PreparedEvaluation entry;
    {
        const std::shared_ptr<const compile::CompiledModel> program = compiled.compiled;
        const py::gil_scoped_release release;
        entry.prepared = std::make_shared<const runtime::PreparedModel>(
            runtime::PreparedModel::prepare(*program, dataset, execution));
    }
    std::shared_ptr<const runtime::PreparedModel> prepared = entry.prepared;
    by_execution[py::str(key)] = py::cast(std::move(entry));
    return prepared;
}

// laddu compares option names trimmed, lower-case, with '-' read as '_'.
std::string normalize(std::string_view value) {
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front())) != 0) {
        value.remove_prefix(1);
    }
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())) != 0) {
        value.remove_suffix(1);
    }
    std::string out(value);
    for (char& c : out) {
        c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

ir::Precision parse_precision(const std::string& value, bool gpu) {
    const std::string name = normalize(value);
    // "auto" is f64 on the CPU and f32 on the GPU, as in laddu.
    if (name == "auto") {
        return gpu ? ir::Precision::kF32 : ir::Precision::kF64;
    }
    if (name == "f64" || name == "float64" || name == "double") {
        return ir::Precision::kF64;
    }
    if (name == "f32" || name == "float32" || name == "single") {
        return ir::Precision::kF32;
    }
    throw py::value_error("precision must be 'auto', 'f32', or 'f64'");
}

runtime::AutodiffMode parse_autodiff(const std::string& value) {
    const std::string name = normalize(value);
    if (name == "auto") {
        return runtime::AutodiffMode::kAuto;
    }
    if (name == "forward") {
        return runtime::AutodiffMode::kForward;
    }
    if (name == "reverse") {
        return runtime::AutodiffMode::kReverse;
    }
    throw py::value_error("autodiff must be 'auto', 'forward', or 'reverse'");
}

std::string parse_partitioning(const std::string& value) {
    const std::string name = normalize(value);
    if (name == "auto" || name == "contiguous") {
        return "contiguous";
    }
    if (name == "files" || name == "file_groups") {
        return "file_groups";
    }
    if (name == "rows") {
        return "rows";
    }
    throw py::value_error("partitioning must be 'auto', 'contiguous', 'file_groups', or 'rows'");
}

runtime::NormalizationMode parse_normalization(const std::string& value) {
    const std::string name = normalize(value);
    if (name == "auto") {
        return runtime::NormalizationMode::kAuto;
    }
    if (name == "general") {
        return runtime::NormalizationMode::kGeneral;
    }
    if (name == "verify") {
        return runtime::NormalizationMode::kVerify;
    }
    throw py::value_error("normalization must be 'auto', 'general', or 'verify'");
}

// laddu's names: "auto", "general", "verify".
const char* normalization_name(runtime::NormalizationMode mode) {
    switch (mode) {
    case runtime::NormalizationMode::kGeneral:
        return "general";
    case runtime::NormalizationMode::kVerify:
        return "verify";
    case runtime::NormalizationMode::kAuto:
        break;
    }
    return "auto";
}

#if LADDU_HAVE_GPU
// The OpenCL device Execution(device=...) names: an index, or a name (exact, else the only device
// whose name contains it). None is the first GPU-type device (else device 0); under MPI it is
// GPU-type device local_rank % (their count) (else of all devices), so the ranks on one host
// spread over its GPUs. BackendError (with the device list) when there is none such.
std::size_t gpu_device_index(const py::object& device, std::optional<int> local_rank) {
    const std::vector<gpu::DeviceInfo> all = gpu::devices();
    if (device.is_none()) {
        std::vector<std::size_t> candidates;
        for (const gpu::DeviceInfo& d : all) {
            if (d.is_gpu) {
                candidates.push_back(d.index);
            }
        }
        if (candidates.empty()) {
            candidates.push_back(gpu::device(0).index);
            for (const gpu::DeviceInfo& d : all) {
                if (d.index != candidates.front()) {
                    candidates.push_back(d.index);
                }
            }
        }
        const auto pick = static_cast<std::size_t>(local_rank.value_or(0));
        return local_rank ? candidates[pick % candidates.size()] : candidates.front();
    }
    if (py::isinstance<py::int_>(device)) {
        if (device.cast<py::int_>() < py::int_(0)) {
            throw py::value_error("GPU device index must be >= 0");
        }
        return gpu::device(device.cast<std::size_t>()).index;
    }
    const auto wanted = device.cast<std::string>();
    std::vector<std::size_t> matches;
    for (const gpu::DeviceInfo& d : all) {
        if (d.name == wanted) {
            return d.index;
        }
        if (d.name.find(wanted) != std::string::npos) {
            matches.push_back(d.index);
        }
    }
    if (matches.size() == 1) {
        return matches[0];
    }
    std::string list;
    for (const gpu::DeviceInfo& d : all) {
        list += fmt::format("{}{}: {}", list.empty() ? "" : ", ", d.index, d.name);
    }
    throw BackendError(fmt::format("Execution('gpu'): {} OpenCL device matches '{}' (devices: {})",
                                   matches.empty() ? "no" : "more than one", wanted,
                                   list.empty() ? "none" : list));
}
#else
std::size_t gpu_device_index(const py::object& /*device*/, std::optional<int> /*local_rank*/) {
    throw BackendError(std::string("Execution('gpu'): this laddu_cpp was built without the OpenCL "
                                   "GPU backend (") +
                       LADDU_GPU_BUILD_NOTE +
                       "); use Execution('jit') for compiled CPU kernels or Execution('cpu')");
}
#endif

// Checked in laddu's order: the memory budget, threads, device against backend, then the
// other options; a backend this build cannot run is refused last, as laddu does.
runtime::Execution make_execution(const std::string& backend, const std::string& precision,
                                  const std::string& autodiff, const std::string& normalization,
                                  const py::object& threads, const py::object& device,
                                  const py::object& memory, const std::optional<bool>& mpi,
                                  const std::string& partitioning) {
    runtime::Execution execution;
    const std::string name = normalize(backend);
    if (!memory.is_none()) {
        execution.memory = host_budget(memory);
        execution.device_memory = device_budget(memory);
    }
    if (!threads.is_none()) {
        if (!py::isinstance<py::int_>(threads)) {
            throw py::type_error("threads must be an int or None, got " +
                                 python_type_name(threads));
        }
        if (threads.cast<py::int_>() < py::int_(0)) {
            PyErr_SetString(PyExc_OverflowError, "can't convert negative int to unsigned");
            throw py::error_already_set();
        }
        execution.threads = cast_arg<std::size_t>(threads, "threads", "an int up to 2**64 - 1");
        if (execution.threads == 0) {
            throw py::value_error("threads must be greater than zero");
        }
    }
    if (name == "auto" || name == "cpu" || name == "jit") {
        if (!device.is_none()) {
            throw py::value_error(name == "auto" ? "GPU device selection requires backend='gpu'"
                                                 : "GPU device settings require backend='gpu'");
        }
    } else if (name == "gpu") {
        if (!threads.is_none()) {
            throw py::value_error("threads only applies to CPU and JIT execution");
        }
        if (!device.is_none() && !py::isinstance<py::int_>(device) &&
            !py::isinstance<py::str>(device)) {
            throw py::value_error("GPU device must be an integer index, name, PCI bus ID, or None");
        }
    } else {
        throw py::value_error("backend must be 'auto', 'cpu', 'jit', or 'gpu'");
    }
    execution.precision = parse_precision(precision, name == "gpu");
    execution.autodiff = parse_autodiff(autodiff);
    execution.normalization = parse_normalization(normalization);
    const std::string partition = parse_partitioning(partitioning);
    const bool over_ranks = mpi.value_or(false);
    if (name == "jit" && !static_cast<bool>(LADDU_HAVE_JIT)) {
        throw BackendError(std::string("Execution('jit'): this laddu_cpp was built without "
                                       "LLVM, so it has no JIT (") +
                           LADDU_JIT_BUILD_NOTE + "); use Execution('auto') or 'cpu'");
    }
    execution.jit = name == "cpu"   ? runtime::JitPolicy::kDisabled
                    : name == "jit" ? runtime::JitPolicy::kEnabled
                                    : runtime::JitPolicy::kAuto;
    apply_mpi(execution, over_ranks, partition);
    if (name == "gpu") {
        execution.device = runtime::Device::kGpu;
        execution.device_index = gpu_device_index(
            device, over_ranks ? std::optional<int>(mpi_local_rank()) : std::nullopt);
    }
    // One pool per ld.Execution, shared by its copies: its budget is resolved now.
    execution.memory_pool = std::make_shared<runtime::MemoryPool>(execution);
    return execution;
}

std::string backend_name(const runtime::Execution& e) {
    if (e.device == runtime::Device::kGpu) {
        return "gpu";
    }
    switch (e.jit) {
    case runtime::JitPolicy::kAuto:
        return "auto";
    case runtime::JitPolicy::kEnabled:
        return "jit";
    case runtime::JitPolicy::kDisabled:
        return "cpu";
    }
    return "auto";
}

std::string autodiff_name(runtime::AutodiffMode mode) {
    switch (mode) {
    case runtime::AutodiffMode::kAuto:
        return "auto";
    case runtime::AutodiffMode::kForward:
        return "forward";
    case runtime::AutodiffMode::kReverse:
        return "reverse";
    }
    return "auto";
}

int rank_of(const runtime::Execution& e) {
    return e.collective ? e.collective->rank() : 0;
}

int world_size_of(const runtime::Execution& e) {
    return e.collective ? e.collective->size() : 1;
}

// laddu's repr prints the Rust enum names (F64, Auto).
std::string execution_repr(const runtime::Execution& e) {
    const auto variant = [](std::string name) {
        name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
        return name;
    };
    const std::string autodiff = variant(autodiff_name(e.autodiff));
    const std::string normalization = variant(normalization_name(e.normalization));
    return fmt::format("Execution(backend=\"{}\", precision={}, autodiff={}, "
                       "normalization={}, rank={}, world_size={})",
                       backend_name(e), e.precision == ir::Precision::kF32 ? "F32" : "F64",
                       autodiff, normalization, rank_of(e), world_size_of(e));
}

std::vector<runtime::MemoryReport> recorded(const runtime::Execution& e) {
    return e.memory_pool ? e.memory_pool->reports() : std::vector<runtime::MemoryReport>{};
}

py::list memory_decisions(const runtime::Execution& e) {
    py::list out;
    for (const runtime::MemoryReport& r : recorded(e)) {
        out.append(memory_decision(r));
    }
    return out;
}

const char* decision_kind(runtime::LeaseDecision::Kind kind) {
    switch (kind) {
    case runtime::LeaseDecision::Kind::kGranted:
        return "granted";
    case runtime::LeaseDecision::Kind::kReleased:
        return "released";
    case runtime::LeaseDecision::Kind::kRefused:
        return "refused";
    }
    return "granted";
}

// laddu's report: the host resource, this process, and the execution's host pool: laddu's keys,
// then the pool's leases now and its decision log.
py::dict execution_memory_report(const runtime::Execution& e) {
    py::dict report = memory_state_report(discover_memory_state());
    std::size_t planned = 0;
    for (const runtime::MemoryReport& r : recorded(e)) {
        planned += r.peak_bytes;
    }
    py::dict pool;
    pool["resource_id"] = "host";
    pool["requested"] = e.memory.to_string();
    pool["effective_bytes"] =
        optional_bytes(e.memory_pool ? e.memory_pool->budget() : e.memory.resolve());
    pool["planned_bytes"] = planned;
    py::list leases;
    py::list decisions;
    if (e.memory_pool) {
        pool["leased_bytes"] = e.memory_pool->leased();
        pool["available_bytes"] = optional_bytes(e.memory_pool->available());
        for (const runtime::ActiveLease& l : e.memory_pool->leases()) {
            py::dict item;
            item["label"] = l.label;
            item["bytes"] = l.bytes;
            leases.append(item);
        }
        for (const runtime::LeaseDecision& d : e.memory_pool->decisions()) {
            py::dict item;
            item["kind"] = decision_kind(d.kind);
            item["label"] = d.label;
            item["bytes"] = d.bytes;
            item["leased_bytes"] = d.leased;
            decisions.append(item);
        }
    }
    pool["leases"] = leases;
    pool["decisions"] = decisions;
    py::list pools;
    pools.append(pool);
    report["pools"] = pools;
    return report;
}

// laddu's capabilities() keys first, with the same types; then laddu-cpp's details.
py::dict capabilities() {
    py::dict result;
    result["backend"] = "local";
    result["jit"] = static_cast<bool>(LADDU_HAVE_JIT);
    result["gpu"] = static_cast<bool>(LADDU_HAVE_GPU);
    result["mpi"] = static_cast<bool>(LADDU_HAVE_DISTRIBUTED);
    result["likelihood"] = true;
    result["fit"] = true;
    result["generation"] = true;
    result["interpreter"] = true;
    result["jit_detail"] = LADDU_JIT_BUILD_NOTE;
    result["mpi_detail"] = LADDU_MPI_BUILD_NOTE;
#if LADDU_HAVE_GPU
    result["gpu_detail"] =
        fmt::format("{}, {} device(s)", LADDU_GPU_BUILD_NOTE, gpu::devices().size());
#else
    result["gpu_detail"] = LADDU_GPU_BUILD_NOTE;
#endif
    return result;
}

// laddu.gpu.Device: laddu's attributes (an OpenCL device in laddu_cpp: backend "opencl", driver
// the platform name), then laddu_cpp's global_memory and vendor_name.
struct GpuDevice {
    std::size_t index = 0;
    std::string name;
    std::uint32_t vendor = 0;
    std::uint32_t device = 0;
    std::string device_type;
    std::string pci_bus_id;
    std::string driver;
    std::string driver_info;
    std::string backend = "opencl";
    bool supports_f64 = false;
    std::uint64_t max_buffer_size = 0;
    std::uint64_t max_storage_buffer_binding_size = 0;
    std::uint32_t max_compute_workgroup_size_x = 0;
    std::uint64_t global_memory = 0;
    std::string vendor_name;
};

// Every OpenCL device (`gpu_only`: those of type GPU, laddu's "GPU adapters").
std::vector<GpuDevice> gpu_devices(bool gpu_only) {
    std::vector<GpuDevice> out;
#if LADDU_HAVE_GPU
    for (const gpu::DeviceInfo& d : gpu::devices()) {
        if (gpu_only && !d.is_gpu) {
            continue;
        }
        GpuDevice g;
        g.index = d.index;
        g.name = d.name;
        g.vendor = d.vendor_id;
        g.device_type = d.is_gpu ? "gpu" : "cpu";
        g.driver = d.platform;
        g.driver_info = d.version;
        g.supports_f64 = d.fp64;
        g.max_buffer_size = d.max_allocation;
        g.max_storage_buffer_binding_size = d.max_allocation;
        g.max_compute_workgroup_size_x = static_cast<std::uint32_t>(d.max_work_group_size);
        g.global_memory = d.global_memory;
        g.vendor_name = d.vendor;
        out.push_back(std::move(g));
    }
#else
    (void)gpu_only;
#endif
    return out;
}

void bind_gpu(py::module_& module) {
    py::module_ gpu = module.def_submodule(
        "gpu", "GPU discovery, as laddu.gpu: the OpenCL devices laddu_cpp can run on (any "
               "OpenCL device, including CPU ones such as PoCL's).");
    py::class_<GpuDevice>(gpu, "Device",
                          "An OpenCL device, as laddu.gpu.Device: index (for "
                          "Execution('gpu', device=...)), name, vendor (id), device, device_type "
                          "('gpu' or 'cpu'), pci_bus_id, driver (the OpenCL platform), "
                          "driver_info (its version), backend ('opencl'), supports_f64, "
                          "max_buffer_size, max_storage_buffer_binding_size, "
                          "max_compute_workgroup_size_x; and global_memory (bytes), vendor_name.")
        .def_readonly("index", &GpuDevice::index)
        .def_readonly("name", &GpuDevice::name)
        .def_readonly("vendor", &GpuDevice::vendor)
        .def_readonly("device", &GpuDevice::device)
        .def_readonly("device_type", &GpuDevice::device_type)
        .def_readonly("pci_bus_id", &GpuDevice::pci_bus_id)
        .def_readonly("driver", &GpuDevice::driver)
        .def_readonly("driver_info", &GpuDevice::driver_info)
        .def_readonly("backend", &GpuDevice::backend)
        .def_readonly("supports_f64", &GpuDevice::supports_f64)
        .def_readonly("max_buffer_size", &GpuDevice::max_buffer_size)
        .def_readonly("max_storage_buffer_binding_size",
                      &GpuDevice::max_storage_buffer_binding_size)
        .def_readonly("max_compute_workgroup_size_x", &GpuDevice::max_compute_workgroup_size_x)
        .def_readonly("global_memory", &GpuDevice::global_memory)
        .def_readonly("vendor_name", &GpuDevice::vendor_name)
        .def("__repr__", [](const GpuDevice& d) {
            return fmt::format("Device(index={}, name=\"{}\", backend=\"{}\")", d.index, d.name,
                               d.backend);
        });
    gpu.def(
        "devices", [] { return gpu_devices(true); },
        "The GPU adapters laddu_cpp can use, as laddu.gpu.devices(): the OpenCL devices of type "
        "GPU (empty when there is none, no OpenCL platform is installed, or laddu_cpp was built "
        "without the GPU backend). ld.devices() lists every OpenCL device, CPU ones too.");
    gpu.def(
        "is_available", [] { return !gpu_devices(true).empty(); },
        "True when gpu.devices() is not empty (a GPU is there; Execution('gpu') may still run on "
        "a CPU OpenCL device such as PoCL's: see ld.devices()).");
    module.def(
        "devices", [] { return gpu_devices(false); },
        "Every OpenCL device Execution('gpu', device=N) can run on, GPUs and CPU devices (PoCL), "
        "in platform then device order: N is a Device's index (laddu-cpp extension).");
}

// The parameter vector and the prepared (cached) model of a Model.evaluate-style call.
struct ModelCall {
    std::vector<double> params;
    std::shared_ptr<const runtime::PreparedModel> prepared;
};

ModelCall model_call(const py::module_& module, const py::object& self, const py::object& dataset,
                     const py::object& parameters,
                     const std::optional<runtime::Execution>& execution) {
    const auto& m = cast_arg<const expr::Model&>(self, "self", "an ld.Model");
    std::optional<runtime::MemoryPlan> memory;
    const data::EventData events = to_event_data(dataset, "dataset", memory);
    // Keyed on the execution as given and the dataset's budget: applying the budget makes a
    // memory pool of its own, a new one on every call.
    const std::string key = execution_key(execution.value_or(runtime::Execution{})) + "|" +
                            (memory ? memory->to_string() : std::string("-"));
    ModelCall call{free_parameter_vector(m.parameters(), parameters),
                   prepared_evaluation(module.attr("_evaluation_cache"), self, dataset, m, events,
                                       with_data_memory(execution, memory), key)};
    record_decision(dataset, call.prepared->memory_report());
    return call;
}

}  // namespace

void bind_runtime(py::module_& module) {
    bind_memory(module);
    module.def("capabilities", &capabilities,
               "What this build of laddu_cpp can do, as laddu.capabilities(): 'backend' "
               "('local'), 'jit', 'gpu', 'mpi', 'likelihood', 'fit', 'generation' (bools), "
               "then 'interpreter' (always True) and 'jit_detail', 'mpi_detail', 'gpu_detail': "
               "the LLVM or MPI version built in, or why the backend is missing.");
    module.def(
        "backend", [] { return "local"; },
        "The native backend of this extension, as laddu.backend(): 'local' (one module serves "
        "local and MPI runs: see capabilities()['mpi']).");
    bind_gpu(module);
    py::class_<runtime::Execution>(
        module, "Execution",
        "Where and how models are evaluated (laddu's Execution). backend: 'auto' (the JIT when "
        "it is built and the work is large enough, else the interpreter; the default), 'cpu' "
        "(the interpreter), 'jit' (LLVM kernels; BackendError when not built) or 'gpu' "
        "(OpenCL: the evaluate and gradient kernels on ld.gpu.devices()[device]; preparation "
        "stays on the CPU). precision: 'auto' (f64 on the CPU, f32 on the GPU, as laddu), 'f64' "
        "or 'f32'. autodiff: 'auto', 'forward' or 'reverse'. normalization: 'auto' (statistics "
        "gathered once, laddu's 'hermitian', 'linear_statistics' or 'hybrid' strategy, when the "
        "model is separable, proven non-negative and the statistics cost at most 16 passes, "
        "else a pass over the accepted events), 'general' (always that pass) or 'verify' (the "
        "statistics whenever the model has them, checked against the pass at every evaluation: "
        "EvaluationError beyond 1e-10, 5e-4 under f32). "
        "threads: None (every hardware thread) or a count > 0. device: GPU only: an index of "
        "ld.gpu.devices() or a device name (None: the first GPU, else device 0). memory: a "
        "MemoryPlan, MemoryBudget, byte count or text ('2 GiB', '70% available', '50% total', "
        "'auto'); None: no budget. mpi: True shares the events across the ranks of mpirun. "
        "partitioning: 'auto' (= 'contiguous'), 'contiguous', 'file_groups' or 'rows'. "
        "Execution() and leaving execution= out are the same.")
        .def(py::init(&make_execution), py::arg("backend") = "auto", py::kw_only(),
             py::arg("precision") = "auto", py::arg("autodiff") = "auto",
             py::arg("normalization") = "auto", py::arg("threads") = py::none(),
             py::arg("device") = py::none(), py::arg("memory") = py::none(),
             py::arg("mpi") = std::nullopt, py::arg("partitioning") = "auto")
        .def("__repr__", &execution_repr)
        .def_property_readonly("backend", &backend_name,
                               "The backend: 'auto', 'cpu', 'jit' or 'gpu'.")
        .def_property_readonly(
            "device_index",
            [](const runtime::Execution& e) -> std::optional<std::size_t> {
                if (e.device == runtime::Device::kGpu) {
                    return e.device_index;
                }
                return std::nullopt;
            },
            "The OpenCL device (an index of ld.devices()) under backend 'gpu', else None "
            "(laddu-cpp).")
        .def_property_readonly(
            "precision",
            [](const runtime::Execution& e) {
                return e.precision == ir::Precision::kF32 ? "f32" : "f64";
            },
            "The precision in effect: 'f64' or 'f32' ('auto' is f64).")
        .def_property_readonly(
            "autodiff", [](const runtime::Execution& e) { return autodiff_name(e.autodiff); },
            "'auto', 'forward' or 'reverse'.")
        .def_property_readonly(
            "normalization",
            [](const runtime::Execution& e) { return normalization_name(e.normalization); },
            "'auto', 'general' or 'verify' (see the constructor).")
        .def_property_readonly("rank", &rank_of, "This process's rank (0 without MPI).")
        .def_property_readonly("world_size", &world_size_of,
                               "The number of ranks sharing the events (1 without MPI).")
        .def_property_readonly(
            "is_distributed", [](const runtime::Execution& e) { return world_size_of(e) > 1; },
            "True when more than one rank shares the events.")
        .def_property_readonly("threads", &runtime::Execution::resolved_threads,
                               "The thread count in use (laddu-cpp).")
        .def_property_readonly(
            "memory", [](const runtime::Execution& e) { return e.memory.to_string(); },
            "The host budget as text, 'unlimited' without one (laddu-cpp).")
        .def("memory_decisions", &memory_decisions,
             "One dict per model prepared with this execution (each likelihood term's data and "
             "accepted MC, each Model.evaluate dataset), in order: laddu's keys 'label', "
             "'fixed_bytes', 'bytes_per_event', 'chunk_events', 'estimated_peak_bytes', "
             "'actual_high_water_bytes' (None), 'strategy' ('resident' or 'streaming'), then "
             "'events', 'budget_bytes', 'cache_bytes', 'source_bytes_per_event', "
             "'read_buffer_bytes', 'scratch_bytes', 'window_events', 'prepared_for' (whose "
             "events: 'the data', 'the accepted Monte Carlo', ...), 'available_bytes' (what "
             "was left of the shared budget when it was planned; None: no budget), "
             "'held_bytes' (what it leases while it lives), "
             "'requested' and 'decision' (why).")
        .def("memory_report", &execution_memory_report,
             "{'resources': [the host: 'id', 'name', 'total_bytes', 'available_bytes', "
             "'capacity_source'], 'process': {'resident_bytes', 'virtual_bytes', "
             "'sampled_high_water_bytes'} or None, 'pools': [{'resource_id': 'host', "
             "'requested', 'effective_bytes' (None: no budget), 'planned_bytes' (the planned "
             "peaks of the work prepared with this execution), then the execution's one "
             "shared pool: 'leased_bytes' and 'available_bytes' now (None: no budget), "
             "'leases' [{'label', 'bytes'}] held now and 'decisions' [{'kind' ('granted', "
             "'released' or 'refused'), 'label', 'bytes', 'leased_bytes' (after)}]}]}.");

    // Model.evaluate is defined here, next to the runtime it needs.
    py::class_<CompiledEvaluations>(module, "_CompiledEvaluations",
                                    "What Model.evaluate compiled for one model (internal).")
        .def_property_readonly(
            "datasets", [](const CompiledEvaluations& c) { return py::len(c.by_dataset); },
            "How many datasets have a prepared state for this model.");
    py::class_<PreparedEvaluation>(module, "_PreparedEvaluation",
                                   "What Model.evaluate prepared for one dataset (internal).");
    module.attr("_evaluation_cache") = py::module_::import("weakref").attr("WeakKeyDictionary")();
    py::class_<expr::Model> model =
        py::reinterpret_borrow<py::class_<expr::Model>>(module.attr("Model"));
    model.def(
        "evaluate",
        [module](const py::object& self, const py::object& dataset, const py::object& parameters,
                 const std::optional<runtime::Execution>& execution, bool real) -> py::object {
            const auto [params, prepared] =
                model_call(module, self, dataset, parameters, execution);
            std::vector<std::complex<double>> values;
            {
                const py::gil_scoped_release release;
                values = prepared->evaluate(params);
            }
            if (real) {
                py::array_t<double> out(static_cast<py::ssize_t>(values.size()));
                double* p = out.mutable_data();
                for (std::size_t i = 0; i < values.size(); ++i) {
                    p[i] = values[i].real();
                }
                return out;
            }
            py::array_t<std::complex<double>> out(static_cast<py::ssize_t>(values.size()));
            std::copy(values.begin(), values.end(), out.mutable_data());
            return out;
        },
        py::arg("dataset"), py::kw_only(), py::arg("parameters") = py::none(),
        py::arg("execution") = std::nullopt, py::arg("real") = false,
        "The model value per event (complex, or its real parts as floats with real=True). "
        "parameters is "
        "a sequence in free-parameter order, a dict by name (others at their defaults), or None "
        "(defaults). The compiled model and the prepared dataset are kept for the next call "
        "while both objects live.");
    model.def(
        "value_and_gradient",
        [module](const py::object& self, const py::object& dataset, const py::object& parameters,
                 const std::optional<runtime::Execution>& execution, bool real) -> py::tuple {
            const auto [params, prepared] =
                model_call(module, self, dataset, parameters, execution);
            runtime::EventGradients result;
            {
                const py::gil_scoped_release release;
                result = prepared->evaluate_with_gradient(params);
            }
            const auto n = static_cast<py::ssize_t>(result.values.size());
            const auto p = static_cast<py::ssize_t>(result.parameters);
            if (real) {
                py::array_t<double> values(n);
                py::array_t<double> gradients({n, p});
                double* value_data = values.mutable_data();
                double* gradient_data = gradients.mutable_data();
                for (std::size_t i = 0; i < result.values.size(); ++i) {
                    value_data[i] = result.values[i].real();
                }
                for (std::size_t j = 0; j < result.gradients.size(); ++j) {
                    gradient_data[j] = result.gradients[j].real();
                }
                return py::make_tuple(values, gradients);
            }
            py::array_t<std::complex<double>> values(n);
            py::array_t<std::complex<double>> gradients({n, p});
            std::copy(result.values.begin(), result.values.end(), values.mutable_data());
            std::copy(result.gradients.begin(), result.gradients.end(), gradients.mutable_data());
            return py::make_tuple(values, gradients);
        },
        py::arg("dataset"), py::kw_only(), py::arg("parameters") = py::none(),
        py::arg("execution") = std::nullopt, py::arg("real") = false,
        "laddu's Model.value_and_gradient: (values, gradients) per event, shapes (n_events,) and "
        "(n_events, n_free_parameters) in parameter_names order; complex unless real=True (then "
        "the real parts, float64). The prepared dataset is shared with Model.evaluate.");
}

}  // namespace laddu::python
