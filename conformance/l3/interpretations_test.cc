// The open points and ambiguities as the L3 queue reads them: each test
// walks the clause's cases and records the reading they agree on
// (ReadingVote, SPSQ_READING).
#include <string>
#include <vector>

#include "testkit/reading_vote.h"
#include "conformance/l3/l3_fixture.h"

namespace spsq_conf {
namespace {

class L3Interpretation : public L3Suite {
 protected:
  // A usage error the spec answers only in its host-language API: the C++
  // queue may treat it as one (A: REJECTED, nothing touched) or poison (B).
  // `touched`: the call did something a usage error must not.
  std::string UsageErrorReading(const char* key, L3Status s, bool touched) {
    const bool live = l3().live();
    // A queue that cannot tell its kinds shows its reading by the rest.
    const L3ErrorInfo e = l3().error();
    const uint32_t kind = e.kind;
    if (s == L3Status::kRejected && live && (!e.kind_known || kind == wire::kKindNone) &&
        !touched && l3_flag() == 0) {
      return "A";
    }
    if (s == L3Status::kFailed && !live && (!e.kind_known || kind != wire::kKindNone) &&
        l3_flag() == 1) {
      return "B";
    }
    ADD_FAILURE() << key << ": " << l3_status_name(s) << ", live " << live << ", kind "
                  << wire::kind_name(kind) << ", flag " << l3_flag()
                  << (touched ? ", and it touched the queue" : "") << ": neither reading";
    return "";
  }
};

TEST_F(L3Interpretation, BlockingCallSamplesThePeerFlag) {
  SPSQ_CLAUSES("OPEN.ABORTSAMPLE/ready", "OPEN.ABORTSAMPLE/empty", "OPEN.ABORTSAMPLE/room",
               "OPEN.ABORTSAMPLE/full", "S3.TO.7");
  ReadingVote v("OPEN.ABORTSAMPLE", {"A", "B"});
  // A call that could make progress: progress fits both readings, an early
  // REMOTE_ABORTED only B.
  auto progress = [&](const char* key, L3Status s) {
    if (s == L3Status::kFailed && !KindsReported()) return;
    if (s == L3Status::kOk) {
      v.Case(key, {"A", "B"}, "progress with the flag raised");
    } else if (s == L3Status::kFailed && l3().error().kind == wire::kRemoteAborted) {
      v.Case(key, {"B"}, "REMOTE_ABORTED instead of progress");
    } else {
      ADD_FAILURE() << key << ": " << l3_status_name(s) << ", neither progress nor "
                    << "REMOTE_ABORTED: " << l3().error().message;
      v.Case(key, {}, l3_status_name(s));
    }
  };
  // A call that cannot: REMOTE_ABORTED by the deadline, exactly at it (A).
  auto expiry = [&](const char* key, L3Status s, uint64_t waited) {
    if (s == L3Status::kFailed && !KindsReported()) return;
    const bool aborted = s == L3Status::kFailed && l3().error().kind == wire::kRemoteAborted;
    EXPECT_TRUE(aborted) << key << ": S3.TO.7: " << l3_status_name(s) << ": "
                         << l3().error().message;
    EXPECT_LE(waited, 1000u) << key << ": S3.TO.7: waited past the deadline";
    const std::string seen = "waited " + std::to_string(waited) + " of 1000 ns";
    if (!aborted || waited > 1000) {
      v.Case(key, {}, seen);
    } else if (waited == 1000) {
      v.Case(key, {"A", "B"}, "REMOTE_ABORTED at the deadline");
    } else {
      v.Case(key, {"B"}, "REMOTE_ABORTED early, " + seen);
    }
  };
  {
    Outputs(1);
    peer().set_peer_flag(1);
    L3Message m;
    progress("ready", l3().peek(1000, &m));
  }
  {
    Rebuild(QueueParams());
    peer().set_peer_flag(1);
    L3Message m;
    const uint64_t t0 = VirtualClock::peek();
    const L3Status s = l3().peek(1000, &m);
    expiry("empty", s, VirtualClock::peek() - t0);
  }
  {
    Rebuild(QueueParams());
    peer().set_peer_flag(1);
    const auto bytes = Bytes(16, 4);
    const L3Status s = l3().enqueue(bytes.data(), bytes.size(), 1000);
    progress("room", s);
    if (s == L3Status::kOk) {
      const auto in = peer().drain_inputs();
      ASSERT_EQ(in.size(), 1u) << "room";
      EXPECT_EQ(in[0].payload, bytes) << "room";
    }
  }
  {
    Rebuild(QueueParams());
    for (uint64_t i = 0; i < layout().depth; ++i) {
      ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk) << "full: filling the ring";
    }
    peer().set_peer_flag(1);
    const uint64_t t0 = VirtualClock::peek();
    const L3Status s = l3().enqueue(nullptr, 0, 1000);
    expiry("full", s, VirtualClock::peek() - t0);
  }
  const std::string r = v.Decide();
  if (r == "A") SPSQ_READING("OPEN.ABORTSAMPLE", "A", "L3: sampled only on expiry: " + v.detail());
  if (r == "B") SPSQ_READING("OPEN.ABORTSAMPLE", "B", "L3: sampled early: " + v.detail());
}

TEST_F(L3Interpretation, IdleInputArenaTakesAMessageThatOnlyFitsAfterASkip) {
  SPSQ_CLAUSES("AMB.ROOM/mid", "AMB.ROOM/near-end", "AMB.ROOM/whole");
  ReadingVote v("AMB.ROOM", {"A", "B"});
  ASSERT_EQ(layout().input_arena_bytes, 256u);
  const uint64_t arena = layout().input_arena_bytes;
  auto one = [&](const char* key, uint64_t cursor, uint64_t n) {
    Rebuild(QueueParams());
    const auto first = Bytes(cursor, 1);
    ASSERT_EQ(l3().try_enqueue(first.data(), first.size()), L3Status::kOk) << key;
    ASSERT_EQ(peer().drain_inputs().size(), 1u) << key;  // nothing unreleased
    const auto bytes = Bytes(n, 2);
    const L3Status s = l3().try_enqueue(bytes.data(), bytes.size());
    if (s == L3Status::kOk) {
      Message in;
      ASSERT_TRUE(peer().poll_input(&in)) << key;
      EXPECT_EQ(in.offset, layout().input_arena) << key << ": the message skips to the start";
      EXPECT_EQ(in.payload, bytes) << key;
      v.Case(key, {"A"}, "placed at the arena start");
    } else {
      const bool healthy = s == L3Status::kNoProgress && l3().live();
      EXPECT_EQ(s, L3Status::kNoProgress) << key << ": refused, but not as ordinary no-progress";
      ExpectHealthy(key);
      v.Case(key, healthy ? std::initializer_list<const char*>{"B"}
                          : std::initializer_list<const char*>{},
             std::string("refused: ") + l3_status_name(s));
    }
  };
  one("mid", 100, 200);  // the skip makes the literal bound 356 > 256
  one("near-end", arena - 64, arena - 32);
  one("whole", arena - 64, arena);
  const std::string r = v.Decide();
  if (r == "A") {
    SPSQ_READING("AMB.ROOM", "A", "L3 input: an idle arena accepts any message that fits it");
  }
  if (r == "B") {
    SPSQ_READING("AMB.ROOM", "B",
                 "L3 input: literal bound: refused on an idle arena (LIVE.1 fails)");
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
    if (!KindsReported()) return;
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
  const wire::Layout l = layout();  // a copy: Rebuild() replaces the region
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

// Timeout 0 on the blocking L3 calls (AMB.TIMEOUTZERO). Each case could make
// progress at once (room for an input and for STOP, an output published), so
// an attempt would show. Any reading: no wait, no poison, nothing attempted.
TEST_F(L3Interpretation, TimeoutZeroOnABlockingCallIsRefusedOrANoAttempt) {
  if (std::string(l3().surface()) == "python") {
    GTEST_SKIP() << "not applicable: " << l3().name() << " is judged by the Python API, "
                 << "where timeout 0 raises ValueError (S3.PYTO.1)";
  }
  ReadingVote v("AMB.TIMEOUTZERO", {"A", "B"});
  auto one = [&](const char* key, L3Status s, uint64_t t0) {
    L3Message m;
    EXPECT_EQ(VirtualClock::peek(), t0) << key << ": waited";
    ExpectHealthy(key);
    EXPECT_EQ(peer().counter(wire::kInputTail), 0) << key << ": an input or STOP was published";
    EXPECT_EQ(peer().counter(wire::kOutputHead), 0) << key << ": an output was released";
    EXPECT_EQ(l3().try_peek(&m), L3Status::kOk) << key << ": the output is no longer there";
    EXPECT_EQ(m.seq, 1u) << key << ": the output was taken";
    const bool clean = VirtualClock::peek() == t0 && l3().live() && l3_flag() == 0 &&
                       peer().counter(wire::kInputTail) == 0 &&
                       peer().counter(wire::kOutputHead) == 0;
    const std::string shown = l3_status_name(s);
    if (clean && s == L3Status::kRejected) {
      v.Case(key, {"A"}, shown);
    } else if (clean && (s == L3Status::kNoProgress || s == L3Status::kTimedOut)) {
      v.Case(key, {"B"}, shown);
    } else {
      v.Case(key, {}, shown + (clean ? "" : ", and it waited, poisoned or attempted"));
    }
  };
  const auto b = Bytes(8, 1);
  std::vector<uint8_t> buf(64);
  {
    SPSQ_JUDGING("AMB.TIMEOUTZERO/enqueue");
    Outputs(1);
    const uint64_t t0 = VirtualClock::peek();
    one("enqueue", l3().enqueue(b.data(), b.size(), 0), t0);
  }
  {
    SPSQ_JUDGING("AMB.TIMEOUTZERO/request-stop");
    Rebuild(QueueParams());
    Outputs(1);
    const uint64_t t0 = VirtualClock::peek();
    one("request-stop", l3().request_stop(0), t0);
  }
  {
    SPSQ_JUDGING("AMB.TIMEOUTZERO/peek");
    Rebuild(QueueParams());
    Outputs(1);
    const uint64_t t0 = VirtualClock::peek();
    L3Message m;
    one("peek", l3().peek(0, &m), t0);
  }
  {
    SPSQ_JUDGING("AMB.TIMEOUTZERO/dequeue-into");
    Rebuild(QueueParams());
    Outputs(1);
    const uint64_t t0 = VirtualClock::peek();
    L3Message m;
    one("dequeue-into", l3().dequeue_into(buf.data(), buf.size(), 0, &m), t0);
  }
  const std::string r = v.Decide();
  if (r == "A") SPSQ_READING("AMB.TIMEOUTZERO", "A", "L3: a usage error: " + v.detail());
  if (r == "B") SPSQ_READING("AMB.TIMEOUTZERO", "B", "L3: a live no-attempt: " + v.detail());
}

// A view whose wait returns false before its timeout (AMB.WAITFALSE): the
// harness view gives up at half the timeout + 1 ns, 501 of 1000.
TEST_F(L3Interpretation, FalseWaitBeforeTheTimeout) {
  SPSQ_CLAUSES("AMB.WAITFALSE/peek", "AMB.WAITFALSE/produce");
  if (!l3().uses_view()) {
    GTEST_SKIP() << "not applicable: " << l3().name() << " waits on no view of the harness";
  }
  ReadingVote v("AMB.WAITFALSE", {"A", "B"});
  auto expiry = [&](const char* key, L3Status s, uint64_t waited) {
    const bool quiet = s == L3Status::kTimedOut || s == L3Status::kNoProgress;
    EXPECT_TRUE(quiet) << key << ": " << l3_status_name(s) << ": " << l3().error().message;
    ExpectHealthy(key);
    const std::string seen = "returned after " + std::to_string(waited) + " of 1000 ns";
    if (!quiet || !l3().live()) {
      v.Case(key, {}, std::string(l3_status_name(s)) + ", " + seen);
    } else if (waited == 1000) {
      v.Case(key, {"A"}, "waited again until its deadline");
    } else if (waited == 501) {
      v.Case(key, {"B"}, "took the early false wait as the deadline");
    } else {
      ADD_FAILURE() << key << ": S3.TO.8: " << seen;
      v.Case(key, {}, seen);
    }
  };
  {
    region().view_state().short_waits = true;
    L3Message m;
    const uint64_t t0 = VirtualClock::peek();
    const L3Status s = l3().peek(1000, &m);
    expiry("peek", s, VirtualClock::peek() - t0);
  }
  {
    Rebuild(QueueParams());
    for (uint64_t i = 0; i < layout().depth; ++i) {
      ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk) << "produce: filling the ring";
    }
    region().view_state().short_waits = true;
    const uint64_t t0 = VirtualClock::peek();
    const L3Status s = l3().enqueue(nullptr, 0, 1000);
    expiry("produce", s, VirtualClock::peek() - t0);
  }
  const std::string r = v.Decide();
  if (r == "A") SPSQ_READING("AMB.WAITFALSE", "A", "L3: waits again to its deadline: " + v.detail());
  if (r == "B") SPSQ_READING("AMB.WAITFALSE", "B", "L3: false wait is the deadline: " + v.detail());
}

TEST_F(L3Interpretation, BufferTooSmallForTheMessage) {
  SPSQ_CLAUSES("AMB.SHORTBUF");
  Outputs(1, 8);
  L3Message m;
  ASSERT_EQ(l3().try_peek(&m), L3Status::kOk);
  std::vector<uint8_t> buf(8, 0xcd);
  const L3Status s = l3().read_into(m, buf.data(), 7);
  const std::string r = UsageErrorReading("too-small", s, s == L3Status::kOk);
  if (r == "A") {
    EXPECT_EQ(l3().read_into(m, buf.data(), 8), L3Status::kOk) << "the message is still active";
    EXPECT_EQ(buf, Bytes(8, 0)) << "then copied whole";
    SPSQ_READING("AMB.SHORTBUF", "A", "L3: REJECTED, the message still active");
  }
  if (r == "B") SPSQ_READING("AMB.SHORTBUF", "B", "L3: poison " + std::string(wire::kind_name(
                                                      l3().error().kind)));
}

TEST_F(L3Interpretation, NullBufferWithANonzeroSize) {
  SPSQ_CLAUSES("AMB.NULLBUF");
  const L3Status s = l3().try_enqueue(nullptr, 8);
  const bool published = peer().counter(wire::kInputTail) != 0;
  const std::string r = UsageErrorReading("null-buffer", s, published);
  EXPECT_FALSE(published) << "an input was published from no buffer";
  if (r == "A") SPSQ_READING("AMB.NULLBUF", "A", "L3: REJECTED, nothing published");
  if (r == "B") SPSQ_READING("AMB.NULLBUF", "B", "L3: poison " + std::string(wire::kind_name(
                                                     l3().error().kind)));
}

}  // namespace
}  // namespace spsq_conf
