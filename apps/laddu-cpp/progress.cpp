#include "progress.hpp"

#include <unistd.h>

namespace laddu::cli {

namespace {

constexpr std::chrono::milliseconds kRedrawInterval{100};

}  // namespace

ProgressLine::ProgressLine(std::FILE* stream)
    : stream_(stream), terminal_(::isatty(::fileno(stream)) == 1) {}

ProgressLine::~ProgressLine() {
    if (terminal_ && drawn_ && !finished_) {
        std::fputc('\n', stream_);
        std::fflush(stream_);
    }
}

void ProgressLine::update(std::string text) {
    if (finished_) {
        return;
    }
    text_ = std::move(text);
    const auto now = std::chrono::steady_clock::now();
    if (terminal_ && (!drawn_ || now - last_draw_ >= kRedrawInterval)) {
        last_draw_ = now;
        draw();
    }
}

void ProgressLine::finish() {
    if (finished_) {
        return;
    }
    finished_ = true;
    if (text_.empty() && !drawn_) {
        return;
    }
    if (terminal_) {
        draw();
    } else {
        std::fputs(text_.c_str(), stream_);
    }
    std::fputc('\n', stream_);
    std::fflush(stream_);
}

void ProgressLine::draw() {
    // Blank what a longer previous state left at the end of the line.
    const std::size_t pad = width_ > text_.size() ? width_ - text_.size() : 0;
    std::fprintf(stream_, "\r%s%*s", text_.c_str(), static_cast<int>(pad), "");
    std::fflush(stream_);
    width_ = text_.size();
    drawn_ = true;
}

}  // namespace laddu::cli
