// Helpers shared by the data stage's tests: scratch directories (tests/support), file bytes, the
// message of the DataError a call throws, and bit-for-bit dataset comparison.
#pragma once

#include <bit>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/dataset.hpp>

#include "scratch_dir.hpp"

namespace laddu::data::testing {

using laddu::testing::ScratchDir;

inline std::vector<std::uint8_t> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
}

/// The message of the DataError `f` throws (a test failure, and "", when it throws none).
template <typename F>
std::string data_error(F&& f) {
    try {
        f();
    } catch (const DataError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected DataError";
    return {};
}

/// `b` holds `a`'s events bit for bit (after rounding `a` to float when `as_float`).
inline void expect_same_events(const Dataset& a, const Dataset& b, bool as_float) {
    ASSERT_EQ(a.size(), b.size());
    ASSERT_EQ(a.schema(), b.schema());
    for (std::size_t c = 0; c < a.schema().n_batch_columns(); ++c) {
        const auto x = a.batch().column_at(c);
        const auto y = b.batch().column_at(c);
        for (std::size_t i = 0; i < x.size(); ++i) {
            const double want = as_float ? static_cast<double>(static_cast<float>(x[i])) : x[i];
            ASSERT_EQ(std::bit_cast<std::uint64_t>(want), std::bit_cast<std::uint64_t>(y[i]))
                << "column " << c << " row " << i;
        }
    }
}

}  // namespace laddu::data::testing
