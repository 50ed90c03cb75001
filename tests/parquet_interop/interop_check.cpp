// laddu-cpp side of the Parquet interop test (driven by run_interop.sh).
//
//   interop_check read DIR   reads every DIR/*.parquet that has a DIR/*.parquet.expect sidecar
//                            (written by gen_fixtures.mjs from DuckDB and hyparquet-writer) and
//                            compares every value bit for bit, nulls included; then reads the
//                            DuckDB files as one multi-file ParquetSource.
//   interop_check write DIR  writes laddu_*.parquet files (every codec and type, several row
//                            groups) with sidecars, for verify_laddu.mjs to read back.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <laddu/base/error.hpp>
#include <laddu/data/dataset.hpp>
#include <laddu/data/parquet.hpp>

namespace {

namespace fs = std::filesystem;
using namespace laddu::data;  // NOLINT(google-build-using-namespace): a test driver

struct ExpectedColumn {
    std::string name;
    std::vector<std::string> bits;  // hex bits or "null"
};

struct Sidecar {
    std::size_t rows = 0;
    std::vector<ExpectedColumn> columns;
};

Sidecar read_sidecar(const fs::path& path) {
    std::ifstream in(path);
    Sidecar s;
    std::string word;
    in >> word >> s.rows;
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
        if (line.rfind("column ", 0) != 0) {
            throw std::runtime_error("bad sidecar line: " + line);
        }
        ExpectedColumn c{line.substr(7), {}};
        for (std::size_t i = 0; i < s.rows && std::getline(in, line); ++i) {
            c.bits.push_back(line);
        }
        s.columns.push_back(std::move(c));
    }
    return s;
}

std::string bits_of(double x) {
    return fmt::format("{:016x}", std::bit_cast<std::uint64_t>(x));
}

int failures = 0;

void check(bool ok, const std::string& what) {
    if (!ok) {
        ++failures;
        if (failures < 20) {
            std::cerr << "MISMATCH: " << what << "\n";
        }
    }
}

void check_file(const fs::path& file, const Sidecar& expect) {
    const ParquetFileReader reader = ParquetFileReader::open(file.string());
    check(reader.num_rows() == expect.rows,
          fmt::format("{}: {} rows, expected {}", file.string(), reader.num_rows(), expect.rows));
    for (const ExpectedColumn& column : expect.columns) {
        const auto index = reader.column_index(column.name);
        if (!index) {
            check(false, fmt::format("{}: no column {}", file.string(), column.name));
            continue;
        }
        const RawColumn raw = reader.read_column(*index);
        for (std::size_t i = 0; i < expect.rows; ++i) {
            const bool is_null = !raw.valid.empty() && raw.valid[i] == 0;
            const std::string got = is_null ? "null" : bits_of(raw.values[i]);
            check(got == column.bits[i],
                  fmt::format("{} column {} row {}: got {}, expected {}", file.string(),
                              column.name, i, got, column.bits[i]));
        }
    }
    std::cout << "read " << file.filename().string() << ": " << reader.num_rows() << " rows, "
              << reader.num_row_groups() << " row groups, " << expect.columns.size()
              << " columns\n";
}

// The DuckDB files as one source: rows concatenate in path order, nulls read as NaN.
void check_multi_file(const fs::path& dir) {
    ParquetReadOptions options;
    options.nulls = NullPolicy::kNan;
    options.schema.integer_columns_are_scalars = true;
    const ParquetSource source({(dir / "duckdb_*.parquet").string()}, options);
    const Dataset all = Dataset::from_source(source, ReadPlan{1000, {"d", "opt_nulls"}, {}});
    std::size_t row = 0;
    for (const std::string& path : source.paths()) {
        const Sidecar expect = read_sidecar(path + ".expect");
        for (const ExpectedColumn& column : expect.columns) {
            if (column.name != "d" && column.name != "opt_nulls") {
                continue;
            }
            const auto values = all.column(column.name);
            for (std::size_t i = 0; i < expect.rows; ++i) {
                const double v = values[row + i];
                const std::string got = std::isnan(v) ? "null" : bits_of(v);
                check(got == column.bits[i],
                      fmt::format("multi-file {} row {}: {} vs {}", column.name, row + i, got,
                                  column.bits[i]));
            }
        }
        row += expect.rows;
    }
    check(all.size() == row && source.num_events() == row, "multi-file event count");
    // By default a null in an event column is an error that names the column and the row.
    try {
        const ParquetSource strict({(dir / "duckdb_zstd_v2.parquet").string()});
        static_cast<void>(Dataset::from_source(strict, ReadPlan{1000, {"opt_nulls"}, {}}));
        check(false, "a null in opt_nulls did not raise DataError");
    } catch (const laddu::DataError& e) {
        const std::string message = e.what();
        check(message.find("'opt_nulls'") != std::string::npos &&
                  message.find("null at row 0") != std::string::npos,
              "null error message: " + message);
    }
    check(all.scalar_names().size() == 2, "multi-file projection keeps two scalars");
    std::cout << "read " << source.paths().size() << " DuckDB files as one source: " << all.size()
              << " events\n";
}

int read_mode(const fs::path& dir) {
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const fs::path& p = entry.path();
        if (p.extension() != ".parquet" || p.filename().string().rfind("laddu_", 0) == 0) {
            continue;
        }
        check_file(p, read_sidecar(p.string() + ".expect"));
        ++files;
    }
    check(files >= 10, fmt::format("expected at least 10 fixtures, found {}", files));
    check_multi_file(dir);
    return failures == 0 ? 0 : 1;
}

void write_sidecar(const fs::path& path, const std::vector<ParquetWriteColumn>& columns) {
    std::ofstream out(path);
    out << "rows " << columns.front().values.size() << "\n";
    for (const ParquetWriteColumn& c : columns) {
        out << "column " << c.name << "\n";
        for (std::size_t i = 0; i < c.values.size(); ++i) {
            const double v = c.values[i];
            if (!c.valid.empty() && c.valid[i] == 0) {
                out << "null\n";
                continue;
            }
            const double stored =
                c.type == ColumnType::kFloat32 ? static_cast<double>(static_cast<float>(v)) : v;
            out << bits_of(stored) << "\n";
        }
    }
}

int write_mode(const fs::path& dir) {
    constexpr std::size_t kRows = 2500;
    std::vector<double> d(kRows), f(kRows), i32(kRows), i64(kRows);
    for (std::size_t i = 0; i < kRows; ++i) {
        const auto x = static_cast<double>(i);
        d[i] = std::sin(x) * 1e3 + x * 1e-9;
        f[i] = std::cos(x) * 2.5;
        i32[i] = static_cast<double>(static_cast<std::int64_t>(i * 7919 % 100000) - 50000);
        i64[i] = static_cast<double>(static_cast<std::int64_t>(i) * 123456789012LL - 7);
    }
    std::vector<std::uint8_t> valid(kRows);
    for (std::size_t i = 0; i < kRows; ++i) {
        valid[i] = i % 7 == 3 ? 0 : 1;
    }
    const std::vector<ParquetWriteColumn> columns = {
        {"d", ColumnType::kFloat64, d},
        {"f", ColumnType::kFloat32, f},
        {"i", ColumnType::kInt32, i32},
        {"l", ColumnType::kInt64, i64},
        {"dnull", ColumnType::kFloat64, d, valid},
        {"inull", ColumnType::kInt32, i32, valid},
    };
    for (const auto& [name, codec] :
         {std::pair{"uncompressed", Compression::kUncompressed},
          std::pair{"snappy", Compression::kSnappy}, std::pair{"zstd", Compression::kZstd},
          std::pair{"gzip", Compression::kGzip}}) {
        const fs::path file = dir / fmt::format("laddu_{}.parquet", name);
        ParquetWriteOptions options;
        options.compression = codec;
        options.row_group_size = 1000;
        write_parquet_columns(file.string(), columns, options);
        write_sidecar(file.string() + ".expect", columns);
        std::cout << "wrote " << file.filename().string() << "\n";
    }
    // A dataset through write_parquet (laddu's p4 names, float32 precision, unit weights).
    const P4Input p4s[] = {{"beam", d, f, i32, d}};
    const ScalarInput scalars[] = {{"t", f}};
    const Dataset dataset = Dataset::from_arrays(std::span<const P4Input>(p4s), scalars);
    ParquetWriteOptions options;
    options.precision = ColumnType::kFloat32;
    options.row_group_size = 999;
    const fs::path file = dir / "laddu_dataset_f32.parquet";
    write_parquet(dataset, file.string(), options);
    std::vector<ParquetWriteColumn> expected;
    const std::vector<std::string> names = dataset.schema().batch_column_names();
    for (std::size_t c = 0; c < names.size(); ++c) {
        expected.push_back({names[c], ColumnType::kFloat32, dataset.batch().column_at(c)});
    }
    write_sidecar(file.string() + ".expect", expected);
    std::cout << "wrote " << file.filename().string() << "\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: interop_check read|write DIR\n";
        return 2;
    }
    try {
        const std::string mode = argv[1];
        if (mode == "read") {
            return read_mode(argv[2]);
        }
        if (mode == "write") {
            return write_mode(argv[2]);
        }
    } catch (const std::exception& e) {
        std::cerr << "interop_check: " << e.what() << "\n";
        return 1;
    }
    std::cerr << "unknown mode\n";
    return 2;
}
