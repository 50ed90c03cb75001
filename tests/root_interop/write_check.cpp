// laddu-cpp side of the ROOT writer interop test (test_root_writer.py drives it).
//
//   root_write_check DIR   writes DIR/CODEC_PRECISION.root for every codec (none, zlib, lz4,
//                          zstd) and precision (f64, f32): a TTree "events" of 10,000 entries in
//                          baskets of 3,000 whose values are exact rationals (value(column, i)
//                          below), so the readers can recompute them bit for bit.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <laddu/base/error.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/data/root.hpp>

namespace {

using namespace laddu::data;  // NOLINT(google-build-using-namespace): a test driver

constexpr std::size_t kEntries = 10000;

// Column c of entry i: correctly rounded in every IEEE implementation (test_root_writer.py).
double value(std::size_t c, std::size_t i) {
    const auto x = static_cast<double>(i);
    return (x - 5000.0 + static_cast<double>(c)) / static_cast<double>(c + 3);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: root_write_check DIR\n");
        return 2;
    }
    try {
        std::vector<std::vector<double>> columns(6, std::vector<double>(kEntries));
        for (std::size_t c = 0; c < columns.size(); ++c) {
            for (std::size_t i = 0; i < kEntries; ++i) {
                columns[c][i] = value(c, i);
            }
        }
        const P4Input p4s[] = {{"beam", columns[0], columns[1], columns[2], columns[3]}};
        const ScalarInput scalars[] = {{"pol_angle", columns[4]}};
        const Dataset events = Dataset::from_arrays(p4s, scalars, columns[5]);
        const std::pair<const char*, RootCompression> codecs[] = {{"none", RootCompression::kNone},
                                                                  {"zlib", RootCompression::kZlib},
                                                                  {"lz4", RootCompression::kLz4},
                                                                  {"zstd", RootCompression::kZstd}};
        for (const auto& [codec_name, codec] : codecs) {
            for (const bool f32 : {false, true}) {
                RootWriteOptions options;
                options.tree = "events";
                options.compression = codec;
                options.compression_level = codec == RootCompression::kLz4 ? 9 : 1;
                options.precision = f32 ? ColumnType::kFloat32 : ColumnType::kFloat64;
                options.entries_per_basket = 3000;
                const std::string name =
                    std::string(codec_name) + (f32 ? "_f32.root" : "_f64.root");
                write_root(events, (std::filesystem::path(argv[1]) / name).string(), options);
            }
        }
    } catch (const laddu::Error& error) {
        std::fprintf(stderr, "root_write_check: %s\n", error.what());
        return 1;
    }
    return 0;
}
