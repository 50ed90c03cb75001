#include "cli_common.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <new>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/base/expected.hpp>
#include <laddu/runtime/execution.hpp>
#include <laddu/runtime/thread_pool.hpp>
#if LADDU_HAVE_DISTRIBUTED
#include <laddu/distributed/mpi_context.hpp>
#endif

#include <nlohmann/json.hpp>

namespace laddu::cli {

std::string ArgReader::value(std::string_view option) {
    if (!more()) {
        throw UsageError(
            fmt::format("option {} needs a value (see laddu-cpp {} --help)", option, command_));
    }
    return std::string(next());
}

UsageError ArgReader::unknown(std::string_view arg) const {
    return UsageError(fmt::format("unknown option '{}' (see laddu-cpp {} --help)", arg, command_));
}

std::uint64_t parse_integer(std::string_view option, std::string_view text, std::uint64_t min,
                            std::uint64_t max) {
    const auto fail = [&](std::string_view why) {
        return UsageError(fmt::format("{} needs an integer from {} to {}, got '{}' ({})", option,
                                      min, max, text, why));
    };
    if (text.empty()) {
        throw fail("empty");
    }
    if (text.front() == '-') {
        throw fail("negative");
    }
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) {
        throw fail("too large");
    }
    if (ec != std::errc() || end != text.data() + text.size()) {
        throw fail("not a whole decimal number");
    }
    if (value < min) {
        throw fail("too small");
    }
    if (value > max) {
        throw fail("too large");
    }
    return value;
}

std::size_t parse_count(std::string_view option, std::string_view text, std::uint64_t max) {
    return static_cast<std::size_t>(parse_integer(option, text, 1, max));
}

std::size_t parse_threads(std::string_view option, std::string_view text) {
    return static_cast<std::size_t>(parse_integer(option, text, 1, runtime::kMaxThreads));
}

std::uint64_t parse_seed(std::string_view option, std::string_view text) {
    return parse_integer(option, text, 0, std::numeric_limits<std::uint64_t>::max());
}

double parse_number(std::string_view option, std::string_view text) {
    double value = 0.0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
        throw UsageError(fmt::format("{} needs a finite number, got '{}'", option, text));
    }
    return value;
}

std::vector<std::size_t> parse_indices(std::string_view option, std::string_view text) {
    std::vector<std::size_t> out;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        const std::size_t end = std::min(text.find(',', begin), text.size());
        out.push_back(static_cast<std::size_t>(parse_integer(
            option, text.substr(begin, end - begin), 0, std::numeric_limits<std::size_t>::max())));
        begin = end + 1;
    }
    return out;
}

namespace {

std::string format_bytes(double bytes) {
    static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    std::size_t unit = 0;
    while (bytes >= 1024.0 && unit + 1 < std::size(kUnits)) {
        bytes /= 1024.0;
        ++unit;
    }
    return fmt::format("{:.1f} {}", bytes, kUnits[unit]);
}

}  // namespace

void check_memory(std::string_view option, std::uint64_t count, std::uint64_t bytes_each,
                  std::string_view remedy) {
    const Expected<std::size_t> available = runtime::available_host_memory();
    if (!available) {
        return;
    }
    // In double: the product may exceed 64 bits.
    const double need = static_cast<double>(count) * static_cast<double>(bytes_each);
    if (need > static_cast<double>(*available)) {
        throw UsageError(fmt::format("{} {} needs about {} of memory ({} bytes per event) but {} "
                                     "is available; {}",
                                     option, count, format_bytes(need), bytes_each,
                                     format_bytes(static_cast<double>(*available)), remedy));
    }
}

std::map<std::string, double> parse_params(const std::string& spec) {
    std::map<std::string, double> values;
    if (std::filesystem::exists(spec) || spec.ends_with(".json")) {
        std::ifstream in(spec);
        if (!in) {
            throw UsageError(fmt::format("--params: cannot open '{}'", spec));
        }
        nlohmann::json json;
        try {
            json = nlohmann::json::parse(in);
        } catch (const nlohmann::json::exception& e) {
            throw UsageError(fmt::format("--params: '{}' is not valid JSON: {}", spec, e.what()));
        }
        // `laddu-cpp fit --json` output: {"parameters": {name: {"value": v, ...}}, "fixed": ...}.
        if (json.is_object() && json.contains("parameters") && json["parameters"].is_object()) {
            for (const auto& [name, entry] : json["parameters"].items()) {
                values[name] = entry.at("value").get<double>();
            }
            return values;
        }
        if (!json.is_object()) {
            throw UsageError(fmt::format("--params: '{}' must hold a JSON object", spec));
        }
        for (const auto& [name, value] : json.items()) {
            if (!value.is_number()) {
                throw UsageError(
                    fmt::format("--params: '{}': the value of '{}' is not a number", spec, name));
            }
            values[name] = value.get<double>();
        }
        return values;
    }
    std::size_t begin = 0;
    while (begin < spec.size()) {
        const std::size_t end = std::min(spec.find(',', begin), spec.size());
        const std::string item = spec.substr(begin, end - begin);
        const std::size_t eq = item.find('=');
        std::size_t used = 0;
        double value = 0.0;
        try {
            value = eq == std::string::npos ? 0.0 : std::stod(item.substr(eq + 1), &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (eq == std::string::npos || eq == 0 || used == 0 || used != item.size() - eq - 1) {
            throw UsageError(fmt::format(
                "--params: expected name=value[,name=value...] or a JSON file, got '{}'", item));
        }
        values[item.substr(0, eq)] = value;
        begin = end + 1;
    }
    return values;
}

ModelPoint apply_params(const expr::Model& model, const std::map<std::string, double>& values) {
    expr::Model out = model;
    for (const auto& [name, value] : values) {
        if (!model.parameters().contains(name)) {
            throw ModelError(fmt::format("unknown parameter '{}' in --params (the model has: {})",
                                         name, fmt::join(model.parameters().names(), ", ")));
        }
        if (model.parameters().parameters()[model.parameters().index_of(name)].is_fixed()) {
            out = out.fix(name, value);
        }
    }
    std::vector<double> free = out.parameters().free_defaults();
    const std::vector<std::string> names = out.parameters().free_names();
    for (std::size_t k = 0; k < names.size(); ++k) {
        if (const auto found = values.find(names[k]); found != values.end()) {
            free[k] = found->second;
        }
    }
    return {out, free};
}

ModelPoint apply_params(const expr::Model& model, const std::string& params) {
    return apply_params(model,
                        params.empty() ? std::map<std::string, double>{} : parse_params(params));
}

int run_command(const std::string& command, const std::function<int()>& body) {
    // One line, whatever the message holds. Under mpirun a failing rank then ends the whole
    // job: returning would leave it in MPI_Finalize while the other ranks wait for it in a
    // collective.
    const auto fail = [&](std::string message, int exit_code) {
        std::replace(message.begin(), message.end(), '\n', ' ');
        std::fflush(stdout);
        std::fprintf(stderr, "laddu-cpp %s: %s\n", command.c_str(), message.c_str());
#if LADDU_HAVE_DISTRIBUTED
        distributed::abort_parallel_job(exit_code, message);
#endif
        return exit_code;
    };
    int code = kExitOk;
    try {
        code = body();
    } catch (const InternalError& e) {
        return fail(fmt::format("internal error (please report it): {}", e.what()), kExitInternal);
    } catch (const std::bad_alloc&) {
        return fail(
            "out of memory; use smaller inputs (fewer events) or a machine with more memory",
            kExitError);
    } catch (const std::exception& e) {
        return fail(e.what(), kExitError);
    } catch (...) {
        return fail("internal error (please report it): an exception that is not a std::exception",
                    kExitInternal);
    }
    // stdout redirected to a full disk: the results are lost, which must not look like success.
    if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
        const int error = errno;
        std::fprintf(stderr, "laddu-cpp %s: cannot write standard output: %s\n", command.c_str(),
                     std::strerror(error));
        return kExitError;
    }
    return code;
}

}  // namespace laddu::cli
