// Spec preamble and section 1, "Create And Bind", from the L3 side: the
// binding L3 hands over, the queue's calls and their no-progress answers, and
// the region every shared access must stay inside.
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "conformance/l3/l3_fixture.h"

namespace spsq_conf {
namespace {

class L3CreateBind : public L3Suite {};

TEST_F(L3Suite, TaskArgScalarsAreTheBindingInSpecOrder) {
  SPSQ_CLAUSES("S1.BIND.ORDER", "S1.MAGIC.1", "S0.BIND.1", "W.CONST.1");
  uint64_t s[10] = {};
  ASSERT_TRUE(l3().chip_task_arg_scalars(s, 10));
  const auto want = region().scalars();
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(s[i], want[i]) << "scalar " << i;
  EXPECT_EQ(s[0], 0x5350535100010000ull);
}

TEST_F(L3Suite, ZeroSessionBitsAreAccepted) {
  SPSQ_CLAUSES("S1.SESSION.1");
  QueueParams p;
  p.session = 0;
  Rebuild(p);
  ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk);
  ExpectHealthy("session 0");
}

TEST_F(L3Suite, TryEnqueueReportsAFullRingWithoutPoison) {
  SPSQ_CLAUSES("S1.TRYENQ.1", "S1.TRYENQ.3", "S2.CAP.1", "S2.DEPTH.1", "S4.NOPROG.1");
  for (uint64_t i = 0; i < layout().depth; ++i) {
    ASSERT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk) << "input " << i + 1;
  }
  EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kNoProgress) << "depth + 1";
  ExpectHealthy("ring full");
  const auto got = peer().drain_inputs();
  ASSERT_EQ(got.size(), layout().depth) << "capacity is exactly depth";
  for (uint64_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].seq, i + 1);
  EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk);
}

TEST_F(L3Suite, TryEnqueueReportsAFullArenaWithoutPoison) {
  SPSQ_CLAUSES("S1.TRYENQ.2", "S1.TRYENQ.3", "S4.NOPROG.2", "W.ARENA.2");
  const auto big = Bytes(200, 1);
  ASSERT_EQ(l3().try_enqueue(big.data(), big.size()), L3Status::kOk);
  const auto mid = Bytes(100, 2);
  EXPECT_EQ(l3().try_enqueue(mid.data(), mid.size()), L3Status::kNoProgress);
  ExpectHealthy("arena full");
  peer().drain_inputs();
  EXPECT_EQ(l3().try_enqueue(mid.data(), mid.size()), L3Status::kOk);
  Message m;
  ASSERT_TRUE(peer().poll_input(&m));
  EXPECT_EQ(m.payload, mid);
}

TEST_F(L3Suite, NoOutputIsNoProgress) {
  SPSQ_CLAUSES("S1.TRYPEEK.1", "S4.NOPROG.3");
  L3Message m;
  uint8_t buf[8];
  EXPECT_EQ(l3().try_peek(&m), L3Status::kNoProgress);
  EXPECT_EQ(l3().try_dequeue_into(buf, sizeof(buf), &m), L3Status::kNoProgress);
  ExpectHealthy("empty output queue");
}

TEST_F(L3Suite, DequeueIntoCopiesAndReleasesInOneCall) {
  SPSQ_CLAUSES("S1.DEQ.1", "S2.ERROR.1", "S2.OPC.4", "S2.SEQ.3", "S0.PURPOSE.1");
  std::vector<uint8_t> err(32);
  wire::encode_descriptor(wire::Descriptor{9, wire::kStop, 1, 1}, err.data());  // looks like a descriptor
  ASSERT_EQ(peer().publish(wire::kError, err.data(), err.size()), Enqueue::kOk);
  Outputs(1, 40);
  std::vector<uint8_t> buf(64);
  L3Message m;
  ASSERT_EQ(l3().try_dequeue_into(buf.data(), buf.size(), &m), L3Status::kOk);
  EXPECT_EQ(m.opcode, wire::kError);
  EXPECT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + 32), err);
  EXPECT_EQ(peer().counter(wire::kOutputHead), 1) << "dequeue_into releases";
  ASSERT_EQ(l3().dequeue_into(buf.data(), buf.size(), 1000, &m), L3Status::kOk);
  EXPECT_EQ(m.seq, 2u);
  EXPECT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + 40), Bytes(40, 0));
  EXPECT_EQ(peer().counter(wire::kOutputHead), 2);
  ExpectHealthy("after ERROR and DATA");
}

// The invariants the fixture re-checks after every test, judged here as this
// test's own verdict, after a duplex exchange that wraps both arenas: every
// shared access inside the bound region (S0.REGION.1), writes only to the
// input ring and arena (S2.ARENA.2), counter accesses only on the signal
// slots (S3.SIG.1), L3's own signals only, never L2's flag (W.FLAG.3), each a
// plain Set of the low 32 bits of the count (W.CTR.1). Then a poison, the
// one time a flag is written: L3's own.
TEST_F(L3CreateBind, AllSharedStateIsTheBoundRegionReachedThroughTheView) {
  SPSQ_CLAUSES("S0.REGION.1", "S2.ARENA.2", "S3.SIG.1", "W.FLAG.3", "W.CTR.1");
  if (!l3().uses_view()) GTEST_SKIP() << l3().name() << " does not run on the harness view";
  // Arenas of 1024 and messages of at most 200 bytes: both arenas wrap, but
  // never into the idle-arena case (liveness_test.cc judges that one).
  QueueParams p = region().params();
  p.input_arena = 1024;
  p.output_arena = 1024;
  Rebuild(p);
  const wire::Layout& l = layout();
  const uint64_t sizes[] = {0, 1, 63, 64, 65, 100, 200, 7, 0, 128, 200, 199};
  uint64_t messages = 0;
  uint64_t in_wraps = 0, out_wraps = 0, last_in = 0, last_out = 0;
  std::vector<uint8_t> buf(256);
  for (int round = 0; round < 4; ++round) {
    for (uint64_t n : sizes) {
      const auto bytes = Bytes(n, static_cast<uint8_t>(n + round));
      ASSERT_EQ(l3().try_enqueue(bytes.data(), n), L3Status::kOk)
          << "message " << messages << ": " << l3().error().message;
      Message in;
      ASSERT_TRUE(peer().poll_input(&in)) << "message " << messages;
      ASSERT_EQ(in.payload, bytes);
      const uint64_t out_offset = peer().next_output_offset(n);
      ASSERT_EQ(peer().publish_data(in.payload), Enqueue::kOk);  // L2 echoes it
      peer().release_inputs(1);
      L3Message m;
      ASSERT_EQ(l3().try_dequeue_into(buf.data(), buf.size(), &m), L3Status::kOk)
          << "message " << messages << ": " << l3().error().message;
      ASSERT_EQ(m.payload_nbytes, n);
      ASSERT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + static_cast<long>(n)), bytes);
      if (n != 0) {
        if (in.offset < last_in) ++in_wraps;
        if (out_offset < last_out) ++out_wraps;
        last_in = in.offset;
        last_out = out_offset;
      }
      ++messages;
    }
  }
  ASSERT_GE(in_wraps, 3u) << "harness: the input arena did not wrap";
  ASSERT_GE(out_wraps, 3u) << "harness: the output arena did not wrap";
  std::set<std::string> violated;
  region().check_invariants(Side::kL3, "after a duplex exchange", peer().violations(), &violated);
  EXPECT_TRUE(violated.empty()) << "broken: " << *violated.begin();
  // Not vacuous: L3 did publish and release through the view, on its own
  // slots, with plain Sets of the low 32 bits of each count, and its payload
  // traffic went to the input direction and came from the output one.
  std::vector<int32_t> tails, heads;
  size_t counter_calls = 0, input_writes = 0, input_ring_writes = 0, output_reads = 0;
  for (size_t i = 0; i < log().size(); ++i) {
    const spsq_conf::Access& a = log()[i];
    if (!a.is_shared_access()) continue;
    if (a.part == RegionMemory::kCounter) {
      ++counter_calls;
      EXPECT_TRUE(a.offset % wire::kCounterStride == 0 && a.offset < wire::kCounterBytes)
          << "S3.SIG.1: counter access off the 64-byte signal stride: " << a.describe();
      if (a.kind != AccessKind::kNotify || !a.ok) continue;
      EXPECT_NE(a.offset, wire::kPeerFlag) << "W.FLAG.3: L3 wrote L2's flag: " << a.describe();
      EXPECT_TRUE(a.offset == wire::kInputTail || a.offset == wire::kOutputHead)
          << "S3.SIG.1/W.FLAG.3: a healthy exchange wrote a signal other than L3's input tail "
             "and output head: " << a.describe();
      EXPECT_EQ(a.op, 0u) << "W.CTR.1: counter update that is not a plain Set: " << a.describe();
      if (a.offset == wire::kInputTail) tails.push_back(a.value);
      if (a.offset == wire::kOutputHead) heads.push_back(a.value);
      continue;
    }
    EXPECT_LE(a.offset + a.nbytes, l.payload_bytes)
        << "S0.REGION.1: payload access outside the region: " << a.describe();
    if (a.kind == AccessKind::kWrite && a.ok && a.nbytes != 0) {
      const bool ring = a.offset >= l.input_ring && a.offset + a.nbytes <= l.input_ring + l.ring_bytes;
      const bool arena =
          a.offset >= l.input_arena && a.offset + a.nbytes <= l.input_arena + l.input_arena_bytes;
      EXPECT_TRUE(ring || arena) << "S2.ARENA.2: L3 wrote outside the input ring and arena: "
                                 << a.describe();
      if (ring) ++input_ring_writes;
      if (arena) ++input_writes;
    }
    if (a.kind == AccessKind::kRead && a.ok && a.nbytes != 0 && a.offset >= l.output_arena &&
        a.offset + a.nbytes <= l.output_arena + l.output_arena_bytes) {
      ++output_reads;
    }
  }
  EXPECT_GT(counter_calls, 0u) << "no counter access at all";
  EXPECT_GT(input_ring_writes, 0u) << "no input descriptor written through the view";
  EXPECT_GT(input_writes, 0u) << "no input payload written through the view";
  EXPECT_GT(output_reads, 0u) << "no output payload read through the view";
  // Each published value is the low 32 bits of a count: never backwards,
  // ending at the number of messages (republishing a value is allowed).
  for (const std::vector<int32_t>* values : {&tails, &heads}) {
    ASSERT_FALSE(values->empty()) << "no input tail or output head publish at all";
    for (size_t k = 1; k < values->size(); ++k) {
      EXPECT_LE((*values)[k - 1], (*values)[k]) << "W.CTR.1: a counter went backwards";
    }
    EXPECT_EQ(values->back(), wire::low32(messages)) << "W.CTR.1: final count";
  }
  ExpectHealthy("after the duplex exchange");
  // A poison (seq 5 where 49 is due): the flag L3 raises is its own.
  const size_t mark = log().mark();
  peer().publish_raw(wire::Descriptor{5, wire::kData, 0, 0});
  L3Message bad;
  EXPECT_EQ(l3().try_peek(&bad), L3Status::kFailed);
  ExpectPoisoned(0, "bad seq after the exchange");
  EXPECT_EQ(log().count([](const spsq_conf::Access& a) {
              return a.kind == AccessKind::kNotify && a.offset == wire::kPeerFlag;
            }, mark), 0u) << "W.FLAG.3: L3 wrote L2's flag (offset 320)\n" << log().dump(mark);
}

}  // namespace
}  // namespace spsq_conf
