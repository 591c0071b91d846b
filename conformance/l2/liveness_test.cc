// Liveness: a message whose size fits its arena is accepted once the peer has
// released everything, in both directions. Exhaustive over small arenas
// (64..512 bytes), depths 1..4 and every 2-message prefix of sizes followed by
// every size, from a fresh queue each time.
#include <vector>

#include "conformance/l2/l2_fixture.h"
#include "testkit/liveness_sizes.h"

namespace spsq_conf {
namespace {

class Liveness : public L2Test {
 protected:
  // Depths >= the certified window.
  static std::vector<uint64_t> Depths() {
    std::vector<uint64_t> d;
    for (uint64_t x : {uint64_t{1}, uint64_t{2}, uint64_t{4}}) {
      if (x >= kN) d.push_back(x);
    }
    return d;
  }
};

TEST_F(Liveness, OutputAcceptsEveryFittingMessageOnceL3ReleasedEverything) {
  // Judges liveness only: a refusal here is the literal room bound's livelock
  // (W.LIVE.3), not a placement defect; the scripted L3's model judges every
  // placement under its own clauses, and AMB.ROOM is recorded in
  // interpretations_test.cc.
  SPSQ_CLAUSES("LIVE.1/l2-output", "W.LIVE.1/sweeps", "W.LIVE.3");
  SPSQ_EXERCISES("S2.FIT.1", "W.ARENA.1", "W.ARENA.2", "AMB.ROOM");
  uint64_t checked = 0;
  for (uint64_t arena = 64; arena <= 512; arena += 64) {
    const std::vector<uint64_t> sizes = LivenessSizes(arena);
    for (uint64_t depth : Depths()) {
      for (uint64_t a : sizes) {
        for (uint64_t b : sizes) {
          for (uint64_t s : sizes) {
            QueueParams p;
            p.depth = depth;
            p.input_arena = 64;
            p.output_arena = arena;
            Rebuild(p);
            for (uint64_t n : {a, b, s}) {
              ASSERT_TRUE(send(wire::kData, Bytes(n, static_cast<uint8_t>(n))))
                  << "arena " << arena << ", depth " << depth << ", sizes " << a << ", " << b
                  << ", " << s << ": a " << n
                  << "-byte message was refused with everything released";
              ASSERT_EQ(peer().drain_outputs().size(), 1u);
            }
            ++checked;
            if (HasFailure()) return;
          }
        }
      }
    }
  }
  RecordProperty("sequences", std::to_string(checked));
}

TEST_F(Liveness, InputAcceptsEveryPlacementTheArenaRuleProduces) {
  SPSQ_CLAUSES("LIVE.2/l2-input", "W.LIVE.2", "W.ARENA.1", "W.ARENA.4", "S2.WRAP.1");
  uint64_t checked = 0;
  for (uint64_t arena = 64; arena <= 512; arena += 64) {
    const std::vector<uint64_t> sizes = LivenessSizes(arena);
    for (uint64_t depth : Depths()) {
      for (uint64_t a : sizes) {
        for (uint64_t b : sizes) {
          for (uint64_t s : sizes) {
            QueueParams p;
            p.depth = depth;
            p.input_arena = arena;
            p.output_arena = 64;
            Rebuild(p);
            for (uint64_t n : {a, b, s}) {
              const uint64_t off = peer().next_input_offset(n);
              ASSERT_EQ(peer().enqueue_data(Bytes(n, static_cast<uint8_t>(n))),
                        ScriptedL3::Enqueue::kOk);
              Handle h{};
              ASSERT_TRUE(try_peek(h))
                  << "arena " << arena << ", depth " << depth << ", sizes " << a << ", " << b
                  << ", " << s << ": L2 refused a " << n << "-byte input placed by the rule";
              if (n != 0) {
                EXPECT_EQ(Api::payload(h), q().endpoint_payload() + off);
              }
              ASSERT_EQ(HandleBytes(h), Bytes(n, static_cast<uint8_t>(n)));
              ASSERT_TRUE(release(h));
            }
            ++checked;
            if (HasFailure()) return;
          }
        }
      }
    }
  }
  RecordProperty("sequences", std::to_string(checked));
}

TEST_F(Liveness, BackToBackTrafficKeepsFlowingInBothDirections) {
  // Both directions flow; what can stall here is an output refused on an idle
  // arena, so this judges the producer's liveness only.
  SPSQ_CLAUSES("LIVE.1/long-run", "W.LIVE.1");
  SPSQ_EXERCISES("S0.PURPOSE.1", "S0.USE.1", "LIVE.2");
  // One long-lived queue, sizes cycling so the cursors visit every position.
  QueueParams p;
  p.depth = window_depth();
  p.input_arena = 192;
  p.output_arena = 320;
  Rebuild(p);
  uint64_t expect_seq = 1;
  for (uint64_t i = 0; i < 5000; ++i) {
    const uint64_t n_in = (i * 37) % 193;
    const uint64_t n_out = (i * 53) % 321;
    ASSERT_EQ(peer().enqueue_data(Bytes(n_in, static_cast<uint8_t>(i))), ScriptedL3::Enqueue::kOk)
        << i;
    Handle h{};
    ASSERT_TRUE(try_peek(h)) << i;
    ASSERT_EQ(Api::seq(h), expect_seq++);
    ASSERT_EQ(HandleBytes(h), Bytes(n_in, static_cast<uint8_t>(i)));
    ASSERT_TRUE(send(wire::kData, Bytes(n_out, static_cast<uint8_t>(i)))) << i;
    ASSERT_TRUE(release(h));
    const auto out = peer().drain_outputs();
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].payload, Bytes(n_out, static_cast<uint8_t>(i)));
  }
  ExpectHealthy("5000 round trips");
}

// The contract's liveness case, named: cursor 64 bytes short of the end of an
// idle arena, a message that fits the arena only after the skip, through
// try_reserve and through reserve; the placement after it follows the rule.
TEST_F(Liveness, IdleArenaPlacesAMessageTheLiteralBoundWouldRefuse) {
  SPSQ_CLAUSES("W.LIVE.1/near-end", "W.LIVE.1/whole", "W.LIVE.1/blocking", "W.LIVE.1/next",
               "W.LIVE.3", "LIVE.1");
  SPSQ_EXERCISES("AMB.ROOM", "W.ARENA.1");
  const uint64_t arena = layout().output_arena_bytes;
  for (const bool blocking : {false, true}) {
    for (uint64_t n : {arena - 32, arena}) {
      const char* call = blocking ? "reserve" : "try_reserve";
      Rebuild(q().params());
      ASSERT_TRUE(send(wire::kData, Bytes(arena - 64, 1)));
      ASSERT_EQ(peer().drain_outputs().size(), 1u);  // released: the arena is idle
      Reservation r{};
      ASSERT_TRUE(blocking ? reserve(n, 1000000, r) : try_reserve(n, r))
          << "W.LIVE.1: " << call << " on an idle arena refused a " << n << "-byte message of a "
          << arena << "-byte arena (the literal room bound's livelock): " << Api::message(ep());
      EXPECT_EQ(Api::payload(r), q().endpoint_payload() + layout().output_arena)
          << call << ": placed by the same rule: at the arena start after the skip";
      const auto bytes = Bytes(n, 2);
      q().l2_store(Api::payload(r), bytes.data(), bytes.size());
      ASSERT_TRUE(publish(r, wire::kData));
      ScriptedL3::Message m;
      ASSERT_TRUE(peer().poll_output(&m));  // the model replays the placement
      EXPECT_EQ(m.offset, layout().output_arena) << call;
      EXPECT_EQ(m.payload, bytes) << call;
      peer().release_outputs(1);
      // The next placement follows from cursor + skip + n.
      wire::Placement next;
      ASSERT_TRUE(wire::place(arena + n, 8, layout().output_arena, arena, &next));
      ASSERT_TRUE(send(wire::kData, Bytes(8, 3))) << call << ": " << Api::message(ep());
      ASSERT_TRUE(peer().poll_output(&m));
      EXPECT_EQ(m.offset, next.offset) << call << ": the placement after the skip";
      EXPECT_EQ(m.payload, Bytes(8, 3)) << call;
      ExpectHealthy(call);
    }
  }
}

TEST_F(Liveness, IdleInputArenaPlacementBeyondTheLiteralBoundIsAccepted) {
  SPSQ_CLAUSES("W.LIVE.2/idle-arena", "W.LIVE.2/following", "LIVE.2/idle-arena");
  const uint64_t arena = layout().input_arena_bytes;
  ASSERT_EQ(peer().enqueue_data(Bytes(arena - 64, 1)), ScriptedL3::Enqueue::kOk);
  Handle h{};
  ASSERT_TRUE(try_peek(h));
  ASSERT_TRUE(release(h));
  ASSERT_EQ(peer().next_input_offset(arena - 32), layout().input_arena)
      << "harness: the idle-arena placement skips to the start";
  ASSERT_EQ(peer().enqueue_data(Bytes(arena - 32, 2)), ScriptedL3::Enqueue::kOk);
  ASSERT_TRUE(try_peek(h)) << "W.LIVE.2: the consumer refused an idle-arena placement: "
                           << Api::message(ep());
  EXPECT_EQ(HandleBytes(h), Bytes(arena - 32, 2));
  ASSERT_TRUE(release(h));
  ASSERT_EQ(peer().enqueue_data(Bytes(8, 3)), ScriptedL3::Enqueue::kOk);
  ASSERT_TRUE(try_peek(h)) << "and the placements that follow";
  EXPECT_EQ(HandleBytes(h), Bytes(8, 3));
  ExpectHealthy("after an idle-arena placement");
}

// A producer may run on a cached head; when it re-reads is its choice. What
// is required: every message is placed, and L3's releases are seen as soon
// as room is needed.
TEST_F(Liveness, HeadCounterReadsAreTheProducersChoice) {
  SPSQ_CLAUSES("W.LIVE.4/cycled", "W.LIVE.4/ring-room", "W.LIVE.4/arena-room", "LIVE.1");
  const size_t mark = log().mark();
  const uint64_t messages = 3 * layout().depth;
  for (uint64_t i = 0; i < messages; ++i) {
    ASSERT_TRUE(send(wire::kData, Bytes(16, static_cast<uint8_t>(i)))) << "message " << i;
    ASSERT_EQ(peer().drain_outputs().size(), 1u);
  }
  const size_t reads = log().count([](const spsq_conf::Access& a) {
    return (a.kind == AccessKind::kTest || a.kind == AccessKind::kWait) &&
           a.offset == wire::kOutputHead;
  }, mark);
  record_observation("head_reads_per_message",
                     std::to_string(static_cast<double>(reads) / static_cast<double>(messages)));
  ExpectHealthy("after cycling the ring three times");
  // A full ring: once L3 releases, the next reserve goes through at once.
  Rebuild(q().params());
  const uint64_t depth = layout().depth;
  for (uint64_t i = 0; i < depth; ++i) ASSERT_TRUE(send(wire::kData, Bytes(0, 0))) << i;
  Reservation r{};
  EXPECT_FALSE(try_reserve(0, r)) << "ring-room: the ring is full";
  ExpectHealthy("ring-room: a full ring is ordinary no-progress");
  ASSERT_EQ(peer().drain_outputs().size(), depth);
  ASSERT_TRUE(try_reserve(0, r)) << "W.LIVE.4: L3's releases were not seen when the ring "
                                    "needed room: " << Api::message(ep());
  ASSERT_TRUE(publish(r, wire::kData));
  ASSERT_EQ(peer().drain_outputs().size(), 1u);
  // A full arena (a fresh queue, so the literal bound alone decides): the same.
  Rebuild(q().params());
  const uint64_t half = layout().output_arena_bytes / 2;
  ASSERT_TRUE(send(wire::kData, Bytes(half, 7)));
  ASSERT_TRUE(send(wire::kData, Bytes(half, 8)));
  EXPECT_FALSE(try_reserve(16, r)) << "arena-room: the arena is full";
  ExpectHealthy("arena-room: a full arena is ordinary no-progress");
  ASSERT_EQ(peer().drain_outputs().size(), 2u);
  ASSERT_TRUE(try_reserve(16, r)) << "W.LIVE.4: L3's releases were not seen when the arena "
                                     "needed room: " << Api::message(ep());
  ASSERT_TRUE(publish(r, wire::kData));
  ASSERT_EQ(peer().drain_outputs().size(), 1u);
  ExpectHealthy("after the ring and the arena filled and drained");
}

// An impossible head poisons at the read that sees it, which a producer on
// a cached head makes only once it needs room; a read that observes it
// without poisoning is a FAIL.
TEST_F(Liveness, ImpossibleHeadPoisonsAtTheReadThatSeesIt) {
  SPSQ_CLAUSES("W.LIVE.5/cached-room", "W.LIVE.5/needs-room", "W.LIVE.5/observed", "W.CTR.2",
               "S4.POISON.5");
  const uint64_t depth = layout().depth;
  const int32_t impossible = static_cast<int32_t>(depth + 1);  // delta depth + 1
  peer().set_output_head(impossible);
  uint64_t published = 0;
  for (uint64_t i = 0; i <= depth && ep().live(); ++i) {
    const size_t mark = log().mark();
    if (send(wire::kData, Bytes(8, static_cast<uint8_t>(i)))) ++published;
    const size_t seen = log().count([impossible](const spsq_conf::Access& a) {
      return (a.kind == AccessKind::kTest || a.kind == AccessKind::kWait) &&
             a.offset == wire::kOutputHead && a.observed == impossible;
    }, mark);
    if (seen != 0) {
      EXPECT_FALSE(ep().live()) << "W.LIVE.5: message " << i << " read the impossible head "
                                << impossible << " and did not poison\n" << log().dump(mark);
    }
  }
  EXPECT_LE(published, depth) << "published past the ring without reading the head";
  // send()'s try_reserve is the call that reads the head.
  ExpectPoisoned(wire::kInvalidDescriptor, wire::kOpOutputTryReserve, "impossible head counter");
  record_observation("published_before_reading_impossible_head", std::to_string(published));
}

}  // namespace
}  // namespace spsq_conf
