// The open points and ambiguities as the L3 queue reads them: each test
// records the reading the implementation showed (SPSQ_READING).
#include <string>
#include <vector>

#include "conformance/l3/l3_fixture.h"

namespace spsq_conf {
namespace {

class L3Interpretation : public L3Suite {};

TEST_F(L3Suite, BlockingCallSamplesThePeerFlag) {
  SPSQ_CLAUSES("OPEN.ABORTSAMPLE");
  Outputs(1);
  peer().set_peer_flag(1);
  L3Message m;
  const L3Status first = l3().peek(1000, &m);
  Rebuild(QueueParams());
  peer().set_peer_flag(1);
  const uint64_t t0 = VirtualClock::peek();
  EXPECT_EQ(l3().peek(1000, &m), L3Status::kFailed);
  EXPECT_EQ(l3().error().kind, wire::kRemoteAborted);
  const uint64_t waited = VirtualClock::peek() - t0;
  EXPECT_LE(waited, 1000u);
  if (first == L3Status::kOk && waited == 1000) {
    SPSQ_READING("OPEN.ABORTSAMPLE", "A", "L3: flag sampled only after the wait expired");
  } else {
    SPSQ_READING("OPEN.ABORTSAMPLE", "B", "L3: flag sampled early");
  }
}

TEST_F(L3Interpretation, IdleInputArenaTakesAMessageThatOnlyFitsAfterASkip) {
  SPSQ_CLAUSES("AMB.ROOM");
  // Cursor at 100 of 256, nothing unreleased, 200 bytes: the skip makes the
  // literal bound 356 > 256.
  ASSERT_EQ(layout().input_arena_bytes, 256u);
  const auto first = Bytes(100, 1);
  ASSERT_EQ(l3().try_enqueue(first.data(), first.size()), L3Status::kOk);
  ASSERT_EQ(peer().drain_inputs().size(), 1u);
  const auto bytes = Bytes(200, 2);
  const L3Status s = l3().try_enqueue(bytes.data(), bytes.size());
  if (s == L3Status::kOk) {
    Message in;
    ASSERT_TRUE(peer().poll_input(&in));
    EXPECT_EQ(in.offset, layout().input_arena) << "the message skips to the arena start";
    EXPECT_EQ(in.payload, bytes);
    SPSQ_READING("AMB.ROOM", "A", "L3 input: an idle arena accepts any message that fits it");
  } else {
    EXPECT_EQ(s, L3Status::kNoProgress) << "refused, but not as ordinary no-progress";
    ExpectHealthy("refused on an idle arena");
    SPSQ_READING("AMB.ROOM", "B", "L3 input: literal bound: refused on an idle arena (LIVE.1 fails)");
  }
}

// The kinds L3 reports for handle misuse and for invalid output descriptors.
// Poison with the flag raised is required (ExpectPoisoned); the kinds are the
// reading: A is OWNERSHIP for handles and INVALID_DESCRIPTOR for descriptor
// content, B anything else.
TEST_F(L3Interpretation, ErrorKindsPerPoisonCause) {
  SPSQ_CLAUSES("AMB.KINDS");
  std::string seen;
  bool reading_a = true;
  auto note = [&](const char* cause, uint32_t want_for_a) {
    ExpectPoisoned(0, cause);
    const uint32_t kind = l3().error().kind;
    seen += std::string(seen.empty() ? "" : ", ") + cause + " " + wire::kind_name(kind);
    if (kind != want_for_a) reading_a = false;
  };
  std::vector<uint8_t> buf(64);
  // Handle misuse.
  {
    L3Message never;
    EXPECT_EQ(l3().release(never), L3Status::kFailed) << "release with no message handed out";
    note("handle never handed out", wire::kOwnership);
  }
  {
    Rebuild(QueueParams());
    Outputs(2);
    L3Message a;
    ASSERT_EQ(l3().try_peek(&a), L3Status::kOk);
    ASSERT_EQ(l3().release(a), L3Status::kOk);
    EXPECT_EQ(l3().release(a), L3Status::kFailed) << "release of a released handle";
    note("stale handle", wire::kOwnership);
  }
  {
    Rebuild(QueueParams());
    Outputs(2);
    L3Message a;
    ASSERT_EQ(l3().try_peek(&a), L3Status::kOk);
    L3Message forged = a;
    forged.seq = 2;
    EXPECT_EQ(l3().read_into(forged, buf.data(), buf.size()), L3Status::kFailed)
        << "read_into with a handle that is not the active one";
    note("forged handle", wire::kOwnership);
  }
  // Invalid output descriptors.
  const wire::Layout& l = layout();
  const struct {
    const char* cause;
    wire::Descriptor d;
  } descriptors[] = {
      {"opcode 9", {1, 9, 0, 0}},
      {"STOP on the output", {1, wire::kStop, 0, 0}},
      {"payload outside the output arena", {1, wire::kData, l.input_arena, 8}},
      {"seq 3 at index 0", {3, wire::kData, 0, 0}},
  };
  for (const auto& c : descriptors) {
    Rebuild(QueueParams());
    peer().publish_raw(c.d);
    L3Message m;
    EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed) << c.cause;
    note(c.cause, wire::kInvalidDescriptor);
  }
  if (reading_a) {
    SPSQ_READING("AMB.KINDS", "A", "L3: " + seen);
  } else {
    SPSQ_READING("AMB.KINDS", "B", "L3: " + seen);
  }
}

}  // namespace
}  // namespace spsq_conf
