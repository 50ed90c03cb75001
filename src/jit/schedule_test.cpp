// Which kernels get which machine schedule and prefetch hint (schedule.hpp, lower.hpp). That
// the schedule changes no value is checked against the interpreter in jit_interp_test.cpp
// (JitVsInterp.ManyOutputKernelsAreBitIdenticalInF64, JitVsInterp.RandomPrograms).
#include <gtest/gtest.h>

#include "lower.hpp"
#include "schedule.hpp"

namespace laddu::jit::detail {
namespace {

TEST(Schedule, KernelsWithManyOutputsKeepFewValuesLive) {
    EXPECT_EQ(schedule_for(1), Schedule::kTarget);
    EXPECT_EQ(schedule_for(kTargetScheduleMaxOutputs), Schedule::kTarget);
    EXPECT_EQ(schedule_for(kTargetScheduleMaxOutputs + 1), Schedule::kFewLiveValues);
    EXPECT_EQ(schedule_for(35), Schedule::kFewLiveValues);  // the K-matrix gradient kernel
    EXPECT_STREQ(schedule_name(Schedule::kFewLiveValues), "ilpmin");
    EXPECT_STREQ(schedule_name(Schedule::kTarget), "target");
}

TEST(Schedule, PrefetchesByTheHintMeasuredFastestOnEachFamily) {
    EXPECT_EQ(prefetch_locality("znver5"), 0);
    EXPECT_EQ(prefetch_locality("znver4"), 2);
    EXPECT_EQ(prefetch_locality("bdver2"), 2);
    EXPECT_EQ(prefetch_locality("sapphirerapids"), 3);
    EXPECT_EQ(prefetch_locality("rocketlake"), 3);
    EXPECT_EQ(prefetch_locality("skylake-avx512"), 3);
    EXPECT_EQ(prefetch_locality(""), 2);
}

}  // namespace
}  // namespace laddu::jit::detail
