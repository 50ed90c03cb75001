#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/likelihood/term.hpp>

namespace laddu::likelihood {

std::vector<std::string> Term::parameter_names() const {
    std::vector<std::string> names;
    names.reserve(parameters().size());
    for (const expr::Parameter& p : parameters()) {
        names.push_back(p.name);
    }
    return names;
}

void check_parameter_count(const std::string& term, std::size_t expected, std::size_t got) {
    if (expected != got) {
        throw EvaluationError(fmt::format("'{}' takes {} parameter values but was given {}; pass "
                                          "one value per parameter_names() entry",
                                          term, expected, got));
    }
}

}  // namespace laddu::likelihood
