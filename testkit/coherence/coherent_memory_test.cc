#include "testkit/coherence/coherent_memory.h"

#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace spsq_conf {
namespace {

using Kind = NonCoherentPayload::MoveKind;
using Cause = NonCoherentPayload::Cause;
using Move = NonCoherentPayload::Move;
using Lines = std::vector<uint64_t>;
using Bytes = std::vector<uint8_t>;

Bytes load_bytes(const NonCoherentPayload& m, Side side, uint64_t offset, uint64_t n) {
  Bytes out(n);
  m.load(side, offset, out.data(), n);
  return out;
}

Bytes fresh(NonCoherentPayload& m, Side side, uint64_t offset, uint64_t n) {
  Bytes out(n);
  m.fresh_bytes(side, offset, out.data(), n);
  return out;
}

Bytes dram(const NonCoherentPayload& m, uint64_t offset, uint64_t n) {
  return Bytes(m.memory() + offset, m.memory() + offset + n);
}

// ---------------------------------------------------------------- kNone

TEST(CoherentPolicy, AStoreIsSeenByThePeerAtOnce) {
  NonCoherentPayload m(256, CachePolicy::kNone);
  EXPECT_EQ(m.side_base(Side::kL2), m.side_base(Side::kL3));
  EXPECT_EQ(m.side_base(Side::kL2), m.memory());
  const Bytes b = {1, 2, 3};
  m.store(Side::kL2, 10, b.data(), b.size());
  EXPECT_EQ(load_bytes(m, Side::kL3, 10, 3), b);
  m.side_base(Side::kL3)[200] = 7;  // a raw store, no flush
  EXPECT_EQ(load_bytes(m, Side::kL2, 200, 1), Bytes{7});
  m.invalidate(Side::kL2, 0, 256);  // a no-op: nothing is lost
  m.cache_may_act(Side::kL2);
  EXPECT_EQ(load_bytes(m, Side::kL2, 10, 3), b);
  EXPECT_TRUE(m.stale_lines(Side::kL3, 0, 256).empty());
  EXPECT_TRUE(m.movements().empty());
}

// ------------------------------------------------------------ kAdversarial

TEST(AdversarialPolicy, AnUnflushedStoreIsNeverSeenByThePeer) {
  NonCoherentPayload m(256, CachePolicy::kAdversarial);
  std::memset(m.side_base(Side::kL2) + 40, 'A', 16);  // through local_addr, no flush
  for (int i = 0; i < 1000; ++i) {
    m.cache_may_act(Side::kL2);
    m.cache_may_act(Side::kL3);
  }
  EXPECT_EQ(fresh(m, Side::kL3, 40, 16), Bytes(16, 0));  // a correct reader, still old
  EXPECT_EQ(dram(m, 40, 16), Bytes(16, 0));
  EXPECT_EQ(m.dirty_lines(Side::kL2, 0, 256), Lines{0});
  EXPECT_TRUE(m.movements().empty());
}

TEST(AdversarialPolicy, FlushAndThePeersInvalidateMakeTheStoreVisible) {
  NonCoherentPayload m(256, CachePolicy::kAdversarial);
  const Bytes b(16, 'A');
  m.store(Side::kL2, 40, b.data(), b.size());
  m.flush(Side::kL2, 40, 16);
  EXPECT_EQ(dram(m, 40, 16), b);
  EXPECT_EQ(fresh(m, Side::kL3, 40, 16), b);
  EXPECT_TRUE(m.dirty_lines(Side::kL2, 0, 256).empty());
  EXPECT_TRUE(m.stale_lines(Side::kL3, 0, 256).empty());
}

TEST(AdversarialPolicy, APeerThatDoesNotInvalidateKeepsTheStaleLine) {
  NonCoherentPayload m(256, CachePolicy::kAdversarial);
  EXPECT_EQ(load_bytes(m, Side::kL3, 100, 8), Bytes(8, 0));
  const Bytes b = {1, 2, 3, 4, 5, 6, 7, 8};
  m.publish_bytes(Side::kL2, 100, b.data(), b.size());
  EXPECT_EQ(dram(m, 100, 8), b);  // the writer did its part
  for (int i = 0; i < 1000; ++i) m.cache_may_act(Side::kL3);
  EXPECT_EQ(load_bytes(m, Side::kL3, 100, 8), Bytes(8, 0));
  EXPECT_EQ(m.stale_lines(Side::kL3, 100, 8), Lines{1});
  EXPECT_EQ(fresh(m, Side::kL3, 100, 8), b);
}

TEST(AdversarialPolicy, AOneByteStoreWritesBackItsWholeLine) {
  NonCoherentPayload m(256, CachePolicy::kAdversarial);
  // L3 puts a byte into line 1 of DRAM; L2 never refetches line 1.
  const uint8_t l3_byte = 0x33;
  m.publish_bytes(Side::kL3, 100, &l3_byte, 1);
  const uint8_t l2_byte = 0x22;
  m.store(Side::kL2, 70, &l2_byte, 1);
  m.flush(Side::kL2, 70, 1);
  EXPECT_EQ(m.memory()[70], 0x22);
  // The whole line went: L2's stale zero at 100 overwrote L3's byte.
  EXPECT_EQ(m.memory()[100], 0);
  EXPECT_EQ(std::memcmp(m.memory() + 64, m.side_base(Side::kL2) + 64, 64), 0);
  ASSERT_EQ(m.movements().size(), 2u);
  const NonCoherentPayload::Movement& wb = m.movements().back();
  EXPECT_EQ(wb.side, Side::kL2);
  EXPECT_EQ(wb.line, 1u);
  EXPECT_EQ(wb.kind, Kind::kWriteBack);
  EXPECT_EQ(wb.cause, Cause::kFlush);
}

TEST(AdversarialPolicy, AStoredBytesWriteBackCarriesOnlyWhatTheSideStored) {
  NonCoherentPayload m(256, CachePolicy::kAdversarial);
  m.set_write_back(NonCoherentPayload::WriteBack::kStoredBytes);
  const uint8_t l3_byte = 0x33;
  m.publish_bytes(Side::kL3, 100, &l3_byte, 1);
  const uint8_t l2_bytes[2] = {0x22, 0x23};
  m.store(Side::kL2, 70, l2_bytes, 2);
  m.flush(Side::kL2, 70, 1);
  EXPECT_EQ(dram(m, 70, 2), Bytes({0x22, 0x23}));
  // L3's byte survives L2's write-back of the same line.
  EXPECT_EQ(m.memory()[100], 0x33);
  // The line is clean but still stale at 100: only an invalidate fetches it.
  EXPECT_TRUE(m.dirty_lines(Side::kL2, 64, 64).empty());
  EXPECT_EQ(m.stale_lines(Side::kL2, 64, 64), Lines({1}));
  EXPECT_EQ(load_bytes(m, Side::kL2, 100, 1), Bytes({0}));
  EXPECT_EQ(fresh(m, Side::kL2, 100, 1), Bytes({0x33}));
  // Unflushed stores still never reach DRAM.
  const uint8_t late = 0x44;
  m.store(Side::kL2, 130, &late, 1);
  EXPECT_EQ(m.memory()[130], 0);
}

TEST(AdversarialPolicy, InvalidatingADirtyLineLosesItsStores) {
  NonCoherentPayload m(256, CachePolicy::kAdversarial);
  const Bytes old(64, 0x11);
  m.publish_bytes(Side::kL2, 128, old.data(), old.size());  // line 2 in DRAM
  m.side_base(Side::kL2)[130] = 0x44;  // dirty, inside the range invalidated
  m.side_base(Side::kL2)[180] = 0x55;  // dirty, same line, outside it
  m.invalidate(Side::kL2, 130, 1);
  EXPECT_EQ(load_bytes(m, Side::kL2, 128, 64), old);  // both stores gone
  EXPECT_EQ(dram(m, 128, 64), old);
  ASSERT_FALSE(m.movements().empty());
  const NonCoherentPayload::Movement& d = m.movements().back();
  EXPECT_EQ(d.line, 2u);
  EXPECT_EQ(d.kind, Kind::kDrop);
  EXPECT_EQ(d.cause, Cause::kInvalidate);
  EXPECT_TRUE(d.lost_dirty);
  EXPECT_NE(describe_movement(d).find("losing stores"), std::string::npos)
      << describe_movement(d);
}

TEST(AdversarialPolicy, FlushTouchesOnlyTheLinesItsRangeOverlaps) {
  NonCoherentPayload m(320, CachePolicy::kAdversarial);  // lines 0..4
  std::memset(m.side_base(Side::kL2), 0xEE, 320);
  m.flush(Side::kL2, 70, 60);  // [70, 130): starts and ends mid-line, lines 1 and 2
  EXPECT_EQ(m.dirty_lines(Side::kL2, 0, 320), (Lines{0, 3, 4}));
  EXPECT_EQ(m.memory()[63], 0);     // line 0, just before the range
  EXPECT_EQ(m.memory()[64], 0xEE);  // before the range, but in line 1
  EXPECT_EQ(m.memory()[191], 0xEE);
  EXPECT_EQ(m.memory()[192], 0);    // line 3, just after
  m.flush(Side::kL2, 192, 64);      // exactly line 3: line 4 stays
  EXPECT_EQ(m.dirty_lines(Side::kL2, 0, 320), (Lines{0, 4}));
  EXPECT_EQ(m.memory()[256], 0);
  const uint64_t moved = m.movements_total();
  m.flush(Side::kL2, 0, 0);    // zero bytes: no-op, even at a dirty line
  m.flush(Side::kL2, 320, 0);  // zero bytes at the end: valid, no-op
  EXPECT_EQ(m.movements_total(), moved);
  EXPECT_EQ(m.dirty_lines(Side::kL2, 0, 320), (Lines{0, 4}));
  m.flush(Side::kL2, 63, 1);  // the last byte of line 0 only
  EXPECT_EQ(m.dirty_lines(Side::kL2, 0, 320), Lines{4});
}

TEST(AdversarialPolicy, InvalidateTouchesOnlyTheLinesItsRangeOverlaps) {
  NonCoherentPayload m(320, CachePolicy::kAdversarial);
  const Bytes b(320, 0x5A);
  m.publish_bytes(Side::kL2, 0, b.data(), b.size());
  EXPECT_EQ(m.stale_lines(Side::kL3, 0, 320), (Lines{0, 1, 2, 3, 4}));
  m.invalidate(Side::kL3, 127, 2);  // the last byte of line 1, the first of line 2
  EXPECT_EQ(m.stale_lines(Side::kL3, 0, 320), (Lines{0, 3, 4}));
  EXPECT_EQ(load_bytes(m, Side::kL3, 64, 128), Bytes(128, 0x5A));
  EXPECT_EQ(load_bytes(m, Side::kL3, 192, 1), Bytes{0});
  m.invalidate(Side::kL3, 0, 0);
  EXPECT_EQ(m.stale_lines(Side::kL3, 0, 320), (Lines{0, 3, 4}));
}

TEST(AdversarialPolicy, TheLastLineOfAPartNotAMultipleOf64IsShort) {
  // 200 bytes: line 3 is [192, 200) and the guard page follows byte 199, so
  // a model that moved 64 bytes there would fault.
  NonCoherentPayload m(200, CachePolicy::kAdversarial);
  EXPECT_EQ(m.lines(), 4u);
  m.side_base(Side::kL2)[199] = 0x99;
  EXPECT_EQ(m.dirty_lines(Side::kL2, 199, 1), Lines{3});
  m.flush(Side::kL2, 199, 1);
  EXPECT_EQ(m.memory()[199], 0x99);
  EXPECT_EQ(m.stale_lines(Side::kL3, 150, 50), Lines{3});
  EXPECT_EQ(fresh(m, Side::kL3, 192, 8), (Bytes{0, 0, 0, 0, 0, 0, 0, 0x99}));
  m.side_base(Side::kL3)[195] = 1;
  EXPECT_EQ(m.pending_moves(Side::kL3), (std::vector<Move>{{Side::kL3, 3, Kind::kWriteBack}}));
  m.invalidate(Side::kL3, 192, 8);
  EXPECT_EQ(load_bytes(m, Side::kL3, 195, 1), Bytes{0});
}

// ---------------------------------------------------------------- kRandom

struct RunResult {
  std::deque<NonCoherentPayload::Movement> log;
  Bytes memory, l2, l3;
};

// A fixed script of stores, invalidates and sync points over a part whose
// last line is short.
RunResult run_script(uint64_t seed) {
  NonCoherentPayload m(1000, CachePolicy::kRandom, seed);
  for (uint64_t round = 0; round < 60; ++round) {
    m.side_base(Side::kL2)[(round * 37) % 1000] = static_cast<uint8_t>(round + 1);
    m.side_base(Side::kL3)[(round * 53 + 11) % 1000] = static_cast<uint8_t>(round + 100);
    m.cache_may_act(Side::kL2);
    m.cache_may_act(Side::kL3);
    if (round % 7 == 0) m.invalidate(Side::kL3, (round * 13) % 900, 100);
  }
  RunResult r;
  r.log = m.movements();
  r.memory = dram(m, 0, 1000);
  r.l2 = load_bytes(m, Side::kL2, 0, 1000);
  r.l3 = load_bytes(m, Side::kL3, 0, 1000);
  return r;
}

TEST(RandomPolicy, TheSameSeedAndCallsReplayTheSameMoves) {
  const RunResult a = run_script(42);
  const RunResult b = run_script(42);
  EXPECT_GT(a.log.size(), 10u);  // the script does move lines
  EXPECT_TRUE(a.log == b.log);
  EXPECT_EQ(a.memory, b.memory);
  EXPECT_EQ(a.l2, b.l2);
  EXPECT_EQ(a.l3, b.l3);
}

TEST(RandomPolicy, DifferentSeedsGiveDifferentMovementLogs) {
  EXPECT_FALSE(run_script(1).log == run_script(2).log);
  EXPECT_FALSE(run_script(2).log == run_script(3).log);
}

TEST(RandomPolicy, AnUnflushedStoreEventuallyReachesThePeer) {
  NonCoherentPayload m(1000, CachePolicy::kRandom, 7);
  const Bytes b(16, 0xC3);
  std::memcpy(m.side_base(Side::kL2) + 500, b.data(), b.size());  // no flush
  bool seen = false;
  for (int i = 0; i < 200 && !seen; ++i) {
    m.cache_may_act(Side::kL2);
    m.cache_may_act(Side::kL3);
    seen = load_bytes(m, Side::kL3, 500, 16) == b;  // no invalidate either
  }
  EXPECT_TRUE(seen);
  bool spontaneous = false;
  for (const auto& mv : m.movements()) spontaneous |= mv.cause == Cause::kSpontaneous;
  EXPECT_TRUE(spontaneous);
}

TEST(RandomPolicy, ASyncPointNeverLosesADirtyLine) {
  NonCoherentPayload m(1000, CachePolicy::kRandom, 3);
  Bytes pattern(1000);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<uint8_t>(i * 7 + 1);
  std::memcpy(m.side_base(Side::kL2), pattern.data(), pattern.size());
  for (int i = 0; i < 300; ++i) {
    m.cache_may_act(Side::kL2);
    m.cache_may_act(Side::kL3);
    ASSERT_EQ(load_bytes(m, Side::kL2, 0, 1000), pattern) << "after sync point " << i;
  }
  EXPECT_GT(m.movements_total(), 0u);
  m.flush(Side::kL2, 0, 1000);
  EXPECT_EQ(dram(m, 0, 1000), pattern);
}

// ------------------------------------------------------- the choice hook

TEST(PendingMoves, ApplyingAWriteBackMakesTheLineVisible) {
  NonCoherentPayload m(256, CachePolicy::kAdversarial);
  EXPECT_TRUE(m.pending_moves(Side::kL2).empty());
  EXPECT_TRUE(m.pending_moves(Side::kL3).empty());
  m.side_base(Side::kL2)[130] = 0x7E;
  EXPECT_EQ(m.pending_moves(Side::kL2), (std::vector<Move>{{Side::kL2, 2, Kind::kWriteBack}}));
  EXPECT_TRUE(m.pending_moves(Side::kL3).empty());
  EXPECT_TRUE(m.apply(Move{Side::kL2, 2, Kind::kWriteBack}));
  EXPECT_EQ(m.memory()[130], 0x7E);
  EXPECT_TRUE(m.pending_moves(Side::kL2).empty());
  EXPECT_EQ(m.pending_moves(Side::kL3), (std::vector<Move>{{Side::kL3, 2, Kind::kDrop}}));
  EXPECT_TRUE(m.apply(Move{Side::kL3, 2, Kind::kDrop}));
  EXPECT_EQ(load_bytes(m, Side::kL3, 130, 1), Bytes{0x7E});
  EXPECT_TRUE(m.pending_moves(Side::kL3).empty());
  EXPECT_FALSE(m.apply(Move{Side::kL2, 2, Kind::kWriteBack}));  // clean by now
  ASSERT_EQ(m.movements().size(), 2u);
  EXPECT_EQ(m.movements()[0].cause, Cause::kSpontaneous);
  EXPECT_EQ(m.movements()[1].cause, Cause::kSpontaneous);
}

TEST(PendingMoves, NoneUnderTheCoherentPolicy) {
  NonCoherentPayload m(256, CachePolicy::kNone);
  m.side_base(Side::kL2)[130] = 0x7E;
  EXPECT_TRUE(m.pending_moves(Side::kL2).empty());
  EXPECT_TRUE(m.pending_moves(Side::kL3).empty());
}

// ------------------------------------------------------- movement log

TEST(MovementLog, KeepsTheLatestMovesUpToItsLimit) {
  NonCoherentPayload m(256, CachePolicy::kAdversarial);
  m.set_log_limit(2);
  for (uint64_t line = 0; line < 3; ++line) {
    m.side_base(Side::kL2)[line * 64] = 1;
    m.flush(Side::kL2, line * 64, 1);
  }
  EXPECT_EQ(m.movements_total(), 3u);
  ASSERT_EQ(m.movements().size(), 2u);
  EXPECT_EQ(m.movements()[0].line, 1u);
  EXPECT_EQ(m.movements()[1].line, 2u);
  EXPECT_EQ(m.steps(), 3u);
  EXPECT_EQ(describe_movement(m.movements()[1]),
            "step 3: L2 line 2 (offset 128) written back by flush");
  m.set_log_limit(0);
  EXPECT_TRUE(m.movements().empty());
  m.invalidate(Side::kL3, 0, 256);
  EXPECT_TRUE(m.movements().empty());
  EXPECT_EQ(m.movements_total(), 6u);
}

// ----------------------------------------------- the worked failure (README)

// An L2 endpoint fills its output reservation through local_addr and
// publishes without a flush; the L3 peer, after a correct invalidate, reads
// what the payload holds for it.
Bytes l3_reads_output_of_unflushing_l2(CachePolicy policy) {
  NonCoherentPayload m(512, policy);
  const Bytes previous(32, 'o');
  m.publish_bytes(Side::kL2, 256, previous.data(), previous.size());  // an earlier message
  std::memset(m.side_base(Side::kL2) + 256, 'n', 32);  // the new output, no flush
  m.cache_may_act(Side::kL2);  // the view's publish calls (counters are coherent)
  m.cache_may_act(Side::kL3);  // the peer's wait on the tail
  return fresh(m, Side::kL3, 256, 32);
}

TEST(WorkedFailure, UnflushedOutputReadsOldBytesUnderAdversarial) {
  EXPECT_EQ(l3_reads_output_of_unflushing_l2(CachePolicy::kAdversarial), Bytes(32, 'o'));
}

TEST(WorkedFailure, UnflushedOutputPassesUnderNone) {
  EXPECT_EQ(l3_reads_output_of_unflushing_l2(CachePolicy::kNone), Bytes(32, 'n'));
}

// ------------------------------------------------------ external DRAM

// A buffer standing for the harness's RegionMemory payload.
class ExternalMemory : public ::testing::Test {
 protected:
  ExternalMemory() : dram_(320, 0) {}
  RegionMemory dram_;
};

TEST_F(ExternalMemory, CopiesStartAsDramIsAndDramIsTheCallersBuffer) {
  for (uint64_t i = 0; i < 320; ++i) dram_.payload()[i] = static_cast<uint8_t>(i * 3 + 1);
  NonCoherentPayload m(dram_.payload(), 320, CachePolicy::kAdversarial);
  EXPECT_TRUE(m.external_memory());
  EXPECT_EQ(m.memory(), dram_.payload());
  EXPECT_NE(m.side_base(Side::kL2), dram_.payload());
  EXPECT_NE(m.side_base(Side::kL3), m.side_base(Side::kL2));
  EXPECT_EQ(std::memcmp(m.side_base(Side::kL2), dram_.payload(), 320), 0);
  EXPECT_EQ(std::memcmp(m.side_base(Side::kL3), dram_.payload(), 320), 0);
  EXPECT_TRUE(m.stale_lines(Side::kL2, 0, 320).empty());
  EXPECT_TRUE(m.dirty_lines(Side::kL3, 0, 320).empty());
  EXPECT_TRUE(m.pending_moves(Side::kL2).empty());
}

TEST_F(ExternalMemory, APeerStoreIntoDramIsSeenOnlyAfterAnInvalidate) {
  NonCoherentPayload m(dram_.payload(), 320, CachePolicy::kAdversarial);
  const Bytes b(8, 0xAB);
  dram_.write(100, b.data(), b.size());  // the scripted peer: flushed by definition
  EXPECT_EQ(load_bytes(m, Side::kL2, 100, 8), Bytes(8, 0));
  EXPECT_EQ(m.stale_lines(Side::kL2, 0, 320), Lines{1});
  EXPECT_EQ(fresh(m, Side::kL2, 100, 8), b);
}

TEST_F(ExternalMemory, AFlushWritesWholeLinesIntoTheCallersBuffer) {
  NonCoherentPayload m(dram_.payload(), 320, CachePolicy::kAdversarial);
  std::memset(m.side_base(Side::kL2) + 130, 0x5C, 4);
  EXPECT_EQ(dram_.payload()[130], 0);
  m.flush(Side::kL2, 130, 4);
  EXPECT_EQ(dram_.payload()[133], 0x5C);
  EXPECT_EQ(dram(m, 128, 64), load_bytes(m, Side::kL2, 128, 64));
}

TEST_F(ExternalMemory, TheWriteBackHookSeesEveryWriteBackAsALineRange) {
  // 200 bytes: the last line is [192, 200).
  RegionMemory small(200, 0);
  NonCoherentPayload m(small.payload(), 200, CachePolicy::kAdversarial);
  std::vector<std::pair<uint64_t, uint64_t>> seen;
  m.set_write_back_hook([&](uint64_t off, uint64_t n) { seen.emplace_back(off, n); });
  std::memset(m.side_base(Side::kL2) + 60, 1, 10);  // lines 0 and 1
  m.side_base(Side::kL2)[199] = 2;                  // line 3
  m.flush(Side::kL2, 0, 200);
  EXPECT_EQ(seen, (std::vector<std::pair<uint64_t, uint64_t>>{{0, 64}, {64, 64}, {192, 8}}));
  seen.clear();
  m.side_base(Side::kL3)[5] = 9;
  EXPECT_TRUE(m.apply(Move{Side::kL3, 0, Kind::kWriteBack}));
  EXPECT_EQ(seen, (std::vector<std::pair<uint64_t, uint64_t>>{{0, 64}}));
  seen.clear();
  m.invalidate(Side::kL2, 0, 200);  // drops never touch DRAM
  EXPECT_TRUE(seen.empty());
}

TEST_F(ExternalMemory, TheCoherentPolicyHandsOutTheCallersBuffer) {
  NonCoherentPayload m(dram_.payload(), 320, CachePolicy::kNone);
  EXPECT_EQ(m.side_base(Side::kL2), dram_.payload());
  EXPECT_EQ(m.side_base(Side::kL3), dram_.payload());
  m.side_base(Side::kL2)[7] = 7;
  EXPECT_EQ(load_bytes(m, Side::kL3, 7, 1), Bytes{7});
}

TEST_F(ExternalMemory, RandomReplaysOverExternalMemoryToo) {
  // The DRAM after each sync point, one snapshot per step: the same seed
  // gives the same history, another seed another.
  auto run = [](uint64_t seed) {
    RegionMemory d(512, 0);
    NonCoherentPayload m(d.payload(), 512, CachePolicy::kRandom, seed);
    std::vector<Bytes> history;
    for (uint64_t i = 0; i < 40; ++i) {
      m.side_base(Side::kL2)[(i * 29) % 512] = static_cast<uint8_t>(i + 1);
      m.cache_may_act(Side::kL2);
      history.emplace_back(d.payload(), d.payload() + 512);
    }
    return history;
  };
  EXPECT_EQ(run(5), run(5));
  EXPECT_NE(run(5), run(6));
}

TEST_F(ExternalMemory, TheModelLeavesTheBufferToItsOwner) {
  {
    NonCoherentPayload m(dram_.payload(), 320, CachePolicy::kAdversarial);
    m.side_base(Side::kL2)[0] = 1;
    m.flush(Side::kL2, 0, 1);
  }
  EXPECT_EQ(dram_.payload()[0], 1);  // still mapped, still written
}

// ---------------------------------------------------------- the policy text

TEST(ParseCachePolicy, AcceptsTheFourForms) {
  CachePolicy p = CachePolicy::kAdversarial;
  uint64_t seed = 99;
  ASSERT_TRUE(parse_cache_policy("none", &p, &seed));
  EXPECT_EQ(p, CachePolicy::kNone);
  EXPECT_EQ(seed, 0u);
  ASSERT_TRUE(parse_cache_policy("adversarial", &p, &seed));
  EXPECT_EQ(p, CachePolicy::kAdversarial);
  ASSERT_TRUE(parse_cache_policy("random", &p, &seed));
  EXPECT_EQ(p, CachePolicy::kRandom);
  EXPECT_EQ(seed, 0u);
  ASSERT_TRUE(parse_cache_policy("random:42", &p, &seed));
  EXPECT_EQ(p, CachePolicy::kRandom);
  EXPECT_EQ(seed, 42u);
  ASSERT_TRUE(parse_cache_policy("random:18446744073709551615", &p, &seed));
  EXPECT_EQ(seed, UINT64_MAX);
}

TEST(ParseCachePolicy, RefusesEverythingElseAndLeavesTheOutputsAlone) {
  for (const char* bad : {"", "None", "adversarial ", "random:", "random:-1", "random:0x10",
                          "random:1a", "random:18446744073709551616", "random 1", "coherent"}) {
    CachePolicy p = CachePolicy::kAdversarial;
    uint64_t seed = 7;
    EXPECT_FALSE(parse_cache_policy(bad, &p, &seed)) << "\"" << bad << "\"";
    EXPECT_EQ(p, CachePolicy::kAdversarial) << bad;
    EXPECT_EQ(seed, 7u) << bad;
  }
}

// ------------------------------------------------------------- death

TEST(NonCoherentPayloadDeathTest, OutOfRangeCallsNameTheCallTheSideAndTheRange) {
  NonCoherentPayload m(128, CachePolicy::kAdversarial);
  uint8_t buf[4] = {};
  EXPECT_DEATH(m.flush(Side::kL2, 100, 40),
               "flush by L2 of \\[100, \\+40\\) outside a 128-byte part");
  EXPECT_DEATH(m.invalidate(Side::kL3, 129, 0), "invalidate by L3 of \\[129, \\+0\\)");
  // offset + nbytes wraps to 1: still refused.
  EXPECT_DEATH(m.store(Side::kL2, UINT64_MAX, buf, 2),
               "store by L2 of \\[18446744073709551615, \\+2\\)");
  EXPECT_DEATH(m.load(Side::kL3, 64, buf, UINT64_MAX),
               "load by L3 of \\[64, \\+18446744073709551615\\)");
  EXPECT_DEATH(m.stale_lines(Side::kL2, 0, 129), "stale_lines by L2 of \\[0, \\+129\\)");
  EXPECT_DEATH(m.cache_may_act(static_cast<Side>(2)), "cache_may_act with side 2");
}

TEST(NonCoherentPayloadDeathTest, TheCoherentPolicyChecksRangesToo) {
  NonCoherentPayload m(128, CachePolicy::kNone);
  EXPECT_DEATH(m.flush(Side::kL2, 100, 40), "flush by L2 of \\[100, \\+40\\)");
  EXPECT_DEATH(m.apply(Move{Side::kL2, 0, Kind::kWriteBack}), "apply under the coherent policy");
}

TEST(NonCoherentPayloadDeathTest, IllegalMovesDie) {
  NonCoherentPayload m(128, CachePolicy::kAdversarial);
  EXPECT_DEATH(m.apply(Move{Side::kL3, 2, Kind::kWriteBack}), "apply by L3 of line 2");
  m.side_base(Side::kL2)[0] = 1;
  EXPECT_DEATH(m.apply(Move{Side::kL2, 0, Kind::kDrop}), "drop dirty line 0 of L2");
}

TEST(NonCoherentPayloadDeathTest, ExternalMemoryMustExist) {
  EXPECT_DEATH(NonCoherentPayload(nullptr, 64, CachePolicy::kAdversarial),
               "over a null external memory");
}

TEST(NonCoherentPayloadDeathTest, OneBytePastASideCopyFaultsOnTheGuardPage) {
  EXPECT_DEATH(
      {
        NonCoherentPayload m(128, CachePolicy::kAdversarial);
        volatile uint8_t* p = m.side_base(Side::kL3);
        p[128] = 1;
      },
      "");
  EXPECT_DEATH(
      {
        NonCoherentPayload m(200, CachePolicy::kRandom, 1);
        volatile uint8_t* p = m.side_base(Side::kL2);
        p[200] = 1;
      },
      "");
  EXPECT_DEATH(
      {
        NonCoherentPayload m(128, CachePolicy::kNone);
        volatile uint8_t* p = m.side_base(Side::kL2);
        p[128] = 1;
      },
      "");
}

}  // namespace
}  // namespace spsq_conf
