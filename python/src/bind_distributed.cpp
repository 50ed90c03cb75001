// MPI from Python: ld.Execution(..., mpi=True, partitioning="contiguous"|"rows"|"file_groups")
// shares the events of every model prepared with it across the ranks of mpirun, and ld.mpi
// tells a script where it runs (ld.mpi.rank(), ld.mpi.size(), ld.mpi.is_root()). Every rank
// runs the same script and builds the same likelihood; values and gradients are identical on
// every rank and equal, bit for bit, to one process. Without MPI in the build, mpi=True raises
// ld.BackendError and ld.mpi reports a world of one.
//
// Under mpirun with more than one rank, an uncaught Python exception on any rank ends the whole
// job (the traceback printed, then MPI_Abort), as `python -m mpi4py` does: otherwise that rank
// would wait in MPI_Finalize at exit while the others wait for it in a collective.
#include <string>

#include <pybind11/pybind11.h>

#include <laddu/base/error.hpp>
#include <laddu/runtime/execution.hpp>
#if LADDU_HAVE_DISTRIBUTED
#include <laddu/distributed/mpi_collective.hpp>
#include <laddu/distributed/mpi_context.hpp>
#include <laddu/distributed/partition.hpp>
#endif

#include "bindings.hpp"

namespace py = pybind11;

namespace laddu::python {

#if LADDU_HAVE_DISTRIBUTED
namespace {

// The world, with sys.excepthook chained to end every rank after printing the traceback.
const distributed::MpiContext& world() {
    const distributed::MpiContext& context = distributed::MpiContext::world();
    static bool hooked = false;  // guarded by the GIL
    if (!hooked && context.size() > 1) {
        hooked = true;
        py::module_ sys = py::module_::import("sys");
        const py::object previous = sys.attr("excepthook");
        sys.attr("excepthook") = py::cpp_function(
            [previous](const py::object& type, const py::object& value, const py::object& trace) {
                previous(type, value, trace);
                py::module_::import("sys").attr("stderr").attr("flush")();
                const std::string name = py::str(type.attr("__name__"));
                const std::string text = py::str(value);
                distributed::abort_parallel_job(1,
                                                "uncaught Python exception " + name + ": " + text);
            });
    }
    return context;
}

}  // namespace
#endif

std::pair<int, int> mpi_rank_and_size() {
#if LADDU_HAVE_DISTRIBUTED
    if (distributed::parallel_job_running()) {
        const distributed::MpiContext& context = distributed::MpiContext::world();
        return {context.rank(), context.size()};
    }
#endif
    return {0, 1};
}

void apply_mpi(runtime::Execution& execution, bool mpi, const std::string& partitioning) {
    if (partitioning != "contiguous" && partitioning != "rows" && partitioning != "file_groups") {
        throw ModelError("partitioning must be 'contiguous', 'rows' or 'file_groups', got '" +
                         partitioning + "'");
    }
    if (!mpi) {
        return;
    }
#if LADDU_HAVE_DISTRIBUTED
    (void)world();
    execution.collective =
        distributed::mpi_collective(distributed::parse_partitioning(partitioning));
#else
    (void)execution;
    throw BackendError("Execution(mpi=True): this laddu_cpp was built without MPI; install "
                       "libopenmpi-dev and rebuild");
#endif
}

int mpi_local_rank() {
#if LADDU_HAVE_DISTRIBUTED
    return world().local_rank();
#else
    return 0;
#endif
}

void bind_distributed(py::module_& module) {
    py::module_ mpi = module.def_submodule(
        "mpi", "The MPI world this process runs in (a world of one without mpirun).");
#if LADDU_HAVE_DISTRIBUTED
    mpi.def(
        "rank", [] { return world().rank(); },
        "This process's rank (0 without mpirun). The first call initialises MPI.");
    mpi.def("size", [] { return world().size(); }, "The number of ranks (1 without mpirun).");
    mpi.def(
        "local_rank", [] { return world().local_rank(); },
        "This process's rank among the ranks on its host (laddu-cpp; 0 without mpirun): "
        "Execution('gpu', mpi=True) takes GPU local_rank % n_gpus by default.");
    mpi.def(
        "is_root", [] { return world().is_root(); },
        "True on rank 0, the rank that should print and write files.");
    mpi.def("barrier", [] { world().barrier(); }, "Waits for every rank.");
    mpi.def(
        "abort",
        [](int exit_code, const std::string& message) {
            distributed::abort_parallel_job(exit_code, message);
        },
        py::arg("exit_code") = 1, py::arg("message") = "ld.mpi.abort() called",
        "Ends every rank of the job (MPI_Abort) after printing `message`; does nothing in a world "
        "of one.");
    mpi.attr("available") = true;
#else
    mpi.def("rank", [] { return 0; }, "0: built without MPI.");
    mpi.def("size", [] { return 1; }, "1: built without MPI.");
    mpi.def("local_rank", [] { return 0; }, "0: built without MPI.");
    mpi.def("is_root", [] { return true; }, "True: built without MPI.");
    mpi.def("barrier", [] {}, "Nothing to wait for: built without MPI.");
    mpi.def(
        "abort", [](int /*exit_code*/, const std::string& /*message*/) {}, py::arg("exit_code") = 1,
        py::arg("message") = "ld.mpi.abort() called", "Nothing to end: built without MPI.");
    mpi.attr("available") = false;
#endif

    py::class_<runtime::Execution> execution =
        py::reinterpret_borrow<py::class_<runtime::Execution>>(module.attr("Execution"));
    execution.def_property_readonly(
        "mpi", [](const runtime::Execution& e) { return e.collective != nullptr; },
        "True when models prepared with this Execution share their events across MPI ranks.");
}

}  // namespace laddu::python
