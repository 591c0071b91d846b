// The L3 side of the suite: one queue region, the scripted (or hostile) L2
// peer, and the L3 implementation under test behind its L3Adapter, bound
// onto the region with the harness view and the virtual clock.
#ifndef SPSQ_CONFORMANCE_L3_L3_FIXTURE_H_
#define SPSQ_CONFORMANCE_L3_L3_FIXTURE_H_

#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "testkit/clauses.h"
#include "testkit/queue_region.h"
#include "testkit/scripted_l2.h"
#include "testkit/virtual_clock.h"
#include "model/wire_model.h"
#include "conformance/l3/l3_adapter.h"
#include "gtest/gtest.h"

namespace spsq_conf {

// Runs a setup step that judges its own clause in a block (FillInputRing) and
// ends the calling test or lambda when the step failed fatally, adding no
// failure of its own: ASSERT_NO_FATAL_FAILURE would add one, outside the
// step's block, and so FAIL the caller's clauses for the step's defect.
#define SPSQ_SETUP(step)                                  \
  do {                                                    \
    step;                                                 \
    if (::testing::Test::HasFatalFailure()) return;       \
  } while (0)

class L3Test : public ::testing::Test {
 protected:
  void SetUp() override {
    VirtualClock::reset();
    Rebuild(QueueParams());
  }

  void Rebuild(QueueParams p) {
    Finish("previous queue");
    l3_ = make_l3_adapter();
    // An implementation that stores into the memory directly (no view) has
    // no view writes the shadow copy could account its stores to.
    if (!l3_->uses_view()) p.shadow = false;
    // On the view, L3's payload is its side's copy when SPSQ_COHERENCE makes
    // the region non-coherent; without one it can flush nothing, so its
    // region stays coherent.
    region_.reset(l3_->uses_view() ? new QueueRegion(p, Side::kL3) : new QueueRegion(p));
    peer_.reset(new ScriptedL2(&region_->memory(), region_->layout()));
    const auto s = region_->scalars();
    ASSERT_TRUE(l3_->open(s.data(), s.size(), region_->view(), &VirtualClock::now_ns))
        << l3_->name() << ": open() refused a valid binding";
    ASSERT_TRUE(l3_->live()) << l3_->error().message;
  }

  void TearDown() override {
    if (!region_) return;
    const bool failed = HasFailure();
    Finish("invariant");
    record_invariants_of(Side::kL3, violated_);
    if (failed) {
      const std::string text = last_description_;
      std::printf("---- region at failure (spsq inspect) ----\n%s", text.c_str());
      RecordProperty("region", text);
    }
  }

  L3Adapter& l3() { return *l3_; }
  ScriptedL2& peer() { return *peer_; }
  QueueRegion& region() { return *region_; }
  AccessLog& log() { return region_->log(); }
  const wire::Layout& layout() { return region_->layout(); }
  int32_t l3_flag() { return peer_->l3_flag(); }

  // Live, kind NONE, no flag: the no-progress or no-poison clause the caller
  // judges (no clause of its own, so no block).
  void ExpectHealthy(const char* context) {
    EXPECT_TRUE(l3_->live()) << context << ": " << l3_->error().message;
    // A queue that cannot tell its kinds is judged healthy by live() alone.
    const L3ErrorInfo e = l3_->error();
    if (e.kind_known) {
      EXPECT_EQ(e.kind, wire::kKindNone) << context << ": " << e.message;
    }
    EXPECT_EQ(l3_flag(), 0) << context << ": initiator abort flag raised";
  }
  // Not live, the kind (0: any), initiator flag 1 (Set once, when visible).
  // Not live and the kind judge the caller's poison clause; the flag and its
  // one Set judge the flag's clauses, in blocks of their own. The op is
  // recorded, not judged: the contract numbers the L2 endpoint's operations
  // only (W.ENUM.3), none of L3's.
  void ExpectPoisoned(uint32_t want_kind, const char* context) {
    EXPECT_FALSE(l3_->live()) << context;
    const L3ErrorInfo e = l3_->error();
    if (want_kind != 0) {
      ExpectKind(want_kind, context);
    } else if (e.kind_known) {
      EXPECT_NE(e.kind, wire::kKindNone) << context;
    }
    {
      SPSQ_JUDGING("S4.POISON.11/l3");
      EXPECT_EQ(l3_flag(), 1) << context << ": S4.POISON.11: a local poison sets the L3 abort "
                                            "flag (offset 256) to 1";
    }
    if (l3_->uses_view()) {
      SPSQ_JUDGING("W.FLAG.1/l3");
      EXPECT_EQ(log().count([](const spsq_conf::Access& a) {
                  return a.kind == AccessKind::kNotify && a.offset == wire::kInitiatorFlag;
                }), 1u) << context << ": W.FLAG.1: Set exactly once";
    }
    record_observation("l3.poison_op", std::to_string(e.op));
  }

  // Whether the queue reports its error kinds. A testee may answer null (it
  // cannot tell): a kind check is then no verdict, so the test is skipped
  // with that reason, which grades its clauses INTERPRETATION (the
  // verdict engine's UNREPORTED prefix) rather than FAIL on a guess; its
  // other checks still run and can FAIL.
  bool KindsReported() {
    if (l3_->error().kind_known) return true;
    [] {
      GTEST_SKIP() << "not reported by the implementation: the testee does not report error "
                      "kinds";
    }();
    return false;
  }
  // The error kind is `want`: judges the caller's clauses.
  void ExpectKind(uint32_t want, const std::string& context) {
    if (!KindsReported()) return;
    const L3ErrorInfo e = l3_->error();
    EXPECT_EQ(e.kind, want) << context << ": saw " << wire::kind_name(e.kind) << ": "
                            << e.message;
  }

  // The peer idle, L3 fills the input ring with depth zero-byte messages; the
  // ring holds exactly depth, so a refusal fails the capacity rule here, not
  // the caller's clauses. Call it through SPSQ_SETUP.
  void FillInputRing() {
    SPSQ_JUDGING("S2.CAP.1/l3-input");
    for (uint64_t i = 0; i < layout().depth; ++i) {
      const L3Status st = l3_->try_enqueue(nullptr, 0);
      ASSERT_EQ(st, L3Status::kOk) << "zero-byte input " << i + 1 << " of depth "
                                   << layout().depth << ", the peer idle: "
                                   << l3_status_name(st) << ", " << l3_->error().message;
    }
  }

  static std::vector<uint8_t> Bytes(uint64_t n, uint8_t seed) {
    std::vector<uint8_t> v(n);
    for (uint64_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed * 29 + i * 5 + 3);
    return v;
  }

  std::unique_ptr<QueueRegion> region_;
  std::unique_ptr<ScriptedL2> peer_;
  std::unique_ptr<L3Adapter> l3_;
  std::set<std::string> violated_;
  std::string last_description_;

 private:
  // Drops the adapter, then judges the region it ran on.
  void Finish(const char* who) {
    if (!region_) return;
    l3_.reset();
    region_->check_invariants(Side::kL3, who, peer_->violations(), &violated_);
    if (HasFailure()) last_description_ = region_->describe();
    const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
    const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
    if (HasFailure() && dir != nullptr && t != nullptr) {
      region_->dump_to(dir, std::string(t->test_suite_name()) + "." + t->name());
    }
  }
};

// The suite's fixture: L3Test plus the helpers the section sources share.
class L3Suite : public L3Test {
 protected:
  // The kind of a poison no document fixes (AMB.KINDS): recorded; a kind
  // outside reading A's records reading B.
  void NoteKind(const char* cause, std::initializer_list<uint32_t> reading_a) {
    if (!KindsReported()) return;
    const uint32_t k = l3().error().kind;
    record_observation(std::string("kind.l3.") + cause, wire::kind_name(k));
    if (k == wire::kKindNone) return;
    for (uint32_t a : reading_a) {
      if (k == a) return;
    }
    SPSQ_READING("AMB.KINDS", "B", std::string("L3 ") + cause + ": " + wire::kind_name(k));
  }
  // Publishes `n` DATA outputs from the scripted L2.
  void Outputs(uint64_t n, uint64_t bytes = 8) {
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(peer().publish_data(Bytes(bytes, static_cast<uint8_t>(i))), Enqueue::kOk);
    }
  }
  // After a poison or a remote abort: every normal call FAILED, untouched memory.
  void ExpectRejectsEverything(const char* context) {
    SPSQ_JUDGING("S4.POISON.14/l3", "S4.POISON.10/l3");
    const size_t mark = log().mark();
    L3Message m;
    uint8_t buf[64];
    EXPECT_EQ(l3().try_enqueue(buf, 8), L3Status::kFailed) << context;
    EXPECT_EQ(l3().enqueue(buf, 8, 1000), L3Status::kFailed) << context;
    EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed) << context;
    EXPECT_EQ(l3().peek(1000, &m), L3Status::kFailed) << context;
    EXPECT_EQ(l3().try_dequeue_into(buf, sizeof(buf), &m), L3Status::kFailed) << context;
    EXPECT_EQ(l3().try_request_stop(), L3Status::kFailed) << context;
    if (l3().uses_view()) {
      EXPECT_EQ(log().shared_accesses_since(mark), 0u) << context << ":\n" << log().dump(mark);
    }
  }
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_L3_L3_FIXTURE_H_
