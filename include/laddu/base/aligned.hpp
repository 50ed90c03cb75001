// laddu/base/aligned.hpp: 64-byte aligned storage for structure-of-arrays columns.
//
// Cache columns and interpreter workspaces are read lane by lane in vector loops; aligning every
// column to a cache line keeps loads whole and lets the compiler assume alignment.
#pragma once

#include <cstddef>
#include <limits>
#include <new>
#include <vector>

namespace laddu {

/// Alignment of every SoA column, in bytes (one cache line, two AVX2 registers).
inline constexpr std::size_t kColumnAlignment = 64;

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
        return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kColumnAlignment}));
    }

    void deallocate(T* p, std::size_t /*n*/) noexcept {
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
