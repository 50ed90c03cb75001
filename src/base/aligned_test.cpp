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

TEST(AlignedVector, ColumnsOfHugePagesStartOnAHugePageBoundary) {
    // 3 MiB + a few doubles: one whole 2 MiB page and a tail of small pages. The mapping's
    // trimmed slack must not reach into neighbouring blocks: two blocks side by side keep
    // their own values when one of them is freed.
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    const std::size_t n = (std::size_t{3} << 20) / sizeof(double) + 5;
    AlignedVector<double> first(n, 1.5);
    AlignedVector<double> second(n, -2.0);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first.data()) % kHuge, 0U);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(second.data()) % kHuge, 0U);
    first[n - 1] = 7.0;
    first = AlignedVector<double>();
    EXPECT_EQ(second[0], -2.0);
    EXPECT_EQ(second[n - 1], -2.0);
    AlignedVector<double> third(n);
    EXPECT_EQ(third[n - 1], 0.0);  // fresh pages, zeroed
}

TEST(AlignedVector, HugeRequestThrowsBadAlloc) {
    AlignedAllocator<double> allocator;
    EXPECT_THROW((void)allocator.allocate(static_cast<std::size_t>(-1) / 4), std::bad_alloc);
}

}  // namespace
}  // namespace laddu
