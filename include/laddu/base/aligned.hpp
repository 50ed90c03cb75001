// laddu/base/aligned.hpp: 64-byte aligned storage for structure-of-arrays columns.
//
// Cache columns and interpreter workspaces are read lane by lane in vector loops; aligning every
// column to a cache line keeps loads whole and lets the compiler assume alignment.
//
// Large columns are mapped from the system and unmapped when freed, never kept in malloc's
// heap. A streamed pass allocates and frees window- and batch-sized columns of varying sizes
// again and again; glibc, which serves blocks up to the size of the largest mapped block it has
// freed from its heap, would fragment that heap and keep the freed pages resident beyond the
// memory budget that accounted for every live column (measured: +17% of a 64 MiB budget).
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
            return static_cast<T*>(map_column(n * sizeof(T)));
        }
        return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kColumnAlignment}));
    }

    void deallocate(T* p, std::size_t n) noexcept {
        if (n * sizeof(T) >= kMappedColumnBytes) {
            unmap_column(p, n * sizeof(T));
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
