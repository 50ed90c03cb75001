// ProgressLine: carriage-return updates on a terminal, one plain line anywhere else.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "progress.hpp"
#include <fcntl.h>
#include <pty.h>
#include <unistd.h>

namespace laddu::cli {
namespace {

// Everything readable from `fd` now (non-blocking).
std::string drain(int fd) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    std::string out;
    char buffer[4096];
    ssize_t n = 0;
    while ((n = ::read(fd, buffer, sizeof(buffer))) > 0) {
        out.append(buffer, static_cast<std::size_t>(n));
    }
    return out;
}

TEST(ProgressLine, IntoAPipeItPrintsTheLastStateOnceWithoutCarriageReturns) {
    int fds[2] = {-1, -1};
    ASSERT_EQ(::pipe(fds), 0);
    std::FILE* stream = ::fdopen(fds[1], "w");
    ASSERT_NE(stream, nullptr);
    {
        ProgressLine progress(stream);
        EXPECT_FALSE(progress.is_terminal());
        for (int round = 1; round <= 1900; ++round) {
            progress.update("round " + std::to_string(round));
        }
        progress.finish();
        progress.update("after finish");
        progress.finish();
    }
    std::fclose(stream);
    EXPECT_EQ(drain(fds[0]), "round 1900\n");
    ::close(fds[0]);
}

TEST(ProgressLine, OnATerminalItRewritesTheLineInPlace) {
    int master = -1;
    int slave = -1;
    ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
    std::FILE* stream = ::fdopen(slave, "w");
    ASSERT_NE(stream, nullptr);
    {
        ProgressLine progress(stream);
        EXPECT_TRUE(progress.is_terminal());
        progress.update("round 1, long text");
        progress.update("round 2");  // within 0.1 s: not drawn
        progress.finish();           // the last state, padded over the longer one
    }
    std::fclose(stream);
    const std::string out = drain(master);
    ::close(master);
    EXPECT_EQ(out.substr(0, 19), "\rround 1, long text");
    EXPECT_NE(out.find("\rround 2           "), std::string::npos) << out;
    EXPECT_EQ(out.find("round 2"), out.rfind("round 2"));
}

TEST(ProgressLine, AnUnfinishedLineOnATerminalIsEndedSoAnErrorStartsOnItsOwnLine) {
    int master = -1;
    int slave = -1;
    ASSERT_EQ(::openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
    std::FILE* stream = ::fdopen(slave, "w");
    ASSERT_NE(stream, nullptr);
    {
        ProgressLine progress(stream);
        progress.update("fit: iteration 3");
    }
    std::fclose(stream);
    const std::string out = drain(master);
    ::close(master);
    EXPECT_NE(out.find("fit: iteration 3\r\n"), std::string::npos) << out;  // ONLCR: \n -> \r\n
}

}  // namespace
}  // namespace laddu::cli
