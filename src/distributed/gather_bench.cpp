// laddu_mpi_gather_bench CHUNKS WIDTH REPEAT: the communication of one distributed reduction
// (check_all, then all_gather_chunks of WIDTH doubles for each of CHUNKS chunks, as
// runtime::PreparedModel does per reduce), timed on every rank; rank 0 prints the median and
// the minimum over REPEAT rounds as one JSON line. Run under mpirun (docs/distributed.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <laddu/base/error.hpp>
#include <laddu/distributed/mpi_collective.hpp>
#include <laddu/runtime/reduce.hpp>

int main(int argc, char** argv) {
    using laddu::distributed::MpiCollective;
    using laddu::distributed::MpiContext;
    if (argc != 4) {
        std::fputs("usage: laddu_mpi_gather_bench CHUNKS WIDTH REPEAT\n", stderr);
        return 2;
    }
    const std::size_t chunks = std::stoul(argv[1]);
    const std::size_t width = std::stoul(argv[2]);
    const std::size_t repeat = std::max<std::size_t>(1, std::stoul(argv[3]));
    const MpiContext& world = MpiContext::world();
    const MpiCollective collective(world, laddu::distributed::Partitioning::kContiguous);
    const std::vector<std::size_t> mine =
        collective.owned_chunks(chunks * laddu::runtime::kReductionChunk, {});
    const std::vector<double> local(mine.size() * width, 1.0);
    std::vector<double> seconds;
    for (std::size_t r = 0; r < repeat; ++r) {
        world.barrier();
        const auto start = std::chrono::steady_clock::now();
        collective.check_all(true, laddu::ErrorKind::kInternal, {});
        const std::vector<double> all = collective.all_gather_chunks(local, width, chunks);
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        if (all.size() != chunks * width) {
            return 1;
        }
    }
    std::sort(seconds.begin(), seconds.end());
    if (world.is_root()) {
        std::printf("{\"ranks\": %d, \"chunks\": %zu, \"width\": %zu, \"bytes_received\": %zu, "
                    "\"median_seconds\": %.3g, \"min_seconds\": %.3g}\n",
                    world.size(), chunks, width, chunks * (width + 1) * sizeof(double),
                    seconds[seconds.size() / 2], seconds.front());
    }
    return 0;
}
