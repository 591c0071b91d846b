// QueueRegion's choice of cache model (QueueParams, SPSQ_COHERENCE) and what
// a non-coherent region hands the endpoint, the peer and the failure report.
#include "testkit/queue_region.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

// Sets (or unsets, for null) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

QueueParams Small() {
  QueueParams p;
  p.depth = 4;
  return p;
}

TEST(QueueRegionCoherence, CoherentByDefault) {
  ScopedEnv env("SPSQ_COHERENCE", nullptr);
  QueueRegion q(Small(), Side::kL2);
  EXPECT_EQ(q.coherence(), nullptr);
  EXPECT_EQ(q.coherence_policy(), CachePolicy::kNone);
  EXPECT_EQ(q.endpoint_payload(), q.memory().payload());
  EXPECT_EQ(q.fields().payload_base, reinterpret_cast<uint64_t>(q.memory().payload()));
}

TEST(QueueRegionCoherence, TheEnvironmentChoosesWhenTheParamsSayNone) {
  {
    ScopedEnv env("SPSQ_COHERENCE", "adversarial");
    QueueRegion q(Small(), Side::kL2);
    ASSERT_NE(q.coherence(), nullptr);
    EXPECT_EQ(q.coherence_policy(), CachePolicy::kAdversarial);
    EXPECT_EQ(q.coherence()->memory(), q.memory().payload()) << "DRAM is the region's memory";
    EXPECT_EQ(q.view_state().coherence, q.coherence());
    EXPECT_EQ(q.view_state().side, Side::kL2);
    EXPECT_EQ(q.endpoint_payload(), q.coherence()->side_base(Side::kL2));
    EXPECT_EQ(q.view().payload().span().base,
              reinterpret_cast<uint64_t>(q.coherence()->side_base(Side::kL2)));
    EXPECT_EQ(q.fields().payload_base, reinterpret_cast<uint64_t>(q.endpoint_payload()))
        << "the binding carries the address the endpoint maps the payload at";
  }
  {
    ScopedEnv env("SPSQ_COHERENCE", "random:12");
    QueueRegion q(Small(), Side::kL3);
    EXPECT_EQ(q.coherence_policy(), CachePolicy::kRandom);
    EXPECT_EQ(q.view_state().side, Side::kL3);
    EXPECT_NE(q.describe().find("non-coherent payload (random:12)"), std::string::npos)
        << q.describe();
  }
  {
    ScopedEnv env("SPSQ_COHERENCE", "none");
    QueueRegion q(Small(), Side::kL2);
    EXPECT_EQ(q.coherence(), nullptr);
  }
}

TEST(QueueRegionCoherence, TheParamsWinOverTheEnvironment) {
  ScopedEnv env("SPSQ_COHERENCE", "random:1");
  QueueParams p = Small();
  p.coherence = CachePolicy::kAdversarial;
  QueueRegion q(p, Side::kL2);
  EXPECT_EQ(q.coherence_policy(), CachePolicy::kAdversarial);
}

TEST(QueueRegionCoherence, WhatStaysCoherentWhateverTheEnvironmentSays) {
  ScopedEnv env("SPSQ_COHERENCE", "adversarial");
  QueueParams wrap = Small();
  wrap.coherence_from_env = false;
  EXPECT_EQ(QueueRegion(wrap, Side::kL2).coherence(), nullptr) << "a run that opts out";
  EXPECT_EQ(QueueRegion(Small()).coherence(), nullptr) << "no side given (the L3 suite)";
  QueueParams big;
  big.depth = 1 << 16;  // 4 MiB of descriptor rings
  EXPECT_EQ(QueueRegion(big, Side::kL2).coherence(), nullptr) << "over the model's limit";
}

TEST(QueueRegionCoherence, L2StoreChecksBoundsAgainstTheCopyAndLeavesDramAlone) {
  ScopedEnv env("SPSQ_COHERENCE", "adversarial");
  ScopedEnv flush("SPSQ_OPEN_FLUSH", "A");  // the endpoint's publish would flush
  QueueRegion q(Small(), Side::kL2);
  const wire::Layout& l = q.layout();
  const uint8_t bytes[4] = {9, 8, 7, 6};
  uint8_t* span = q.endpoint_payload() + l.output_arena + 64;
  ASSERT_TRUE(q.l2_store(span, bytes, 4));
  EXPECT_EQ(std::memcmp(span, bytes, 4), 0);
  EXPECT_EQ(q.memory().payload()[l.output_arena + 64], 0) << "not flushed yet";
  EXPECT_NE(q.describe().find("dirty lines (stored, never written back): " +
                              std::to_string((l.output_arena + 64) / 64) + "@"),
            std::string::npos)
      << q.describe();
  EXPECT_NONFATAL_FAILURE(q.l2_store(q.memory().payload() + l.output_arena, bytes, 4),
                          "S2.FIT.1");  // DRAM is not where L2's span is
  ASSERT_TRUE(q.view().payload().write(l.output_arena + 64, span, 4));  // the flush
  EXPECT_EQ(q.memory().payload()[l.output_arena + 65], 8);
  std::set<std::string> violated;
  q.check_invariants(Side::kL2, "after a store and its flush", {}, &violated);
  EXPECT_TRUE(violated.empty());
}

TEST(QueueRegionCoherence, L2CodeFlushesItsStoresUnlessReadingAIsDeclared) {
  ScopedEnv env("SPSQ_COHERENCE", "adversarial");
  for (const char* reading : {static_cast<const char*>(nullptr), "", "B"}) {
    ScopedEnv flush("SPSQ_OPEN_FLUSH", reading);
    QueueRegion q(Small(), Side::kL2);
    EXPECT_TRUE(q.l2_code_flushes()) << (reading ? reading : "unset");
    const uint64_t off = q.layout().output_arena;
    const uint8_t bytes[2] = {3, 4};
    ASSERT_TRUE(q.l2_store(q.endpoint_payload() + off, bytes, 2));
    EXPECT_EQ(q.memory().payload()[off + 1], 4) << "flushed to DRAM";
    EXPECT_EQ(q.log().count_kind(AccessKind::kWrite), 0u) << "L2 code's flush is no view call";
  }
  ScopedEnv flush("SPSQ_OPEN_FLUSH", "A");
  QueueRegion q(Small(), Side::kL2);
  EXPECT_FALSE(q.l2_code_flushes());
}

TEST(QueueRegionCoherence, ReadingBChangesNothingCoherently) {
  ScopedEnv env("SPSQ_COHERENCE", nullptr);
  ScopedEnv flush("SPSQ_OPEN_FLUSH", "B");
  QueueRegion q(Small(), Side::kL2);
  EXPECT_FALSE(q.l2_code_flushes());
  const uint8_t b = 1;
  ASSERT_TRUE(q.l2_store(q.memory().payload() + q.layout().output_arena, &b, 1));
  EXPECT_EQ(q.log().count_kind(AccessKind::kWrite), 0u);
}

TEST(QueueRegionCoherenceDeathTest, ABadValueNamesTheVariableTheValueAndTheForms) {
  EXPECT_DEATH(
      {
        setenv("SPSQ_COHERENCE", "random:x", 1);
        QueueRegion q(Small(), Side::kL2);
      },
      "SPSQ_COHERENCE=\"random:x\" is not a cache policy: accepted are none, adversarial, "
      "random or random:<decimal seed>");
  EXPECT_DEATH(
      {
        setenv("SPSQ_COHERENCE", "sometimes", 1);
        QueueRegion q(Small());  // refused even where the region stays coherent
      },
      "SPSQ_COHERENCE=\"sometimes\"");
  EXPECT_DEATH(
      {
        setenv("SPSQ_COHERENCE", "adversarial", 1);
        setenv("SPSQ_OPEN_FLUSH", "C", 1);
        QueueRegion q(Small(), Side::kL2);
      },
      "SPSQ_OPEN_FLUSH=\"C\" is not an OPEN.FLUSH reading");
}

TEST(QueueRegionCoherenceDeathTest, ANonCoherentRegionNeedsTheEndpointsSide) {
  QueueParams p = Small();
  p.coherence = CachePolicy::kAdversarial;
  EXPECT_DEATH(QueueRegion q(p), "needs the side the endpoint plays");
}

}  // namespace
}  // namespace spsq_conf
