// laddu_cpp._core: the compiled half of the Python package. Each stage binds itself in its own
// bind_<stage>.cpp; this file only calls them, bottom-up.
#include <pybind11/pybind11.h>

#include "bindings.hpp"

PYBIND11_MODULE(_core, module) {
    module.doc() = "laddu-cpp compiled core (import laddu_cpp instead)";
    module.attr("__version__") = LADDU_VERSION;  // CMakeLists.txt's project version
    laddu::python::bind_base(module);
    laddu::python::bind_expr(module);
    laddu::python::bind_render(module);
    laddu::python::bind_quantum(module);
    laddu::python::bind_physics(module);
    laddu::python::bind_legacy_line_shapes(module);
    laddu::python::bind_kmatrix_blocks(module);
    laddu::python::bind_data(module);
    laddu::python::bind_event_data(module);
    laddu::python::bind_histogram(module);
    laddu::python::bind_runtime(module);
    laddu::python::bind_distributed(module);
    laddu::python::bind_select(module);
    laddu::python::bind_generation(module);
    laddu::python::bind_likelihood(module);
    laddu::python::bind_fit(module);
    laddu::python::bind_sampling(module);
    laddu::python::bind_projection(module);
    laddu::python::bind_cross_section(module);
}
