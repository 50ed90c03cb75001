#include <exception>

#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>

namespace laddu::detail {

AssertionFailure::AssertionFailure(const char* file, int line, const char* condition) {
    stream_ << "internal error (a bug in laddu-cpp; please report it): " << file << ":" << line
            << ": assertion '" << condition << "' failed";
}

AssertionFailure::~AssertionFailure() noexcept(false) {
    // Throwing while another exception unwinds would terminate; the first error wins then.
    if (std::uncaught_exceptions() > 0) {
        return;
    }
    throw InternalError(stream_.str());
}

}  // namespace laddu::detail
