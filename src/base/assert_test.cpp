#include <string>

#include <gtest/gtest.h>

#include <laddu/base/assert.hpp>
#include <laddu/base/error.hpp>

namespace laddu {
namespace {

int checked_index(int index, int size) {
    LADDU_ASSERT(index < size) << "index " << index << " past size " << size;
    return index;
}

TEST(Assert, PassingConditionDoesNothing) {
    EXPECT_EQ(checked_index(1, 2), 1);
}

TEST(Assert, FailureThrowsInternalErrorWithContext) {
    try {
        (void)checked_index(5, 2);
        FAIL() << "assertion did not fire";
    } catch (const InternalError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("assert_test.cpp"), std::string::npos) << message;
        EXPECT_NE(message.find("index < size"), std::string::npos) << message;
        EXPECT_NE(message.find("index 5 past size 2"), std::string::npos) << message;
        EXPECT_NE(message.find("bug in laddu-cpp"), std::string::npos) << message;
    }
}

TEST(Assert, StreamedOperandsAreNotEvaluatedOnSuccess) {
    int evaluations = 0;
    auto count = [&evaluations] {
        return ++evaluations;
    };
    LADDU_ASSERT(true) << count();
    EXPECT_EQ(evaluations, 0);
}

}  // namespace
}  // namespace laddu
