// Round trips through laddu-cpp's own writer and reader (interop with independent
// implementations is tests/parquet_interop).
#include <bit>
#include <cmath>
#include <cstring>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <laddu/base/error.hpp>
#include <laddu/data/describe.hpp>
#include <laddu/data/event_data.hpp>
#include <laddu/data/parquet.hpp>

#include "../../test_util.hpp"
#include "metadata.hpp"

namespace laddu::data {
namespace {

using testing::data_error;
using testing::expect_same_events;

using ::testing::HasSubstr;
using testing::ScratchDir;

Dataset events(std::size_t n) {
    std::vector<double> c[9];
    for (auto& v : c) {
        v.resize(n);
    }
    for (std::size_t i = 0; i < n; ++i) {
        const auto x = static_cast<double>(i);
        c[0][i] = 8.0 + std::sin(x);
        c[1][i] = 0.0;
        c[2][i] = 1e-3 * x;
        c[3][i] = c[0][i];
        c[4][i] = 0.938 + std::cos(x);
        c[5][i] = std::sin(3 * x);
        c[6][i] = -std::sin(3 * x);
        c[7][i] = 1.0 / (1.0 + x);
        c[8][i] = 0.25 * (x - 10);
    }
    const P4Input p4s[] = {{"beam", c[0], c[1], c[2], c[3]}, {"proton", c[4], c[5], c[6], c[7]}};
    const ScalarInput scalars[] = {{"pol_angle", c[8]}};
    std::vector<double> w(n);
    for (std::size_t i = 0; i < n; ++i) {
        w[i] = i % 3 == 0 ? -0.5 : 1.25;
    }
    return Dataset::from_arrays(std::span<const P4Input>(p4s), scalars, w);
}

TEST(Parquet, RoundTripsEveryCodecAndPrecision) {
    const ScratchDir dir;
    const Dataset d = events(3000);
    for (const Compression codec : {Compression::kUncompressed, Compression::kSnappy,
                                    Compression::kGzip, Compression::kZstd}) {
        for (const ColumnType precision : {ColumnType::kFloat64, ColumnType::kFloat32}) {
            ParquetWriteOptions options;
            options.compression = codec;
            options.precision = precision;
            options.row_group_size = 1000;
            const std::string path = dir.file("events.parquet");
            write_parquet(d, path, options);
            const Dataset back = read_parquet(path);
            expect_same_events(d, back, precision == ColumnType::kFloat32);
            EXPECT_EQ(ParquetFileReader::open(path).num_row_groups(), 3U);
        }
    }
}

TEST(Parquet, StreamsChunksWithinRowGroupsAndProjects) {
    const ScratchDir dir;
    const Dataset d = events(50);
    ParquetWriteOptions options;
    options.row_group_size = 7;
    write_parquet(d, dir.file("e.parquet"), options);
    const ParquetSource source({dir.file("e.parquet")});
    EXPECT_EQ(source.num_events(), 50U);
    ReadPlan plan;
    plan.chunk_size = 3;
    plan.columns = {"proton"};
    std::size_t total = 0;
    const auto stream = source.read(plan);
    while (auto batch = stream->next()) {
        EXPECT_LE(batch->size(), 3U);
        EXPECT_EQ(batch->schema().p4_names(), (std::vector<std::string>{"proton"}));
        EXPECT_EQ(batch->schema().n_scalars(), 0U);
        for (std::size_t i = 0; i < batch->size(); ++i) {
            EXPECT_EQ(batch->p4_component(0, kPz)[i], d.column("proton_pz")[total + i]);
            EXPECT_EQ(batch->weights()[i], d.weights()[total + i]);
        }
        total += batch->size();
    }
    EXPECT_EQ(total, 50U);
}

TEST(Parquet, ProjectionReadsOnlyTheRequestedColumnChunks) {
    const ScratchDir dir;
    const std::vector<double> x = {1, 2, 3, 4};
    const std::vector<double> y = {5, 6, 7, 8};
    const ParquetWriteColumn columns[] = {{"x", ColumnType::kFloat64, x},
                                          {"y", ColumnType::kFloat64, y}};
    ParquetWriteOptions options;
    options.compression = Compression::kUncompressed;
    write_parquet_columns(dir.file("p.parquet"), columns, options);
    // Find y's first value; its page header sits just before it. Wreck the header's tail.
    std::vector<std::uint8_t> bytes = testing::read_bytes(dir.file("p.parquet"));
    std::size_t found = 0;
    for (std::size_t i = 4; i + 8 <= bytes.size(); ++i) {
        double v = 0;
        std::memcpy(&v, &bytes[i], 8);
        if (v == 5.0) {
            found = i;
            break;
        }
    }
    ASSERT_GT(found, 6U);
    // Overwrite y's page header (just before its values) with garbage.
    for (std::size_t i = found - 6; i < found; ++i) {
        bytes[i] = 0xFF;
    }
    testing::write_bytes(dir.file("p.parquet"), bytes);
    const Dataset only_x = Dataset::from_source(ParquetSource({dir.file("p.parquet")}),
                                                ReadPlan{kDefaultChunkSize, {"x"}, {}});
    EXPECT_EQ(only_x.column("x")[3], 4.0);
    EXPECT_THAT(data_error([&] { static_cast<void>(read_parquet(dir.file("p.parquet"))); }),
                HasSubstr("column 'y'"));
}

TEST(Parquet, GlobsReadFilesInSortedOrderAsOneStream) {
    const ScratchDir dir;
    const Dataset d = events(30);
    write_parquet(d.slice(20, 10), dir.file("c.parquet"));
    write_parquet(d.slice(0, 10), dir.file("a.parquet"));
    write_parquet(d.slice(10, 10), dir.file("b.parquet"));
    const Dataset back = read_parquet(dir.file("*.parquet"));
    expect_same_events(d, back, false);
    const std::string patterns[] = {dir.file("b.parquet"), dir.file("a.parquet")};
    EXPECT_EQ(read_parquet(patterns).column("pol_angle")[0], d.column("pol_angle")[10]);
    EXPECT_THAT(data_error([&] { static_cast<void>(read_parquet(dir.file("*.none"))); }),
                HasSubstr("no file matches"));
}

TEST(Parquet, FilesMustShareTheSchema) {
    const ScratchDir dir;
    write_parquet(events(5), dir.file("a.parquet"));
    const std::vector<double> x = {1, 2};
    const ParquetWriteColumn columns[] = {{"beam_e", ColumnType::kFloat64, x}};
    write_parquet_columns(dir.file("b.parquet"), columns);
    EXPECT_THAT(data_error([&] { static_cast<void>(read_parquet(dir.file("*.parquet"))); }),
                HasSubstr("(no column 'beam_px', 'beam_py', 'beam_pz'"));
}

// Whether a weight column is used cannot depend on the order of the files.
TEST(Parquet, AWeightColumnInOnlySomeFilesIsAnErrorInEitherOrder) {
    const ScratchDir dir;
    const std::vector<double> x = {1, 2};
    const std::vector<double> w = {0.5, -1.0};
    const ParquetWriteColumn weighted[] = {{"x", ColumnType::kFloat64, x},
                                           {"weight", ColumnType::kFloat64, w}};
    const ParquetWriteColumn unweighted[] = {{"x", ColumnType::kFloat64, x}};
    write_parquet_columns(dir.file("a.parquet"), weighted);
    write_parquet_columns(dir.file("b.parquet"), unweighted);
    const std::string forward[] = {dir.file("a.parquet"), dir.file("b.parquet")};
    const std::string backward[] = {dir.file("b.parquet"), dir.file("a.parquet")};
    EXPECT_THAT(data_error([&] { static_cast<void>(read_parquet(forward)); }),
                HasSubstr("no weight, but the first file"));
    EXPECT_THAT(data_error([&] { static_cast<void>(read_parquet(backward)); }),
                HasSubstr("has schema p4s [], scalars [x], weight, but the first file"));
}

TEST(Parquet, FilesMayOrderTheirColumnsDifferently) {
    const ScratchDir dir;
    const std::vector<double> x = {1, 2};
    const std::vector<double> y = {3, 4};
    const ParquetWriteColumn xy[] = {{"x", ColumnType::kFloat64, x},
                                     {"y", ColumnType::kFloat64, y}};
    const ParquetWriteColumn yx[] = {{"y", ColumnType::kFloat64, x},
                                     {"x", ColumnType::kFloat64, y}};
    write_parquet_columns(dir.file("a.parquet"), xy);
    write_parquet_columns(dir.file("b.parquet"), yx);
    const Dataset d = read_parquet(dir.file("*.parquet"));
    ASSERT_EQ(d.size(), 4U);
    EXPECT_EQ(d.column("x")[2], 3.0);
    EXPECT_EQ(d.column("y")[2], 1.0);
}

// A path naming an existing file is opened as is, even with glob characters in it.
TEST(Parquet, AnExistingPathWithGlobCharactersIsOpenedLiterally) {
    const ScratchDir dir;
    const Dataset d = events(4);
    write_parquet(d, dir.file("run[3].parquet"));
    expect_same_events(d, read_parquet(dir.file("run[3].parquet")), false);
    write_parquet(d, dir.file("run3.parquet"));
    // No file has this name, so it is a pattern: its class [3] matches run3.parquet only.
    expect_same_events(d, read_parquet(dir.file("run[3].parq*")), false);
}

TEST(Parquet, NullsAreAnErrorNamingColumnAndRowOrNan) {
    const ScratchDir dir;
    const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const std::vector<std::uint8_t> valid = {1, 1, 1, 1, 1, 1, 1, 0, 1, 1};
    const ParquetWriteColumn columns[] = {{"x", ColumnType::kFloat64, x, valid},
                                          {"y", ColumnType::kFloat32, x}};
    ParquetWriteOptions options;
    options.row_group_size = 4;
    write_parquet_columns(dir.file("n.parquet"), columns, options);
    EXPECT_THAT(data_error([&] { static_cast<void>(read_parquet(dir.file("n.parquet"))); }),
                HasSubstr("column 'x', byte offset"));
    EXPECT_THAT(data_error([&] { static_cast<void>(read_parquet(dir.file("n.parquet"))); }),
                HasSubstr("null at row 7"));
    ParquetReadOptions lenient;
    lenient.nulls = NullPolicy::kNan;
    const Dataset d = read_parquet(dir.file("n.parquet"), lenient);
    EXPECT_TRUE(std::isnan(d.column("x")[7]));
    EXPECT_EQ(d.column("x")[8], 9.0);
    const RawColumn raw = ParquetFileReader::open(dir.file("n.parquet")).read_column(0);
    EXPECT_EQ(raw.null_count, 1U);
    EXPECT_EQ(raw.valid[7], 0);
    EXPECT_TRUE(ParquetFileReader::open(dir.file("n.parquet")).columns()[0].optional);
}

TEST(Parquet, IntegersRoundTripExactly) {
    const ScratchDir dir;
    const std::vector<double> big = {-9007199254740992.0, 0, 123456789012345.0};
    const std::vector<double> small = {-2147483648.0, 7, 2147483647.0};
    const ParquetWriteColumn columns[] = {{"l", ColumnType::kInt64, big},
                                          {"i", ColumnType::kInt32, small}};
    write_parquet_columns(dir.file("i.parquet"), columns);
    const ParquetFileReader reader = ParquetFileReader::open(dir.file("i.parquet"));
    EXPECT_EQ(reader.columns()[0].type, ColumnType::kInt64);
    EXPECT_EQ(reader.columns()[1].physical_type, "INT32");
    const RawColumn l = reader.read_column(0);
    const RawColumn i = reader.read_column(1);
    EXPECT_TRUE(std::equal(big.begin(), big.end(), l.values.begin()));
    EXPECT_TRUE(std::equal(small.begin(), small.end(), i.values.begin()));
    // Integer columns are not event columns unless asked for.
    EXPECT_EQ(read_parquet(dir.file("i.parquet")).schema().n_scalars(), 0U);
}

TEST(Parquet, ASkippedColumnThatWouldBeAP4ComponentOrTheWeightIsAnError) {
    const ScratchDir dir;
    const std::vector<double> x = {1, 2, 3};
    const ParquetWriteColumn p4[] = {{"beam_E", ColumnType::kInt64, x},
                                     {"beam_Px", ColumnType::kFloat64, x},
                                     {"beam_Py", ColumnType::kFloat64, x},
                                     {"beam_Pz", ColumnType::kFloat64, x}};
    write_parquet_columns(dir.file("p4.parquet"), p4);
    EXPECT_THAT(data_error([&] { static_cast<void>(read_parquet(dir.file("p4.parquet"))); }),
                HasSubstr("Parquet file '" + dir.file("p4.parquet") +
                          "', column 'beam_E': by its name it is a component of four-momentum "
                          "'beam', but its type INT64 is not FLOAT or DOUBLE"));
    ParquetReadOptions integers;
    integers.schema.integer_columns_are_scalars = true;
    EXPECT_EQ(read_parquet(dir.file("p4.parquet"), integers).p4_names().size(), 1U);

    const ParquetWriteColumn weight[] = {{"t", ColumnType::kFloat64, x},
                                         {"Weight", ColumnType::kInt32, x}};
    write_parquet_columns(dir.file("w.parquet"), weight);
    EXPECT_THAT(data_error([&] { static_cast<void>(read_parquet(dir.file("w.parquet"))); }),
                HasSubstr("column 'Weight': by its name it is the weight column"));

    // Unrelated integer columns, and an integer p4 component without float siblings, are skipped.
    const ParquetWriteColumn unrelated[] = {{"t", ColumnType::kFloat64, x},
                                            {"run", ColumnType::kInt64, x},
                                            {"k_e", ColumnType::kInt32, x}};
    write_parquet_columns(dir.file("u.parquet"), unrelated);
    EXPECT_EQ(read_parquet(dir.file("u.parquet")).scalar_names(), std::vector<std::string>{"t"});
}

TEST(Parquet, StatisticsFollowTheFormatSoArrowUsesThem) {
    const ScratchDir dir;
    const std::vector<double> zeros = {0.0, -0.0, 0.0};
    const std::vector<double> mixed = {-0.0, 2.0, 0.0};
    const ParquetWriteColumn columns[] = {{"z", ColumnType::kFloat64, zeros},
                                          {"m", ColumnType::kFloat32, mixed}};
    write_parquet_columns(dir.file("s.parquet"), columns);
    const auto bytes = testing::read_bytes(dir.file("s.parquet"));
    std::uint32_t length = 0;
    std::memcpy(&length, &bytes[bytes.size() - 8], 4);
    const std::size_t start = bytes.size() - 8 - length;
    const parquet::FileMetaData meta = parquet::decode_file_metadata(
        std::span<const std::uint8_t>(bytes).subspan(start, length), start, {"s.parquet", ""});
    // Without column_orders, Arrow reads only the deprecated min/max fields.
    EXPECT_TRUE(meta.type_defined_order);
    const auto& z = meta.row_groups.at(0).columns.at(0).meta->statistics;
    const auto& m = meta.row_groups.at(0).columns.at(1).meta->statistics;
    const auto as_double = [](const std::vector<std::uint8_t>& v) {
        double x = 0;
        std::memcpy(&x, v.data(), sizeof x);
        return x;
    };
    const auto as_float = [](const std::vector<std::uint8_t>& v) {
        float x = 0;
        std::memcpy(&x, v.data(), sizeof x);
        return x;
    };
    // A zero min is -0.0 and a zero max +0.0 (PARQUET-1222), whatever zeros the data holds.
    EXPECT_TRUE(std::signbit(as_double(*z.min_value)));
    EXPECT_FALSE(std::signbit(as_double(*z.max_value)));
    EXPECT_TRUE(std::signbit(as_float(*m.min_value)));
    EXPECT_EQ(as_float(*m.max_value), 2.0F);
}

TEST(Parquet, AFailedWriteLeavesTheOldFileIntact) {
    const ScratchDir dir;
    const std::string path = dir.file("keep.parquet");
    write_parquet(events(10), path);
    const auto before = testing::read_bytes(path);
    const std::vector<double> bad = {0.5};
    const ParquetWriteColumn columns[] = {{"n", ColumnType::kInt32, bad}};
    EXPECT_THAT(data_error([&] { write_parquet_columns(path, columns); }),
                HasSubstr("not an integer in range"));
    EXPECT_EQ(testing::read_bytes(path), before);
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) {
        ++files;
    }
    EXPECT_EQ(files, 1U);
    EXPECT_THAT(data_error([&] { write_parquet(events(2), dir.file("no/such/dir/x.parquet")); }),
                HasSubstr("cannot create"));
    const std::vector<double> a = {1, 2};
    const std::vector<double> b = {1};
    const ParquetWriteColumn uneven[] = {{"a", ColumnType::kFloat64, a},
                                         {"b", ColumnType::kFloat64, b}};
    EXPECT_THAT(data_error([&] { write_parquet_columns(path, uneven); }),
                HasSubstr("column 'b' has 1 values"));
}

TEST(Parquet, AWriterWritesRowGroupsAsRowsArriveAndOnlyCloseCommits) {
    const ScratchDir dir;
    const std::string path = dir.file("stream.parquet");
    const Dataset all = events(1000);
    ParquetWriteOptions options;
    options.row_group_size = 300;
    write_parquet(all, dir.file("whole.parquet"), options);
    {
        const std::vector<std::string> names = all.schema().batch_column_names();
        std::vector<ParquetWriter::Column> declared;
        for (const std::string& name : names) {
            declared.push_back({name, ColumnType::kFloat64, false});
        }
        ParquetWriter writer(path, declared, options);
        // Pieces of 1, 299, 350 and 350 rows: row groups of 300, 300, 300 and 100.
        for (const auto& [begin, count] :
             {std::pair<std::size_t, std::size_t>{0, 1}, {1, 299}, {300, 350}, {650, 350}}) {
            std::vector<ParquetWriteColumn> rows;
            for (std::size_t c = 0; c < names.size(); ++c) {
                rows.push_back({names[c], ColumnType::kFloat64,
                                all.batch().column_at(c).subspan(begin, count)});
            }
            writer.write(rows);
            EXPECT_FALSE(std::filesystem::exists(path));  // a temporary until close()
        }
        writer.close();
        EXPECT_THAT(data_error([&] { writer.write({}); }), HasSubstr("after close()"));
    }
    const ParquetFileReader reader = ParquetFileReader::open(path);
    ASSERT_EQ(reader.num_row_groups(), 4U);
    EXPECT_EQ(reader.row_group_rows(3), 100U);
    EXPECT_EQ(testing::read_bytes(path), testing::read_bytes(dir.file("whole.parquet")));
    // A writer dropped before close() leaves no file behind.
    {
        ParquetWriter dropped(dir.file("dropped.parquet"), {{"a", ColumnType::kFloat64, false}});
        const std::vector<double> a = {1.0, 2.0};
        const ParquetWriteColumn rows[] = {{"a", ColumnType::kFloat64, a}};
        dropped.write(rows);
        const ParquetWriteColumn wrong[] = {{"b", ColumnType::kFloat64, a}};
        EXPECT_THAT(data_error([&] { dropped.write(wrong); }), HasSubstr("declares 'a'"));
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("dropped.parquet")));
}

TEST(Parquet, FileBackedEventsAreWrittenBatchByBatch) {
    const ScratchDir dir;
    ParquetWriteOptions options;
    options.row_group_size = 64;
    write_parquet(events(500), dir.file("in.parquet"), options);
    const EventData lazy =
        EventData::from_source(
            std::make_shared<ParquetSource>(std::vector<std::string>{dir.file("in.parquet")}))
            .subsample(0.5, 3)
            .bootstrap(9);
    write_parquet(lazy, dir.file("lazy.parquet"));
    write_parquet(lazy.materialize(), dir.file("resident.parquet"));
    EXPECT_EQ(testing::read_bytes(dir.file("lazy.parquet")),
              testing::read_bytes(dir.file("resident.parquet")));
}

TEST(Parquet, UnitWeightsAreWrittenByDefault) {
    const ScratchDir dir;
    const std::vector<double> x = {1, 2, 3};
    const ScalarInput scalars[] = {{"x", x}};
    const Dataset d = Dataset::from_arrays(std::span<const P4Input>(), scalars);
    write_parquet(d, dir.file("w.parquet"));
    const Dataset back = read_parquet(dir.file("w.parquet"));
    EXPECT_TRUE(back.schema().has_weight());
    EXPECT_EQ(back.sum_weights(), 3.0);
    ParquetWriteOptions options;
    options.always_write_weight = false;
    write_parquet(d, dir.file("w.parquet"), options);
    EXPECT_FALSE(read_parquet(dir.file("w.parquet")).schema().has_weight());
}

TEST(Describe, SummarisesColumnsOverFiles) {
    const ScratchDir dir;
    const std::vector<double> x = {1.5, -2.0, 4.0};
    const std::vector<double> n = {3, 4, 5};
    const ParquetWriteColumn columns[] = {{"x", ColumnType::kFloat64, x},
                                          {"n", ColumnType::kInt64, n}};
    write_parquet_columns(dir.file("a.parquet"), columns);
    write_parquet_columns(dir.file("b.parquet"), columns);
    const std::string patterns[] = {dir.file("*.parquet")};
    const FileSummary s = describe_files(patterns);
    EXPECT_EQ(s.files.size(), 2U);
    EXPECT_EQ(s.events, 6U);
    ASSERT_EQ(s.columns.size(), 2U);
    EXPECT_EQ(s.columns[0].min, -2.0);
    EXPECT_EQ(s.columns[0].max, 4.0);
    EXPECT_EQ(s.columns[0].sum, 7.0);
    EXPECT_EQ(s.columns[1].type, "int64");
    EXPECT_EQ(s.columns[1].sum, 24.0);
    const std::string json = format_summary_json(s);
    EXPECT_THAT(json, HasSubstr("\"events\": 6, \"columns\": [{\"name\": \"x\", \"type\": "
                                "\"float64\", \"min\": -2, \"max\": 4, \"sum\": 7, \"nulls\": 0}"));
    EXPECT_THAT(format_summary_text(s), HasSubstr("events: 6"));
}

}  // namespace
}  // namespace laddu::data
