// Liveness from L3's side, and the wire contract's "Liveness" rules (W.LIVE.*)
// for the L3 queue: producer of the input direction, consumer of the output.
#include <string>
#include <vector>

#include "conformance/l3/l3_fixture.h"
#include "testkit/liveness_sizes.h"

namespace spsq_conf {
namespace {

class L3Liveness : public L3Suite {};

// Liveness from L3's side: its input must accept any message that fits the
// arena once L2 released everything, and it must accept every placement of
// the arena rule on its output.
TEST_F(L3Suite, LivenessSweepsInBothDirections) {
  SPSQ_EXERCISES("AMB.ROOM");
  for (uint64_t arena = 64; arena <= 512; arena += 64) {
    const std::vector<uint64_t> sizes = LivenessSizes(arena);
    for (uint64_t a : sizes) {
      for (uint64_t b : sizes) {
        for (uint64_t s : sizes) {
          QueueParams p;
          p.depth = 2;
          p.input_arena = arena;
          p.output_arena = arena;
          {
            SPSQ_JUDGING("LIVE.1/l3-input", "LIVE.2/l3-output", "W.LIVE.1/sweeps");
            Rebuild(p);  // every arena of the sweep is a valid binding
          }
          for (uint64_t n : {a, b, s}) {
            const auto bytes = Bytes(n, static_cast<uint8_t>(n));
            {
              SPSQ_JUDGING("LIVE.1/l3-input", "W.LIVE.1/sweeps");
              ASSERT_EQ(l3().try_enqueue(bytes.data(), n), L3Status::kOk)
                  << "arena " << arena << " sizes " << a << "," << b << "," << s
                  << ": L3 refused " << n << " bytes with everything released";
            }
            {
              // The scripted L2 takes the input only where the arena rule
              // places it, inside the arena, unrounded, at the start after a
              // skip.
              SPSQ_JUDGING("W.ARENA.1", "W.ARENA.4", "S2.WRAP.1", "S2.FIT.1");
              Message in;
              ASSERT_TRUE(peer().poll_input(&in));
              ASSERT_EQ(in.payload, bytes);
            }
            peer().release_inputs(1);
            SPSQ_JUDGING("LIVE.2/l3-output");
            ASSERT_EQ(peer().publish_data(bytes), Enqueue::kOk);  // room: L3 released it all
            std::vector<uint8_t> buf(arena + 1);
            L3Message m;
            ASSERT_EQ(l3().try_dequeue_into(buf.data(), buf.size(), &m), L3Status::kOk)
                << "arena " << arena << ": L3 refused an output placed by the rule";
            ASSERT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + n), bytes);
          }
          if (HasFailure()) return;
        }
      }
    }
  }
}

// The contract's liveness case on the input, named: cursor 64 bytes short of
// the end of an idle arena, a message that fits the arena only after the
// skip. try_enqueue and enqueue must place it, at the arena start; a refusal
// (with nothing unreleased, and still after the blocking call's timeout) is
// the literal room bound's livelock.
TEST_F(L3Liveness, IdleInputArenaPlacesAMessageTheLiteralBoundWouldRefuse) {
  const uint64_t arena = layout().input_arena_bytes;
  // One placement, judged as `place_case` (the caller's block names it too):
  // a refusal is also the livelock W.LIVE.3 and LIVE.1 grade.
  auto idle = [&](bool blocking, uint64_t n, const char* place_case) {
    Rebuild(region().params());
    const char* call = blocking ? "enqueue" : "try_enqueue";
    const auto first = Bytes(arena - 64, 1);
    ASSERT_EQ(l3().try_enqueue(first.data(), first.size()), L3Status::kOk);
    Message in;
    ASSERT_TRUE(peer().poll_input(&in));
    peer().release_inputs(1);  // released: the arena is idle
    const auto bytes = Bytes(n, 2);
    {
      SPSQ_JUDGING(place_case, "W.LIVE.3", "LIVE.1");
      const L3Status s = blocking ? l3().enqueue(bytes.data(), n, 1000000)
                                  : l3().try_enqueue(bytes.data(), n);
      ASSERT_EQ(s, L3Status::kOk)
          << "W.LIVE.1: " << call << " on an idle input arena (cursor at " << arena - 64
          << ") refused a " << n << "-byte message of a " << arena
          << "-byte arena (the literal room bound's livelock): " << l3_status_name(s) << ": "
          << l3().error().message;
    }
    {
      SPSQ_JUDGING(place_case);
      ASSERT_TRUE(peer().poll_input(&in)) << call << ": the model refused the placement";
      EXPECT_EQ(in.offset, layout().input_arena)
          << call << ": placed by the same rule: at the arena start after the skip";
      EXPECT_EQ(in.payload, bytes);
    }
    peer().release_inputs(1);
    {
      SPSQ_JUDGING("W.LIVE.1/next");  // follows from cursor + skip + n
      wire::Placement next;
      ASSERT_TRUE(wire::place(arena + n, 8, layout().input_arena, arena, &next));
      const auto more = Bytes(8, 3);
      ASSERT_EQ(l3().try_enqueue(more.data(), more.size()), L3Status::kOk) << call;
      ASSERT_TRUE(peer().poll_input(&in));
      EXPECT_EQ(in.offset, next.offset) << call << ": the placement after the skip";
      EXPECT_EQ(in.payload, more);
    }
    SPSQ_JUDGING(place_case);
    ExpectHealthy(call);
  };
  {
    SPSQ_JUDGING("W.LIVE.1/near-end");
    idle(false, arena - 32, "W.LIVE.1/near-end");
  }
  {
    SPSQ_JUDGING("W.LIVE.1/whole");
    idle(false, arena, "W.LIVE.1/whole");
  }
  {
    SPSQ_JUDGING("W.LIVE.1/blocking");
    idle(true, arena - 32, "W.LIVE.1/blocking");
    idle(true, arena, "W.LIVE.1/blocking");
  }
}

// The scripted L2 places an output on an idle arena beyond the literal bound
// (cursor at arena - 64, arena - 32 bytes, at the arena start): L3's replay
// of the placement rule must accept it, and the placements that follow.
TEST_F(L3Liveness, IdleOutputArenaPlacementBeyondTheLiteralBoundIsAccepted) {
  SPSQ_CLAUSES("W.LIVE.2/idle-arena", "W.LIVE.2/following", "LIVE.2/idle-arena");
  const uint64_t arena = layout().output_arena_bytes;
  std::vector<uint8_t> buf(arena);
  L3Message m;
  ASSERT_EQ(peer().publish_data(Bytes(arena - 64, 1)), Enqueue::kOk);
  ASSERT_EQ(l3().try_dequeue_into(buf.data(), buf.size(), &m), L3Status::kOk);  // now idle
  ASSERT_EQ(peer().next_output_offset(arena - 32), layout().output_arena)
      << "harness: the idle-arena placement skips to the start";
  ASSERT_EQ(peer().publish_data(Bytes(arena - 32, 2)), Enqueue::kOk)
      << "harness: the scripted L2 places on an idle arena";
  ASSERT_EQ(l3().try_peek(&m), L3Status::kOk)
      << "W.LIVE.2: L3 refused an idle-arena placement: " << l3().error().message;
  EXPECT_EQ(m.payload_nbytes, arena - 32);
  ASSERT_EQ(l3().read_into(m, buf.data(), buf.size()), L3Status::kOk) << l3().error().message;
  EXPECT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + static_cast<long>(arena - 32)),
            Bytes(arena - 32, 2));
  ASSERT_EQ(l3().release(m), L3Status::kOk);
  EXPECT_EQ(peer().counter(wire::kOutputHead), 2);
  for (uint8_t i = 3; i < 6; ++i) {
    ASSERT_EQ(peer().publish_data(Bytes(40, i)), Enqueue::kOk);
    ASSERT_EQ(l3().dequeue_into(buf.data(), buf.size(), 1000, &m), L3Status::kOk)
        << "and the placements that follow: " << l3().error().message;
    EXPECT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + 40), Bytes(40, i));
  }
  ExpectHealthy("after an idle-arena placement");
}

// A producer may run on a cached head; when it re-reads is its choice. What
// is required: every message is placed, and L2's releases are seen as soon
// as room is needed.
TEST_F(L3Liveness, HeadCounterReadsAreTheProducersChoice) {
  const uint64_t depth = layout().depth;
  {
    SPSQ_JUDGING("W.LIVE.4/cycled", "LIVE.1");
    const size_t mark = log().mark();
    const uint64_t messages = 3 * depth;
    for (uint64_t i = 0; i < messages; ++i) {
      const auto bytes = Bytes(16, static_cast<uint8_t>(i));
      ASSERT_EQ(l3().try_enqueue(bytes.data(), bytes.size()), L3Status::kOk) << "message " << i;
      const auto in = peer().drain_inputs();
      ASSERT_EQ(in.size(), 1u) << "message " << i;
      ASSERT_EQ(in[0].payload, bytes);
    }
    if (l3().uses_view()) {
      const size_t reads = log().count([](const spsq_conf::Access& a) {
        return (a.kind == AccessKind::kTest || a.kind == AccessKind::kWait) &&
               a.offset == wire::kInputHead;
      }, mark);
      record_observation("head_reads_per_message", std::to_string(static_cast<double>(reads) /
                                                                  static_cast<double>(messages)));
    }
    ExpectHealthy("after cycling the ring three times");
  }
  {
    // A full ring: once L2 releases, the next enqueue goes through at once.
    SPSQ_JUDGING("W.LIVE.4/ring-room");
    SPSQ_SETUP(FillInputRing());
    EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kNoProgress) << "ring full";
    ASSERT_EQ(peer().drain_inputs().size(), depth);
    EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk)
        << "W.LIVE.4: L2's releases were not seen when the ring needed room";
    ASSERT_EQ(peer().drain_inputs().size(), 1u);
    ExpectHealthy("after the ring had room again");
  }
  // A full arena (a fresh queue, so the literal bound alone decides): the same.
  SPSQ_JUDGING("W.LIVE.4/arena-room");
  Rebuild(region().params());
  const uint64_t half = layout().input_arena_bytes / 2;
  const auto big = Bytes(half, 7);
  ASSERT_EQ(l3().try_enqueue(big.data(), big.size()), L3Status::kOk);
  ASSERT_EQ(l3().try_enqueue(big.data(), big.size()), L3Status::kOk);
  EXPECT_EQ(l3().try_enqueue(big.data(), 16), L3Status::kNoProgress) << "arena full";
  ASSERT_EQ(peer().drain_inputs().size(), 2u);
  EXPECT_EQ(l3().try_enqueue(big.data(), 16), L3Status::kOk)
      << "W.LIVE.4: L2's releases were not seen when the arena needed room";
  ASSERT_EQ(peer().drain_inputs().size(), 1u);
  ExpectHealthy("after the arena had room again");
}

// An impossible input head poisons at the read that sees it, which a
// producer on a cached head makes only once it needs room; a read that
// observes it without poisoning is a FAIL.
TEST_F(L3Liveness, ImpossibleInputHeadPoisonsAtTheReadThatSeesIt) {
  const uint64_t depth = layout().depth;
  const int32_t impossible = static_cast<int32_t>(depth + 1);  // delta depth + 1
  peer().set_input_head(impossible);
  uint64_t published = 0;
  const auto bytes = Bytes(8, 1);
  for (uint64_t i = 0; i <= depth && l3().live(); ++i) {
    const size_t mark = log().mark();
    const L3Status s = l3().try_enqueue(bytes.data(), bytes.size());
    if (s == L3Status::kOk) ++published;
    if (l3().uses_view()) {
      const size_t seen = log().count([impossible](const spsq_conf::Access& a) {
        return (a.kind == AccessKind::kTest || a.kind == AccessKind::kWait) &&
               a.offset == wire::kInputHead && a.observed == impossible;
      }, mark);
      if (seen != 0) {
        SPSQ_JUDGING("W.LIVE.5/observed");
        EXPECT_EQ(s, L3Status::kFailed)
            << "W.LIVE.5: enqueue " << i << " read the impossible head " << impossible
            << " and did not poison\n" << log().dump(mark);
      }
    }
  }
  {
    SPSQ_JUDGING("W.LIVE.5/cached-room");
    EXPECT_LE(published, depth) << "published past the ring without reading the head";
  }
  {
    SPSQ_JUDGING("W.LIVE.5/needs-room", "W.CTR.2", "S4.POISON.5");
    ExpectPoisoned(wire::kInvalidDescriptor, "impossible input head");
  }
  record_observation("published_before_reading_impossible_head", std::to_string(published));
}

}  // namespace
}  // namespace spsq_conf
