// The ROOT reader on files the tests write (test_writer.hpp) and on damaged copies of them:
// values, projection, ranges, fragments, decompression blocks, and DataError for every damage.
#include <cmath>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/data/read_events.hpp>
#include <laddu/data/root.hpp>

#include "../../test_util.hpp"
#include "compression.hpp"
#include "test_writer.hpp"
#include <lz4.h>
#include <lzma.h>
#include <zstd.h>

namespace laddu::data::root {
namespace {

using testing::Bytes;
using ::testing::HasSubstr;
using testing::Layout;
using testing::TestBranch;

std::vector<TestBranch> event_branches(std::size_t entries) {
    std::vector<TestBranch> out;
    for (const char* name : {"beam_e", "beam_px", "beam_py", "beam_pz"}) {
        TestBranch branch{name, false, {}};
        for (std::size_t i = 0; i < entries; ++i) {
            branch.values.push_back(std::sin(static_cast<double>(i) + name[5]) * 10.0);
        }
        out.push_back(branch);
    }
    TestBranch weight{"weight", true, {}};
    for (std::size_t i = 0; i < entries; ++i) {
        weight.values.push_back(0.5 + static_cast<double>(i % 3));
    }
    out.push_back(weight);
    return out;
}

std::string error_of(const std::string& path) {
    try {
        const RootSource source({path});
        (void)read_all(source);
    } catch (const DataError& error) {
        return error.what();
    }
    return "";
}

std::string write(const data::testing::ScratchDir& dir, const std::string& name,
                  const Bytes& bytes) {
    const std::string path = dir.file(name);
    data::testing::write_bytes(path, bytes);
    return path;
}

TEST(RootReader, ReadsValuesOfEveryBasketStoredOrZlib) {
    const data::testing::ScratchDir dir;
    const std::vector<TestBranch> branches = event_branches(7);
    for (const bool zlib : {false, true}) {
        const std::string path =
            write(dir, "t.root", testing::write_tree(branches, 3, {.zlib = zlib}));
        const RootSource source({path});
        EXPECT_EQ(source.num_events(), 7U);
        EXPECT_EQ(source.tree_name(), "events");
        EXPECT_EQ(source.schema().p4_names(), std::vector<std::string>{"beam"});
        EXPECT_TRUE(source.schema().has_weight());
        EXPECT_EQ(source.fragment_sizes(), (std::vector<std::size_t>{3, 3, 1}));
        ReadPlan plan;
        plan.chunk_size = 2;
        std::vector<std::vector<double>> columns(5);
        for (const EventBatch& batch : read_all(source, plan)) {
            EXPECT_LE(batch.size(), 2U);
            for (std::size_t c = 0; c < 5; ++c) {
                const auto values = batch.column_at(c);
                columns[c].insert(columns[c].end(), values.begin(), values.end());
            }
        }
        for (std::size_t c = 0; c < 5; ++c) {
            std::vector<double> expected = branches[c].values;
            if (branches[c].is_float) {
                for (double& v : expected) {
                    v = static_cast<double>(static_cast<float>(v));
                }
            }
            EXPECT_EQ(columns[c], expected) << c;
        }
    }
}

TEST(RootReader, ReadsRangesAcrossBaskets) {
    const data::testing::ScratchDir dir;
    const std::vector<TestBranch> branches = event_branches(10);
    const std::string path = write(dir, "t.root", testing::write_tree(branches, 4, {.zlib = true}));
    const RootSource source({path, path});
    EXPECT_EQ(source.num_events(), 20U);
    ReadPlan plan;
    plan.ranges = {{2, 5}, {9, 13}};
    std::vector<double> px;
    for (const EventBatch& batch : read_all(source, plan)) {
        const auto values = batch.column_at(1);
        px.insert(px.end(), values.begin(), values.end());
    }
    const std::vector<double>& all = branches[1].values;
    EXPECT_EQ(px, (std::vector<double>{all[2], all[3], all[4], all[9], all[0], all[1], all[2]}));
    EXPECT_EQ(read_root(path).size(), 10U);
}

TEST(RootReader, TruncatedFilesAreDataErrors) {
    const data::testing::ScratchDir dir;
    const Bytes good = testing::write_tree(event_branches(6), 2, {.zlib = true});
    for (std::size_t size = 0; size < good.size(); size += 7) {
        const Bytes cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(size));
        EXPECT_THAT(error_of(write(dir, "cut.root", cut)), HasSubstr("cut.root")) << size;
    }
}

TEST(RootReader, EveryFlippedByteIsHandled) {
    // A flipped byte may still give a readable file (a value changes); it must never crash.
    const data::testing::ScratchDir dir;
    const Bytes good = testing::write_tree(event_branches(6), 2, {.zlib = true});
    // Every byte of the header, directory and first basket key, then every third one (each
    // case writes a file, which is slow on a busy disk).
    for (std::size_t at = 0; at < good.size(); at += at < 400 ? 1 : 3) {
        Bytes bad = good;
        bad[at] ^= 0xA5;
        (void)error_of(write(dir, "flip.root", bad));
    }
}

TEST(RootReader, ErrorsNameTheObjectAndOffset) {
    const data::testing::ScratchDir dir;
    Layout layout;
    Bytes bytes = testing::write_tree(event_branches(4), 2, {}, &layout);
    Bytes bad = bytes;
    bad[0] = 'x';
    EXPECT_THAT(error_of(write(dir, "a.root", bad)), HasSubstr("not a ROOT file"));
    const Bytes old_tree = testing::write_tree(event_branches(4), 2, {.tree_version = 99});
    EXPECT_THAT(error_of(write(dir, "b.root", old_tree)), HasSubstr("TTree class version 99"));
    bad = bytes;
    bad[layout.first_basket + 3] ^= 0x10;  // fNbytes of the first basket
    const std::string message = error_of(write(dir, "c.root", bad));
    EXPECT_THAT(message, HasSubstr("basket 0 of branch 'beam_e'"));
    EXPECT_THAT(message, HasSubstr(fmt::format("byte {}", layout.first_basket)));
    EXPECT_THAT(error_of(dir.file("missing.root")), HasSubstr("cannot open ROOT file"));
}

TEST(RootReader, TreeSelection) {
    const data::testing::ScratchDir dir;
    const std::string path = write(dir, "t.root", testing::write_tree(event_branches(3), 2));
    RootReadOptions options;
    options.tree = "events";
    EXPECT_EQ(RootSource({path}, options).num_events(), 3U);
    options.tree = "other";
    EXPECT_THROW(RootSource({path}, options), DataError);
    options.tree = "dir/events";
    EXPECT_THROW(RootSource({path}, options), DataError);
}

TEST(RootReader, ProjectionReadsOnlyTheNamedColumns) {
    const data::testing::ScratchDir dir;
    std::vector<TestBranch> branches = event_branches(9);
    branches.push_back({"mass", false, std::vector<double>(9, 1.5), 0});
    const std::string path = write(dir, "t.root", testing::write_tree(branches, 4));
    const RootSource source({path});
    EXPECT_EQ(source.schema().scalar_names(), std::vector<std::string>{"mass"});
    ReadPlan plan;
    plan.columns = {"mass"};
    const std::vector<EventBatch> batches = read_all(source, plan);
    ASSERT_FALSE(batches.empty());
    EXPECT_EQ(batches[0].schema().n_p4s(), 0U);
    EXPECT_EQ(batches[0].scalar(0)[0], 1.5);
    EXPECT_GT(source.stream_buffer_bytes(plan), 0U);
    EXPECT_LT(source.stream_buffer_bytes(plan), source.stream_buffer_bytes({}));
}

TEST(RootReader, FragmentsAreWhereEveryColumnsBasketsStart) {
    const data::testing::ScratchDir dir;
    std::vector<TestBranch> branches = event_branches(12);
    branches[1].per_basket = 6;  // baskets at 0, 6; the others at 0, 4, 8
    const std::string path = write(dir, "t.root", testing::write_tree(branches, 4));
    const RootSource source({path});
    EXPECT_EQ(source.fragment_sizes(), (std::vector<std::size_t>{12}));
    ReadPlan plan;
    plan.chunk_size = 5;
    std::vector<double> px;
    for (const EventBatch& batch : read_all(source, plan)) {
        const auto values = batch.column_at(1);
        px.insert(px.end(), values.begin(), values.end());
    }
    EXPECT_EQ(px, branches[1].values);
}

TEST(RootReader, ReadsTheBigFileLayout) {
    const data::testing::ScratchDir dir;
    const std::vector<TestBranch> branches = event_branches(5);
    const std::string path =
        write(dir, "big.root", testing::write_tree(branches, 2, {.zlib = true, .big = true}));
    const Dataset events = read_root(path);
    ASSERT_EQ(events.size(), 5U);
}

TEST(RootReader, UnreadableBranchesAreSkippedUnlessNeeded) {
    const data::testing::ScratchDir dir;
    // The first branch (beam_e) gets two leaves: beam cannot be complete without it.
    const std::string list =
        write(dir, "list.root", testing::write_tree(event_branches(4), 2, {.leaf_list = true}));
    EXPECT_THAT(error_of(list), HasSubstr("branch 'beam_e': by its name it is a component of "
                                          "four-momentum 'beam', but it has 2 leaves"));
    const std::string embedded =
        write(dir, "embedded.root", testing::write_tree(event_branches(4), 2, {.unwritten = 1}));
    EXPECT_THAT(error_of(embedded), HasSubstr("basket kept inside the TTree, but there is none"));
    const std::string old_branch =
        write(dir, "branch.root", testing::write_tree(event_branches(4), 2, {.branch_version = 9}));
    EXPECT_THAT(error_of(old_branch), HasSubstr("TBranch class version 9 is not supported"));
}

// A branch name the schema cannot take (empty, or one name twice) is a DataError naming the file.
TEST(RootReader, BranchNamesTheSchemaCannotTakeNameTheFile) {
    const data::testing::ScratchDir dir;
    std::vector<TestBranch> empty_name = event_branches(4);
    empty_name.back().name = "";
    const std::string empty = write(dir, "empty.root", testing::write_tree(empty_name, 2));
    EXPECT_THAT(error_of(empty), HasSubstr("ROOT file '" + empty + "' (tree 'events'): empty"));
    std::vector<TestBranch> repeated = event_branches(4);
    const TestBranch scalar{"t", true, {1.0, 2.0, 3.0, 4.0}};
    repeated.push_back(scalar);
    repeated.push_back(scalar);
    const std::string twice = write(dir, "twice.root", testing::write_tree(repeated, 2));
    EXPECT_THAT(error_of(twice), HasSubstr("ROOT file '" + twice + "' (tree 'events'): duplicate"));
}

// ---- decompression blocks ----

Bytes block(const char* algorithm, const Bytes& packed, std::size_t size) {
    Bytes out{static_cast<std::uint8_t>(algorithm[0]), static_cast<std::uint8_t>(algorithm[1]), 1};
    for (const std::size_t s : {packed.size(), size}) {
        for (int i = 0; i < 3; ++i) {
            out.push_back(static_cast<std::uint8_t>(s >> (8 * i)));
        }
    }
    out.insert(out.end(), packed.begin(), packed.end());
    return out;
}

Bytes payload(std::size_t size) {
    Bytes out(size);
    for (std::size_t i = 0; i < size; ++i) {
        out[i] = static_cast<std::uint8_t>((i * 7) % 13);
    }
    return out;
}

const ErrorSite kSite{"f.root", "object", true, 1000};

TEST(RootCompression, Xxh64MatchesTheReference) {
    const std::string abc = "abc";
    EXPECT_EQ(xxh64({}), 0xef46db3751d8e999ULL);
    EXPECT_EQ(xxh64({reinterpret_cast<const std::uint8_t*>(abc.data()), 3}), 0x44bc2cf5ad770999ULL);
    Bytes hundred(100);
    for (std::size_t i = 0; i < 100; ++i) {
        hundred[i] = static_cast<std::uint8_t>(i);
    }
    EXPECT_EQ(xxh64(hundred), 0x6ac1e58032166597ULL);
}

TEST(RootCompression, DecodesEveryAlgorithmInSeveralBlocks) {
    const Bytes data = payload(3000);
    const Bytes first(data.begin(), data.begin() + 1000);
    const Bytes second(data.begin() + 1000, data.end());
    // zstd block then lz4 block (with its checksum), then the same with zlib and xz.
    Bytes z(ZSTD_compressBound(first.size()));
    z.resize(ZSTD_compress(z.data(), z.size(), first.data(), first.size(), 3));
    Bytes l(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(second.size()))));
    l.resize(static_cast<std::size_t>(LZ4_compress_default(
        reinterpret_cast<const char*>(second.data()), reinterpret_cast<char*>(l.data()),
        static_cast<int>(second.size()), static_cast<int>(l.size()))));
    Bytes checked;
    const std::uint64_t sum = xxh64(l);
    for (int i = 7; i >= 0; --i) {
        checked.push_back(static_cast<std::uint8_t>(sum >> (8 * i)));
    }
    checked.insert(checked.end(), l.begin(), l.end());
    Bytes stream = block("ZS", z, first.size());
    const Bytes lz4_block = block("L4", checked, second.size());
    stream.insert(stream.end(), lz4_block.begin(), lz4_block.end());
    EXPECT_EQ(decompress(stream, data.size(), kSite), data);

    Bytes x(lzma_stream_buffer_bound(data.size()));
    std::size_t x_size = 0;
    ASSERT_EQ(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, data.data(), data.size(),
                                      x.data(), &x_size, x.size()),
              LZMA_OK);
    x.resize(x_size);
    EXPECT_EQ(decompress(block("XZ", x, data.size()), data.size(), kSite), data);

    // A flipped checksum byte, an unknown algorithm, a short block.
    Bytes bad = stream;
    bad[stream.size() - lz4_block.size() + 9] ^= 1;
    EXPECT_THROW((void)decompress(bad, data.size(), kSite), DataError);
    bad = stream;
    bad[0] = 'C';
    bad[1] = 'S';
    try {
        (void)decompress(bad, data.size(), kSite);
        ADD_FAILURE();
    } catch (const DataError& error) {
        EXPECT_THAT(error.what(), HasSubstr("unknown compression algorithm"));
        EXPECT_THAT(error.what(), HasSubstr("byte 1000"));
    }
    EXPECT_THROW((void)decompress(Bytes(stream.begin(), stream.begin() + 20), data.size(), kSite),
                 DataError);
    EXPECT_THROW((void)decompress(stream, data.size() + 5, kSite), DataError);
}

}  // namespace
}  // namespace laddu::data::root

namespace laddu::data::root {
namespace {

TEST(ReadEvents, PicksTheReaderByExtension) {
    const data::testing::ScratchDir dir;
    const std::vector<TestBranch> branches = event_branches(5);
    const std::string root = write(dir, "t.root", testing::write_tree(branches, 2, {}));
    const std::vector<std::string> roots{root};
    const Dataset from_root = read_events(roots);
    EXPECT_EQ(from_root.size(), 5U);
    const auto weights = [](const Dataset& d) {
        return std::vector<double>(d.weights().begin(), d.weights().end());
    };
    EXPECT_EQ(weights(from_root), weights(read_root(root)));
    const std::string parquet = dir.file("t.parquet");
    write_parquet(from_root, parquet);
    const std::vector<std::string> parquets{parquet};
    EXPECT_EQ(weights(read_events(parquets)), weights(from_root));
    const std::vector<std::string> mixed{root, parquet};
    try {
        (void)read_events(mixed);
        FAIL() << "expected DataError";
    } catch (const DataError& error) {
        EXPECT_THAT(error.what(), HasSubstr("1 of the 2 files are ROOT files"));
    }
}

}  // namespace
}  // namespace laddu::data::root
