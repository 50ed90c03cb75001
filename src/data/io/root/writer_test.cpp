// The ROOT writer through laddu-cpp's own reader: values of every codec and precision, basket
// and cluster layout, streaming, empty trees, weights, and a DataError for every bad input
// (uproot and jsroot reading these files are python/tests/test_root_io.py).
#include <bit>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/read_events.hpp>
#include <laddu/data/root.hpp>

#include "../../test_util.hpp"
#include "root_file.hpp"
#include "streamers.hpp"

namespace laddu::data {
namespace {

using testing::data_error;
using testing::expect_same_events;

using ::testing::HasSubstr;
using testing::ScratchDir;

Dataset events(std::size_t n, bool weighted = true) {
    std::vector<double> c[6];
    for (auto& v : c) {
        v.resize(n);
    }
    for (std::size_t i = 0; i < n; ++i) {
        const auto x = static_cast<double>(i);
        c[0][i] = 8.0 + std::sin(x);
        c[1][i] = 1e-3 * x;
        c[2][i] = -std::cos(3 * x);
        c[3][i] = std::sqrt(x) / 7.0;
        c[4][i] = 0.25 * (x - 10);
        c[5][i] = i % 3 == 0 ? -0.5 : 1.0 / (1.0 + x);
    }
    const P4Input p4s[] = {{"beam", c[0], c[1], c[2], c[3]}};
    const ScalarInput scalars[] = {{"pol_angle", c[4]}};
    return Dataset::from_arrays(std::span<const P4Input>(p4s), scalars,
                                weighted ? std::span<const double>(c[5])
                                         : std::span<const double>{});
}

TEST(RootWriter, RoundTripsEveryCodecAndPrecisionInAlignedBaskets) {
    const ScratchDir dir;
    const Dataset d = events(3000);
    for (const RootCompression codec : {RootCompression::kNone, RootCompression::kZlib,
                                        RootCompression::kLz4, RootCompression::kZstd}) {
        for (const ColumnType precision : {ColumnType::kFloat64, ColumnType::kFloat32}) {
            RootWriteOptions options;
            options.compression = codec;
            options.compression_level = codec == RootCompression::kLz4 ? 9 : 3;
            options.precision = precision;
            options.entries_per_basket = 700;
            options.tree = "events";
            const std::string path = dir.file("events.root");
            write_root(d, path, options);
            const RootSource source({path});
            EXPECT_EQ(source.tree_name(), "events");
            EXPECT_EQ(source.fragment_sizes(), (std::vector<std::size_t>{700, 700, 700, 700, 200}));
            expect_same_events(d, read_root(path), precision == ColumnType::kFloat32);
        }
    }
    EXPECT_EQ(std::filesystem::directory_iterator(dir.path())->path().filename(), "events.root");
}

TEST(RootWriter, WritesTheFileStructureReadersExpect) {
    const ScratchDir dir;
    const std::string path = dir.file("s.root");
    write_root(events(10), path);
    const auto file = root::RootFile::open(path);
    ASSERT_EQ(file->keys().size(), 1U);
    EXPECT_EQ(file->keys()[0].class_name, "TTree");
    EXPECT_EQ(file->keys()[0].name, "tree");
    const std::vector<std::uint8_t> bytes = testing::read_bytes(path);
    ASSERT_GT(bytes.size(), 100U);
    EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "root");
    // fEND (bytes 12..15 of the small header) is the file's size.
    const std::uint32_t end = (std::uint32_t{bytes[12]} << 24U) |
                              (std::uint32_t{bytes[13]} << 16U) | (std::uint32_t{bytes[14]} << 8U) |
                              std::uint32_t{bytes[15]};
    EXPECT_EQ(end, bytes.size());
    EXPECT_GT(root::streamer_info_list().size(), 5000U);
    EXPECT_EQ(root::class_checksum("TTree"), 0x7264e07fU);
}

TEST(RootWriter, StreamsBatchesAcrossBasketsAndCommitsOnCloseOnly) {
    const ScratchDir dir;
    const Dataset d = events(1000);
    const std::string path = dir.file("stream.root");
    RootWriteOptions options;
    options.entries_per_basket = 128;
    options.threads = 1;
    {
        EventRootWriter writer(d.schema(), path, options);
        writer.write(d.batch().slice(0, 100));
        EXPECT_FALSE(std::filesystem::exists(path));
    }  // destroyed before close: nothing is left
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
    EventRootWriter writer(d.schema(), path, options);
    for (std::size_t at = 0; at < 1000; at += 300) {
        writer.write(d.batch().slice(at, std::min<std::size_t>(300, 1000 - at)));
    }
    EXPECT_EQ(writer.entries(), 1000U);
    writer.close();
    expect_same_events(d, read_root(path), false);
    const RootSource source({path});
    EXPECT_EQ(source.fragment_sizes().size(), 8U);
    EXPECT_THAT(data_error([&] { writer.close(); }), HasSubstr("twice"));
}

TEST(RootWriter, WritesEmptyTreesAndUnitWeights) {
    const ScratchDir dir;
    const std::string empty = dir.file("empty.root");
    write_root(events(0), empty);
    const Dataset back = read_root(empty);
    EXPECT_EQ(back.size(), 0U);
    EXPECT_EQ(back.schema().batch_column_names(), events(0).schema().batch_column_names());

    const Dataset unweighted = events(20, false);
    const std::string path = dir.file("w.root");
    write_root(unweighted, path);
    const Dataset with_weight = read_root(path);
    EXPECT_TRUE(with_weight.schema().has_weight());
    for (const double w : with_weight.batch().weights()) {
        EXPECT_EQ(w, 1.0);
    }
    RootWriteOptions options;
    options.always_write_weight = false;
    write_root(unweighted, path, options);
    expect_same_events(unweighted, read_root(path), false);
}

TEST(RootWriter, BadInputIsADataErrorWithARemedy) {
    const ScratchDir dir;
    const Dataset d = events(5);
    const std::string path = dir.file("bad.root");
    const auto with = [&](auto change) {
        RootWriteOptions options;
        change(options);
        return data_error([&] { write_root(d, path, options); });
    };
    EXPECT_THAT(with([](RootWriteOptions& o) { o.tree.clear(); }),
                HasSubstr("the tree name is empty"));
    EXPECT_THAT(with([](RootWriteOptions& o) { o.tree = "a/b"; }), HasSubstr("plain name"));
    EXPECT_THAT(with([](RootWriteOptions& o) { o.tree = std::string(40000, 't'); }),
                HasSubstr("use a shorter tree name"));
    EXPECT_THAT(with([](RootWriteOptions& o) { o.precision = ColumnType::kInt64; }),
                HasSubstr("kFloat64 or kFloat32"));
    EXPECT_THAT(with([](RootWriteOptions& o) { o.entries_per_basket = 0; }),
                HasSubstr("entries_per_basket"));
    EXPECT_THAT(with([](RootWriteOptions& o) { o.compression_level = 10; }), HasSubstr("use 1..9"));
    EXPECT_THAT(data_error([&] { write_root(d, dir.file("missing/x.root")); }),
                HasSubstr("does not exist; create it"));
    EXPECT_FALSE(std::filesystem::exists(path));
    EventRootWriter writer(d.schema(), path);
    const std::vector<double> x = {1.0, 2.0};
    const ScalarInput other[] = {{"x", x}};
    const Dataset wrong = Dataset::from_arrays(std::span<const P4Input>{}, other);
    EXPECT_THAT(data_error([&] { writer.write(wrong.batch()); }),
                HasSubstr("cannot append a batch"));
}

// 2.2 GB on disk and a few seconds: run with LADDU_BIG_FILE_TEST=1 (checked by hand; uproot and
// jsroot also read this file's last entries).
TEST(RootWriter, FilesPastTwoGigabytesUseThe64BitLayout) {
    const char* enabled = std::getenv("LADDU_BIG_FILE_TEST");
    if (enabled == nullptr || std::string(enabled) != "1") {
        GTEST_SKIP() << "set LADDU_BIG_FILE_TEST=1 to write a 2.2 GB file";
    }
    const ScratchDir dir;
    const std::string path = dir.file("big.root");
    constexpr std::size_t kStep = 1000000;
    constexpr std::size_t kTotal = 46 * kStep;  // 46e6 entries x 6 doubles: 2.2 GB
    RootWriteOptions options;
    options.compression = RootCompression::kNone;
    const Dataset first = events(kStep);
    {
        EventRootWriter writer(first.schema(), path, options);
        for (std::size_t at = 0; at < kTotal; at += kStep) {
            writer.write(first.batch());
        }
        writer.close();
    }
    EXPECT_GT(std::filesystem::file_size(path), std::uint64_t{1} << 31U);
    const std::vector<std::uint8_t> head = [&] {
        std::ifstream in(path, std::ios::binary);
        std::vector<std::uint8_t> bytes(8);
        in.read(reinterpret_cast<char*>(bytes.data()), 8);  // NOLINT: bytes of the file
        return bytes;
    }();
    EXPECT_EQ((std::uint32_t{head[4]} << 24U) | (std::uint32_t{head[5]} << 16U) |
                  (std::uint32_t{head[6]} << 8U) | std::uint32_t{head[7]},
              1062400U);  // fVersion of the big layout
    const RootSource source({path});
    ASSERT_EQ(source.num_events(), kTotal);
    ReadPlan plan;
    plan.ranges = {{kTotal - 10, kTotal}};
    std::size_t rows = 0;
    for (const EventBatch& batch : read_all(source, plan)) {
        for (std::size_t i = 0; i < batch.size(); ++i, ++rows) {
            EXPECT_EQ(batch.column_at(0)[i], first.batch().column_at(0)[kStep - 10 + rows]);
        }
    }
    EXPECT_EQ(rows, 10U);
}

}  // namespace
}  // namespace laddu::data
