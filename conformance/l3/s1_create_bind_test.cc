// Spec preamble and section 1, "Create And Bind", from the L3 side: the
// binding L3 hands over, the queue's calls and their no-progress answers, and
// the region every shared access must stay inside.
#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "conformance/l3/l3_fixture.h"

namespace spsq_conf {
namespace {

class L3CreateBind : public L3Suite {};

TEST_F(L3Suite, TaskArgScalarsAreTheBindingInSpecOrder) {
  SPSQ_CLAUSES("S1.BIND.ORDER/l3", "S1.MAGIC.1/l3-emits", "S0.BIND.1/l3-scalars",
               "W.CONST.1/l3-emits");
  uint64_t s[10] = {};
  ASSERT_TRUE(l3().chip_task_arg_scalars(s, 10));
  const auto want = region().scalars();
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(s[i], want[i]) << "scalar " << i;
  EXPECT_EQ(s[0], 0x5350535100010000ull);
}

TEST_F(L3Suite, ZeroSessionBitsAreAccepted) {
  SPSQ_CLAUSES("S1.SESSION.1/l3");
  QueueParams p;
  p.session = 0;
  Rebuild(p);
  uint64_t s[10] = {};
  ASSERT_TRUE(l3().chip_task_arg_scalars(s, 10));
  EXPECT_EQ(s[1], 0u) << "session_instance_id_bits as bound";
  const auto b = Bytes(12, 3);
  ASSERT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk);
  Message in;
  ASSERT_TRUE(peer().poll_input(&in));
  EXPECT_EQ(in.payload, b);
  ASSERT_EQ(peer().publish_data(Bytes(6, 4)), Enqueue::kOk);
  std::vector<uint8_t> buf(16);
  L3Message m;
  ASSERT_EQ(l3().try_dequeue_into(buf.data(), buf.size(), &m), L3Status::kOk);
  EXPECT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + 6), Bytes(6, 4));
  ExpectHealthy("session 0");
}

TEST_F(L3Suite, TryEnqueueReportsAFullRingWithoutPoison) {
  {
    SPSQ_JUDGING("S2.DEPTH.1");
    SPSQ_SETUP(FillInputRing());
  }
  {
    SPSQ_JUDGING("S1.TRYENQ.1", "S2.CAP.1", "S4.NOPROG.1");
    EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kNoProgress) << "depth + 1";
  }
  {
    SPSQ_JUDGING("S1.TRYENQ.3/ring-full", "S4.NOPROG.1");
    ExpectHealthy("ring full");
  }
  {
    SPSQ_JUDGING("S2.DEPTH.1", "S2.CAP.1");
    const auto got = peer().drain_inputs();
    ASSERT_EQ(got.size(), layout().depth) << "capacity is exactly depth";
    for (uint64_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].seq, i + 1);
  }
  SPSQ_JUDGING("S1.TRYENQ.3/ring-full", "S4.NOPROG.1");  // room once L2 released
  EXPECT_EQ(l3().try_enqueue(nullptr, 0), L3Status::kOk);
}

TEST_F(L3Suite, TryEnqueueReportsAFullArenaWithoutPoison) {
  const auto big = Bytes(200, 1);
  const auto mid = Bytes(100, 2);
  {
    // An acceptance would place 100 bytes over the 200 unreleased.
    SPSQ_JUDGING("S1.TRYENQ.2", "S4.NOPROG.2", "W.ARENA.2");
    ASSERT_EQ(l3().try_enqueue(big.data(), big.size()), L3Status::kOk);
    EXPECT_EQ(l3().try_enqueue(mid.data(), mid.size()), L3Status::kNoProgress);
  }
  {
    SPSQ_JUDGING("S1.TRYENQ.3/arena-full", "S4.NOPROG.2");
    ExpectHealthy("arena full");
    peer().drain_inputs();
    EXPECT_EQ(l3().try_enqueue(mid.data(), mid.size()), L3Status::kOk);
  }
  SPSQ_JUDGING("W.ARENA.2", "S4.NOPROG.2");  // placed where the model's bound allows
  Message m;
  ASSERT_TRUE(peer().poll_input(&m));
  EXPECT_EQ(m.payload, mid);
}

TEST_F(L3Suite, NoOutputIsNoProgress) {
  SPSQ_CLAUSES("S1.TRYPEEK.1/try-peek", "S1.TRYPEEK.1/try-dequeue-into", "S4.NOPROG.3");
  L3Message m;
  uint8_t buf[8];
  EXPECT_EQ(l3().try_peek(&m), L3Status::kNoProgress);
  EXPECT_EQ(l3().try_dequeue_into(buf, sizeof(buf), &m), L3Status::kNoProgress);
  ExpectHealthy("empty output queue");
}

TEST_F(L3Suite, DequeueIntoCopiesAndReleasesInOneCall) {
  SPSQ_CLAUSES("S1.DEQ.1");
  std::vector<uint8_t> err(32);
  // Payload bytes that look like a descriptor.
  wire::encode_descriptor(wire::Descriptor{9, wire::kStop, 1, 1}, err.data());
  ASSERT_EQ(peer().publish(wire::kError, err.data(), err.size()), Enqueue::kOk);
  Outputs(1, 40);
  std::vector<uint8_t> buf(64);
  L3Message m;
  ASSERT_EQ(l3().try_dequeue_into(buf.data(), buf.size(), &m), L3Status::kOk);
  {
    SPSQ_JUDGING("S2.ERROR.1", "S2.OPC.4");
    EXPECT_EQ(m.opcode, wire::kError);
  }
  {
    SPSQ_JUDGING("S1.DEQ.1", "S2.ERROR.1", "S2.SEQ.3");
    EXPECT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + 32), err);
  }
  EXPECT_EQ(peer().counter(wire::kOutputHead), 1) << "dequeue_into releases";
  ASSERT_EQ(l3().dequeue_into(buf.data(), buf.size(), 1000, &m), L3Status::kOk);
  {
    SPSQ_JUDGING("S0.PURPOSE.1/output-fifo");
    EXPECT_EQ(m.seq, 2u);
  }
  {
    SPSQ_JUDGING("S1.DEQ.1", "S2.SEQ.3");
    EXPECT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + 40), Bytes(40, 0));
  }
  EXPECT_EQ(peer().counter(wire::kOutputHead), 2);
  {
    SPSQ_JUDGING("S1.DEQ.1", "S2.OPC.4");  // an ERROR output leaves L3 live
    ExpectHealthy("after ERROR and DATA");
  }
  // A buffer of exactly the payload's size holds it: dequeue_into, and
  // read_into of a peeked message.
  SPSQ_JUDGING("S1.DEQ.1");
  const auto want = Bytes(24, 7);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(peer().publish(wire::kData, want.data(), want.size()), Enqueue::kOk);
  }
  std::vector<uint8_t> exact(want.size());
  EXPECT_EQ(l3().dequeue_into(exact.data(), exact.size(), 1000, &m), L3Status::kOk)
      << "dequeue_into with a 24-byte buffer for a 24-byte message: " << l3().error().message;
  EXPECT_EQ(exact, want);
  EXPECT_EQ(peer().counter(wire::kOutputHead), 3);
  std::fill(exact.begin(), exact.end(), 0);
  ASSERT_EQ(l3().try_peek(&m), L3Status::kOk);
  EXPECT_EQ(l3().read_into(m, exact.data(), exact.size()), L3Status::kOk)
      << "read_into with a 24-byte buffer for a 24-byte message: " << l3().error().message;
  EXPECT_EQ(exact, want);
  EXPECT_EQ(l3().release(m), L3Status::kOk);
  EXPECT_EQ(peer().counter(wire::kOutputHead), 4);
}

// Both directions keep publication order across several ring cycles: L2
// sees L3's inputs in the order L3 enqueued them, L3 dequeues L2's outputs in
// the order L2 published them, with consecutive seq.
TEST_F(L3Suite, MessagesKeepTheirOrderBothWays) {
  SPSQ_CLAUSES("S0.PURPOSE.1/input-fifo", "S0.PURPOSE.1/output-fifo");
  // 40 to 60 bytes a message: a batch of depth fits each arena, and three
  // batches wrap both arenas twice, with skips, so later messages reuse the
  // offsets of earlier ones and their bytes must be the new ones.
  const uint64_t arena = std::min(layout().input_arena_bytes, layout().output_arena_bytes);
  const uint64_t most = std::min<uint64_t>(60, arena / layout().depth);
  auto size_of = [most](uint64_t k) { return most - k % 21 % (most < 21 ? most : 21); };
  uint64_t n = 0;
  std::vector<uint8_t> buf(most);
  for (int round = 0; round < 3; ++round) {
    const uint64_t batch = layout().depth;
    for (uint64_t i = 0; i < batch; ++i) {
      const auto b = Bytes(size_of(n + i), static_cast<uint8_t>(n + i));
      ASSERT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk) << l3().error().message;
      ASSERT_EQ(peer().publish_data(Bytes(size_of(n + i + 7), static_cast<uint8_t>(n + i + 50))),
                Enqueue::kOk);
    }
    const auto in = peer().drain_inputs();
    ASSERT_EQ(in.size(), batch);
    for (uint64_t i = 0; i < batch; ++i) {
      EXPECT_EQ(in[i].seq, n + i + 1);
      EXPECT_EQ(in[i].payload, Bytes(size_of(n + i), static_cast<uint8_t>(n + i)));
      L3Message m;
      ASSERT_EQ(l3().try_dequeue_into(buf.data(), buf.size(), &m), L3Status::kOk);
      EXPECT_EQ(m.seq, n + i + 1);
      const auto want = Bytes(size_of(n + i + 7), static_cast<uint8_t>(n + i + 50));
      ASSERT_EQ(m.payload_nbytes, want.size());
      EXPECT_EQ(std::vector<uint8_t>(buf.begin(), buf.begin() + static_cast<long>(want.size())),
                want) << "output seq " << m.seq << " at offset " << m.payload_offset;
    }
    n += batch;
  }
  ExpectHealthy("after three ring cycles each way");
}

// A poison's diagnostics name the RegionInstance: the binding's session bits
// and transaction id.
TEST_F(L3Suite, PoisonDiagnosticsCarryTheInstanceIdentity) {
  SPSQ_CLAUSES("S1.DIAG.1/l3-poison");
  peer().publish_raw(wire::Descriptor{7, wire::kData, 0, 0});  // seq 7 where 1 is due
  L3Message m;
  EXPECT_EQ(l3().try_peek(&m), L3Status::kFailed);
  ExpectPoisoned(0, "seq mismatch");
  const L3ErrorInfo e = l3().error();
  EXPECT_EQ(e.session_instance_id_bits, region().params().session);
  EXPECT_EQ(e.transaction_id, region().params().transaction);
  EXPECT_FALSE(e.message.empty());
}

// Each stop call publishes exactly one zero-byte STOP; with the ring full it
// makes no progress (try_request_stop) or times out (request_stop) without
// publishing or poisoning, and publishes once room appears.
TEST_F(L3Suite, EachStopCallPublishesOneStop) {
  SPSQ_CLAUSES("S1.STOPAPI.1/request-stop", "S1.STOPAPI.1/try-request-stop",
               "S1.STOPAPI.1/ring-full");
  for (int blocking = 0; blocking < 2; ++blocking) {
    SCOPED_TRACE(blocking ? "request_stop(timeout)" : "try_request_stop()");
    Rebuild(QueueParams());
    SPSQ_SETUP(FillInputRing());
    const int32_t tail = peer().counter(wire::kInputTail);
    const L3Status full = blocking ? l3().request_stop(3000) : l3().try_request_stop();
    EXPECT_EQ(full, blocking ? L3Status::kTimedOut : L3Status::kNoProgress)
        << l3_status_name(full);
    EXPECT_EQ(peer().counter(wire::kInputTail), tail) << "a STOP published into a full ring";
    ExpectHealthy("stop on a full ring");
    ASSERT_EQ(peer().drain_inputs().size(), layout().depth);
    ASSERT_EQ(blocking ? l3().request_stop(3000) : l3().try_request_stop(), L3Status::kOk)
        << l3().error().message;
    const auto in = peer().drain_inputs();
    ASSERT_EQ(in.size(), 1u) << "exactly one STOP";
    EXPECT_EQ(in[0].seq, layout().depth + 1);
    EXPECT_EQ(in[0].opcode, wire::kStop);
    EXPECT_EQ(in[0].nbytes, 0u);
    ExpectHealthy("after STOP");
  }
}

// The invariants the fixture re-checks after every test, judged here as this
// test's own verdict, after a duplex exchange that wraps both arenas: every
// shared access inside the bound region (S0.REGION.1), writes only to the
// input ring and arena (S2.ARENA.2), counter accesses only on the signal
// slots (S3.SIG.1), L3's own signals only, never L2's flag (W.FLAG.3), each a
// plain Set of the low 32 bits of the count (W.CTR.1). Then a poison, the
// one time a flag is written: L3's own.
TEST_F(L3CreateBind, AllSharedStateIsTheBoundRegionReachedThroughTheView) {
  SPSQ_CLAUSES("S0.REGION.1/l3", "S2.ARENA.2", "S3.SIG.1", "W.FLAG.3", "W.CTR.1");
  if (!l3().uses_view()) GTEST_SKIP() << l3().name() << " does not run on the harness view";
  // Arenas of 1024 and messages of at most 200 bytes: both arenas wrap, but
  // never into the idle-arena case (liveness_test.cc judges that one).
  QueueParams p = region().params();
  p.input_arena = 1024;
  p.output_arena = 1024;
  Rebuild(p);
  const wire::Layout l = layout();  // a copy: Rebuild() replaces the region
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
      const bool ring =
          a.offset >= l.input_ring && a.offset + a.nbytes <= l.input_ring + l.ring_bytes;
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

// free() releases the L3 queue handle: afterwards every call is refused and
// touches nothing shared (the memory may be gone), and free is no poison (L2
// must not see an abort). Set up so each refused call could have progressed:
// room for an input, an output published, one held.
TEST_F(L3CreateBind, FreeReleasesTheHandleWithoutTouchingMemoryOrPoisoning) {
  Outputs(2);
  L3Message held;
  ASSERT_EQ(l3().try_peek(&held), L3Status::kOk);
  const int32_t input_tail = peer().counter(wire::kInputTail);
  const int32_t output_head = peer().counter(wire::kOutputHead);
  const uint64_t t0 = VirtualClock::peek();
  const size_t mark = log().mark();
  l3().free();
  {
    SPSQ_JUDGING("S1.FREE.1/not-live");
    EXPECT_FALSE(l3().live()) << "live() after free()";
  }
  const auto b = Bytes(8, 1);
  std::vector<uint8_t> buf(64);
  L3Message m;
  const struct {
    const char* call;
    L3Status status;
  } calls[] = {
      {"try_enqueue", l3().try_enqueue(b.data(), b.size())},
      {"enqueue", l3().enqueue(b.data(), b.size(), 1000)},
      {"try_request_stop", l3().try_request_stop()},
      {"request_stop", l3().request_stop(1000)},
      {"try_peek", l3().try_peek(&m)},
      {"peek", l3().peek(1000, &m)},
      {"read_into of the held handle", l3().read_into(held, buf.data(), buf.size())},
      {"release of the held handle", l3().release(held)},
      {"try_dequeue_into", l3().try_dequeue_into(buf.data(), buf.size(), &m)},
      {"dequeue_into", l3().dequeue_into(buf.data(), buf.size(), 1000, &m)},
  };
  {
    // What the calls answer the spec leaves open (AMB.AFTERFREE): they must
    // agree on one reading, or none is recorded.
    bool all_rejected = true, all_failed = true;
    std::string answers;
    for (const auto& c : calls) {
      all_rejected = all_rejected && c.status == L3Status::kRejected;
      all_failed = all_failed && c.status == L3Status::kFailed;
      answers += std::string(answers.empty() ? "" : ", ") + c.call + " " +
                 l3_status_name(c.status);
    }
    record_observation("l3.after_free", answers);
    if (all_rejected) SPSQ_READING("AMB.AFTERFREE", "A", "every call after free(): REJECTED");
    if (all_failed) SPSQ_READING("AMB.AFTERFREE", "B", "every call after free(): FAILED");
  }
  {
    SPSQ_JUDGING("S1.FREE.1/refused");
    EXPECT_EQ(peer().counter(wire::kInputTail), input_tail) << "an input published after free()";
    EXPECT_EQ(peer().counter(wire::kOutputHead), output_head) << "an output released after free()";
    EXPECT_EQ(VirtualClock::peek(), t0) << "a call after free() waited";
  }
  {
    SPSQ_JUDGING("S1.FREE.1/no-poison");
    EXPECT_EQ(l3_flag(), 0) << "free() raised the initiator abort flag";
    if (l3().uses_view()) {
      EXPECT_EQ(log().count([](const spsq_conf::Access& a) {
                  return a.kind == AccessKind::kNotify && a.offset == wire::kInitiatorFlag;
                }), 0u) << "a notify of the initiator flag";
    }
  }
  {
    SPSQ_JUDGING("S1.FREE.1/no-access");
    if (l3().uses_view()) {
      EXPECT_EQ(log().shared_accesses_since(mark), 0u) << "free() or a call after it touched "
                                                          "shared memory:\n" << log().dump(mark);
    }
  }
  SPSQ_JUDGING("S1.FREE.1/twice");
  const size_t again = log().mark();
  l3().free();
  EXPECT_FALSE(l3().live()) << "live() after a second free()";
  EXPECT_EQ(l3_flag(), 0) << "a second free() raised the initiator abort flag";
  if (l3().uses_view()) {
    EXPECT_EQ(log().shared_accesses_since(again), 0u) << "a second free() touched shared "
                                                         "memory:\n" << log().dump(again);
  }
}

// free() marks the queue's projected region handle released (queue.region),
// once and for good: a queue the adapter binds with a region handle over its
// own memory, used, then freed twice.
TEST_F(L3CreateBind, FreeMarksTheProjectedRegionReleased) {
  SPSQ_CLAUSES("S1.FREE.2");
  l3_ = make_l3_adapter();  // the fixture's queue goes: one L3 side on the region
  const auto s = region().scalars();
  if (!l3().open_with_region(s.data(), s.size(), region().view(), &VirtualClock::now_ns)) {
    GTEST_SKIP() << "not applicable: " << l3().name()
                 << " hands the suite no projected region handle (open_with_region)";
  }
  ASSERT_TRUE(l3().live()) << l3().error().message;
  EXPECT_FALSE(l3().region_released()) << "released before free()";
  const auto b = Bytes(8, 2);
  ASSERT_EQ(l3().try_enqueue(b.data(), b.size()), L3Status::kOk) << l3().error().message;
  Outputs(1);
  std::vector<uint8_t> buf(64);
  L3Message m;
  ASSERT_EQ(l3().try_dequeue_into(buf.data(), buf.size(), &m), L3Status::kOk);
  EXPECT_FALSE(l3().region_released()) << "released by traffic, before free()";
  l3().free();
  EXPECT_TRUE(l3().region_released()) << "free() left the projected region handle unreleased";
  l3().free();
  EXPECT_TRUE(l3().region_released()) << "a second free() brought the region handle back";
}

}  // namespace
}  // namespace spsq_conf
