// Fuzz target: the ROOT TTree reader (src/data/io/root/) on arbitrary file bytes.
//
// The contract under test: reading a file as events returns a Dataset or throws a DataError
// whose one-line message names the file, and a second read of the same bytes (the streaming
// path, one column at a time) does the same. Anything else escaping (std::out_of_range,
// std::bad_alloc, a laddu error of another class), a crash or a hang is a failure. Built with
// tests/fuzz/driver.cpp under gcc, or as a libFuzzer binary under clang (LADDU_FUZZ_LIBFUZZER);
// tests/fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include <laddu/base/error.hpp>
#include <laddu/data/root.hpp>

#include <unistd.h>

namespace {

// One scratch file per process: the reader takes paths, and the same name each time keeps the
// error messages comparable. Under TMPDIR (tmpfs on CI).
const std::string& scratch_path() {
    static const std::string path = [] {
        const char* dir = std::getenv("TMPDIR");
        return std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/laddu-fuzz-root-" +
               std::to_string(::getpid()) + ".root";
    }();
    return path;
}

void write_scratch(const uint8_t* data, size_t size) {
    std::FILE* file = std::fopen(scratch_path().c_str(), "wb");
    if (file == nullptr) {
        throw std::runtime_error("cannot write the fuzz scratch file " + scratch_path());
    }
    const size_t written = size == 0 ? 0 : std::fwrite(data, 1, size, file);
    std::fclose(file);
    if (written != size) {
        throw std::runtime_error("short write to the fuzz scratch file " + scratch_path());
    }
}

void check_message(const laddu::DataError& e) {
    const std::string_view what = e.what();
    if (what.find(scratch_path()) == std::string_view::npos ||
        what.find('\n') != std::string_view::npos) {
        throw std::logic_error("a DataError that is not one line naming the file: " +
                               std::string(what));
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    write_scratch(data, size);
    try {
        const laddu::data::Dataset all = laddu::data::read_root(scratch_path());
        (void)all.size();
        // The streaming path: one column, small batches, the events after the first.
        const laddu::data::RootSource source({scratch_path()});
        const laddu::data::Schema& schema = source.schema();
        laddu::data::ReadPlan plan;
        plan.chunk_size = 7;
        if (!schema.p4_names().empty()) {
            plan.columns = {schema.p4_names().front()};
        } else if (!schema.scalar_names().empty()) {
            plan.columns = {schema.scalar_names().front()};
        }
        const std::uint64_t events = source.num_events();
        if (events > 1) {
            plan.ranges = {{1, events}};
        }
        auto stream = source.read(plan);
        while (auto batch = stream->next()) {
            (void)batch->size();
        }
    } catch (const laddu::DataError& e) {
        check_message(e);
    }
    return 0;
}
