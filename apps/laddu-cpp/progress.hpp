// The progress line every laddu-cpp command shows while it works (generate's run, fit's
// iterations, the demo's stages).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace laddu::cli {

/// A progress line on `stream`. On a terminal, update() rewrites the line in place (a carriage
/// return, at most every 0.1 s) and finish() ends it. Anywhere else (a pipe, a log file)
/// update() prints nothing and finish() prints the last state once as a plain line, so logs
/// hold one line per stage and no carriage returns.
class ProgressLine {
public:
    /// A line on `stream` (stdout or stderr); whether it is a terminal is decided here, once.
    explicit ProgressLine(std::FILE* stream);
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;
    ProgressLine(ProgressLine&&) = delete;
    ProgressLine& operator=(ProgressLine&&) = delete;

    /// Ends a line left open on a terminal (an error is then printed on a line of its own).
    ~ProgressLine();

    /// The current state (one line, no newline).
    void update(std::string text);

    /// Prints the last state as the line's final form and ends the line; later calls do nothing.
    void finish();

    /// Whether the stream is a terminal.
    [[nodiscard]] bool is_terminal() const noexcept { return terminal_; }

private:
    void draw();

    std::FILE* stream_;
    bool terminal_;
    bool finished_ = false;
    bool drawn_ = false;  ///< something is on the terminal line
    std::string text_;
    std::size_t width_ = 0;  ///< characters drawn last, to blank a shorter update
    std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace laddu::cli
