#include <memory>
#include <string>

#include <gtest/gtest.h>

#include <laddu/base/expected.hpp>

namespace laddu {
namespace {

Expected<int> parse_positive(int x) {
    if (x <= 0) {
        return failure(ErrorKind::kModel, "expected a positive value, got " + std::to_string(x));
    }
    return x;
}

TEST(Expected, HoldsAValue) {
    const Expected<int> result = parse_positive(3);
    ASSERT_TRUE(result.has_value());
    EXPECT_TRUE(static_cast<bool>(result));
    EXPECT_EQ(result.value(), 3);
    EXPECT_EQ(*result, 3);
    EXPECT_EQ(result.value_or(7), 3);
}

TEST(Expected, HoldsAFailureWithKindAndMessage) {
    const Expected<int> result = parse_positive(-2);
    ASSERT_FALSE(result.has_value());
    EXPECT_EQ(result.error().kind, ErrorKind::kModel);
    EXPECT_EQ(result.error().message, "expected a positive value, got -2");
    EXPECT_EQ(result.value_or(7), 7);
}

TEST(Expected, ValueOfAFailureThrowsItsTypedException) {
    const Expected<int> result = parse_positive(0);
    try {
        (void)result.value();
        FAIL() << "value() did not throw";
    } catch (const ModelError& error) {
        EXPECT_STREQ(error.what(), "expected a positive value, got 0");
    }
}

TEST(Expected, ErrorOfAValueIsAnInternalError) {
    const Expected<int> result = parse_positive(1);
    EXPECT_THROW((void)result.error(), InternalError);
}

TEST(Expected, MovesOnlyTypesOut) {
    Expected<std::unique_ptr<int>> result = std::make_unique<int>(5);
    std::unique_ptr<int> owned = std::move(result).value();
    ASSERT_NE(owned, nullptr);
    EXPECT_EQ(*owned, 5);
}

TEST(Expected, ArrowReachesMembers) {
    Expected<std::string> result = std::string("abc");
    EXPECT_EQ(result->size(), 3U);
}

TEST(Expected, VoidSuccessAndFailure) {
    const Expected<void> ok;
    EXPECT_TRUE(ok.has_value());
    EXPECT_NO_THROW(ok.value());
    EXPECT_THROW((void)ok.error(), InternalError);

    const Expected<void> bad = failure(ErrorKind::kBackend, "LLVM could not compile kernel");
    EXPECT_FALSE(bad.has_value());
    EXPECT_EQ(bad.error().kind, ErrorKind::kBackend);
    EXPECT_THROW(bad.value(), BackendError);
}

}  // namespace
}  // namespace laddu
