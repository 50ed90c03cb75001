// Helpers of the channel-generation tests: an edge with a bare mass, and a check that a call
// throws a ModelError naming something.
#pragma once

#include <optional>
#include <string>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/physics/channel.hpp>

namespace laddu::generation::testing {

/// An edge called `name` with a particle of `mass` only (none: no particle).
inline physics::Edge edge(const std::string& name, std::optional<double> mass, bool output = true) {
    physics::Edge e{.name = name, .output = output};
    if (mass) {
        physics::ParticleProperties p;
        p.mass = *mass;
        e.particle = p;
    }
    return e;
}

/// Fails unless `f()` throws a ModelError whose message contains `name`.
template <typename F>
void expect_model_error_naming(F&& f, const std::string& name) {
    try {
        f();
        ADD_FAILURE() << "no ModelError";
    } catch (const ModelError& error) {
        EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
    }
}

}  // namespace laddu::generation::testing
