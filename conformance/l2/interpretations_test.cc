// The open points of the wire contract and the ambiguities the catalogue
// lists: each test walks the clause's cases, finds out which reading the
// endpoint follows (ReadingVote), records it (SPSQ_READING), and fails only on
// behaviour that matches no reading or cases that agree on none.
#include <initializer_list>
#include <string>
#include <vector>

#include "testkit/reading_vote.h"
#include "conformance/l2/l2_fixture.h"

namespace spsq_conf {
namespace {

class Interpretation : public L2Test {};

TEST_F(Interpretation, InputErrorIsDeliveredOrPoisons) {
  SPSQ_CLAUSES("OPEN.ERRIN/payload", "OPEN.ERRIN/zero-byte", "OPEN.ERRIN/after-data");
  ReadingVote v("OPEN.ERRIN", {"A", "B"});
  auto one = [&](const char* key, uint64_t n, bool after_data) {
    Rebuild(q().params());
    if (after_data) {
      ASSERT_EQ(peer().enqueue_data(Bytes(8, 1)), ScriptedL3::Enqueue::kOk);
      Handle h{};
      ASSERT_TRUE(try_peek(h));
      ASSERT_TRUE(release(h));
    }
    const auto bytes = Bytes(n, 3);
    const wire::Descriptor d = peer().next_valid_descriptor(wire::kError, n);
    if (n != 0) peer().write_input_payload(d.offset, bytes.data(), n);
    peer().publish_raw(d);
    Handle h{};
    if (try_peek(h)) {
      const bool intact = Api::opcode(h) == wire::kError && Api::seq(h) == d.seq &&
                          HandleBytes(h) == bytes && ep().live();
      EXPECT_TRUE(intact) << key << ": reading A delivers the ERROR, payload intact, live";
      const bool released = release(h);
      EXPECT_TRUE(released) << key << ": " << Api::message(ep());
      if (intact && released) {
        v.Case(key, {"A"}, "delivered as a normal message");
      } else {
        v.Case(key, {}, "a handle, but not the ERROR intact");
      }
      return;
    }
    const bool b = !ep().live() && kind() == wire::kInvalidDescriptor;
    ExpectPoisoned(wire::kInvalidDescriptor, wire::kOpInputTryPeek, key);
    if (b) {
      v.Case(key, {"B"}, "poisons with INVALID_DESCRIPTOR");
    } else {
      v.Case(key, {}, std::string("no handle, ") + (ep().live() ? "live" : "poisoned ") +
                          wire::kind_name(kind()));
    }
  };
  one("payload", 8, false);
  one("zero-byte", 0, false);
  one("after-data", 8, true);
  const std::string r = v.Decide();
  if (r == "A") SPSQ_READING("OPEN.ERRIN", "A", "input ERROR delivered: " + v.detail());
  if (r == "B") SPSQ_READING("OPEN.ERRIN", "B", "input ERROR poisons: " + v.detail());
}

TEST_F(Interpretation, WhenTheBlockingCallSamplesThePeerFlag) {
  SPSQ_CLAUSES("OPEN.ABORTSAMPLE/ready", "OPEN.ABORTSAMPLE/empty", "OPEN.ABORTSAMPLE/room",
               "OPEN.ABORTSAMPLE/full", "S3.TO.7");
  ReadingVote v("OPEN.ABORTSAMPLE", {"A", "B"});
  // A call that could make progress: progress fits both readings, an early
  // REMOTE_ABORTED only B.
  auto progress = [&](const char* key, bool progressed) {
    if (progressed) {
      v.Case(key, {"A", "B"}, "progress with the flag raised");
    } else if (kind() == wire::kRemoteAborted) {
      v.Case(key, {"B"}, "REMOTE_ABORTED instead of progress");
    } else {
      ADD_FAILURE() << key << ": no progress and no REMOTE_ABORTED: " << Api::message(ep());
      v.Case(key, {}, std::string("no progress, kind ") + wire::kind_name(kind()));
    }
  };
  // A call that cannot: REMOTE_ABORTED by the deadline, exactly at it (A).
  auto expiry = [&](const char* key, bool got, uint64_t waited) {
    EXPECT_FALSE(got) << key;
    EXPECT_EQ(kind(), wire::kRemoteAborted) << key << ": S3.TO.7: " << Api::message(ep());
    EXPECT_LE(waited, 1000u) << key << ": S3.TO.7: waited past the deadline";
    const std::string seen = "waited " + std::to_string(waited) + " of 1000 ns";
    if (got || kind() != wire::kRemoteAborted || waited > 1000) {
      v.Case(key, {}, seen);
    } else if (waited == 1000) {
      v.Case(key, {"A", "B"}, "REMOTE_ABORTED at the deadline");
    } else {
      v.Case(key, {"B"}, "REMOTE_ABORTED early, " + seen);
    }
  };
  {
    Rebuild(q().params());
    ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
    peer().set_initiator_flag(1);
    Handle h{};
    progress("ready", peek(1000, h));
  }
  {
    Rebuild(q().params());
    peer().set_initiator_flag(1);
    Handle h{};
    const uint64_t t0 = VirtualClock::peek();
    const bool got = peek(1000, h);
    expiry("empty", got, VirtualClock::peek() - t0);
  }
  {
    Rebuild(q().params());
    peer().set_initiator_flag(1);
    Reservation r{};
    const bool got = reserve(16, 1000, r);
    if (got) {
      EXPECT_TRUE(publish(r, wire::kData)) << Api::message(ep());
    }
    progress("room", got);
  }
  {
    Rebuild(q().params());
    for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_TRUE(send(wire::kData, Bytes(0, 0)));
    peer().set_initiator_flag(1);
    Reservation r{};
    const uint64_t t0 = VirtualClock::peek();
    const bool got = reserve(8, 1000, r);
    expiry("full", got, VirtualClock::peek() - t0);
  }
  const std::string r = v.Decide();
  if (r == "A") SPSQ_READING("OPEN.ABORTSAMPLE", "A", "sampled only on expiry: " + v.detail());
  if (r == "B") SPSQ_READING("OPEN.ABORTSAMPLE", "B", "sampled early: " + v.detail());
}

TEST_F(Interpretation, WhoFlushesTheOutputPayload) {
  SPSQ_CLAUSES("OPEN.FLUSH/first", "OPEN.FLUSH/after-skip", "S3.PUB.4");
  ReadingVote v("OPEN.FLUSH", {"A", "B"});
  auto one = [&](const char* key, uint64_t index, uint64_t n) {
    Reservation r{};
    ASSERT_TRUE(try_reserve(n, r)) << key << ": " << Api::message(ep());
    const auto bytes = Bytes(n, 8);
    q().l2_store(Api::payload(r), bytes.data(), bytes.size());  // as the AIV kernel would
    const uint64_t off = static_cast<uint64_t>(Api::payload(r) - q().endpoint_payload());
    const size_t mark = log().mark();
    ASSERT_TRUE(publish(r, wire::kData)) << key;
    const uint64_t slot = layout().output_slot(index);
    const size_t flush = log().written_by(mark, off, n);  // in one write or several
    const size_t seq = log().find([slot](const spsq_conf::Access& a) {
      return a.kind == AccessKind::kWrite && a.ok && a.offset <= slot && a.offset + a.nbytes > slot;
    }, mark);
    ASSERT_NE(seq, AccessLog::npos) << key << "\n" << log().dump(mark);
    ScriptedL3::Message m;
    ASSERT_TRUE(peer().poll_output(&m)) << key;
    EXPECT_EQ(m.payload, bytes) << key;
    if (flush == AccessLog::npos) {
      v.Case(key, {"B"}, "publish leaves the flush to L2 code");
    } else if (flush < seq) {
      v.Case(key, {"A"}, "publish flushes the span before the descriptor");
    } else {
      ADD_FAILURE() << key << ": the payload flush must precede the seq (S3.PUB.2)";
      v.Case(key, {}, "the payload written after the seq");
    }
  };
  one("first", 0, 48);
  // 200 bytes at 0, released: 100 more do not fit behind them and skip.
  Rebuild(q().params());
  ASSERT_EQ(layout().output_arena_bytes, 256u);
  ASSERT_TRUE(send(wire::kData, Bytes(200, 4)));
  ASSERT_EQ(peer().drain_outputs().size(), 1u);
  one("after-skip", 1, 100);
  const std::string r = v.Decide();
  if (r == "A") SPSQ_READING("OPEN.FLUSH", "A", "publish() flushes the span: " + v.detail());
  if (r == "B") SPSQ_READING("OPEN.FLUSH", "B", "L2 code flushes: " + v.detail());
}

TEST_F(Interpretation, IdleArenaTakesAMessageThatOnlyFitsAfterASkip) {
  SPSQ_CLAUSES("AMB.ROOM/mid", "AMB.ROOM/near-end", "AMB.ROOM/whole");
  ReadingVote v("AMB.ROOM", {"A", "B"});
  ASSERT_EQ(layout().output_arena_bytes, 256u);
  auto one = [&](const char* key, uint64_t cursor, uint64_t n) {
    Rebuild(q().params());
    ASSERT_TRUE(send(wire::kData, Bytes(cursor, 1)));
    peer().drain_outputs();  // nothing unreleased
    Reservation r{};
    if (try_reserve(n, r)) {
      EXPECT_EQ(Api::payload(r), q().endpoint_payload() + layout().output_arena)
          << key << ": the message skips to the arena start";
      const auto bytes = Bytes(n, 2);
      q().l2_store(Api::payload(r), bytes.data(), bytes.size());
      ASSERT_TRUE(publish(r, wire::kData)) << key;
      ScriptedL3::Message m;
      ASSERT_TRUE(peer().poll_output(&m)) << key;
      EXPECT_EQ(m.payload, bytes) << key;
      v.Case(key, {"A"}, "placed at the arena start");
    } else {
      const bool healthy = ep().live() && kind() == wire::kKindNone;
      ExpectHealthy(key);
      v.Case(key, {"B"}, "refused");
      if (!healthy) v.Case(key, {}, "refused, and not as ordinary no-progress");
    }
  };
  const uint64_t arena = layout().output_arena_bytes;
  one("mid", 100, 200);  // the skip makes the literal bound 356 > 256
  one("near-end", arena - 64, arena - 32);
  one("whole", arena - 64, arena);
  const std::string r = v.Decide();
  if (r == "A") SPSQ_READING("AMB.ROOM", "A", "an idle arena accepts any message that fits it");
  if (r == "B") {
    SPSQ_READING("AMB.ROOM", "B", "literal bound: refused on an idle arena (LIVE.1 fails)");
  }
}

TEST_F(Interpretation, FullWindowAnswer) {
  SPSQ_CLAUSES("AMB.WINDOW/try-peek", "AMB.WINDOW/peek", "AMB.WINDOW/follow-up", "S4.L2IN.2",
               "S3.TO.5");
  ReadingVote v("AMB.WINDOW", {"A", "B", "C"});
  for (const bool blocking : {false, true}) {
    const char* key = blocking ? "peek" : "try-peek";
    Rebuild(q().params());
    for (uint64_t i = 0; i <= kN; ++i) {
      ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
    }
    std::vector<Handle> hs(kN);
    for (auto& h : hs) ASSERT_TRUE(try_peek(h));
    Handle extra{};
    ASSERT_FALSE(blocking ? peek(1000, extra) : try_peek(extra))
        << key << ": a DATA handle beyond MaxInflight " << kN;
    if (!ep().live()) {
      const bool flagged = peer().l2_flag() == 1 && kind() != wire::kKindNone;
      ExpectPoisoned(0, wire::kOpInputTryPeek, key);  // try_peek's, or peek's attempt
      v.Case(key, {"C"}, std::string("poison: ") + wire::kind_name(kind()));
      if (!flagged) v.Case(key, {}, "poisoned without a kind or the L2 flag");
      continue;
    }
    if (kind() != wire::kKindNone) {
      v.Case(key, {"B"}, std::string("error without poison: ") + wire::kind_name(kind()));
    } else {
      v.Case(key, {"A"}, "ordinary no-progress");
    }
    // A and B leave the endpoint live: it goes on, and once the refusal is
    // behind it ordinary no-progress reads error().kind NONE again (S3.TO.5).
    ASSERT_TRUE(release(hs[0])) << key << ": " << Api::message(ep());
    ASSERT_TRUE(try_peek(extra)) << key << ": the held-back input comes once the window opens";
    EXPECT_EQ(Api::seq(extra), kN + 1) << key;
    ASSERT_TRUE(release(extra));
    Handle none{};
    EXPECT_FALSE(try_peek(none)) << key << ": nothing is published";
    ExpectHealthy("empty input after the full-window refusal");
    for (uint64_t i = 1; i < kN; ++i) ASSERT_TRUE(release(hs[i]));
  }
  const std::string r = v.Decide();
  if (r == "A") SPSQ_READING("AMB.WINDOW", "A", "ordinary no-progress: " + v.detail());
  if (r == "B") SPSQ_READING("AMB.WINDOW", "B", v.detail());
  if (r == "C") SPSQ_READING("AMB.WINDOW", "C", v.detail());
}

TEST_F(Interpretation, OutOfOrderReleasedInputAndTheWindow) {
  SPSQ_CLAUSES("AMB.WINDOWPHYS/second", "AMB.WINDOWPHYS/newest", "AMB.WINDOWPHYS/follow-up");
  if (kN < 2) GTEST_SKIP() << "not applicable: needs MaxInflight >= 2";
  ReadingVote v("AMB.WINDOWPHYS", {"A", "B"});
  const struct {
    const char* key;
    uint64_t early;  // index of the input released ahead of input 1
  } cases[] = {{"second", 1}, {"newest", kN - 1}};
  for (const auto& c : cases) {
    const char* key = c.key;
    const uint64_t early = c.early;
    Rebuild(q().params());
    for (uint64_t i = 0; i <= kN; ++i) {
      ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
    }
    std::vector<Handle> hs(kN);
    for (auto& h : hs) ASSERT_TRUE(try_peek(h));
    ASSERT_TRUE(release(hs[early]));  // logically done, physically owned
    Handle extra{};
    if (try_peek(extra)) {
      EXPECT_EQ(Api::seq(extra), kN + 1) << key;
      v.Case(key, {"A"}, "the window counts logically active handles");
      ASSERT_TRUE(release(extra)) << key << ": " << Api::message(ep());
      ASSERT_TRUE(release(hs[0]));
    } else {
      const bool healthy = ep().live() && kind() == wire::kKindNone;
      ExpectHealthy(key);
      v.Case(key, healthy ? std::initializer_list<const char*>{"B"}
                          : std::initializer_list<const char*>{},
             "the window counts physically owned inputs");
      // The held-back input comes once input 1 is released.
      ASSERT_TRUE(release(hs[0]));
      ASSERT_TRUE(try_peek(extra)) << key << ": follow-up: " << Api::message(ep());
      EXPECT_EQ(Api::seq(extra), kN + 1) << key;
      ASSERT_TRUE(release(extra));
    }
    for (uint64_t i = 1; i < kN; ++i) {
      if (i == early) continue;
      ASSERT_TRUE(release(hs[i])) << key << ": input " << i + 1;
    }
    ExpectHealthy(key);
  }
  const std::string r = v.Decide();
  if (r == "A") SPSQ_READING("AMB.WINDOWPHYS", "A", "window of held handles: " + v.detail());
  if (r == "B") SPSQ_READING("AMB.WINDOWPHYS", "B", "window of owned inputs: " + v.detail());
}

TEST_F(Interpretation, TryCallsAndTheRaisedPeerFlag) {
  SPSQ_CLAUSES("AMB.TRYABORT/try-peek", "AMB.TRYABORT/try-reserve", "AMB.TRYABORT/peek0",
               "S3.TO.1");
  ReadingVote v("AMB.TRYABORT", {"A", "B"});
  auto classify = [&](const char* key) {
    if (ep().live()) {
      const bool none = kind() == wire::kKindNone;
      EXPECT_TRUE(none) << key << ": live, but kind " << wire::kind_name(kind());
      v.Case(key, none ? std::initializer_list<const char*>{"A"}
                       : std::initializer_list<const char*>{},
             "no-progress, the flag not sampled");
    } else {
      const bool b = kind() == wire::kRemoteAborted && peer().l2_flag() == 0;
      EXPECT_EQ(kind(), wire::kRemoteAborted) << key;
      EXPECT_EQ(peer().l2_flag(), 0) << key << ": a remote abort raises no local flag";
      v.Case(key, b ? std::initializer_list<const char*>{"B"}
                    : std::initializer_list<const char*>{},
             "REMOTE_ABORTED");
    }
  };
  peer().set_initiator_flag(1);
  const size_t mark = log().mark();
  Handle h{};
  EXPECT_FALSE(peek(0, h));
  EXPECT_EQ(log().shared_accesses_since(mark), 0u)
      << "peek0: peek(0) must not even sample the flag";
  EXPECT_FALSE(try_peek(h));
  classify("try-peek");
  Rebuild(q().params());
  for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_TRUE(send(wire::kData, Bytes(0, 0)));
  peer().set_initiator_flag(1);
  Reservation r{};
  EXPECT_FALSE(try_reserve(8, r)) << "try-reserve: the output ring is full";
  classify("try-reserve");
  const std::string got = v.Decide();
  if (got == "A") SPSQ_READING("AMB.TRYABORT", "A", "try_* report no-progress: " + v.detail());
  if (got == "B") SPSQ_READING("AMB.TRYABORT", "B", "try_* report REMOTE_ABORTED: " + v.detail());
}

// One probe per AMB.KINDS case an L2 endpoint can be walked through, each on
// a fresh queue: reading A only when every kind is reading A's for its case
// (the section tests record the kinds of their own probes as they go).
TEST_F(Interpretation, ErrorKindsPerPoisonCause) {
  SPSQ_CLAUSES("AMB.KINDS");
  ReadingVote v("AMB.KINDS", {"A", "B"});
  auto judge = [&](const char* cause, std::initializer_list<uint32_t> reading_a) {
    const uint32_t k = kind();
    bool as_a = false;
    for (uint32_t want : reading_a) as_a = as_a || k == want;
    if (as_a) {
      v.Case(cause, {"A", "B"}, wire::kind_name(k));
    } else {
      v.Case(cause, {"B"}, wire::kind_name(k));
    }
  };
  Handle never{};
  EXPECT_FALSE(release(never));
  ExpectPoisoned(0, wire::kOpInputRelease, "unknown handle");
  judge("handle", {wire::kOwnership});
  Rebuild(q().params());
  Reservation r{};
  EXPECT_FALSE(publish(r, wire::kData));
  ExpectPoisoned(0, wire::kOpOutputPublish, "unknown reservation");
  judge("reservation", {wire::kOwnership});
  Rebuild(q().params());
  ASSERT_TRUE(try_reserve(0, r));
  EXPECT_FALSE(publish(r, wire::kStop));
  ExpectPoisoned(0, wire::kOpOutputPublish, "output STOP");
  judge("output-stop", {wire::kBadArgument, wire::kOwnership, wire::kInvalidDescriptor});
  // Input descriptors whose kind no document fixes, each as the first input.
  const uint64_t a = layout().input_arena;
  const uint64_t over = layout().input_arena_bytes + 64;
  const struct {
    const char* cause;
    const char* name;
    wire::Descriptor d;
  } inputs[] = {
      {"opcode", "opcode 9", {1, 9, 0, 0}},
      {"zero-offset", "zero-byte DATA at the arena start", {1, wire::kData, a, 0}},
      {"stop-payload", "STOP with 8 bytes at the arena start", {1, wire::kStop, a, 8}},
      {"oversize", "arena + 64 bytes at the arena start", {1, wire::kData, a, over}},
  };
  for (const auto& c : inputs) {
    Rebuild(q().params());
    peer().publish_raw(c.d);
    Handle h{};
    EXPECT_FALSE(try_peek(h)) << c.name;
    ExpectPoisoned(0, wire::kOpInputTryPeek, c.name);
    judge(c.cause, {wire::kInvalidDescriptor});
  }
  const std::string got = v.Decide();
  if (got == "A") SPSQ_READING("AMB.KINDS", "A", v.detail());
  if (got == "B") SPSQ_READING("AMB.KINDS", "B", v.detail());
}

TEST_F(Interpretation, FailedReadBeforeAnyMutation) {
  SPSQ_CLAUSES("AMB.READFAIL/read", "AMB.READFAIL/test");
  ReadingVote v("AMB.READFAIL", {"A", "B"});
  for (const ViewCall call : {ViewCall::kRead, ViewCall::kTest}) {
    const char* key = call == ViewCall::kRead ? "read" : "test";
    Rebuild(q().params());
    q().view_state().sticky_faults = false;
    ASSERT_EQ(peer().enqueue_data(Bytes(8, 1)), ScriptedL3::Enqueue::kOk);
    faults().arm(call, 1);  // try_peek's first such call fails, once
    Handle h{};
    EXPECT_FALSE(try_peek(h)) << key << ": a handle built from a failed view call";
    ASSERT_TRUE(faults().fired()) << key << ": try_peek made no such view call";
    faults().arm(call, 0);
    if (!ep().live()) {
      const bool a = kind() == wire::kEndpointError && peer().l2_flag() == 1;
      ExpectPoisoned(wire::kEndpointError, wire::kOpInputTryPeek, key);
      v.Case(key, a ? std::initializer_list<const char*>{"A"}
                    : std::initializer_list<const char*>{},
             std::string("poisoned ") + wire::kind_name(kind()));
    } else {
      const bool retry = try_peek(h);
      EXPECT_TRUE(retry) << key << ": the input is acquired on retry";
      const bool intact = retry && HandleBytes(h) == Bytes(8, 1);
      EXPECT_TRUE(intact) << key << ": the retried input's bytes";
      v.Case(key, intact ? std::initializer_list<const char*>{"B"}
                         : std::initializer_list<const char*>{},
             "live, acquired on retry");
    }
  }
  const std::string r = v.Decide();
  if (r == "A") SPSQ_READING("AMB.READFAIL", "A", "failed read or test poisons: " + v.detail());
  if (r == "B") {
    SPSQ_READING("AMB.READFAIL", "B", "failed read or test is no-progress: " + v.detail());
  }
}

TEST_F(Interpretation, FalseWaitBeforeTheTimeout) {
  SPSQ_CLAUSES("AMB.WAITFALSE/peek", "AMB.WAITFALSE/produce");
  ReadingVote v("AMB.WAITFALSE", {"A", "B"});
  // The view's wait gives up at half its timeout + 1 ns: 501 of 1000.
  auto expiry = [&](const char* key, bool got, uint64_t waited) {
    EXPECT_FALSE(got) << key << ": nothing to take";
    EXPECT_TRUE(ep().live()) << key << ": " << Api::message(ep());
    EXPECT_EQ(kind(), wire::kKindNone) << key << ": " << Api::message(ep());
    const std::string seen = "returned after " + std::to_string(waited) + " of 1000 ns";
    if (got || !ep().live() || kind() != wire::kKindNone) {
      v.Case(key, {}, seen);
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
    Rebuild(q().params());
    q().view_state().short_waits = true;
    Handle h{};
    const uint64_t t0 = VirtualClock::peek();
    const bool got = peek(1000, h);
    expiry("peek", got, VirtualClock::peek() - t0);
  }
  {
    Rebuild(q().params());
    for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_TRUE(send(wire::kData, Bytes(0, 0)));
    q().view_state().short_waits = true;
    Reservation r{};
    const uint64_t t0 = VirtualClock::peek();
    const bool got = reserve(8, 1000, r);
    expiry("produce", got, VirtualClock::peek() - t0);
  }
  const std::string r = v.Decide();
  if (r == "A") SPSQ_READING("AMB.WAITFALSE", "A", "waits again to its deadline: " + v.detail());
  if (r == "B") SPSQ_READING("AMB.WAITFALSE", "B", "false wait is the deadline: " + v.detail());
}

}  // namespace
}  // namespace spsq_conf
