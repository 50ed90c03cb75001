// The standalone fuzzing driver every C++ fuzz target links when the compiler has no libFuzzer
// (gcc, the CI compiler). A target defines only libFuzzer's entry point,
//
//   extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
//
// which returns normally or throws a laddu::Error (anything else escaping it, a crash or a
// hang is a failure). This driver loads a seed corpus, mutates it for a time budget with a fixed
// seed (the same seed gives the same input sequence) and keeps the inputs that reach new code.
// "New code" is edge coverage from gcc's -fsanitize-coverage=trace-pc on the sources a target
// compiles with it (tests/fuzz/CMakeLists.txt); without it the driver still mutates, blind.
//
// On a failure the input goes to <artifacts>/{crash,timeout,exception}-<hash> and the driver
// prints that path and how to rerun it; `driver FILE...` runs files once (tests/fuzz/README.md).
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <thread>
#include <typeinfo>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Bytes = std::vector<uint8_t>;
using Clock = std::chrono::steady_clock;

// ---- Edge coverage (gcc -fsanitize-coverage=trace-pc) -------------------------------------

constexpr std::size_t kMapSize = std::size_t{1} << 16;
std::array<uint8_t, kMapSize> g_hits{};    // this execution's edge hit counts (saturating)
std::array<uint8_t, kMapSize> g_seen{};    // every hit-count bucket seen so far, as bit sets
thread_local uintptr_t g_previous_pc = 0;  // the previous block, for edges rather than blocks

// AFL's buckets: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+ hits are different behaviour.
uint8_t bucket(uint8_t hits) {
    if (hits <= 3) {
        return static_cast<uint8_t>(hits == 3 ? 4 : hits);
    }
    if (hits < 8) {
        return 8;
    }
    if (hits < 16) {
        return 16;
    }
    if (hits < 32) {
        return 32;
    }
    return hits < 128 ? 64 : 128;
}

// Folds this execution's hits into g_seen; the number of new (edge, bucket) pairs.
std::size_t merge_coverage() {
    std::size_t fresh = 0;
    for (std::size_t i = 0; i < kMapSize; ++i) {
        if (g_hits[i] != 0) {
            const uint8_t b = bucket(g_hits[i]);
            if ((g_seen[i] & b) == 0) {
                g_seen[i] = static_cast<uint8_t>(g_seen[i] | b);
                ++fresh;
            }
            g_hits[i] = 0;
        }
    }
    return fresh;
}

std::size_t edges_seen() {
    return static_cast<std::size_t>(
        std::count_if(g_seen.begin(), g_seen.end(), [](uint8_t s) { return s != 0; }));
}

}  // namespace

// gcc calls this at the start of every basic block of an instrumented source file.
extern "C" void __sanitizer_cov_trace_pc() {
    const auto pc = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
    const uintptr_t current = (pc ^ (pc >> 16)) * 0x9E3779B97F4A7C15ULL >> 48;
    uint8_t& hits = g_hits[(current ^ g_previous_pc) & (kMapSize - 1)];
    hits = static_cast<uint8_t>(hits + (hits != 255 ? 1 : 0));
    g_previous_pc = current >> 1;
}

namespace {

// ---- Random numbers: splitmix64, so a seed means the same thing on every platform ----------

class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed) {}

    uint64_t next() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    /// Uniform in [0, n); 0 when n is 0.
    std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

    bool chance(unsigned percent) { return below(100) < percent; }

    /// Small numbers far more often than large ones: uniform in [1, 2^k] for k uniform.
    std::size_t length(std::size_t max) {
        const std::size_t cap = std::size_t{1} << below(16);
        return 1 + below(std::min(cap, std::max<std::size_t>(max, 1)));
    }

private:
    uint64_t state_;
};

// ---- Options --------------------------------------------------------------------------------

struct Options {
    std::vector<std::string> corpora;
    std::string dictionary;
    std::string artifacts = ".";
    double seconds = 10.0;
    uint64_t seed = 1;
    uint64_t runs = 0;  // 0: until the time budget is spent
    double timeout = 10.0;
    std::size_t max_len = std::size_t{1} << 20;
    std::vector<std::string> files;  // run once each (reproduce), no fuzzing
};

[[noreturn]] void usage(const char* argv0, int code) {
    std::fprintf(code == 0 ? stdout : stderr,
                 "usage: %s [options] [FILE...]\n"
                 "  FILE...          run each input once and exit (reproduce a failure)\n"
                 "  --corpus DIR     seed inputs (repeatable; every regular file in DIR)\n"
                 "  --dict FILE      tokens to insert, libFuzzer's dictionary format\n"
                 "  --seconds S      time budget (default 10)\n"
                 "  --runs N         stop after N executions (default: no limit)\n"
                 "  --seed N         random seed (default 1); same seed, same inputs\n"
                 "  --timeout S      seconds one input may take before it is a hang (default 10)\n"
                 "  --max-len N      largest generated input in bytes (default 1048576)\n"
                 "  --artifacts DIR  where failing inputs are written (default .)\n",
                 argv0);
    std::exit(code);
}

Options parse_options(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", argv[i]);
                usage(argv[0], 2);
            }
            return argv[++i];
        };
        try {
            if (a == "--help" || a == "-h") {
                usage(argv[0], 0);
            } else if (a == "--corpus") {
                o.corpora.push_back(value());
            } else if (a == "--dict") {
                o.dictionary = value();
            } else if (a == "--artifacts") {
                o.artifacts = value();
            } else if (a == "--seconds") {
                o.seconds = std::stod(value());
            } else if (a == "--runs") {
                o.runs = std::stoull(value());
            } else if (a == "--seed") {
                o.seed = std::stoull(value());
            } else if (a == "--timeout") {
                o.timeout = std::stod(value());
            } else if (a == "--max-len") {
                o.max_len = std::stoull(value());
            } else if (a.starts_with("-")) {
                std::fprintf(stderr, "unknown option '%s'\n", argv[i]);
                usage(argv[0], 2);
            } else {
                o.files.emplace_back(a);
            }
        } catch (const std::logic_error&) {
            std::fprintf(stderr, "bad value for %s\n", argv[i - 1]);
            usage(argv[0], 2);
        }
    }
    return o;
}

Bytes read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// libFuzzer's dictionary format: one `name="token"` or `"token"` per line, \\, \" and \xAB
// escapes, '#' comments.
std::vector<Bytes> read_dictionary(const std::string& path) {
    std::vector<Bytes> tokens;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t open = line.find('"');
        const std::size_t close = line.rfind('"');
        if (line.starts_with("#") || open == std::string::npos || close <= open) {
            continue;
        }
        Bytes token;
        for (std::size_t i = open + 1; i < close; ++i) {
            if (line[i] == '\\' && i + 1 < close) {
                ++i;
                if (line[i] == 'x' && i + 2 < close) {
                    token.push_back(
                        static_cast<uint8_t>(std::stoi(line.substr(i + 1, 2), nullptr, 16)));
                    i += 2;
                    continue;
                }
            }
            token.push_back(static_cast<uint8_t>(line[i]));
        }
        tokens.push_back(std::move(token));
    }
    return tokens;
}

// ---- Failure reporting ------------------------------------------------------------------------

// What the signal handlers and the watchdog need, set before each execution.
char g_artifact_prefix[4096];  // "<artifacts>/"
const char* g_argv0 = "";
const uint8_t* volatile g_current_data = nullptr;
std::atomic<std::size_t> g_current_size{0};
std::atomic<int64_t> g_started_ns{0};  // when the current execution started; 0 between runs
std::atomic<bool> g_fuzzing{false};    // reproduce mode reports without writing artifacts

// Writes `s` with write(2) only: used from signal handlers.
void say(const char* s) {
    ssize_t ignored = ::write(STDERR_FILENO, s, std::strlen(s));
    (void)ignored;
}

// Writes the current input to <prefix><kind>-<fnv1a hex> and prints the path; async-signal-safe.
void save_current_input(const char* kind) {
    const uint8_t* data = g_current_data;
    const std::size_t size = g_current_size.load();
    if (!g_fuzzing.load() || data == nullptr) {
        return;
    }
    uint64_t hash = 0xCBF29CE484222325ULL;
    for (std::size_t i = 0; i < size; ++i) {
        hash = (hash ^ data[i]) * 0x100000001B3ULL;
    }
    char path[4200];
    std::size_t n = 0;
    for (const char* p : {static_cast<const char*>(g_artifact_prefix), kind, "-"}) {
        for (; *p != '\0' && n + 20 < sizeof path; ++p) {
            path[n++] = *p;
        }
    }
    for (int shift = 60; shift >= 0; shift -= 4) {
        path[n++] = "0123456789abcdef"[(hash >> shift) & 0xF];
    }
    path[n] = '\0';
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        for (std::size_t done = 0; done < size;) {
            const ssize_t w = ::write(fd, data + done, size - done);
            if (w <= 0) {
                break;
            }
            done += static_cast<std::size_t>(w);
        }
        ::close(fd);
    }
    say("==fuzz== failing input written to ");
    say(path);
    say("\n==fuzz== reproduce with: ");
    say(g_argv0);
    say(" ");
    say(path);
    say("\n");
}

void on_fatal_signal(int sig) {
    say("\n==fuzz== deadly signal: ");
    say(sig == SIGSEGV   ? "SIGSEGV (a crash or a stack overflow)"
        : sig == SIGABRT ? "SIGABRT (an abort: std::terminate, a failed assert)"
        : sig == SIGBUS  ? "SIGBUS"
        : sig == SIGFPE  ? "SIGFPE"
                         : "SIGILL");
    say("\n");
    save_current_input("crash");
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

void install_signal_handlers() {
    // An alternate stack, so a stack overflow still reaches the handler.
    static std::vector<char> alt_stack(std::size_t{1} << 16);
    stack_t ss{};
    ss.ss_sp = alt_stack.data();
    ss.ss_size = alt_stack.size();
    sigaltstack(&ss, nullptr);
    struct sigaction sa{};
    sa.sa_handler = on_fatal_signal;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (const int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) {
        sigaction(sig, &sa, nullptr);
    }
}

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
        .count();
}

// Ends the process when one execution runs longer than `timeout` seconds.
void start_watchdog(double timeout) {
    std::thread([timeout] {
        const auto limit = static_cast<int64_t>(timeout * 1e9);
        for (;;) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            const int64_t started = g_started_ns.load();
            if (started != 0 && now_ns() - started > limit) {
                std::fprintf(stderr, "\n==fuzz== timeout: one input ran longer than %.1f s\n",
                             timeout);
                save_current_input("timeout");
                std::_Exit(3);
            }
        }
    }).detach();
}

// Runs the target once; false (after reporting) when something other than a laddu::Error
// escaped it. Errors the target lets through are reported by type and message.
bool execute(const Bytes& input) {
    g_current_data = input.data();
    g_current_size.store(input.size());
    g_started_ns.store(now_ns());
    bool ok = true;
    std::string what;
    try {
        (void)LLVMFuzzerTestOneInput(input.data(), input.size());
    } catch (const std::exception& e) {
        ok = false;
        what = std::string(typeid(e).name()) + ": " + e.what();
    } catch (...) {
        ok = false;
        what = "an exception that is not a std::exception";
    }
    g_started_ns.store(0);
    if (!ok) {
        std::fprintf(stderr, "\n==fuzz== the target let an exception escape: %s\n",
                     what.substr(0, 2000).c_str());
        save_current_input("exception");
    }
    return ok;
}

// ---- Mutations ----------------------------------------------------------------------------

// Bytes and tokens that matter to text formats: structure, quotes, escapes, line ends.
using namespace std::string_view_literals;
constexpr std::string_view kSpecialBytes = "\0\n\r\t \"'\\[]{}()=,.#+-eE0x:_\x7f\x80\xff"sv;

const std::vector<std::string> kHugeNumbers = {
    "1e999999",
    "-1e-999999",
    "18446744073709551616",
    "-9223372036854775809",
    "9223372036854775807",
    "-9223372036854775808",
    "0x7fffffffffffffff",
    "0b" + std::string(80, '1'),
    std::string(400, '9'),
    "0." + std::string(400, '0') + "1",
    "nan",
    "-inf",
    "+inf",
    "1_000_000_000_000_000_000_000",
    "4.9e-324",
    "1.7976931348623157e308",
    "2147483648",
    "-2147483649",
    "65536",
    "-1",
};

// Ill-formed UTF-8: overlong, surrogates, out of range, lone continuation, truncated.
const std::vector<std::string> kBadUtf8 = {
    "\xC0\x80",     "\xED\xA0\x80", "\xED\xBF\xBF", "\xF4\x90\x80\x80", "\xF8\x88\x80\x80\x80",
    "\x80",         "\xBF",         "\xE2\x82",     "\xF0\x9F\x98",     "\xFE\xFF",
    "\xEF\xBB\xBF",  // a byte-order mark: valid, but only at the start
};

// Openers and closers for deep nesting.
const std::vector<std::pair<std::string, std::string>> kNesting = {
    {"(", ")"},   {"[", "]"},     {"{", "}"},   {"{a=", "}"},
    {"[[", "]]"}, {"x = [", "]"}, {"\"", "\""}, {".s", ""},
};

class Mutator {
public:
    Mutator(Rng& rng, std::vector<Bytes> dictionary, std::size_t max_len)
        : rng_(rng), dictionary_(std::move(dictionary)), max_len_(max_len) {}

    // One to a few stacked mutations of `input`; `other` is a second pool entry for splicing.
    Bytes mutate(const Bytes& input, const Bytes& other) {
        Bytes out = input;
        const std::size_t rounds = 1 + rng_.below(rng_.chance(20) ? 8 : 3);
        for (std::size_t r = 0; r < rounds; ++r) {
            mutate_once(out, other);
            if (out.size() > max_len_) {
                out.resize(max_len_);
            }
        }
        return out;
    }

private:
    std::size_t position(const Bytes& b) { return rng_.below(b.size() + 1); }

    void insert(Bytes& b, std::size_t at, std::string_view s) {
        b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), s.begin(), s.end());
    }

    void insert(Bytes& b, std::size_t at, const Bytes& s) {
        b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), s.begin(), s.end());
    }

    // A whole line of `b` (without its newline) around a random byte.
    std::pair<std::size_t, std::size_t> random_line(const Bytes& b) {
        const std::size_t at = rng_.below(b.size());
        std::size_t begin = at;
        while (begin > 0 && b[begin - 1] != '\n') {
            --begin;
        }
        std::size_t end = at;
        while (end < b.size() && b[end] != '\n') {
            ++end;
        }
        return {begin, end};
    }

    // The line repeated n times; in copy k the first decimal number becomes k and the second
    // k - 1, so `p1 = { factors = ["p0"] }` becomes a chain p1 -> p0, p2 -> p1, ...
    Bytes counted_repeats(const Bytes& line, std::size_t n) {
        std::vector<std::pair<std::size_t, std::size_t>> numbers;
        for (std::size_t i = 0; i < line.size();) {
            if (line[i] >= '0' && line[i] <= '9') {
                std::size_t j = i;
                while (j < line.size() && line[j] >= '0' && line[j] <= '9') {
                    ++j;
                }
                numbers.emplace_back(i, j);
                i = j;
            } else {
                ++i;
            }
        }
        Bytes out;
        for (std::size_t k = 1; k <= n && out.size() < max_len_; ++k) {
            std::size_t from = 0;
            for (std::size_t m = 0; m < numbers.size() && m < 2; ++m) {
                out.insert(out.end(), line.begin() + static_cast<std::ptrdiff_t>(from),
                           line.begin() + static_cast<std::ptrdiff_t>(numbers[m].first));
                const std::string value = std::to_string(m == 0 ? k : k - 1);
                out.insert(out.end(), value.begin(), value.end());
                from = numbers[m].second;
            }
            out.insert(out.end(), line.begin() + static_cast<std::ptrdiff_t>(from), line.end());
            out.push_back('\n');
        }
        return out;
    }

    std::size_t deep_count() {
        static constexpr std::array<std::size_t, 6> kCounts = {64,     300,    1000,
                                                               10'000, 50'000, 200'000};
        return kCounts[rng_.below(kCounts.size())];
    }

    void mutate_once(Bytes& b, const Bytes& other) {
        std::size_t kind = rng_.below(b.empty() ? 3 : 16);
        if (kind >= 12 && kind <= 14 && !rng_.chance(25)) {
            kind = rng_.below(12);  // the big inputs cost the most: one pick in four stands
        }
        switch (kind) {
        case 0: {  // insert random bytes
            Bytes s(rng_.length(16));
            for (uint8_t& c : s) {
                c = static_cast<uint8_t>(rng_.next());
            }
            insert(b, position(b), s);
            break;
        }
        case 1: {  // insert a dictionary token (or a special byte when there is no dictionary)
            if (!dictionary_.empty()) {
                insert(b, position(b), dictionary_[rng_.below(dictionary_.size())]);
            } else {
                insert(b, position(b), kSpecialBytes.substr(rng_.below(kSpecialBytes.size()), 1));
            }
            break;
        }
        case 2: {  // splice: a slice of the other input, or its tail after our head
            if (other.empty()) {
                break;
            }
            const std::size_t from = rng_.below(other.size());
            const std::size_t len = std::min(rng_.length(other.size()), other.size() - from);
            if (rng_.chance(50)) {
                b.resize(std::min(b.size(), position(b)));
                b.insert(b.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
            } else {
                b.insert(b.begin() + static_cast<std::ptrdiff_t>(position(b)),
                         other.begin() + static_cast<std::ptrdiff_t>(from),
                         other.begin() + static_cast<std::ptrdiff_t>(from + len));
            }
            break;
        }
        case 3:  // flip a bit
            b[rng_.below(b.size())] ^= static_cast<uint8_t>(1U << rng_.below(8));
            break;
        case 4:  // a random byte
            b[rng_.below(b.size())] = static_cast<uint8_t>(rng_.next());
            break;
        case 5:  // a special byte
            b[rng_.below(b.size())] =
                static_cast<uint8_t>(kSpecialBytes[rng_.below(kSpecialBytes.size())]);
            break;
        case 6:
        case 7: {  // delete a slice
            const std::size_t from = rng_.below(b.size());
            const std::size_t len = std::min(rng_.length(b.size()), b.size() - from);
            b.erase(b.begin() + static_cast<std::ptrdiff_t>(from),
                    b.begin() + static_cast<std::ptrdiff_t>(from + len));
            break;
        }
        case 8: {  // duplicate a slice somewhere else
            const std::size_t from = rng_.below(b.size());
            const std::size_t len = std::min(rng_.length(b.size()), b.size() - from);
            const Bytes slice(b.begin() + static_cast<std::ptrdiff_t>(from),
                              b.begin() + static_cast<std::ptrdiff_t>(from + len));
            insert(b, position(b), slice);
            break;
        }
        case 9: {  // replace a number (or insert one) with a huge or special one
            const std::string& n = kHugeNumbers[rng_.below(kHugeNumbers.size())];
            std::size_t at = rng_.below(b.size());
            while (at < b.size() && !(b[at] >= '0' && b[at] <= '9')) {
                ++at;
            }
            std::size_t end = at;
            while (end < b.size() && ((b[end] >= '0' && b[end] <= '9') || b[end] == '.')) {
                ++end;
            }
            b.erase(b.begin() + static_cast<std::ptrdiff_t>(at),
                    b.begin() + static_cast<std::ptrdiff_t>(end));
            insert(b, at, n);
            break;
        }
        case 10:  // ill-formed UTF-8
            insert(b, position(b), kBadUtf8[rng_.below(kBadUtf8.size())]);
            break;
        case 11:  // NUL bytes
            insert(b, position(b), std::string(rng_.chance(80) ? 1 : rng_.length(64), '\0'));
            break;
        case 12: {  // deep nesting: n openers, then (usually) n closers, at one position
            const auto& [open, close] = kNesting[rng_.below(kNesting.size())];
            const std::size_t n = std::min(deep_count(), max_len_ / (open.size() + close.size()));
            std::string deep;
            deep.reserve(n * (open.size() + close.size()));
            for (std::size_t k = 0; k < n; ++k) {
                deep += open;
            }
            if (rng_.chance(75)) {
                deep += "1";
                for (std::size_t k = 0; k < n; ++k) {
                    deep += close;
                }
            }
            insert(b, position(b), deep);
            break;
        }
        case 13: {  // a long chain: one line repeated with counted names, or a long list
            const auto [begin, end] = random_line(b);
            if (end > begin) {
                const Bytes line(b.begin() + static_cast<std::ptrdiff_t>(begin),
                                 b.begin() + static_cast<std::ptrdiff_t>(end));
                const Bytes chain = counted_repeats(line, deep_count() / 10);
                insert(b, std::min(end + 1, b.size()), chain);
            }
            break;
        }
        case 14: {  // repeat one slice many times in place (long lists, long strings)
            const std::size_t from = rng_.below(b.size());
            const std::size_t len = std::min(rng_.length(32), b.size() - from);
            const std::size_t n = std::min(deep_count(), max_len_ / std::max<std::size_t>(len, 1));
            Bytes repeated;
            for (std::size_t k = 0; k < n; ++k) {
                repeated.insert(repeated.end(), b.begin() + static_cast<std::ptrdiff_t>(from),
                                b.begin() + static_cast<std::ptrdiff_t>(from + len));
            }
            insert(b, from, repeated);
            break;
        }
        default: {  // swap two lines' worth: move a line elsewhere
            const auto [begin, end] = random_line(b);
            const Bytes line(b.begin() + static_cast<std::ptrdiff_t>(begin),
                             b.begin() + static_cast<std::ptrdiff_t>(end));
            b.erase(b.begin() + static_cast<std::ptrdiff_t>(begin),
                    b.begin() + static_cast<std::ptrdiff_t>(end));
            insert(b, position(b), line);
            break;
        }
        }
    }

    Rng& rng_;
    std::vector<Bytes> dictionary_;
    std::size_t max_len_;
};

// ---- Main loops ---------------------------------------------------------------------------------

int reproduce(const Options& o) {
    int failures = 0;
    for (const std::string& file : o.files) {
        const Bytes input = read_file(file);
        std::fprintf(stderr, "==fuzz== running %s (%zu bytes)\n", file.c_str(), input.size());
        const auto start = Clock::now();
        if (!execute(input)) {
            ++failures;
        }
        std::fprintf(stderr, "==fuzz== done in %.3f s\n",
                     std::chrono::duration<double>(Clock::now() - start).count());
    }
    return failures == 0 ? 0 : 1;
}

int fuzz(const Options& o, const char* name) {
    std::vector<Bytes> pool;
    for (const std::string& dir : o.corpora) {
        std::vector<std::filesystem::path> files;
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            if (entry.is_regular_file()) {
                files.push_back(entry.path());
            }
        }
        std::sort(files.begin(), files.end());  // directory order is not deterministic
        for (const auto& f : files) {
            pool.push_back(read_file(f));
        }
    }
    const std::size_t seeds = pool.size();
    if (pool.empty()) {
        pool.emplace_back();
    }
    std::vector<Bytes> dictionary;
    if (!o.dictionary.empty()) {
        dictionary = read_dictionary(o.dictionary);
    }
    std::filesystem::create_directories(o.artifacts);
    std::snprintf(g_artifact_prefix, sizeof g_artifact_prefix, "%s/", o.artifacts.c_str());
    g_fuzzing.store(true);

    const auto start = Clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(Clock::now() - start).count();
    };
    uint64_t runs = 0;
    // The seeds first, as they are; then mutations of pool entries.
    for (const Bytes& input : pool) {
        if (!execute(input)) {
            return 1;
        }
        merge_coverage();
        ++runs;
    }
    Rng rng(o.seed);
    Mutator mutator(rng, std::move(dictionary), o.max_len);
    constexpr std::size_t kMaxPool = 4096;
    double next_report = 2.0;
    while (elapsed() < o.seconds && (o.runs == 0 || runs < o.runs)) {
        // Newer entries (new coverage) a little more often than the seeds.
        const std::size_t pick =
            rng.chance(30) ? pool.size() - 1 - rng.below(std::min<std::size_t>(pool.size(), 16))
                           : rng.below(pool.size());
        Bytes input = mutator.mutate(pool[pick], pool[rng.below(pool.size())]);
        if (!execute(input)) {
            return 1;
        }
        ++runs;
        if (merge_coverage() > 0 && pool.size() < kMaxPool && input.size() <= 64 * 1024) {
            pool.push_back(std::move(input));
        }
        if (elapsed() >= next_report) {
            std::fprintf(stderr, "==fuzz== %s: %llu runs, %.0f exec/s, %zu edges, pool %zu\n", name,
                         static_cast<unsigned long long>(runs),
                         static_cast<double>(runs) / elapsed(), edges_seen(), pool.size());
            next_report += 2.0;
        }
    }
    const double seconds = elapsed();
    std::printf("%s: %llu runs in %.1f s (%.0f exec/s), seed %llu, %zu seed inputs, pool %zu, "
                "%zu edges, no failures\n",
                name, static_cast<unsigned long long>(runs), seconds,
                static_cast<double>(runs) / seconds, static_cast<unsigned long long>(o.seed), seeds,
                pool.size(), edges_seen());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    g_argv0 = argv[0];
    const Options o = parse_options(argc, argv);
    install_signal_handlers();
    start_watchdog(o.timeout);
    if (!o.files.empty()) {
        return reproduce(o);
    }
    return fuzz(o, std::filesystem::path(argv[0]).filename().c_str());
}
