#include <atomic>
#include <cstdint>
#include <new>

#include <laddu/base/aligned.hpp>

#include <sys/mman.h>
#include <unistd.h>

namespace laddu {

static_assert(kMappedColumnBytes % kColumnAlignment == 0, "mapped blocks are column-aligned");
static_assert(kColumnColourSpan % (2 * kColumnAlignment) == 0, "colours are column-aligned");

namespace {

// Transparent huge pages: a block this large starts on a 2 MiB boundary and is advised to the
// kernel as huge-page memory. An evaluation streams every column of an event cache at once (a
// K-matrix model reads 30), so with 4 KiB pages each column crosses a page every 512 doubles and
// the TLB misses on every crossing; one 2 MiB page covers 262,144 doubles. Systems whose THP
// setting is "never" ignore the advice, and the block works the same.
constexpr std::size_t kHugePage = std::size_t{2} << 20;

}  // namespace

void* map_column(std::size_t bytes) {
    const bool huge = bytes >= kHugePage;
    const std::size_t reserve = huge ? bytes + kHugePage : bytes;
    void* mapped =
        ::mmap(nullptr, reserve, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) {
        throw std::bad_alloc();
    }
    if (!huge) {
        return mapped;
    }
    // Keep [block, block + bytes) with block on a huge-page boundary; return the slack around it
    // (both ends are page-aligned, so unmap_column(block, bytes) later frees exactly the rest).
    auto* const start = static_cast<char*>(mapped);
    const auto address = reinterpret_cast<std::uintptr_t>(start);
    const std::size_t head = (kHugePage - (address % kHugePage)) % kHugePage;
    char* const block = start + head;
    static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t kept = (bytes + page - 1) / page * page;
    if (head > 0) {
        ::munmap(start, head);
    }
    if (reserve - head > kept) {
        ::munmap(block + kept, reserve - head - kept);
    }
    ::madvise(block, kept, MADV_HUGEPAGE);
    return block;
}

void unmap_column(void* block, std::size_t bytes) noexcept {
    ::munmap(block, bytes);
}

std::size_t next_column_colour() noexcept {
    constexpr std::size_t kStep = 2 * kColumnAlignment;
    constexpr std::size_t kColours = kColumnColourSpan / kStep;
    static std::atomic<std::size_t> next{0};
    return (next.fetch_add(1, std::memory_order_relaxed) % kColours) * kStep;
}

void* map_coloured_column(std::size_t bytes) {
    char* const block = static_cast<char*>(map_column(bytes + kColumnColourSpan));
    return block + next_column_colour();
}

void unmap_coloured_column(void* column, std::size_t bytes) noexcept {
    // Blocks start on a page boundary and colours stay within the first page.
    const auto colour = reinterpret_cast<std::uintptr_t>(column) % kColumnColourSpan;
    unmap_column(static_cast<char*>(column) - colour, bytes + kColumnColourSpan);
}

}  // namespace laddu
