// laddu/base/expected.hpp: a value or the reason there is none.
//
// For expected outcomes the caller decides how to handle (a JIT that cannot compile a program, a
// file that may be absent), return Expected<T> instead of throwing. g++ 12 has std::expected only
// in C++23, so this is a small C++20 type with the same spirit: value() rethrows the failure as
// its typed exception, so callers that cannot recover need no extra code.
//
// Example:
//   Expected<int> parse_threads(std::string_view text);
//   auto threads = parse_threads(arg);
//   if (!threads) { log(threads.error().message); return fallback; }
//   use(*threads);
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include <laddu/base/error.hpp>

namespace laddu {

/// Why an Expected holds no value: the kind of error it would throw and the message.
struct Failure {
    ErrorKind kind = ErrorKind::kInternal;
    std::string message;

    /// Throws this failure as its typed exception (ModelError for kModel, ...).
    [[noreturn]] void raise() const { throw_error(kind, message); }
};

/// Makes a Failure to return from a function that returns Expected<T>.
[[nodiscard]] inline Failure failure(ErrorKind kind, std::string message) {
    return Failure{kind, std::move(message)};
}

/// Holds either a T or the Failure that explains its absence.
template <typename T>
class [[nodiscard]] Expected {
    static_assert(!std::is_same_v<std::remove_cvref_t<T>, Failure>,
                  "Expected<Failure> is ambiguous");

public:
    // Implicit, so `return value;` and `return failure(...);` both work.
    Expected(T held) : state_(std::in_place_index<0>, std::move(held)) {}  // NOLINT

    Expected(Failure error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

    /// True when a value is present.
    [[nodiscard]] bool has_value() const noexcept { return state_.index() == 0; }

    explicit operator bool() const noexcept { return has_value(); }

    /// The value; throws the failure as its typed exception when there is none.
    [[nodiscard]] T& value() & {
        check();
        return std::get<0>(state_);
    }

    [[nodiscard]] const T& value() const& {
        check();
        return std::get<0>(state_);
    }

    [[nodiscard]] T&& value() && {
        check();
        return std::get<0>(std::move(state_));
    }

    /// The value, or `fallback` when there is none.
    template <typename U>
    [[nodiscard]] T value_or(U&& fallback) const& {
        return has_value() ? std::get<0>(state_) : static_cast<T>(std::forward<U>(fallback));
    }

    T& operator*() & { return value(); }

    const T& operator*() const& { return value(); }

    T* operator->() { return &value(); }

    const T* operator->() const { return &value(); }

    /// The failure. Calling this on an Expected that holds a value is a programmer error.
    [[nodiscard]] const Failure& error() const {
        if (has_value()) {
            throw InternalError("Expected::error() called on an Expected that holds a value");
        }
        return std::get<1>(state_);
    }

private:
    void check() const {
        if (!has_value()) {
            std::get<1>(state_).raise();
        }
    }

    std::variant<T, Failure> state_;
};

/// Expected<void>: success, or the Failure that explains why not.
template <>
class [[nodiscard]] Expected<void> {
public:
    Expected() = default;

    Expected(Failure error) : error_(std::move(error)), failed_(true) {}  // NOLINT

    [[nodiscard]] bool has_value() const noexcept { return !failed_; }

    explicit operator bool() const noexcept { return has_value(); }

    /// Throws the failure as its typed exception, if there is one.
    void value() const {
        if (failed_) {
            error_.raise();
        }
    }

    [[nodiscard]] const Failure& error() const {
        if (!failed_) {
            throw InternalError("Expected::error() called on a successful Expected<void>");
        }
        return error_;
    }

private:
    Failure error_;
    bool failed_ = false;
};

}  // namespace laddu
