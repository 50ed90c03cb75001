#include <string>

#include <gtest/gtest.h>

#include <laddu/base/error.hpp>

namespace laddu {
namespace {

TEST(Error, EveryKindHasItsPythonName) {
    EXPECT_EQ(error_kind_name(ErrorKind::kModel), "ModelError");
    EXPECT_EQ(error_kind_name(ErrorKind::kCompile), "CompileError");
    EXPECT_EQ(error_kind_name(ErrorKind::kData), "DataError");
    EXPECT_EQ(error_kind_name(ErrorKind::kEvaluation), "EvaluationError");
    EXPECT_EQ(error_kind_name(ErrorKind::kBackend), "BackendError");
    EXPECT_EQ(error_kind_name(ErrorKind::kFit), "FitError");
    EXPECT_EQ(error_kind_name(ErrorKind::kInternal), "InternalError");
}

TEST(Error, SubclassesCarryTheirKindAndMessage) {
    const DataError error("column 'beam_px' not in 'data.parquet'");
    EXPECT_EQ(error.kind(), ErrorKind::kData);
    EXPECT_STREQ(error.what(), "column 'beam_px' not in 'data.parquet'");
}

template <typename Expected>
void expect_thrown_as(ErrorKind kind) {
    try {
        throw_error(kind, "the message");
        FAIL() << "throw_error returned";
    } catch (const Expected& error) {
        EXPECT_EQ(error.kind(), kind);
        EXPECT_STREQ(error.what(), "the message");
    } catch (...) {
        FAIL() << "wrong exception type for " << error_kind_name(kind);
    }
}

TEST(Error, ThrowErrorRaisesTheMatchingClass) {
    expect_thrown_as<ModelError>(ErrorKind::kModel);
    expect_thrown_as<CompileError>(ErrorKind::kCompile);
    expect_thrown_as<DataError>(ErrorKind::kData);
    expect_thrown_as<EvaluationError>(ErrorKind::kEvaluation);
    expect_thrown_as<BackendError>(ErrorKind::kBackend);
    expect_thrown_as<FitError>(ErrorKind::kFit);
    expect_thrown_as<InternalError>(ErrorKind::kInternal);
}

TEST(Error, AllAreCatchableAsErrorAndRuntimeError) {
    EXPECT_THROW(throw_error(ErrorKind::kFit, "x"), Error);
    EXPECT_THROW(throw_error(ErrorKind::kModel, "x"), std::runtime_error);
    // A DataError is not a ModelError: the branches are distinct.
    EXPECT_THROW(
        {
            try {
                throw_error(ErrorKind::kData, "x");
            } catch (const ModelError&) {
                FAIL() << "DataError caught as ModelError";
            }
        },
        DataError);
}

}  // namespace
}  // namespace laddu
