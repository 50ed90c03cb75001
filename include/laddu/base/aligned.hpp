// laddu/base/aligned.hpp: 64-byte aligned storage for structure-of-arrays columns.
//
// Cache columns and interpreter workspaces are read lane by lane in vector loops; aligning every
// column to a cache line keeps loads whole and lets the compiler assume alignment.
//
// Large columns are mapped from the system and unmapped when freed, never kept in malloc's
// heap. Mapped blocks start on page (or huge-page) boundaries, so every column would put its
// element i at the same offset within a page: a loop that reads element i of 30 columns at
// once (the K-matrix cache) would meet all 30 in one set of the L1 cache, which holds 12 lines
// a set, and in one set of L2 for 2 MiB-aligned columns, and evict its own prefetches. Each
// mapped column therefore starts at its own colour, a multiple of two cache lines within the
// first page of its block. A streamed pass allocates and frees window- and batch-sized columns of
// varying sizes again and again; glibc, which serves blocks up to the size of the largest mapped
// block it has freed from its heap, would fragment that heap and keep the freed pages resident
// beyond the memory budget that accounted for every live column (measured: +17% of a 64 MiB
// budget).
#pragma once

#include <cstddef>
#include <limits>
#include <new>
#include <vector>

namespace laddu {

/// Alignment of every SoA column, in bytes (one cache line, two AVX2 registers).
inline constexpr std::size_t kColumnAlignment = 64;

/// Blocks of at least this many bytes are mapped (mmap) rather than taken from malloc's heap.
inline constexpr std::size_t kMappedColumnBytes = std::size_t{64} << 10;

/// `bytes` (at least kMappedColumnBytes) of fresh, zeroed, page-aligned memory from the system;
/// std::bad_alloc when the system has none. A block of 2 MiB or more starts on a 2 MiB boundary
/// and is advised as transparent huge pages (madvise), so that a pass streaming many columns at
/// once misses the TLB once per 2 MiB instead of once per 4 KiB of each column.
[[nodiscard]] void* map_column(std::size_t bytes);

/// Returns a block of map_column(bytes) to the system.
void unmap_column(void* block, std::size_t bytes) noexcept;

/// Bytes a coloured column may start past its block's start (one page).
inline constexpr std::size_t kColumnColourSpan = 4096;

/// The next column colour: an offset within kColumnColourSpan, a multiple of two cache lines,
/// cycling through 32 values from call to call (so columns allocated together differ).
[[nodiscard]] std::size_t next_column_colour() noexcept;

/// A mapped column of `bytes`: map_column(bytes + kColumnColourSpan), starting at the next
/// colour past the block's start.
[[nodiscard]] void* map_coloured_column(std::size_t bytes);

/// Returns a column of map_coloured_column(bytes) to the system.
void unmap_coloured_column(void* column, std::size_t bytes) noexcept;

/// Zeroed memory for `columns` columns of `bytes` each, column c at column(0) + c · stride():
/// one distance between all of them, so a kernel can address every column from the first
/// (jit::ReductionSpec::input_stride). Columns under 2 MiB share one block (mapped from
/// kMappedColumnBytes on), an odd number of cache lines apart, so that element i of each falls
/// in a different cache set. Larger ones are mapped one by one into one reserved range, each
/// from a 2 MiB boundary plus its own colour (column c: c · 128 bytes past it) on transparent
/// huge pages, with the rest of the range left unbacked: as map_coloured_column would place
/// separate columns. In one block padded to a whole number of huge pages a streaming pass over
/// 4e6 events ran 10-20 % slower (docs/runtime.md). Move-only.
class ColumnBlock {
public:
    ColumnBlock() noexcept = default;
    /// std::bad_alloc when the system has no memory (or address space) for them.
    ColumnBlock(std::size_t columns, std::size_t bytes);
    ColumnBlock(ColumnBlock&& other) noexcept;
    ColumnBlock& operator=(ColumnBlock&& other) noexcept;
    ColumnBlock(const ColumnBlock&) = delete;
    ColumnBlock& operator=(const ColumnBlock&) = delete;
    ~ColumnBlock();

    /// The first byte of column `c` (kColumnAlignment-aligned); null without columns.
    [[nodiscard]] std::byte* column(std::size_t c) const noexcept { return first_ + c * stride_; }

    /// Bytes from one column to the next (stride_for(bytes)).
    [[nodiscard]] std::size_t stride() const noexcept { return stride_; }

    /// Bytes of memory the columns hold: stride() each in one block, else each column's pages.
    [[nodiscard]] std::size_t resident_bytes() const noexcept;

    /// The stride of columns of `bytes`: 0 for none; under 2 MiB the bytes rounded up to an odd
    /// number of cache lines; from 2 MiB on, bytes and a page rounded up to a whole number of
    /// 2 MiB pages, plus 128 (each column's colour). Saturates.
    [[nodiscard]] static std::size_t stride_for(std::size_t bytes) noexcept;

private:
    void release() noexcept;

    std::byte* region_ = nullptr;  ///< what release() frees
    std::size_t region_bytes_ = 0;
    std::byte* first_ = nullptr;
    std::size_t stride_ = 0;
    std::size_t columns_ = 0;
    std::size_t bytes_ = 0;
    bool heap_ = false;  ///< region_ came from operator new (else from mmap)
};

/// A standard allocator that returns kColumnAlignment-aligned blocks.
template <typename T>
struct AlignedAllocator {
    using value_type = T;

    AlignedAllocator() noexcept = default;

    template <typename U>
    AlignedAllocator(const AlignedAllocator<U>& /*other*/) noexcept {}  // NOLINT

    [[nodiscard]] T* allocate(std::size_t n) {
        if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) {
            throw std::bad_array_new_length();
        }
        if (n * sizeof(T) >= kMappedColumnBytes) {
            return static_cast<T*>(map_coloured_column(n * sizeof(T)));
        }
        return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kColumnAlignment}));
    }

    void deallocate(T* p, std::size_t n) noexcept {
        if (n * sizeof(T) >= kMappedColumnBytes) {
            unmap_coloured_column(p, n * sizeof(T));
            return;
        }
        ::operator delete(p, std::align_val_t{kColumnAlignment});
    }

    template <typename U>
    bool operator==(const AlignedAllocator<U>& /*other*/) const noexcept {
        return true;
    }
};

/// A std::vector whose data() is kColumnAlignment-aligned.
template <typename T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace laddu
