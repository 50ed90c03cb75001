// Fuzz target: the model-file reader (apps/laddu-cpp/model_file.cpp) on arbitrary bytes.
//
// The contract under test: parse_model_file returns a ModelFile or throws a laddu::Error, and
// a ModelError's message is the one line "SOURCE:LINE:COLUMN: ..." its banner promises.
// Anything else escaping (std::out_of_range, std::bad_alloc, a broken message), a crash or a
// hang is a failure. Built with tests/fuzz/driver.cpp under gcc, or as a libFuzzer binary
// under clang (LADDU_FUZZ_LIBFUZZER); tests/fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <laddu/base/error.hpp>

#include "model_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const laddu::cli::ModelFile file = laddu::cli::parse_model_file(text, "fuzz.toml");
        (void)file;
    } catch (const laddu::ModelError& e) {
        const std::string_view what = e.what();
        if (!what.starts_with("fuzz.toml:") || what.find('\n') != std::string_view::npos) {
            throw std::logic_error("a ModelError that is not one line 'fuzz.toml:LINE:COL: ...': " +
                                   std::string(what));
        }
    } catch (const laddu::Error&) {
        // Another laddu error class: allowed (the contract is laddu errors only).
    }
    return 0;
}
