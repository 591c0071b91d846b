// The wrap's chunk clock: chunks close at kChunkMessages, each followed by a
// wire floor sample of the ring's direction, kept out of the chunks' time.
#include "testkit/lean_wrap_driver.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace spsq_conf {
namespace lean_wrap {
namespace {

TEST(ChunkClock, EachChunkIsFollowedByAFloorSamplePairedWithTheChunksTail) {
  for (const bool input : {true, false}) {
    ChunkClock c;
    c.start(input);
    c.add(kChunkMessages - kFloorMessages - 1);
    c.add(1);  // the tail starts
    c.add(kFloorMessages - 1);
    EXPECT_EQ(c.chunks(), 0u);
    EXPECT_EQ(c.floor_samples(), 0u);
    EXPECT_EQ(c.floor_spent_ns(), 0u);
    EXPECT_EQ(c.median(), 0);
    EXPECT_EQ(c.floor_median(), 0);
    EXPECT_EQ(c.ratio_median(), 0);
    c.add(1);
    ASSERT_EQ(c.chunks(), 1u);
    ASSERT_EQ(c.floor_samples(), 1u) << c.floor_error();
    EXPECT_EQ(c.floor_error(), "");
    EXPECT_GT(c.median(), 0);
    EXPECT_GT(c.floor_median(), 0);
    EXPECT_GT(c.ratio_median(), 0);
    // The sample's time is counted apart from the chunks, all of it.
    EXPECT_GE(static_cast<double>(c.floor_spent_ns()),
              c.floor_median() * static_cast<double>(kFloorMessages));
    // One batch that overshoots still closes one chunk, its size the whole
    // batch; it has no tail of its own, so no ratio.
    c.add(kChunkMessages + 5);
    EXPECT_EQ(c.chunks(), 2u);
    EXPECT_EQ(c.floor_samples(), 2u);
    // A new run starts from nothing.
    c.start(!input);
    EXPECT_EQ(c.chunks(), 0u);
    EXPECT_EQ(c.floor_samples(), 0u);
    EXPECT_EQ(c.floor_spent_ns(), 0u);
    EXPECT_EQ(c.ratio_median(), 0);
  }
}

}  // namespace
}  // namespace lean_wrap
}  // namespace spsq_conf
