// Event-file reading throughput of laddu-cpp: decodes every column of FILE (Parquet, or ROOT for
// a ".root" name) through its EventSource and prints MB/s of decoded float64 data (best of REPS).
// bench/parquet_bench.sh runs it beside DuckDB's reader, bench/root_read_speed.py beside
// uproot's, each on a 1e7-event file.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <laddu/base/error.hpp>
#include <laddu/data/parquet.hpp>
#include <laddu/data/read_events.hpp>
#include <laddu/data/root.hpp>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fputs("usage: event_read_bench FILE [REPS=3]\n", stderr);
        return 1;
    }
    const std::string path = argv[1];
    const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
    try {
        double best = 1e300;
        double checksum = 0.0;
        std::uint64_t bytes = 0;
        for (int r = 0; r < reps; ++r) {
            const auto start = std::chrono::steady_clock::now();
            const std::vector<std::string> paths{path};
            const std::unique_ptr<const laddu::data::EventSource> source =
                laddu::data::are_root_files(paths)
                    ? std::unique_ptr<const laddu::data::EventSource>(
                          std::make_unique<laddu::data::RootSource>(paths))
                    : std::make_unique<laddu::data::ParquetSource>(paths);
            laddu::data::ReadPlan plan;
            plan.chunk_size = std::size_t{1} << 20;
            const auto stream = source->read(plan);
            bytes = 0;
            checksum = 0.0;
            while (auto batch = stream->next()) {
                for (std::size_t c = 0; c + 1 < batch->schema().n_batch_columns(); ++c) {
                    checksum += batch->column_at(c)[0];
                    bytes += batch->size() * sizeof(double);
                }
            }
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            best = std::min(best, seconds);
        }
        std::printf("laddu-cpp: %.3f s, %.1f MB/s (%llu decoded bytes, checksum %g)\n", best,
                    static_cast<double>(bytes) / best / 1e6, static_cast<unsigned long long>(bytes),
                    checksum);
    } catch (const laddu::Error& e) {
        std::fprintf(stderr, "event_read_bench: %s\n", e.what());
        return 2;
    }
    return 0;
}
