#include <array>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <exception>
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

std::terminate_handler previous_terminate = nullptr;

// An uncaught C++ exception on one rank ends every rank, with the exception's message.
[[noreturn]] void terminate_parallel_job() {
    std::string message = "terminate called without an active exception";
    if (const std::exception_ptr current = std::current_exception()) {
        try {
            std::rethrow_exception(current);
        } catch (const std::exception& e) {
            message = std::string("uncaught exception: ") + e.what();
        } catch (...) {
            message = "uncaught exception of a non-standard type";
        }
    }
    abort_parallel_job(1, message);
    if (previous_terminate != nullptr) {
        previous_terminate();
    }
    std::abort();
}

// What the launcher tells every process it starts (Open MPI, then PMI/PMIx launchers).
bool launched_with_several_ranks() noexcept {
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
        const char* value = std::getenv(name);
        if (value != nullptr && std::atoi(value) > 1) {
            return true;
        }
    }
    return false;
}

}  // namespace

bool parallel_job_running() noexcept {
    int initialised = 0;
    int finalised = 0;
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalised);
    if (initialised == 0 || finalised != 0) {
        return false;
    }
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size > 1;
}

void abort_parallel_job(int exit_code, std::string_view message) noexcept {
    // A rank that fails before it initialised MPI (a bad argument) still has partners that
    // may already wait in a collective: join the world so that MPI_Abort reaches them.
    int initialised = 0;
    int finalised = 0;
    MPI_Initialized(&initialised);
    MPI_Finalized(&finalised);
    if (initialised == 0 && finalised == 0 && launched_with_several_ranks()) {
        int provided = 0;
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    }
    if (!parallel_job_running()) {
        return;
    }
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::fprintf(stderr, "laddu: rank %d of %d failed: %.*s; stopping all %d ranks\n", rank, size,
                 static_cast<int>(message.size()), message.data(), size);
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, exit_code == 0 ? 1 : exit_code);
}

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
    MPI_Comm host = MPI_COMM_NULL;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host),
          "Comm_split_type");
    MPI_Comm_rank(host, &local_rank_);
    MPI_Comm_free(&host);
    if (size_ > 1) {
        previous_terminate = std::set_terminate(terminate_parallel_job);
    }
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

Agreement MpiContext::agree(bool ok, std::uint64_t fingerprint) const {
    // One MIN reduction: (ok ? size : rank) gives the lowest failing rank, or size when none
    // failed; min(f) and min(~f) = ~max(f) tell whether every fingerprint f is the same.
    const std::array<unsigned long long, 3> mine{
        static_cast<unsigned long long>(ok ? size_ : rank_), fingerprint, ~fingerprint};
    std::array<unsigned long long, 3> lowest{};
    check(MPI_Allreduce(mine.data(), lowest.data(), 3, MPI_UNSIGNED_LONG_LONG, MPI_MIN,
                        MPI_COMM_WORLD),
          "Allreduce");
    Agreement agreement;
    if (lowest[0] != static_cast<unsigned long long>(size_)) {
        agreement.first_failed = static_cast<int>(lowest[0]);
    }
    agreement.same_fingerprint = lowest[1] == ~lowest[2];
    return agreement;
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
