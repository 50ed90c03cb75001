#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <utility>
#include <vector>

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
    // Its own pages: the column starts at its colour within the first one.
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(column.data()) % (2 * kColumnAlignment), 0U);
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
    // The blocks start on huge-page boundaries; each column at its colour within the block's
    // first page.
    EXPECT_LT(reinterpret_cast<std::uintptr_t>(first.data()) % kHuge, kColumnColourSpan);
    EXPECT_LT(reinterpret_cast<std::uintptr_t>(second.data()) % kHuge, kColumnColourSpan);
    first[n - 1] = 7.0;
    first = AlignedVector<double>();
    EXPECT_EQ(second[0], -2.0);
    EXPECT_EQ(second[n - 1], -2.0);
    AlignedVector<double> third(n);
    EXPECT_EQ(third[n - 1], 0.0);  // fresh pages, zeroed
}

// Columns mapped one after another start at different offsets within a page, two cache lines
// apart, so the same element of 30 columns falls into 30 different L1 sets rather than one.
TEST(AlignedVector, MappedColumnsAllocatedTogetherStartAtDifferentColours) {
    const std::size_t n = (std::size_t{2} << 20) / sizeof(double);  // 2 MiB: huge-page blocks
    std::vector<AlignedVector<double>> columns;
    std::set<std::uintptr_t> colours;
    for (int k = 0; k < 30; ++k) {
        columns.emplace_back(n, static_cast<double>(k));
        const auto address = reinterpret_cast<std::uintptr_t>(columns.back().data());
        EXPECT_EQ(address % (2 * kColumnAlignment), 0U);
        colours.insert(address % kColumnColourSpan);
    }
    EXPECT_EQ(colours.size(), 30U);
    for (int k = 0; k < 30; ++k) {
        EXPECT_EQ(columns[static_cast<std::size_t>(k)][n - 1], static_cast<double>(k));
    }
}

TEST(AlignedVector, HugeRequestThrowsBadAlloc) {
    AlignedAllocator<double> allocator;
    EXPECT_THROW((void)allocator.allocate(static_cast<std::size_t>(-1) / 4), std::bad_alloc);
}

}  // namespace
}  // namespace laddu

namespace laddu {
namespace {

std::uintptr_t address_of(const void* p) {
    return reinterpret_cast<std::uintptr_t>(
        p);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
}

TEST(ColumnBlock, StridesAreOddCacheLinesBelowTwoMebibytesAndColouredHugePagesAbove) {
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    EXPECT_EQ(ColumnBlock::stride_for(0), 0U);
    EXPECT_EQ(ColumnBlock::stride_for(1), 64U);
    EXPECT_EQ(ColumnBlock::stride_for(128), 192U);
    EXPECT_EQ(ColumnBlock::stride_for(8192), 8256U);
    EXPECT_EQ(ColumnBlock::stride_for(kHuge), 2 * kHuge + 128);  // and a page: two huge pages
    EXPECT_EQ(ColumnBlock::stride_for(3 * kHuge + 1), 4 * kHuge + 128);
    EXPECT_EQ(ColumnBlock::stride_for(std::numeric_limits<std::size_t>::max()),
              std::numeric_limits<std::size_t>::max());
}

// Every column is zeroed, writable to its end, aligned and one stride from the last; large
// ones sit at their own colour past a 2 MiB boundary; moving keeps the memory.
TEST(ColumnBlock, ColumnsAreZeroedWritableAndEvenlySpaced) {
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    for (const std::size_t bytes : {std::size_t{8}, std::size_t{80'000}, kHuge + 8}) {
        SCOPED_TRACE(bytes);
        constexpr std::size_t kColumns = 5;
        ColumnBlock block(kColumns, bytes);
        ASSERT_EQ(block.stride(), ColumnBlock::stride_for(bytes));
        EXPECT_GE(block.resident_bytes(), kColumns * bytes);
        for (std::size_t c = 0; c < kColumns; ++c) {
            std::byte* column = block.column(c);
            EXPECT_EQ(address_of(column) % kColumnAlignment, 0U);
            EXPECT_EQ(address_of(column) - address_of(block.column(0)), c * block.stride());
            EXPECT_EQ(column[0], std::byte{0});
            EXPECT_EQ(column[bytes - 1], std::byte{0});
            column[0] = std::byte{1};
            column[bytes - 1] = std::byte{2};
            if (bytes >= kHuge) {
                EXPECT_EQ(address_of(column) % kHuge, c * 2 * kColumnAlignment);
            }
        }
        ColumnBlock moved = std::move(block);
        EXPECT_EQ(moved.column(kColumns - 1)[bytes - 1], std::byte{2});
        EXPECT_EQ(block.column(0), nullptr);  // NOLINT(bugprone-use-after-move): moved from
    }
    const ColumnBlock none(0, 64);
    EXPECT_EQ(none.column(0), nullptr);
    EXPECT_EQ(none.resident_bytes(), 0U);
}

}  // namespace
}  // namespace laddu
