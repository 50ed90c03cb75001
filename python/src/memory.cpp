#include "memory.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <string>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include <laddu/base/error.hpp>

#include "conversions.hpp"

namespace py = pybind11;

namespace laddu::python {

namespace {

// ld.MemoryPlan: a host budget and, for Execution('gpu'), a device budget
// (runtime::Execution::device_memory).
struct HostDevicePlan {
    runtime::MemoryPlan host;
    std::optional<runtime::MemoryPlan> device;
};

constexpr const char* kBudgetForms = "memory budget must be a MemoryBudget, byte count, or string "
                                     "such as '8 GiB' or '60% available'";

// ModelError is the C++ answer to bad text; laddu raises ValueError, with the text we give.
template <typename Make>
runtime::MemoryPlan as_value_error(Make make) {
    try {
        return make();
    } catch (const ModelError& error) {
        throw py::value_error(error.what());
    }
}

runtime::MemoryPlan budget(const py::handle& value) {
    if (py::isinstance<runtime::MemoryPlan>(value)) {
        return value.cast<runtime::MemoryPlan>();
    }
    if (py::isinstance<py::int_>(value)) {
        if (value.cast<py::int_>() < py::int_(0) ||
            value.cast<py::int_>() > py::int_(std::numeric_limits<std::uint64_t>::max())) {
            throw py::value_error(kBudgetForms);
        }
        return runtime::MemoryPlan::bytes(value.cast<std::uint64_t>());
    }
    if (py::isinstance<py::str>(value)) {
        const std::string text = cast_arg<std::string>(value, "memory", "a str");
        return as_value_error([&] { return runtime::MemoryPlan::parse(text); });
    }
    throw py::value_error(kBudgetForms);
}

std::string rust_option(const std::optional<std::uint64_t>& value) {
    return value ? fmt::format("Some({})", *value) : "None";
}

std::string source_variant(const std::string& source) {
    return source == "user" ? "User" : "OperatingSystem";
}

py::dict resource_dict(const MemoryResourceInfo& r) {
    py::dict item;
    item["id"] = r.id;
    item["name"] = r.name;
    item["total_bytes"] = r.total;
    item["available_bytes"] = r.available;
    item["capacity_source"] = r.capacity_source;
    return item;
}

// VmRSS, VmSize and VmHWM of /proc/self/status, in bytes, or None where there is none.
py::object process_memory() {
    std::ifstream status("/proc/self/status");
    std::optional<std::uint64_t> rss;
    std::optional<std::uint64_t> vsize;
    std::optional<std::uint64_t> hwm;
    std::string key;
    while (status >> key) {
        std::uint64_t kib = 0;
        if (key == "VmRSS:" || key == "VmSize:" || key == "VmHWM:") {
            status >> kib;
            (key == "VmRSS:" ? rss : key == "VmSize:" ? vsize : hwm) = kib * 1024;
        }
        status.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    if (!rss || !vsize || !hwm) {
        return py::none();
    }
    py::dict out;
    out["resident_bytes"] = *rss;
    out["virtual_bytes"] = *vsize;
    out["sampled_high_water_bytes"] = *hwm;
    return out;
}

// MemoryState.current(): one state for the process, so device overrides made through it last.
std::shared_ptr<MemoryStateInfo> current_state() {
    static const std::shared_ptr<MemoryStateInfo> state =
        std::make_shared<MemoryStateInfo>(discover_memory_state());
    return state;
}

}  // namespace

py::object optional_bytes(std::size_t bytes) {
    if (bytes == std::numeric_limits<std::size_t>::max()) {
        return py::none();
    }
    return py::int_(bytes);
}

py::dict memory_decision(const runtime::MemoryReport& r) {
    const std::size_t cache_fixed = r.cache_bytes - r.events * r.cache_bytes_per_event;
    const bool resident = r.policy == data::MemoryPolicy::kResident;
    py::dict item;
    item["label"] = "CPU prepared dataset";
    item["fixed_bytes"] = cache_fixed + r.read_buffer_bytes + r.scratch_bytes;
    item["bytes_per_event"] = r.cache_bytes_per_event;
    item["chunk_events"] = resident ? r.events : r.window_events;
    item["estimated_peak_bytes"] = r.peak_bytes;
    item["actual_high_water_bytes"] = py::none();
    item["strategy"] = resident ? "resident" : "streaming";
    item["events"] = r.events;
    item["budget_bytes"] = optional_bytes(r.budget_bytes);
    item["cache_bytes"] = r.cache_bytes;
    item["source_bytes_per_event"] = r.source_bytes_per_event;
    item["read_buffer_bytes"] = r.read_buffer_bytes;
    item["scratch_bytes"] = r.scratch_bytes;
    item["window_events"] = r.window_events;
    item["prepared_for"] = r.label;
    item["available_bytes"] = optional_bytes(r.available_bytes);
    item["held_bytes"] = r.held_bytes;
    item["requested"] = std::string(data::memory_policy_name(r.requested));
    item["decision"] = r.decision;
    return item;
}

MemoryStateInfo discover_memory_state() {
    MemoryStateInfo state;
    state.host.id = "host";
    state.host.name = "Host memory";
    state.host.capacity_source = "operating_system";
    if (const Expected<std::size_t> total = runtime::total_host_memory(); total.has_value()) {
        state.host.total = *total;
    }
    if (const Expected<std::size_t> available = runtime::available_host_memory();
        available.has_value()) {
        state.host.available = *available;
    }
    return state;
}

py::dict memory_state_report(const MemoryStateInfo& state) {
    std::vector<const MemoryResourceInfo*> resources{&state.host};
    for (const MemoryResourceInfo& device : state.devices) {
        resources.push_back(&device);
    }
    std::sort(resources.begin(), resources.end(),
              [](const auto* a, const auto* b) { return a->id < b->id; });
    py::list items;
    for (const MemoryResourceInfo* r : resources) {
        items.append(resource_dict(*r));
    }
    py::dict report;
    report["resources"] = items;
    report["process"] = process_memory();
    return report;
}

runtime::MemoryPlan host_budget(const py::handle& value) {
    if (py::isinstance<HostDevicePlan>(value)) {
        return value.cast<const HostDevicePlan&>().host;
    }
    return budget(value);
}

runtime::MemoryPlan device_budget(const py::handle& value) {
    if (py::isinstance<HostDevicePlan>(value)) {
        return value.cast<const HostDevicePlan&>().device.value_or(runtime::MemoryPlan{});
    }
    return {};
}

void bind_memory(py::module_& module) {
    py::class_<runtime::MemoryPlan>(
        module, "MemoryBudget",
        "A byte or percentage memory request, as laddu's MemoryBudget: a MemoryBudget, a byte "
        "count, or text: '2 GiB', '1.5 GB', '4096' (bytes), '70% available', '50% total' (a "
        "bare '50%' is of the total, as in laddu) or 'auto' (80% of the available memory). "
        "Percentages read /proc/meminfo when a model is prepared.")
        .def(py::init(&budget), py::arg("value"))
        .def_static(
            "bytes", [](std::uint64_t bytes) { return runtime::MemoryPlan::bytes(bytes); },
            py::arg("bytes"), "A budget of exactly `bytes`.")
        .def_static(
            "percent_total",
            [](double percent) {
                return as_value_error(
                    [&] { return runtime::MemoryPlan::fraction_of_total(percent); });
            },
            py::arg("percent"), "`percent` (0 < percent <= 100) of the total host memory.")
        .def_static(
            "percent_available",
            [](double percent) {
                return as_value_error(
                    [&] { return runtime::MemoryPlan::fraction_of_available(percent); });
            },
            py::arg("percent"), "`percent` (0 < percent <= 100) of the available host memory.")
        .def(
            "resolve", [](const runtime::MemoryPlan& b) { return b.resolve(); },
            "The budget in bytes now (laddu-cpp; ld.BackendError for a percentage where "
            "/proc/meminfo is missing).")
        .def("__repr__", [](const runtime::MemoryPlan& b) {
            return fmt::format("MemoryBudget(\"{}\")", b.to_string());
        });

    py::class_<HostDevicePlan>(
        module, "MemoryPlan",
        "Host and optional device budgets, as laddu's MemoryPlan. "
        "The device budget applies to Execution('gpu'): input columns resident on the "
        "device stay within it, and the event cache is planned to fit it.")
        .def(py::init([](const py::object& host, const py::object& device) {
                 HostDevicePlan plan{budget(host), std::nullopt};
                 if (!device.is_none()) {
                     plan.device = budget(device);
                 }
                 return plan;
             }),
             py::kw_only(), py::arg("host"), py::arg("device") = py::none())
        .def("__repr__", [](const HostDevicePlan& p) {
            return fmt::format("MemoryPlan(host=\"{}\", device={})", p.host.to_string(),
                               p.device ? fmt::format("Some(\"{}\")", p.device->to_string())
                                        : std::string("None"));
        });

    py::class_<MemoryResourceInfo>(module, "MemoryResource",
                                   "Total and available memory of one resource, as laddu's "
                                   "MemoryResource (made by MemoryState, not directly).")
        .def_readonly("id", &MemoryResourceInfo::id)
        .def_readonly("name", &MemoryResourceInfo::name)
        .def_readonly("total_bytes", &MemoryResourceInfo::total)
        .def_readonly("available_bytes", &MemoryResourceInfo::available)
        .def_readonly("capacity_source", &MemoryResourceInfo::capacity_source)
        .def_property_readonly("adapter_index",
                               [](const MemoryResourceInfo&) { return py::none(); })
        .def_property_readonly("vendor_id", [](const MemoryResourceInfo&) { return py::none(); })
        .def_property_readonly("device_id", [](const MemoryResourceInfo&) { return py::none(); })
        .def_property_readonly("pci_bus_id", [](const MemoryResourceInfo&) { return py::none(); })
        .def(
            "budget",
            [](const MemoryResourceInfo&, const py::object& value) { return budget(value); },
            py::arg("value"), "A MemoryBudget from a budget, byte count or text.")
        .def("__repr__", [](const MemoryResourceInfo& r) {
            return fmt::format("MemoryResource(name=\"{}\", total_bytes={}, available_bytes={}, "
                               "source={})",
                               r.name, rust_option(r.total), rust_option(r.available),
                               source_variant(r.capacity_source));
        });

    py::class_<MemoryStateInfo, std::shared_ptr<MemoryStateInfo>>(
        module, "MemoryState",
        "The host memory (from /proc/meminfo) and any device capacities declared with "
        "override_device_capacity, as laddu's MemoryState. laddu_cpp keeps no reservation "
        "ledger: report() has no reserved or high-water bytes.")
        .def(py::init([] { return std::make_shared<MemoryStateInfo>(discover_memory_state()); }))
        .def_static("current", &current_state, "The process's shared state.")
        .def(
            "refresh", [](MemoryStateInfo& s) { s.host = discover_memory_state().host; },
            "Reads /proc/meminfo again.")
        .def(
            "override_device_capacity",
            [](MemoryStateInfo& s, const std::string& id, std::uint64_t total_bytes,
               const std::optional<std::uint64_t>& available_bytes,
               const std::optional<std::string>& name) {
                if (total_bytes == 0) {
                    throw py::value_error("total_bytes must be greater than zero");
                }
                MemoryResourceInfo device{
                    id, name.value_or(id), total_bytes,
                    std::min(available_bytes.value_or(total_bytes), total_bytes), "user"};
                const auto same = std::find_if(s.devices.begin(), s.devices.end(),
                                               [&](const auto& d) { return d.id == id; });
                if (same != s.devices.end()) {
                    *same = device;
                } else {
                    s.devices.push_back(device);
                }
            },
            py::arg("id"), py::arg("total_bytes"), py::kw_only(),
            py::arg("available_bytes") = std::nullopt, py::arg("name") = std::nullopt,
            "Declares a device's capacity (laddu_cpp runs nothing on it).")
        .def_property_readonly("host", [](const MemoryStateInfo& s) { return s.host; })
        .def_property_readonly("devices", [](const MemoryStateInfo& s) { return s.devices; })
        .def("report", &memory_state_report,
             "{'resources': [{'id', 'name', 'total_bytes', 'available_bytes', "
             "'capacity_source'}] sorted by id, 'process': {'resident_bytes', 'virtual_bytes', "
             "'sampled_high_water_bytes'} or None}.");
}

}  // namespace laddu::python
