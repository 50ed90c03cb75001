// STREAM-style memory bandwidth of this machine: the triad a[i] = b[i] + s*c[i] over three arrays
// far larger than the last-level cache (default 3 x 256 MiB), best of --repeat runs, for each
// thread count. It is the yardstick for "share of the memory bandwidth" figures (bench/README.md,
// bench/race_handwritten.py).
//
// Bytes counted: 3 arrays x 8 bytes per element (STREAM's convention). Write-allocate is NOT
// counted: the stores to a[] are ordinary (not non-temporal), so the hardware also reads a[] into
// the cache before writing it, and the memory system really moves 4 x 8 bytes per element;
// `gbs_with_write_allocate` reports that figure (4/3 of `gbs`). A read-only kernel over b[] and
// c[] (2 x 8 bytes per element, nothing written) is reported beside it, because an NLL evaluation
// only reads its event cache.
//
// Each thread first-touches (initialises) its own contiguous slice of every array, and the timed
// kernels use the same slices, so pages sit near the thread that uses them. Threads are pinned to
// CPU t % hardware_concurrency unless --no-pin. The arrays are reallocated for each thread count.
//
// usage: stream_triad [--mib N] [--repeat R] [--threads 1,2] [--no-pin] [--json]
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sched.h>

namespace {

constexpr std::size_t kAlign = 64;
constexpr double kScalar = 3.0;

struct Options {
    std::size_t mib = 256;  // per array
    int repeat = 20;
    std::vector<unsigned> threads = {1, 2};
    bool pin = true;
    bool json = false;
};

struct AlignedDelete {
    void operator()(double* p) const { ::operator delete[](p, std::align_val_t{kAlign}); }
};

using Array = std::unique_ptr<double[], AlignedDelete>;

// Uninitialised on purpose: the first write (first touch) happens in the owning thread.
Array allocate(std::size_t n) {
    return Array(
        static_cast<double*>(::operator new[](n * sizeof(double), std::align_val_t{kAlign})));
}

struct Result {
    unsigned threads = 0;
    double triad_best = 0.0;    // seconds
    double triad_median = 0.0;  // seconds
    double read_best = 0.0;     // seconds
    double checksum = 0.0;      // of the read kernel, so it cannot be optimised away
};

[[noreturn]] void usage(const char* message) {
    std::fprintf(stderr,
                 "stream_triad: %s\nusage: stream_triad [--mib N] [--repeat R] "
                 "[--threads 1,2] [--no-pin] [--json]\n",
                 message);
    std::exit(2);
}

unsigned long parse_positive(const char* text, const char* what) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(text, &end, 10);
    if (end == text || *end != '\0' || v == 0) {
        usage(what);
    }
    return v;
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const auto value = [&]() -> const char* {
            if (i + 1 >= argc) {
                usage("missing value");
            }
            return argv[++i];
        };
        if (arg == "--mib") {
            o.mib = parse_positive(value(), "--mib must be a positive integer");
        } else if (arg == "--repeat") {
            o.repeat = static_cast<int>(parse_positive(value(), "--repeat must be positive"));
        } else if (arg == "--threads") {
            o.threads.clear();
            std::string list = value();
            std::size_t start = 0;
            while (start <= list.size()) {
                const std::size_t comma = std::min(list.find(',', start), list.size());
                const std::string item = list.substr(start, comma - start);
                o.threads.push_back(static_cast<unsigned>(
                    parse_positive(item.c_str(), "--threads must be a list of positive integers")));
                start = comma + 1;
            }
        } else if (arg == "--no-pin") {
            o.pin = false;
        } else if (arg == "--json") {
            o.json = true;
        } else if (arg == "--help" || arg == "-h") {
            std::puts("usage: stream_triad [--mib N] [--repeat R] [--threads 1,2] [--no-pin] "
                      "[--json]\n(N MiB per array, default 256; best of R runs, default 20)");
            std::exit(0);
        } else {
            usage("unknown argument");
        }
    }
    return o;
}

void pin_to_cpu(unsigned cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    // Best effort: a failure (e.g. a restricted cpuset) leaves the thread unpinned.
    (void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

Result measure(const Options& o, unsigned threads) {
    const std::size_t n = o.mib * 1024 * 1024 / sizeof(double);
    const Array a = allocate(n);
    const Array b = allocate(n);
    const Array c = allocate(n);
    // Slice t is [bounds[t], bounds[t+1]), in whole cache lines (8 doubles).
    std::vector<std::size_t> bounds(threads + 1);
    for (unsigned t = 0; t <= threads; ++t) {
        bounds[t] = std::min(n, (n / threads * t + 7) / 8 * 8);
    }
    bounds[threads] = n;

    const auto reps = static_cast<std::size_t>(o.repeat);
    std::vector<double> triad_times(reps);
    std::vector<double> read_times(reps);
    std::vector<double> partial(threads * 8, 0.0);  // one cache line per thread
    std::barrier sync(static_cast<std::ptrdiff_t>(threads));
    const unsigned cpus = std::max(1U, std::thread::hardware_concurrency());

    const auto work = [&](unsigned t) {
        if (o.pin) {
            pin_to_cpu(t % cpus);
        }
        double* const pa = a.get();
        const double* const pb = b.get();
        const double* const pc = c.get();
        const std::size_t lo = bounds[t];
        const std::size_t hi = bounds[t + 1];
        for (std::size_t i = lo; i < hi; ++i) {  // first touch
            pa[i] = 0.0;
            b.get()[i] = 1.0;
            c.get()[i] = 2.0;
        }
        for (std::size_t r = 0; r < reps; ++r) {
            sync.arrive_and_wait();
            const auto start = std::chrono::steady_clock::now();
            for (std::size_t i = lo; i < hi; ++i) {
                pa[i] = pb[i] + kScalar * pc[i];
            }
            sync.arrive_and_wait();
            if (t == 0) {
                triad_times[r] =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            }
        }
        for (std::size_t r = 0; r < reps; ++r) {
            sync.arrive_and_wait();
            const auto start = std::chrono::steady_clock::now();
            // Eight independent sums (no reassociation needed, so -O3 vectorises them).
            double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0;
            std::size_t i = lo;
            for (; i + 8 <= hi; i += 8) {
                s0 += pb[i] + pc[i];
                s1 += pb[i + 1] + pc[i + 1];
                s2 += pb[i + 2] + pc[i + 2];
                s3 += pb[i + 3] + pc[i + 3];
                s4 += pb[i + 4] + pc[i + 4];
                s5 += pb[i + 5] + pc[i + 5];
                s6 += pb[i + 6] + pc[i + 6];
                s7 += pb[i + 7] + pc[i + 7];
            }
            for (; i < hi; ++i) {
                s0 += pb[i] + pc[i];
            }
            partial[t * 8] += ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
            sync.arrive_and_wait();
            if (t == 0) {
                read_times[r] =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            }
        }
    };
    std::vector<std::jthread> workers;
    for (unsigned t = 1; t < threads; ++t) {
        workers.emplace_back(work, t);
    }
    work(0);
    workers.clear();  // joins

    // STREAM-style check of a sample of elements.
    for (std::size_t i = 0; i < n; i += 4099) {
        if (a[i] != 1.0 + kScalar * 2.0) {
            std::fprintf(stderr, "stream_triad: wrong result at element %zu\n", i);
            std::exit(1);
        }
    }
    Result result;
    result.threads = threads;
    result.read_best = *std::min_element(read_times.begin(), read_times.end());
    result.triad_best = *std::min_element(triad_times.begin(), triad_times.end());
    std::sort(triad_times.begin(), triad_times.end());
    result.triad_median = triad_times[reps / 2];
    for (unsigned t = 0; t < threads; ++t) {
        result.checksum += partial[t * 8];
    }
    return result;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    const std::size_t n = o.mib * 1024 * 1024 / sizeof(double);
    const double triad_bytes = 3.0 * 8.0 * static_cast<double>(n);
    const double read_bytes = 2.0 * 8.0 * static_cast<double>(n);
    std::vector<Result> results;
    for (const unsigned t : o.threads) {
        results.push_back(measure(o, t));
    }
    if (o.json) {
        std::printf("{\"array_mib\": %zu, \"elements\": %zu, \"repeat\": %d, \"pinned\": %s, "
                    "\"triad_bytes_per_element\": 24, \"write_allocate_counted\": false, "
                    "\"read_bytes_per_element\": 16, \"results\": [",
                    o.mib, n, o.repeat, o.pin ? "true" : "false");
        for (std::size_t k = 0; k < results.size(); ++k) {
            const Result& r = results[k];
            std::printf("%s{\"threads\": %u, \"triad_best_seconds\": %.6e, \"triad_gbs\": %.3f, "
                        "\"triad_median_gbs\": %.3f, \"triad_gbs_with_write_allocate\": %.3f, "
                        "\"read_best_seconds\": %.6e, \"read_gbs\": %.3f}",
                        k == 0 ? "" : ", ", r.threads, r.triad_best,
                        triad_bytes / r.triad_best / 1e9, triad_bytes / r.triad_median / 1e9,
                        4.0 / 3.0 * triad_bytes / r.triad_best / 1e9, r.read_best,
                        read_bytes / r.read_best / 1e9);
        }
        std::printf("]}\n");
    } else {
        std::printf("STREAM-style triad, 3 arrays x %zu MiB (%zu doubles), best of %d%s\n", o.mib,
                    n, o.repeat, o.pin ? ", pinned" : "");
        std::printf("GB/s = 1e9 bytes/s; triad counts 24 B/element (write-allocate not counted; "
                    "x4/3 with it), read counts 16 B/element\n");
        std::printf("threads  triad GB/s (median)  with write-allocate  read-only GB/s\n");
        for (const Result& r : results) {
            std::printf("%7u  %10.2f (%6.2f)  %19.2f  %14.2f\n", r.threads,
                        triad_bytes / r.triad_best / 1e9, triad_bytes / r.triad_median / 1e9,
                        4.0 / 3.0 * triad_bytes / r.triad_best / 1e9,
                        read_bytes / r.read_best / 1e9);
        }
    }
    double checksum = 0.0;
    for (const Result& r : results) {
        checksum += r.checksum;
    }
    // Printed to stderr only if impossible, so the read kernel's result is used.
    if (checksum < 0.0) {
        std::fprintf(stderr, "checksum %g\n", checksum);
    }
    return 0;
}
