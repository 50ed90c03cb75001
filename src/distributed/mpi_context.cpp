#include <climits>
#include <mutex>

#include <mpi.h>

#include <laddu/base/error.hpp>
#include <laddu/distributed/mpi_context.hpp>

namespace laddu::distributed {

namespace {

void check(int code, const char* what) {
    if (code != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING] = {};
        int length = 0;
        MPI_Error_string(code, text, &length);
        throw BackendError(std::string("MPI ") + what +
                           " failed: " + std::string(text, static_cast<std::size_t>(length)));
    }
}

int to_int(std::size_t n) {
    if (n > static_cast<std::size_t>(INT_MAX)) {
        throw BackendError("an MPI message of more than INT_MAX elements is not supported");
    }
    return static_cast<int>(n);
}

template <typename T>
std::vector<T> gather_all(const std::vector<T>& local, MPI_Datatype type, int size) {
    const int count = to_int(local.size());
    std::vector<int> counts(static_cast<std::size_t>(size));
    check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD),
          "Allgather");
    std::vector<int> offsets(counts.size());
    std::size_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        offsets[r] = to_int(total);
        total += static_cast<std::size_t>(counts[r]);
    }
    std::vector<T> out(total);
    check(MPI_Allgatherv(local.data(), count, type, out.data(), counts.data(), offsets.data(), type,
                         MPI_COMM_WORLD),
          "Allgatherv");
    return out;
}

}  // namespace

MpiContext& MpiContext::world() {
    static MpiContext context;
    return context;
}

MpiContext::MpiContext() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (initialised == 0) {
        int provided = 0;
        check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "Init_thread");
        owns_mpi_ = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiContext::~MpiContext() {
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (owns_mpi_ && finalised == 0) {
        MPI_Finalize();
    }
}

std::vector<double> MpiContext::all_gather(const std::vector<double>& local) const {
    return gather_all(local, MPI_DOUBLE, size_);
}

std::vector<unsigned long long>
MpiContext::all_gather(const std::vector<unsigned long long>& local) const {
    return gather_all(local, MPI_UNSIGNED_LONG_LONG, size_);
}

int MpiContext::first_failed_rank(bool ok) const {
    // MIN over (ok ? size : rank) is the lowest failing rank, or size when none failed.
    const int mine = ok ? size_ : rank_;
    int lowest = size_;
    check(MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "Allreduce");
    return lowest == size_ ? -1 : lowest;
}

std::string MpiContext::broadcast(const std::string& text, int root) const {
    int length = rank_ == root ? to_int(text.size()) : 0;
    check(MPI_Bcast(&length, 1, MPI_INT, root, MPI_COMM_WORLD), "Bcast");
    std::string out = rank_ == root ? text : std::string(static_cast<std::size_t>(length), '\0');
    check(MPI_Bcast(out.data(), length, MPI_CHAR, root, MPI_COMM_WORLD), "Bcast");
    return out;
}

void MpiContext::broadcast(std::vector<double>& values) const {
    check(MPI_Bcast(values.data(), to_int(values.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD), "Bcast");
}

void MpiContext::barrier() const {
    check(MPI_Barrier(MPI_COMM_WORLD), "Barrier");
}

}  // namespace laddu::distributed
