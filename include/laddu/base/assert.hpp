// laddu/base/assert.hpp: LADDU_ASSERT for programmer errors.
//
// LADDU_ASSERT(cond) << "context" checks an invariant that no user input can break (DuckDB's
// rule: if a test can trigger it, it must be a user error with a typed exception instead). A
// failure throws InternalError naming the file, line, condition and the streamed context, so a
// Python session sees an exception rather than a crash. Active in every build type: the checks
// sit outside hot loops, and kernels have none.
#pragma once

#include <sstream>
#include <string>

namespace laddu::detail {

/// Collects the streamed context of a failed assertion and throws InternalError when destroyed.
class AssertionFailure {
public:
    AssertionFailure(const char* file, int line, const char* condition);
    AssertionFailure(const AssertionFailure&) = delete;
    AssertionFailure& operator=(const AssertionFailure&) = delete;
    AssertionFailure(AssertionFailure&&) = delete;
    AssertionFailure& operator=(AssertionFailure&&) = delete;
    ~AssertionFailure() noexcept(false);

    template <typename T>
    AssertionFailure& operator<<(const T& value) {
        stream_ << value;
        return *this;
    }

private:
    std::ostringstream stream_;
};

/// Lets the macro below be an expression whose streamed operands are evaluated only on failure.
struct AssertionVoidify {
    void operator&(const AssertionFailure&) const {}
};

}  // namespace laddu::detail

/// Checks an internal invariant; on failure throws laddu::InternalError with the streamed context.
// The replacement list cannot be parenthesised: the caller's `<< context` must bind to the
// AssertionFailure (glog's CHECK idiom).
// NOLINTBEGIN(bugprone-macro-parentheses)
#define LADDU_ASSERT(condition)                                                                    \
    (condition) ? static_cast<void>(0)                                                             \
                : ::laddu::detail::AssertionVoidify() &                                            \
                      ::laddu::detail::AssertionFailure(__FILE__, __LINE__, #condition)
// NOLINTEND(bugprone-macro-parentheses)
