// libFuzzer target for the Parquet reader: any input must decode or raise DataError; anything
// else (a crash, an ASan report, another exception) is a bug. Built by tools/fuzz_parquet.sh
// with clang, not by CMake. With -DLADDU_FUZZ_SEEDS it is instead a program that writes a seed
// corpus of small valid files into the directory given as its argument.
#include <cstdint>
#include <string>
#include <vector>

#include <laddu/base/error.hpp>
#include <laddu/data/parquet.hpp>

#ifndef LADDU_FUZZ_SEEDS

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace laddu::data;  // NOLINT(google-build-using-namespace): fuzz driver
    try {
        const ParquetFileReader reader = ParquetFileReader::from_memory({data, size}, "fuzz");
        std::vector<double> out;
        std::vector<std::uint8_t> valid;
        for (std::size_t g = 0; g < reader.num_row_groups(); ++g) {
            const std::uint64_t rows = reader.row_group_rows(g);
            // Row counts are caller-sized allocations; keep them small enough for the fuzzer.
            if (rows > (1U << 20)) {
                continue;
            }
            out.resize(static_cast<std::size_t>(rows));
            for (std::size_t c = 0; c < reader.columns().size(); ++c) {
                try {
                    reader.read_column_chunk(g, c, out, NullPolicy::kNan, &valid);
                } catch (const laddu::DataError&) {
                }
            }
        }
    } catch (const laddu::DataError&) {
    }
    return 0;
}

#else

int main(int argc, char** argv) {
    using namespace laddu::data;  // NOLINT(google-build-using-namespace): seed writer
    if (argc != 2) {
        return 1;
    }
    const std::string dir = argv[1];
    std::vector<double> x(40);
    std::vector<std::uint8_t> valid(40);
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = static_cast<double>(i % 5) - 1.0;
        valid[i] = i % 4 != 1 ? 1 : 0;
    }
    const ParquetWriteColumn columns[] = {{"d", ColumnType::kFloat64, x},
                                          {"f", ColumnType::kFloat32, x, valid},
                                          {"i", ColumnType::kInt32, x},
                                          {"l", ColumnType::kInt64, x, valid}};
    int k = 0;
    for (const Compression codec : {Compression::kUncompressed, Compression::kSnappy,
                                    Compression::kGzip, Compression::kZstd}) {
        ParquetWriteOptions options;
        options.compression = codec;
        options.row_group_size = 16;
        write_parquet_columns(dir + "/seed" + std::to_string(k++) + ".parquet", columns, options);
    }
    return 0;
}

#endif
