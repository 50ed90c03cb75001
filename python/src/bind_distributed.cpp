// MPI from Python: ld.Execution(..., mpi=True, partitioning="contiguous"|"rows"|"file_groups")
// shares the events of every model prepared with it across the ranks of mpirun, and ld.mpi
// tells a script where it runs (ld.mpi.rank(), ld.mpi.size(), ld.mpi.is_root()). Every rank
// runs the same script and builds the same likelihood; values and gradients are identical on
// every rank and equal, bit for bit, to one process. Without MPI in the build, mpi=True raises
// ld.BackendError and ld.mpi reports a world of one.
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

void apply_mpi(runtime::Execution& execution, bool mpi, const std::string& partitioning) {
    if (partitioning != "contiguous" && partitioning != "rows" && partitioning != "file_groups") {
        throw ModelError("partitioning must be 'contiguous', 'rows' or 'file_groups', got '" +
                         partitioning + "'");
    }
    if (!mpi) {
        return;
    }
#if LADDU_HAVE_DISTRIBUTED
    execution.collective =
        distributed::mpi_collective(distributed::parse_partitioning(partitioning));
#else
    (void)execution;
    throw BackendError("Execution(mpi=True): this laddu_cpp was built without MPI; install "
                       "libopenmpi-dev and rebuild");
#endif
}

void bind_distributed(py::module_& module) {
    py::module_ mpi = module.def_submodule(
        "mpi", "The MPI world this process runs in (a world of one without mpirun).");
#if LADDU_HAVE_DISTRIBUTED
    mpi.def(
        "rank", [] { return distributed::MpiContext::world().rank(); },
        "This process's rank (0 without mpirun). The first call initialises MPI.");
    mpi.def(
        "size", [] { return distributed::MpiContext::world().size(); },
        "The number of ranks (1 without mpirun).");
    mpi.def(
        "is_root", [] { return distributed::MpiContext::world().is_root(); },
        "True on rank 0, the rank that should print and write files.");
    mpi.def("barrier", [] { distributed::MpiContext::world().barrier(); }, "Waits for every rank.");
    mpi.attr("available") = true;
#else
    mpi.def("rank", [] { return 0; }, "0: built without MPI.");
    mpi.def("size", [] { return 1; }, "1: built without MPI.");
    mpi.def("is_root", [] { return true; }, "True: built without MPI.");
    mpi.def("barrier", [] {}, "Nothing to wait for: built without MPI.");
    mpi.attr("available") = false;
#endif

    py::class_<runtime::Execution> execution =
        py::reinterpret_borrow<py::class_<runtime::Execution>>(module.attr("Execution"));
    execution.def_property_readonly(
        "mpi", [](const runtime::Execution& e) { return e.collective != nullptr; },
        "True when models prepared with this Execution share their events across MPI ranks.");
}

}  // namespace laddu::python
