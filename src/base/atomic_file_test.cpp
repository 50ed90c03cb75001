#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <laddu/base/atomic_file.hpp>
#include <laddu/base/error.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace laddu {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test.
fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() /
                         ("laddu_atomic_file_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::string read_all(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Every file in `dir` other than `keep`.
std::vector<std::string> others(const fs::path& dir, const std::string& keep) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().filename() != keep) {
            names.push_back(entry.path().filename().string());
        }
    }
    return names;
}

std::string host() {
    char name[256] = {};
    return ::gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0' ? name : "localhost";
}

TEST(AtomicFile, WritesTheWholeFileAndLeavesNoTemporary) {
    const fs::path dir = scratch("whole");
    const std::string target = (dir / "out.json").string();
    write_file_atomically(target, "{\"a\": 1}\n");
    EXPECT_EQ(read_all(target), "{\"a\": 1}\n");
    write_file_atomically(target, "second");
    EXPECT_EQ(read_all(target), "second");
    EXPECT_TRUE(others(dir, "out.json").empty());
    fs::remove_all(dir);
}

TEST(AtomicFile, WriteAtPatchesWrittenBytesOnly) {
    const fs::path dir = scratch("write_at");
    const std::string target = (dir / "out.txt").string();
    AtomicFile file(target);
    file.write("hello world");
    const std::vector<std::uint8_t> patch = {'W', 'O'};
    file.write_at(6, patch);
    EXPECT_EQ(file.offset(), 11U);
    EXPECT_THROW(file.write_at(10, patch), DataError);
    file.commit();
    EXPECT_EQ(read_all(target), "hello WOrld");
    fs::remove_all(dir);
}

TEST(AtomicFile, AnUncommittedFileLeavesTheTargetUnchanged) {
    const fs::path dir = scratch("uncommitted");
    const std::string target = (dir / "out.txt").string();
    write_file_atomically(target, "old");
    {
        AtomicFile file(target);
        file.write(std::string_view("new, but never committed"));
        EXPECT_TRUE(fs::exists(file.temp_path()));
    }
    EXPECT_EQ(read_all(target), "old");
    EXPECT_TRUE(others(dir, "out.txt").empty());
    fs::remove_all(dir);
}

TEST(AtomicFile, AMissingDirectoryIsADataErrorNamingTheTarget) {
    try {
        write_file_atomically("/nonexistent-laddu-dir/out.json", "x");
        FAIL() << "expected DataError";
    } catch (const DataError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot write '/nonexistent-laddu-dir/out.json'"),
                  std::string::npos)
            << e.what();
    }
}

// A full disk without root: a child process with a 4 KiB file-size limit (RLIMIT_FSIZE, SIGXFSZ
// ignored) gets EFBIG from write(), as a full device gives ENOSPC. The write must throw
// DataError, and neither a partial target nor the temporary may remain; an old target is kept.
TEST(AtomicFile, AFailedWriteThrowsAndLeavesNoPartialFile) {
    const fs::path dir = scratch("full");
    const std::string target = (dir / "fit.json").string();
    write_file_atomically(target, "old");
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{4096, 4096};
        if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) {
            std::_Exit(10);
        }
        try {
            write_file_atomically(target, std::string(1 << 20, 'x'));
        } catch (const DataError& e) {
            const std::string message = e.what();
            const bool named = message.find("cannot write '" + target + "'") != std::string::npos;
            const bool why = message.find("File too large") != std::string::npos;
            std::_Exit(named && why ? 0 : 11);
        } catch (...) {
            std::_Exit(12);
        }
        std::_Exit(13);  // the write did not fail
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status)) << "the writer died (signal " << WTERMSIG(status) << ")";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "10: setrlimit, 11: message, 12: type, 13: no error";
    EXPECT_EQ(read_all(target), "old");
    EXPECT_TRUE(others(dir, "fit.json").empty());
    fs::remove_all(dir);
}

// The pid of a process that has exited and been reaped: no process has it (until it is reused).
pid_t dead_pid() {
    const pid_t dead = ::fork();
    if (dead == 0) {
        std::_Exit(0);
    }
    int status = 0;
    EXPECT_EQ(::waitpid(dead, &status, 0), dead);
    return dead;
}

TEST(AtomicFile, RemovesTheStaleTemporariesOfDeadProcessesOnly) {
    const fs::path dir = scratch("stale");
    const std::string target = (dir / "data.parquet").string();
    const pid_t dead = dead_pid();
    ASSERT_GT(dead, 0);
    const std::string stale = target + ".tmp-" + host() + "-" + std::to_string(dead) + "-0";
    const std::string live = target + ".tmp-" + host() + "-" + std::to_string(::getppid()) + "-3";
    const std::string other_host = target + ".tmp-elsewhere-" + std::to_string(dead) + "-0";
    for (const std::string& path : {stale, live, other_host}) {
        std::ofstream(path) << "partial";
    }
    write_file_atomically(target, "complete");
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(live));
    EXPECT_TRUE(fs::exists(other_host));
    EXPECT_EQ(read_all(target), "complete");
    fs::remove_all(dir);
}

// A directory is read once per process, at its first AtomicFile, which removes the stale
// temporaries of every target in it; later files there do not list it again (a directory of
// thousands of JIT objects would cost a listing per object).
TEST(AtomicFile, ListsADirectoryOnceAndRemovesTheStaleTemporariesOfEveryTarget) {
    const fs::path dir = scratch("listed");
    const pid_t dead = dead_pid();
    ASSERT_GT(dead, 0);
    const std::string tail = ".tmp-" + host() + "-" + std::to_string(dead) + "-";
    const fs::path stale_a = dir / ("a.json" + tail + "0");
    const fs::path stale_b = dir / ("b.parquet" + tail + "7");
    std::ofstream(stale_a) << "partial";
    std::ofstream(stale_b) << "partial";
    write_file_atomically((dir / "c.txt").string(), "c");
    EXPECT_FALSE(fs::exists(stale_a));
    EXPECT_FALSE(fs::exists(stale_b));
    std::ofstream(stale_a) << "partial";
    write_file_atomically((dir / "d.txt").string(), "d");
    EXPECT_TRUE(fs::exists(stale_a)) << "the directory was listed again";
    EXPECT_EQ(read_all(dir / "d.txt"), "d");
    fs::remove_all(dir);
}

}  // namespace
}  // namespace laddu
