#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

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

std::size_t page_size() noexcept {
    static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    return page;
}

// The whole pages holding `bytes` from `start`.
std::size_t pages_spanned(std::uintptr_t start, std::size_t bytes) noexcept {
    const std::size_t page = page_size();
    return ((start % page) + bytes + page - 1) / page * page;
}

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
    const std::size_t kept = pages_spanned(0, bytes);
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

std::size_t ColumnBlock::stride_for(std::size_t bytes) noexcept {
    constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
    if (bytes == 0) {
        return 0;
    }
    if (bytes >= kHugePage) {
        if (bytes > kMax / 2) {
            return kMax;
        }
        const std::size_t pages = (bytes + kColumnColourSpan + kHugePage - 1) / kHugePage;
        return pages * kHugePage + 2 * kColumnAlignment;
    }
    std::size_t lines = (bytes + kColumnAlignment - 1) / kColumnAlignment;
    lines += 1 - lines % 2;
    return lines * kColumnAlignment;
}

ColumnBlock::ColumnBlock(std::size_t columns, std::size_t bytes)
    : stride_(stride_for(bytes)), columns_(columns), bytes_(bytes) {
    if (columns == 0 || bytes == 0) {
        return;
    }
    if (stride_ > std::numeric_limits<std::size_t>::max() / (columns + 1)) {
        throw std::bad_alloc();
    }
    if (bytes < kHugePage) {
        region_bytes_ = columns * stride_;
        if (region_bytes_ >= kMappedColumnBytes) {
            region_ = static_cast<std::byte*>(map_column(region_bytes_));
        } else {
            region_ = static_cast<std::byte*>(
                ::operator new(region_bytes_, std::align_val_t{kColumnAlignment}));
            heap_ = true;
            std::memset(region_, 0, region_bytes_);
        }
        first_ = region_;
        return;
    }
    // Reserve the range (no memory), then map each column into it on its own.
    region_bytes_ = columns * stride_ + kHugePage;
    void* reserved = ::mmap(nullptr, region_bytes_, PROT_NONE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED) {
        throw std::bad_alloc();
    }
    region_ = static_cast<std::byte*>(reserved);
    const auto address = reinterpret_cast<std::uintptr_t>(region_);
    first_ = region_ + (kHugePage - address % kHugePage) % kHugePage;
    for (std::size_t c = 0; c < columns; ++c) {
        std::byte* const start = column(c);
        const auto at = reinterpret_cast<std::uintptr_t>(start);
        std::byte* const from = start - at % page_size();
        const std::size_t length = pages_spanned(at, bytes);
        if (::mmap(from, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                   -1, 0) == MAP_FAILED) {
            release();
            throw std::bad_alloc();
        }
        ::madvise(from, length, MADV_HUGEPAGE);
    }
}

ColumnBlock::ColumnBlock(ColumnBlock&& other) noexcept
    : region_(std::exchange(other.region_, nullptr)),
      region_bytes_(std::exchange(other.region_bytes_, 0)),
      first_(std::exchange(other.first_, nullptr)), stride_(std::exchange(other.stride_, 0)),
      columns_(std::exchange(other.columns_, 0)), bytes_(std::exchange(other.bytes_, 0)),
      heap_(std::exchange(other.heap_, false)) {}

ColumnBlock& ColumnBlock::operator=(ColumnBlock&& other) noexcept {
    if (this != &other) {
        release();
        region_ = std::exchange(other.region_, nullptr);
        region_bytes_ = std::exchange(other.region_bytes_, 0);
        first_ = std::exchange(other.first_, nullptr);
        stride_ = std::exchange(other.stride_, 0);
        columns_ = std::exchange(other.columns_, 0);
        bytes_ = std::exchange(other.bytes_, 0);
        heap_ = std::exchange(other.heap_, false);
    }
    return *this;
}

ColumnBlock::~ColumnBlock() {
    release();
}

void ColumnBlock::release() noexcept {
    if (region_ == nullptr) {
        return;
    }
    if (heap_) {
        ::operator delete(region_, std::align_val_t{kColumnAlignment});
    } else if (bytes_ < kHugePage) {
        unmap_column(region_, region_bytes_);
    } else {
        ::munmap(region_, region_bytes_);
    }
    region_ = nullptr;
}

std::size_t ColumnBlock::resident_bytes() const noexcept {
    if (region_ == nullptr) {
        return 0;
    }
    if (bytes_ < kHugePage) {
        return region_bytes_;
    }
    std::size_t total = 0;
    for (std::size_t c = 0; c < columns_; ++c) {
        total += pages_spanned(reinterpret_cast<std::uintptr_t>(column(c)), bytes_);
    }
    return total;
}

}  // namespace laddu
