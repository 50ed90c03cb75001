#include <cstdint>

#include <gtest/gtest.h>

#include <laddu/base/aligned.hpp>

namespace laddu {
namespace {

TEST(AlignedVector, DataIsCacheLineAligned) {
    for (std::size_t n : {1U, 3U, 17U, 1000U}) {
        AlignedVector<double> column(n, 1.5);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(column.data()) % kColumnAlignment, 0U);
        EXPECT_EQ(column.size(), n);
        column.resize(n * 3 + 1);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(column.data()) % kColumnAlignment, 0U);
    }
}

TEST(AlignedVector, LargeColumnsAreMappedAlignedAndZeroed) {
    const std::size_t n = kMappedColumnBytes / sizeof(double) + 3;
    AlignedVector<double> column(n);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(column.data()) % 4096, 0U);  // a page of its own
    EXPECT_EQ(column[n - 1], 0.0);
    column.assign(n, 2.5);
    column.resize(4);  // stays mapped, then shrinks across the threshold
    column.shrink_to_fit();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(column.data()) % kColumnAlignment, 0U);
    EXPECT_EQ(column[3], 2.5);
    column.resize(3 * n, 1.0);
    EXPECT_EQ(column[3], 2.5);
    EXPECT_EQ(column[3 * n - 1], 1.0);
}

TEST(AlignedVector, HugeRequestThrowsBadAlloc) {
    AlignedAllocator<double> allocator;
    EXPECT_THROW((void)allocator.allocate(static_cast<std::size_t>(-1) / 4), std::bad_alloc);
}

}  // namespace
}  // namespace laddu
