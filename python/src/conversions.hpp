// Conversions shared by the bindings.
#pragma once

#include <string>
#include <string_view>

#include <pybind11/pybind11.h>

#include <laddu/expr/expr.hpp>

namespace laddu::python {

/// An ld.Expr, or a Python int, float or complex lifted to a constant; a bool or anything else
/// is a TypeError naming its type.
[[nodiscard]] expr::Expr to_expr(const pybind11::handle& value);

/// A path argument (str, bytes or os.PathLike) as the bytes os.fsencode gives (defined in
/// bind_event_data.cpp).
[[nodiscard]] std::string fs_path(const pybind11::handle& path);

/// Rust's {:?} of a string (quotes, with " and \ escaped), which laddu's reprs use.
[[nodiscard]] inline std::string debug_quoted(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            out.push_back('\\');
        }
        out.push_back(c);
    }
    return out + "\"";
}

/// The Python type name of `value` ("list", "numpy.ndarray"), for messages.
[[nodiscard]] inline std::string python_type_name(const pybind11::handle& value) {
    const pybind11::handle type = pybind11::type::handle_of(value);
    const std::string name = pybind11::str(type.attr("__qualname__"));
    const std::string module = pybind11::str(type.attr("__module__"));
    return module == "builtins" ? name : module + "." + name;
}

/// value.cast<T>(), where a value that does not convert is a TypeError "WHAT must be EXPECTED,
/// got TYPE". (pybind11's own cast_error becomes a RuntimeError naming the C++ type, which
/// tells a Python user nothing.)
template <typename T>
[[nodiscard]] T cast_arg(const pybind11::handle& value, std::string_view what,
                         std::string_view expected) {
    try {
        return value.cast<T>();
    } catch (const pybind11::cast_error&) {
        throw pybind11::type_error(std::string(what) + " must be " + std::string(expected) +
                                   ", got " + python_type_name(value));
    }
}

}  // namespace laddu::python
