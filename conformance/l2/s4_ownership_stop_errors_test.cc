// Spec section 4, "Ownership, STOP, And Errors", from the L2 side: the input
// window and FIFO-prefix release, the single output reservation and its
// misuse, STOP and draining, no-progress, and every poison cause. Each misuse
// is walked along its paths (still owned or released, zero-byte or sized, the
// first message, the same offset again after a wrap, seq near 2^64), and every
// poisoning call has its error op checked against the contract's names.
#include <cstring>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "testkit/loop_bound.h"
#include "conformance/l2/l2_fixture.h"

namespace spsq_conf {
namespace {

constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();
constexpr ScriptedL3::Enqueue kOk = ScriptedL3::Enqueue::kOk;

// The smallest power of two >= n.
uint64_t pow2_at_least(uint64_t n) {
  uint64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

class Ownership : public L2Test {
 protected:
  // Acquires n published inputs, in order.
  std::vector<Handle> Acquire(uint64_t n) {
    std::vector<Handle> hs(n);
    LoopBound acquire("acquire the published inputs", n);
    for (uint64_t i = 0; i < n && acquire.next(); ++i) {
      EXPECT_TRUE(try_peek(hs[i])) << "input " << i + 1;
    }
    return hs;
  }
  // Consumes `n` zero-byte inputs one by one, so the ring (and any table the
  // endpoint keeps) has turned over.
  void CycleZeroByteInputs(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(peer().enqueue(wire::kData, nullptr, 0), kOk);
      Handle h{};
      ASSERT_TRUE(try_peek(h)) << "input " << i + 1;
      ASSERT_TRUE(release(h));
    }
  }
  // Publishes `n` outputs of `bytes` bytes, each consumed and released by L3.
  void CycleOutputs(uint64_t n, uint64_t bytes) {
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_TRUE(send(wire::kData, Bytes(bytes, static_cast<uint8_t>(i)))) << "output " << i + 1;
      peer().drain_outputs();
    }
  }
  // After a poison: every normal operation is rejected without shared access.
  void ExpectRejectsEverything(const char* context) {
    const uint32_t first_kind = kind();
    const uint32_t first_op = op();
    const std::string first_message = Api::message(ep());
    const size_t mark = log().mark();
    peer().enqueue(wire::kData, nullptr, 0);  // something to acquire, if it still could
    Handle h{};
    EXPECT_FALSE(try_peek(h)) << context;
    EXPECT_FALSE(peek(1000, h)) << context;
    EXPECT_FALSE(release(h)) << context;
    Reservation r{};
    EXPECT_FALSE(try_reserve(8, r)) << context;
    EXPECT_FALSE(reserve(8, 1000, r)) << context;
    EXPECT_FALSE(publish(r, wire::kData)) << context;
    EXPECT_EQ(log().shared_accesses_since(mark), 0u)
        << context << ": operations after poison touched shared memory:\n" << log().dump(mark);
    EXPECT_EQ(kind(), first_kind) << context << ": the first error must stay recorded";
    EXPECT_EQ(op(), first_op) << context << ": the first error's op must stay recorded";
    EXPECT_EQ(std::string(Api::message(ep())), first_message)
        << context << ": the first error's message must stay recorded";
    EXPECT_FALSE(ep().live());
  }
  // A second reserve returned `again` while `first` was active (AMB.RESERVE
  // reading C): it must be that same reservation, not a second one (S4.L2OUT.1).
  // Same span and size, live; filled through `again` and published once, it
  // arrives as the one message, and publishing `first` then poisons as an
  // already-published reservation.
  void ExpectTheActiveReservationAgain(const Reservation& first, const Reservation& again,
                                       const char* context) {
    EXPECT_EQ(Api::payload(again), Api::payload(first))
        << context << ": a second, distinct reservation while one is active";
    EXPECT_EQ(Api::nbytes(again), Api::nbytes(first)) << context;
    ExpectHealthy(context);
    const auto bytes = Bytes(Api::nbytes(first), 9);
    if (!bytes.empty()) q().l2_store(Api::payload(again), bytes.data(), bytes.size());
    ASSERT_TRUE(publish(again, wire::kData)) << context << ": " << Api::message(ep());
    EXPECT_FALSE(publish(first, wire::kData))
        << context << ": the reservation handed back twice published twice";
    ExpectPoisoned(0, wire::kOpOutputPublish, "the one reservation published again");
    EXPECT_EQ(peer().counter(wire::kOutputTail), 1) << context << ": one reservation, one message";
    const auto out = peer().drain_outputs();
    ASSERT_EQ(out.size(), 1u) << context;
    EXPECT_EQ(out[0].payload, bytes) << context;
  }
  // A release that must poison: false, poisoned by release, head unchanged.
  void ExpectReleasePoisons(const Handle& h, const char* cause) {
    const int32_t head = peer().counter(wire::kInputHead);
    EXPECT_FALSE(release(h)) << cause;
    ExpectPoisoned(0, wire::kOpInputRelease, cause);
    EXPECT_EQ(peer().counter(wire::kInputHead), head) << cause << ": the head moved";
    NoteKind("handle", {wire::kOwnership});
  }
  // A publish that must poison: false, poisoned by publish, tail unchanged.
  void ExpectPublishPoisons(const Reservation& r, const char* cause) {
    const int32_t tail = peer().counter(wire::kOutputTail);
    EXPECT_FALSE(publish(r, wire::kData)) << cause;
    ExpectPoisoned(0, wire::kOpOutputPublish, cause);
    EXPECT_EQ(peer().counter(wire::kOutputTail), tail) << cause << ": something was published";
    NoteKind("reservation", {wire::kOwnership});
  }
  // A try_peek that must poison on the published descriptor.
  void ExpectTryPeekPoisons(uint32_t want_kind, const char* cause) {
    Handle h{};
    EXPECT_FALSE(try_peek(h)) << cause;
    ExpectPoisoned(want_kind, wire::kOpInputTryPeek, cause);
  }
};

// ------------------------------------------------------------ ownership

TEST_F(Ownership, EachMessageIsOwnedIndividually) {
  SPSQ_CLAUSES("S4.OWN.1/l2-input", "S4.OWN.1/l2-output");
  const uint64_t n = kN >= 2 ? 2 : 1;
  for (uint64_t i = 0; i < n; ++i) {
    ASSERT_EQ(peer().enqueue_data(Bytes(4, static_cast<uint8_t>(i))), kOk);
  }
  auto hs = Acquire(n);
  for (uint64_t i = 0; i < n; ++i) {
    ASSERT_TRUE(release(hs[i]));
    EXPECT_EQ(peer().counter(wire::kInputHead), static_cast<int32_t>(i + 1))
        << "each release completes exactly one message";
  }
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(send(wire::kData, Bytes(4, 1)));
    EXPECT_EQ(peer().counter(wire::kOutputTail), i) << "each reservation publishes one message";
  }
}

TEST_F(Ownership, OutOfOrderReleaseAdvancesOnlyTheFifoPrefix) {
  SPSQ_CLAUSES("S4.L2IN.5/newest-first", "S4.L2IN.6");
  if (kN < 2) GTEST_SKIP() << "not applicable: needs MaxInflight >= 2 to hold two inputs";
  for (uint64_t i = 0; i < kN; ++i) {
    ASSERT_EQ(peer().enqueue_data(Bytes(16, static_cast<uint8_t>(i))), kOk);
  }
  auto hs = Acquire(kN);
  // Release newest first: nothing is physically released until input 1 is.
  for (uint64_t i = kN; i-- > 1;) {
    ASSERT_TRUE(release(hs[i]));
    EXPECT_EQ(peer().counter(wire::kInputHead), 0)
        << "input " << i + 1 << " released before input 1 advanced the head";
    EXPECT_EQ(peer().input_head(), 0u);
  }
  ASSERT_TRUE(release(hs[0]));
  EXPECT_EQ(peer().counter(wire::kInputHead), static_cast<int32_t>(kN));
  ExpectHealthy("out-of-order release");
}

TEST_F(Ownership, ReleaseInTheMiddleWaitsForTheOldest) {
  SPSQ_CLAUSES("S4.L2IN.5/middle", "S4.L2IN.6");
  if (kN < 2) GTEST_SKIP() << "not applicable: needs MaxInflight >= 2";
  const uint64_t n = kN >= 3 ? 3 : 2;
  for (uint64_t i = 0; i < n; ++i) {
    ASSERT_EQ(peer().enqueue_data(Bytes(8, static_cast<uint8_t>(i + 1))), kOk);
  }
  auto hs = Acquire(n);
  ASSERT_TRUE(release(hs[1]));
  // Input 2 is still physically owned: the head is 0 and input 1 is intact.
  EXPECT_EQ(peer().counter(wire::kInputHead), 0);
  EXPECT_EQ(HandleBytes(hs[0]), Bytes(8, 1));
  ASSERT_TRUE(release(hs[0]));
  EXPECT_EQ(peer().counter(wire::kInputHead), 2) << "inputs 1 and 2 form the released prefix";
  if (n == 3) {
    EXPECT_EQ(HandleBytes(hs[2]), Bytes(8, 3));
    ASSERT_TRUE(release(hs[2]));
    EXPECT_EQ(peer().counter(wire::kInputHead), 3);
  }
}

// The oldest input stays held while later inputs are acquired and released
// over and over, many more times than the window holds: the head never passes
// it, the held input keeps its bytes and its handle, and releasing it at last
// completes the prefix of everything released behind it. How many of the
// later inputs can be acquired meanwhile depends on AMB.WINDOWPHYS; any count
// is accepted, an input out of order or a moved head is not.
TEST_F(Ownership, TheHeadWaitsForAHeldOldestInputAcrossManyCycles) {
  SPSQ_CLAUSES("S4.L2IN.5/held-oldest");
  SPSQ_EXERCISES("AMB.WINDOWPHYS", "S4.L2IN.2");
  if (kN < 2) GTEST_SKIP() << "not applicable: with MaxInflight 1 the held input fills the window";
  QueueParams p = q().params();
  p.depth = pow2_at_least(4 * (kN + 1));
  // Whether inputs released behind the held one still count against the window
  // is open (AMB.WINDOWPHYS), and so is the answer to a peek on a full window
  // (AMB.WINDOW: it may poison). Probe it on a queue that is thrown away: hold
  // input 1, take and release MaxInflight - 1 more, peek once more.
  Rebuild(p);
  for (uint64_t i = 0; i <= kN; ++i) ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), kOk);
  Handle probe{};
  ASSERT_TRUE(try_peek(probe));
  for (uint64_t i = 1; i < kN; ++i) {
    ASSERT_TRUE(try_peek(probe));
    ASSERT_TRUE(release(probe));
  }
  const bool released_ones_free_the_window = try_peek(probe);
  record_observation("held_oldest.window_cycles", released_ones_free_the_window ? "yes" : "no");
  Rebuild(p);
  const uint64_t cycles = 3 * (kN + 1) + p.depth;
  const auto oldest_bytes = Bytes(4, 200);
  ASSERT_EQ(peer().enqueue_data(oldest_bytes), kOk);
  Handle oldest{};
  ASSERT_TRUE(try_peek(oldest));
  uint64_t published = 1, acquired = 1;
  for (uint64_t c = 0; c < cycles; ++c) {
    // Zero-byte and sized inputs mixed: every third one carries no payload.
    const auto bytes = c % 3 == 2 ? std::vector<uint8_t>() : Bytes(4, static_cast<uint8_t>(c));
    if (peer().enqueue_data(bytes) == kOk) ++published;
    Handle h{};
    // Where released inputs keep counting, the window is full after MaxInflight.
    if ((released_ones_free_the_window || acquired < kN) && try_peek(h)) {
      ++acquired;
      EXPECT_EQ(Api::seq(h), acquired) << "inputs are acquired in FIFO order (cycle " << c << ")";
      ASSERT_TRUE(release(h)) << "cycle " << c << ": " << Api::message(ep());
    }
    ASSERT_TRUE(ep().live()) << "cycle " << c << ": " << Api::message(ep());
    ASSERT_EQ(peer().counter(wire::kInputHead), 0)
        << "cycle " << c << ": the head passed the held oldest input";
  }
  record_observation("held_oldest.acquired_behind", std::to_string(acquired - 1));
  EXPECT_EQ(Api::seq(oldest), 1u);
  EXPECT_EQ(HandleBytes(oldest), oldest_bytes) << "the held input's payload changed";
  ASSERT_TRUE(release(oldest)) << "the held oldest input is still releasable: "
                               << Api::message(ep());
  EXPECT_EQ(peer().counter(wire::kInputHead), static_cast<int32_t>(acquired))
      << "releasing the oldest completes the prefix released behind it";
  // The rest arrive in order and each release now advances the head at once.
  Handle h{};
  LoopBound drain("acquire the rest of the published inputs",
                  published >= acquired ? published - acquired : 0);
  while (try_peek(h) && drain.next()) {
    ++acquired;
    EXPECT_EQ(Api::seq(h), acquired);
    ASSERT_TRUE(release(h));
    EXPECT_EQ(peer().counter(wire::kInputHead), static_cast<int32_t>(acquired));
  }
  EXPECT_EQ(acquired, published) << "published inputs left unacquired";
  ExpectHealthy("after the held oldest input");
}

// --------------------------------------------------------- reservations

TEST_F(Ownership, OneActiveReservation) {
  SPSQ_CLAUSES("S4.L2OUT.1/try", "AMB.RESERVE");
  Reservation r1{}, r2{};
  ASSERT_TRUE(try_reserve(8, r1));
  if (try_reserve(8, r2)) {
    ExpectTheActiveReservationAgain(r1, r2, "second try_reserve");
    SPSQ_READING("AMB.RESERVE", "C",
                 "second try_reserve returned the active reservation again, live");
    return;
  }
  if (ep().live()) {
    SPSQ_READING("AMB.RESERVE", "A", "second try_reserve returned false, endpoint live");
    ASSERT_TRUE(publish(r1, wire::kData)) << "the first reservation stays publishable";
  } else {
    ExpectPoisoned(0, wire::kOpOutputTryReserve, "second reservation");
    SPSQ_READING("AMB.RESERVE", "B",
                 std::string("second try_reserve poisoned: ") + wire::kind_name(kind()));
  }
}

// The other ways to ask for a second reservation: a blocking reserve, another
// size, two zero-byte ones. Each may be refused, poison, or hand back the
// active reservation (AMB.RESERVE; its reading is recorded by
// OneActiveReservation), never a second one.
TEST_F(Ownership, NoSecondReservationOnAnyPath) {
  SPSQ_CLAUSES("S4.L2OUT.1/blocking", "S4.L2OUT.1/other-size", "S4.L2OUT.1/zero-byte",
               "AMB.RESERVE");
  const struct {
    const char* name;
    uint64_t first, second;
    bool blocking;
  } paths[] = {
      {"blocking reserve of the same size", 8, 8, true},
      {"try_reserve of another size", 8, 24, false},
      {"blocking reserve of another size", 8, 24, true},
      {"zero-byte, then zero-byte", 0, 0, false},
      {"zero-byte, then sized", 0, 8, false},
  };
  for (const auto& path : paths) {
    Rebuild(q().params());
    Reservation r1{}, r2{};
    ASSERT_TRUE(try_reserve(path.first, r1)) << path.name;
    const bool got = path.blocking ? reserve(path.second, 1000, r2) : try_reserve(path.second, r2);
    if (got) {
      EXPECT_EQ(path.second, path.first)
          << path.name << ": a reservation of another size while one is active";
      ExpectTheActiveReservationAgain(r1, r2, path.name);
    } else if (ep().live()) {
      ExpectHealthy(path.name);
      ASSERT_TRUE(publish(r1, wire::kData)) << path.name << ": the first stays publishable";
      EXPECT_EQ(peer().counter(wire::kOutputTail), 1);
    } else {
      ExpectPoisoned(0, wire::kOpOutputTryReserve, path.name);
      EXPECT_EQ(peer().counter(wire::kOutputTail), 0) << path.name;
    }
    record_observation(std::string("second_reserve.") + path.name,
                       got ? "handed back" : ep().live() ? "refused, live" : "poisoned");
  }
}

TEST_F(Ownership, FilledSpanArrivesAtL3) {
  SPSQ_CLAUSES("S4.L2OUT.2");
  Reservation r{};
  ASSERT_TRUE(try_reserve(100, r));
  ASSERT_EQ(Api::nbytes(r), 100u);
  const auto bytes = Bytes(100, 42);
  q().l2_store(Api::payload(r), bytes.data(), bytes.size());
  ASSERT_TRUE(publish(r, wire::kData));
  ScriptedL3::Message m;
  ASSERT_TRUE(peer().poll_output(&m));
  EXPECT_EQ(m.payload, bytes);
}

TEST_F(Ownership, PublishingAnUnknownReservationPoisons) {
  SPSQ_CLAUSES("AMB.KINDS/reservation");
  {
    SPSQ_JUDGING("S4.L2OUT.3/default-idle");
    Reservation never{};
    ExpectPublishPoisons(never, "default-constructed reservation, none active");
  }
  {
    SPSQ_JUDGING("S4.L2OUT.3/default-active");
    Rebuild(q().params());
    Reservation r{}, never{};
    ASSERT_TRUE(try_reserve(8, r));
    ExpectPublishPoisons(never, "default-constructed reservation while one is active");
  }
  // Forged: the active reservation with another size.
  const struct {
    const char* name;
    uint64_t real, forged;
    bool wrapped;  // outputs cycled first, so ring and arena have wrapped
  } forgeries[] = {
      {"forged bigger", 8, 16, false},
      {"forged smaller", 16, 8, false},
      {"zero-byte forged to 8 bytes", 0, 8, false},
      {"8 bytes forged to zero", 8, 0, false},
      {"forged after the ring and the arena wrapped", 64, 128, true},
  };
  for (const auto& f : forgeries) {
    SPSQ_JUDGING(nth_case(&f - forgeries,
                          {"S4.L2OUT.3/forged-bigger", "S4.L2OUT.3/forged-smaller",
                           "S4.L2OUT.3/forged-from-zero", "S4.L2OUT.3/forged-to-zero",
                           "S4.L2OUT.3/wrapped"}));
    Rebuild(q().params());
    if (f.wrapped) CycleOutputs(layout().depth + 1, 96);
    Reservation r{};
    ASSERT_TRUE(try_reserve(f.real, r)) << f.name;
    Reservation forged = r;
    Api::forge_nbytes(forged, f.forged);
    ExpectPublishPoisons(forged, f.name);
  }
}

TEST_F(Ownership, PublishingAStaleReservationPoisons) {
  SPSQ_CLAUSES("AMB.KINDS/reservation");
  {
    SPSQ_JUDGING("S4.L2OUT.4/sized");
    Reservation r1{}, r2{};
    ASSERT_TRUE(try_reserve(8, r1));
    ASSERT_TRUE(publish(r1, wire::kData));
    ASSERT_TRUE(try_reserve(8, r2));
    ExpectPublishPoisons(r1, "stale sized reservation while a newer one is active");
  }
  {
    // Zero-byte: the stale and the active one differ in their seq only.
    SPSQ_JUDGING("S4.L2OUT.4/zero-byte");
    Rebuild(q().params());
    Reservation r1{}, r2{};
    ASSERT_TRUE(try_reserve(0, r1));
    ASSERT_TRUE(publish(r1, wire::kData));
    ASSERT_TRUE(try_reserve(0, r2));
    ExpectPublishPoisons(r1, "stale zero-byte reservation while a newer one is active");
  }
  {
    // After the arena wrapped the active reservation reuses the stale one's
    // offset and size.
    SPSQ_JUDGING("S4.L2OUT.4/same-offset");
    Rebuild(q().params());
    const uint64_t half = layout().output_arena_bytes / 2;
    Reservation r1{}, r{};
    ASSERT_TRUE(try_reserve(half, r1));
    ASSERT_TRUE(publish(r1, wire::kData));
    peer().drain_outputs();
    ASSERT_TRUE(send(wire::kData, Bytes(half, 2)));
    peer().drain_outputs();
    ASSERT_TRUE(try_reserve(half, r));
    ASSERT_EQ(Api::payload(r), Api::payload(r1)) << "the arena rule puts it where r1 was";
    ExpectPublishPoisons(r1, "stale reservation whose offset and size the active one reuses");
  }
  {
    // After the ring wrapped the active zero-byte reservation takes the
    // stale one's slot: only the seq tells them apart.
    SPSQ_JUDGING("S4.L2OUT.4/ring-wrap");
    Rebuild(q().params());
    Reservation r1{}, r{};
    ASSERT_TRUE(try_reserve(0, r1));
    ASSERT_TRUE(publish(r1, wire::kData));
    peer().drain_outputs();
    CycleOutputs(layout().depth - 1, 0);
    ASSERT_TRUE(try_reserve(0, r));
    ExpectPublishPoisons(r1, "stale zero-byte reservation of the active one's slot");
  }
}

TEST_F(Ownership, PublishingTwicePoisons) {
  SPSQ_CLAUSES("AMB.KINDS/reservation");
  for (uint64_t n : {uint64_t{0}, uint64_t{24}}) {
    SPSQ_JUDGING(n == 0 ? "S4.L2OUT.5/zero-byte" : "S4.L2OUT.5/sized");
    Rebuild(q().params());
    Reservation r{};
    ASSERT_TRUE(try_reserve(n, r));
    ASSERT_TRUE(publish(r, wire::kData));
    ExpectPublishPoisons(r, n == 0 ? "zero-byte reservation published twice"
                                   : "sized reservation published twice");
    EXPECT_EQ(peer().counter(wire::kOutputTail), 1);
  }
  // Published again after L3 consumed it, once ring and arena wrapped.
  SPSQ_JUDGING("S4.L2OUT.5/wrapped");
  Rebuild(q().params());
  CycleOutputs(layout().depth + 1, 96);
  Reservation r{};
  ASSERT_TRUE(try_reserve(96, r));
  ASSERT_TRUE(publish(r, wire::kData));
  peer().drain_outputs();
  ExpectPublishPoisons(r, "reservation published again after a wrap, released by L3");
}

TEST_F(Ownership, PublishingAnotherQueuesReservationPoisons) {
  SPSQ_CLAUSES("AMB.KINDS/reservation");
  const struct {
    const char* name;
    uint64_t n;
    bool mine_active;
  } paths[] = {
      {"cross-queue reservation, own twin active", 8, true},
      {"cross-queue reservation, none active", 8, false},
      {"cross-queue zero-byte reservation, own twin active", 0, true},
  };
  for (const auto& path : paths) {
    SPSQ_JUDGING(nth_case(&path - paths, {"S4.L2OUT.6/active-twin", "S4.L2OUT.6/idle",
                                          "S4.L2OUT.6/zero-byte"}));
    Rebuild(q().params());
    Queue other(q().params());
    auto e2 = other.make_endpoint(kN);
    ASSERT_TRUE(e2->live());
    Reservation mine{}, theirs{};
    if (path.mine_active) {
      ASSERT_TRUE(try_reserve(path.n, mine));
    }
    ASSERT_TRUE(e2->output().try_reserve(path.n, theirs));  // same seq, offset and size
    ExpectPublishPoisons(theirs, path.name);
    EXPECT_TRUE(e2->live()) << path.name << ": the other queue is not affected";
    ASSERT_TRUE(e2->output().publish(theirs, wire::kData));
    e2.reset();
    other.check_invariants("other queue");
  }
}

TEST_F(Ownership, TheInputWindowDoesNotMultiplyReservations) {
  SPSQ_CLAUSES("S4.L2OUT.7");
  for (uint64_t i = 0; i < kN; ++i) ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), kOk);
  auto hs = Acquire(kN);
  Reservation r1{}, r2{};
  ASSERT_TRUE(try_reserve(4, r1));
  // Refused (AMB.RESERVE A, B), or the active reservation handed back (C).
  if (try_reserve(4, r2)) {
    ExpectTheActiveReservationAgain(r1, r2, "second reserve with the input window held");
  }
}

// ----------------------------------------------------------------- STOP

TEST_F(Ownership, StopWithPayloadPoisons) {
  SPSQ_CLAUSES("AMB.KINDS/stop-payload");
  const uint64_t a = layout().input_arena;
  const struct {
    const char* name;
    bool after_data;  // a 10-byte DATA consumed first
    uint64_t offset_from_arena;
    uint64_t nbytes;
    bool zero_offset;
  } cases[] = {
      {"STOP with 8 bytes at the rule's offset, first message", false, 0, 8, false},
      {"STOP with 64 bytes at the rule's offset, first message", false, 0, 64, false},
      {"STOP with 8 bytes at the rule's offset after a DATA", true, 10, 8, false},
      {"zero-byte STOP with payload_offset 64", false, 0, 0, true},
      {"zero-byte STOP at the input arena offset", false, 0, 0, false},
  };
  for (const auto& c : cases) {
    const size_t i = &c - cases;
    SPSQ_JUDGING(nth_case(i, {"S4.STOP.1/l2-sized", "S4.STOP.1/l2-sized",
                              "S4.STOP.1/l2-sized-later", "S4.STOP.1/l2-offset",
                              "S4.STOP.1/l2-offset"}),
                 nth_case(i, {"W.STOP.1/stop-sized", "W.STOP.1/stop-sized", "W.STOP.1/stop-sized",
                              "W.STOP.1/stop-offset", "W.STOP.1/stop-offset"}));
    Rebuild(q().params());
    if (c.after_data) {
      ASSERT_EQ(peer().enqueue_data(Bytes(10, 1)), kOk);
      Handle h{};
      ASSERT_TRUE(try_peek(h));
      ASSERT_TRUE(release(h));
    }
    const uint64_t offset = c.zero_offset ? 64 : a + c.offset_from_arena;
    peer().publish_raw(wire::Descriptor{c.after_data ? 2u : 1u, wire::kStop, offset, c.nbytes});
    ExpectTryPeekPoisons(0, c.name);
    EXPECT_FALSE(drained()) << c.name << ": a refused STOP drains nothing";
    NoteKind("stop-payload", {wire::kInvalidDescriptor});
  }
}

TEST_F(Ownership, ZeroByteDataWithAnOffsetPoisons) {
  SPSQ_CLAUSES("AMB.KINDS/zero-offset");
  const uint64_t a = layout().input_arena;
  // At the arena start, first message; then where the cursor stands after a
  // 10-byte message (the offset a sized message would take).
  for (bool after_data : {false, true}) {
    SPSQ_JUDGING(after_data ? "W.STOP.1/data-cursor" : "W.STOP.1/data-offset");
    Rebuild(q().params());
    if (after_data) {
      ASSERT_EQ(peer().enqueue_data(Bytes(10, 1)), kOk);
      Handle h{};
      ASSERT_TRUE(try_peek(h));
      ASSERT_TRUE(release(h));
    }
    peer().publish_raw(wire::Descriptor{after_data ? 2u : 1u, wire::kData,
                                        after_data ? a + 10 : a, 0});
    ExpectTryPeekPoisons(0, after_data ? "zero-byte DATA at the cursor's offset"
                                       : "zero-byte DATA at the arena start");
    NoteKind("zero-offset", {wire::kInvalidDescriptor});
  }
}

TEST_F(Ownership, OutputsMayFollowAnAcquiredStop) {
  SPSQ_CLAUSES("S4.STOP.3/l2-publishes", "S4.STOP.8");
  ASSERT_EQ(peer().enqueue_data(Bytes(8, 1)), kOk);
  ASSERT_EQ(peer().enqueue_stop(), kOk);
  auto hs = Acquire(2);
  EXPECT_EQ(Api::opcode(hs[1]), wire::kStop);
  ASSERT_TRUE(send(wire::kData, HandleBytes(hs[0]))) << "output for an input held during drain";
  ASSERT_TRUE(send(wire::kError, Bytes(3, 3)));
  ASSERT_TRUE(release(hs[0]));
  ASSERT_TRUE(release(hs[1]));
  EXPECT_TRUE(drained());
  const auto out = peer().drain_outputs();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].payload, Bytes(8, 1));
}

TEST_F(Ownership, StopMayBeAcquiredBehindActiveData) {
  SPSQ_CLAUSES("S4.STOP.6");
  if (kN < 2) GTEST_SKIP() << "not applicable: needs MaxInflight >= 2 (with 1, see S4.L2IN.3)";
  for (int i = 0; i < 2; ++i) ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), kOk);
  ASSERT_EQ(peer().enqueue_stop(), kOk);
  auto hs = Acquire(3);
  EXPECT_EQ(Api::opcode(hs[2]), wire::kStop);
  for (auto& h : hs) ASSERT_TRUE(release(h));
  EXPECT_TRUE(drained());
}

TEST_F(Ownership, DrainingModeAcquiresNoLaterData) {
  SPSQ_CLAUSES("S4.STOP.7/try-peek", "S4.STOP.7/peek");
  ASSERT_EQ(peer().enqueue_stop(), kOk);
  Handle stop{};
  ASSERT_TRUE(try_peek(stop));
  Handle h{};
  EXPECT_FALSE(try_peek(h));
  EXPECT_FALSE(peek(1000, h));
  ExpectHealthy("draining, nothing after STOP");
  ASSERT_TRUE(release(stop));
}

TEST_F(Ownership, DrainingBehindHeldDataAcquiresNothingMore) {
  SPSQ_CLAUSES("S4.STOP.7/held-data");
  if (kN < 2) GTEST_SKIP() << "not applicable: needs MaxInflight >= 2 to hold DATA and STOP "
                              "(with 1, STOP behind a held input is a MAY, S4.L2IN.3)";
  ASSERT_EQ(peer().enqueue_data(Bytes(8, 1)), kOk);
  ASSERT_EQ(peer().enqueue_stop(), kOk);
  auto hs = Acquire(2);
  ASSERT_EQ(Api::opcode(hs[1]), wire::kStop);
  Handle h{};
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(try_peek(h)) << "try_peek " << i + 1 << " in draining";
  EXPECT_FALSE(peek(1000, h));
  ExpectHealthy("draining with DATA held");
  ASSERT_TRUE(release(hs[0]));
  EXPECT_FALSE(try_peek(h));
  ASSERT_TRUE(release(hs[1]));
  EXPECT_TRUE(drained());
}

TEST_F(Ownership, StopIsPhysicallyReleasedLast) {
  SPSQ_CLAUSES("S4.STOP.9", "S4.STOP.10/before", "S4.STOP.10/acquired", "S4.STOP.10/logical",
               "S4.STOP.10/physical");
  const uint64_t m = kN;
  EXPECT_FALSE(drained()) << "before any STOP";
  for (uint64_t i = 0; i < m; ++i) ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), kOk);
  EXPECT_FALSE(drained()) << "before any STOP, DATA published";
  ASSERT_EQ(peer().enqueue_stop(), kOk);
  EXPECT_FALSE(drained()) << "STOP published, not acquired";
  auto hs = Acquire(m + 1);
  EXPECT_FALSE(drained()) << "STOP acquired, not released";
  ASSERT_TRUE(release(hs[m]));
  EXPECT_FALSE(drained()) << "STOP released logically ahead of DATA";
  EXPECT_EQ(peer().counter(wire::kInputHead), 0);
  for (uint64_t i = 0; i < m; ++i) {
    EXPECT_FALSE(drained());
    ASSERT_TRUE(release(hs[i]));
    EXPECT_EQ(peer().counter(wire::kInputHead), static_cast<int32_t>(i + 1 == m ? m + 1 : i + 1));
  }
  EXPECT_TRUE(drained()) << "STOP physically released";
}

TEST_F(Ownership, ADescriptorAfterStopPoisons) {
  SPSQ_CLAUSES("S4.STOP.11/before-acquire", "S4.STOP.11/after-acquire-data",
               "S4.STOP.11/after-acquire-stop", "S4.STOP.11/sized", "S4.STOP.11/peek");
  ASSERT_EQ(peer().enqueue_stop(), kOk);
  ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), kOk);
  Handle stop{}, h{};
  // The spec demands the poison, not when: an endpoint may hand out STOP and
  // poison on the next call, or poison as it acquires STOP and sees the DATA.
  if (try_peek(stop)) {
    EXPECT_EQ(Api::opcode(stop), wire::kStop);
    EXPECT_FALSE(try_peek(h));
    record_observation("stop_then_data", "STOP handed out, poison on the next call");
  } else {
    record_observation("stop_then_data", "poison when STOP was acquired");
  }
  ExpectPoisoned(wire::kInvalidDescriptor, wire::kOpInputTryPeek, "DATA published after STOP");
  // Published after STOP was acquired: zero-byte DATA, a second STOP, a
  // sized DATA; then seen by a blocking peek.
  const struct {
    const char* name;
    uint64_t opcode, nbytes;
    bool blocking;
  } later[] = {
      {"zero-byte DATA after an acquired STOP", wire::kData, 0, false},
      {"STOP after an acquired STOP", wire::kStop, 0, false},
      {"sized DATA after an acquired STOP", wire::kData, 16, false},
      {"DATA after an acquired STOP, seen by peek", wire::kData, 8, true},
  };
  for (const auto& c : later) {
    Rebuild(q().params());
    ASSERT_EQ(peer().enqueue_stop(), kOk);
    ASSERT_TRUE(try_peek(stop));
    const auto bytes = Bytes(c.nbytes, 5);
    ASSERT_EQ(peer().enqueue(c.opcode, bytes.data(), bytes.size()), kOk);
    if (c.blocking) {
      EXPECT_FALSE(peek(1000, h)) << c.name;
      ExpectPoisoned(wire::kInvalidDescriptor, wire::kOpInputTryPeek, c.name);
    } else {
      ExpectTryPeekPoisons(wire::kInvalidDescriptor, c.name);
    }
    EXPECT_FALSE(drained()) << c.name;
  }
}

// ---------------------------------------------------------- no-progress

TEST_F(Ownership, FullRingAndFullArenaAreNoProgress) {
  SPSQ_CLAUSES("S4.NOPROG.1/l2-try", "S4.NOPROG.2/l2-try");
  for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_TRUE(send(wire::kData, {}));
  Reservation r{};
  EXPECT_FALSE(try_reserve(0, r));
  EXPECT_FALSE(try_reserve(8, r));
  ExpectHealthy("ring full");
  peer().drain_outputs();
  EXPECT_TRUE(try_reserve(0, r)) << "room again once L3 released";
  ASSERT_TRUE(publish(r, wire::kData));
  peer().drain_outputs();
  // Arena 256: 200 bytes unreleased leave no room for 100 more.
  ASSERT_TRUE(send(wire::kData, Bytes(200, 1)));
  EXPECT_FALSE(try_reserve(100, r)) << "100 bytes would overlap unreleased payload";
  ExpectHealthy("arena full");
  EXPECT_TRUE(try_reserve(56, r)) << "56 bytes still fit before the arena end";
  ASSERT_TRUE(publish(r, wire::kData));
  peer().drain_outputs();
  EXPECT_TRUE(send(wire::kData, Bytes(100, 2))) << "room again once L3 released";
}

TEST_F(Ownership, BlockingReserveOnAFullRingOrArenaTimesOutLive) {
  SPSQ_CLAUSES("S4.NOPROG.1/l2-blocking", "S4.NOPROG.2/l2-blocking",
               "S4.NOPROG.4/l2-reserve-ring", "S4.NOPROG.4/l2-reserve-arena");
  ASSERT_EQ(peer().initiator_flag(), 0);
  for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_TRUE(send(wire::kData, Bytes(8, 1)));
  Reservation r{};
  EXPECT_FALSE(reserve(0, 5000, r)) << "zero-byte reserve on a full ring";
  EXPECT_FALSE(reserve(8, 5000, r)) << "sized reserve on a full ring";
  ExpectHealthy("blocking reserve timed out on a full ring");
  peer().drain_outputs();
  EXPECT_TRUE(reserve(8, 5000, r)) << "room again once L3 released";
  ASSERT_TRUE(publish(r, wire::kData));
  peer().drain_outputs();
  Rebuild(q().params());
  ASSERT_TRUE(send(wire::kData, Bytes(200, 1)));
  EXPECT_FALSE(reserve(100, 5000, r)) << "100 bytes would overlap unreleased payload";
  ExpectHealthy("blocking reserve timed out on a full arena");
  peer().drain_outputs();
  EXPECT_TRUE(reserve(100, 5000, r)) << "room again once L3 released";
}

TEST_F(Ownership, ARingFullAgainAfterAWrapIsNoProgress) {
  SPSQ_CLAUSES("S4.NOPROG.1/l2-wrapped");
  CycleOutputs(layout().depth + 3, 0);
  for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_TRUE(send(wire::kData, {})) << i;
  Reservation r{};
  EXPECT_FALSE(try_reserve(0, r));
  ExpectHealthy("ring full after a wrap");
  ScriptedL3::Message m;
  ASSERT_TRUE(peer().poll_output(&m));
  peer().release_outputs(1);
  EXPECT_TRUE(try_reserve(0, r)) << "one slot released, one reservation";
}

// An arena full because the message would have to skip the tail: the skipped
// tail plus the unreleased payload leave no room; no poison, and the same
// size fits once L3 released.
TEST_F(Ownership, AnArenaFullForASkipIsNoProgress) {
  SPSQ_CLAUSES("S4.NOPROG.2/l2-skip");
  ASSERT_TRUE(send(wire::kData, Bytes(200, 1)));
  Reservation r{};
  EXPECT_FALSE(try_reserve(100, r)) << "placed at the start over unreleased payload";
  ExpectHealthy("arena full for a skip");
  peer().drain_outputs();
  ASSERT_TRUE(try_reserve(100, r)) << "the same size fits once L3 released";
  ASSERT_TRUE(publish(r, wire::kData));
}

TEST_F(Ownership, BlockingPeekOnAnEmptyInputTimesOutLive) {
  SPSQ_CLAUSES("S4.NOPROG.4/l2-peek");
  ASSERT_EQ(peer().initiator_flag(), 0);
  Handle h{};
  EXPECT_FALSE(peek(5000, h));
  ExpectHealthy("peek timed out, input empty");
  ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), kOk);
  EXPECT_TRUE(peek(5000, h)) << "still live: the next input is acquired";
}

TEST_F(Ownership, ErrorSetsNoAbortFlag) {
  SPSQ_CLAUSES("S4.NOPROG.5/l2-publish", "S4.NOPROG.5/l2-zero-byte");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(send(wire::kError, Bytes(8, 1)));
  ASSERT_TRUE(send(wire::kError, {}));
  EXPECT_EQ(peer().l2_flag(), 0);
  ExpectHealthy("four ERROR outputs");
  const auto out = peer().drain_outputs();
  ASSERT_EQ(out.size(), 4u);
  for (const auto& m : out) EXPECT_EQ(m.opcode, wire::kError);
}

// ------------------------------------------------------- poison causes

TEST_F(Ownership, SeqMismatchPoisons) {
  // Every case judges the seq rule too.
  size_t pass = 0;
  for (uint64_t seq : {uint64_t{0}, uint64_t{2}, kMax64, uint64_t{1} << 32 | 1}) {
    SPSQ_JUDGING(nth_case(pass++, {"S4.POISON.1/seq0", "S4.POISON.1/ahead", "S4.POISON.1/max",
                                   "S4.POISON.1/alias"}),
                 "W.SEQ.1");
    Rebuild(q().params());
    peer().publish_raw(wire::Descriptor{seq, wire::kData, 0, 0});
    const std::string what = "seq " + std::to_string(seq) + " at index 0";
    ExpectTryPeekPoisons(wire::kInvalidDescriptor, what.c_str());
  }
  // At index 1: a replayed seq 1 and a skipped seq 3.
  for (uint64_t seq : {uint64_t{1}, uint64_t{3}}) {
    SPSQ_JUDGING(seq == 1 ? "S4.POISON.1/replayed" : "S4.POISON.1/skipped", "W.SEQ.1");
    Rebuild(q().params());
    CycleZeroByteInputs(1);
    peer().publish_raw(wire::Descriptor{seq, wire::kData, 0, 0});
    const std::string what = "seq " + std::to_string(seq) + " at index 1";
    ExpectTryPeekPoisons(wire::kInvalidDescriptor, what.c_str());
  }
  // After the ring wrapped: the tail moves over a slot L3 never rewrote, which
  // still holds the seq of one lap before.
  SPSQ_JUDGING("S4.POISON.1/stale-slot", "W.SEQ.1");
  Rebuild(q().params());
  const uint64_t depth = layout().depth;
  CycleZeroByteInputs(depth);
  peer().set_input_tail(wire::low32(depth + 1));
  ExpectTryPeekPoisons(wire::kInvalidDescriptor, "slot left from one lap before");
}

TEST_F(Ownership, InvalidInputOpcodePoisons) {
  // Every case judges the opcodes the input direction carries too.
  SPSQ_CLAUSES("AMB.KINDS/opcode");
  size_t pass = 0;
  for (uint64_t opcode : {uint64_t{0}, uint64_t{4}, uint64_t{1} << 63, (uint64_t{1} << 32) | 1}) {
    SPSQ_JUDGING(nth_case(pass++, {"S4.POISON.2/zero", "S4.POISON.2/four", "S4.POISON.2/high",
                                   "S4.POISON.2/alias"}),
                 "W.DIR.1");
    Rebuild(q().params());
    peer().publish_raw(wire::Descriptor{1, opcode, 0, 0});
    const std::string what = "opcode " + std::to_string(opcode);
    ExpectTryPeekPoisons(0, what.c_str());
    NoteKind("opcode", {wire::kInvalidDescriptor});
  }
  {
    // With a payload where the arena rule puts it.
    SPSQ_JUDGING("S4.POISON.2/sized", "W.DIR.1");
    Rebuild(q().params());
    peer().publish_raw(wire::Descriptor{1, 9, layout().input_arena, 16});
    ExpectTryPeekPoisons(0, "opcode 9 with 16 bytes at the rule's offset");
    NoteKind("opcode", {wire::kInvalidDescriptor});
  }
  // After the ring wrapped.
  SPSQ_JUDGING("S4.POISON.2/later", "W.DIR.1");
  Rebuild(q().params());
  CycleZeroByteInputs(layout().depth + 1);
  peer().publish_raw(wire::Descriptor{layout().depth + 2, 0, 0, 0});
  ExpectTryPeekPoisons(0, "opcode 0 after a ring wrap");
  NoteKind("opcode", {wire::kInvalidDescriptor});
}

// STOP is valid only on the input queue: publishing it poisons, zero-byte or
// sized, as the first output or after the output ring wrapped; nothing is
// published.
TEST_F(Ownership, PublishingStopOnTheOutputPoisons) {
  SPSQ_CLAUSES("AMB.KINDS/output-stop");
  const struct {
    const char* name;
    uint64_t n;
    bool later;
  } cases[] = {
      {"zero-byte STOP as the first output", 0, false},
      {"16-byte STOP as the first output", 16, false},
      {"zero-byte STOP after the ring wrapped", 0, true},
  };
  for (const auto& c : cases) {
    SPSQ_JUDGING(nth_case(&c - cases, {"S4.POISON.3/zero-byte", "S4.POISON.3/sized",
                                       "S4.POISON.3/later"}));
    Rebuild(q().params());
    if (c.later) CycleOutputs(layout().depth + 1, 8);
    const int32_t tail = peer().counter(wire::kOutputTail);
    Reservation r{};
    ASSERT_TRUE(try_reserve(c.n, r)) << c.name;
    EXPECT_FALSE(publish(r, wire::kStop)) << c.name;
    ExpectPoisoned(0, wire::kOpOutputPublish, c.name);
    EXPECT_EQ(peer().counter(wire::kOutputTail), tail) << c.name << ": STOP was published";
    NoteKind("output-stop", {wire::kBadArgument, wire::kOwnership, wire::kInvalidDescriptor});
  }
}

TEST_F(Ownership, PayloadOutsideTheInputArenaPoisons) {
  // Every case judges the arena rule's bounds too.
  SPSQ_CLAUSES("AMB.KINDS/oversize");
  const wire::Layout l = layout();  // a copy: Rebuild() replaces the region
  // `fixed`: the offset is not the arena rule's, so the contract fixes
  // INVALID_DESCRIPTOR (payload replay); otherwise the kind is AMB.KINDS's.
  struct Bad {
    const char* name;
    uint64_t offset, nbytes;
    bool fixed;
  } cases[] = {
      {"in the input ring", 0, 8, true},
      {"in the output arena", l.output_arena, 8, true},
      {"past the input arena end", l.input_arena + l.input_arena_bytes - 4, 8, true},
      {"past the payload part", l.payload_bytes, 8, true},
      {"offset + nbytes overflows", kMax64 - 3, 8, true},
      {"larger than the arena", l.input_arena, l.input_arena_bytes + 64, false},
      {"nbytes 2^64 - 1", l.input_arena, kMax64, false},
  };
  for (const Bad& c : cases) {
    SPSQ_JUDGING(nth_case(&c - cases, {"S4.POISON.4/ring", "S4.POISON.4/output-arena",
                                       "S4.POISON.4/past-end", "S4.POISON.4/past-payload",
                                       "S4.POISON.4/overflow", "S4.POISON.4/too-large",
                                       "S4.POISON.4/max-nbytes"}),
                 "W.ARENA.3/outside", "S2.FIT.1");
    Rebuild(q().params());
    peer().publish_raw(wire::Descriptor{1, wire::kData, c.offset, c.nbytes});
    ExpectTryPeekPoisons(c.fixed ? wire::kInvalidDescriptor : 0, c.name);
    if (!c.fixed) NoteKind("oversize", {wire::kInvalidDescriptor});
  }
}

TEST_F(Ownership, PayloadReplayMismatchPoisons) {
  SPSQ_CLAUSES("S4.POISON.6/after", "S4.POISON.6/stale", "W.ARENA.3/after",
               "W.ARENA.3/stale", "W.ARENA.4");
  const uint64_t a = layout().input_arena;
  // After a valid 10-byte message the next must sit at a + 10.
  for (uint64_t off : {a + 9, a + 11, a + 64, a, a + 200}) {
    Rebuild(q().params());
    ASSERT_EQ(peer().enqueue_data(Bytes(10, 1)), kOk);
    Handle h{};
    ASSERT_TRUE(try_peek(h));
    ASSERT_TRUE(release(h));
    peer().publish_raw(wire::Descriptor{2, wire::kData, off, 8});
    const std::string what = "offset arena + " + std::to_string(off - a) + ", want + 10";
    ExpectTryPeekPoisons(wire::kInvalidDescriptor, what.c_str());
  }
}

TEST_F(Ownership, FirstPayloadReplayMismatchPoisons) {
  SPSQ_CLAUSES("S4.POISON.6/first", "W.ARENA.3/first");
  const uint64_t a = layout().input_arena;
  for (uint64_t off : {a + 1, a + 8, a + 64}) {
    Rebuild(q().params());
    peer().publish_raw(wire::Descriptor{1, wire::kData, off, 8});
    const std::string what = "first message at arena + " + std::to_string(off - a);
    ExpectTryPeekPoisons(wire::kInvalidDescriptor, what.c_str());
  }
}

TEST_F(Ownership, PayloadReplayMismatchAfterASkipPoisons) {
  SPSQ_CLAUSES("S4.POISON.6/after-skip", "W.ARENA.3/after-skip");
  const uint64_t a = layout().input_arena;
  const uint64_t bytes = layout().input_arena_bytes;
  // The second message does not fit the arena tail: the rule places it at a;
  // at the tail position (no skip) or past a it poisons.
  for (uint64_t off : {a + 16, a + 32, a + bytes - 8}) {
    Rebuild(q().params());
    ASSERT_EQ(peer().enqueue_data(Bytes(bytes - 8, 1)), kOk);
    Handle h{};
    ASSERT_TRUE(try_peek(h));
    ASSERT_TRUE(release(h));
    peer().publish_raw(wire::Descriptor{2, wire::kData, off, 16});
    const std::string what = "skipped message at arena + " + std::to_string(off - a);
    ExpectTryPeekPoisons(wire::kInvalidDescriptor, what.c_str());
  }
}

// A message that ends exactly at the arena end is not skipped: the rule
// places it at the tail; published at the arena start it poisons.
TEST_F(Ownership, PayloadReplayMismatchAtAnExactFitPoisons) {
  SPSQ_CLAUSES("S4.POISON.6/exact-fit", "W.ARENA.3/exact-fit");
  SPSQ_EXERCISES("W.ARENA.1");
  const uint64_t a = layout().input_arena;
  const uint64_t half = layout().input_arena_bytes / 2;
  ASSERT_EQ(peer().enqueue_data(Bytes(half, 1)), kOk);
  Handle h{};
  ASSERT_TRUE(try_peek(h));
  ASSERT_TRUE(release(h));
  peer().publish_raw(wire::Descriptor{2, wire::kData, a, half});
  ExpectTryPeekPoisons(wire::kInvalidDescriptor, "exact fit at the arena end published at a");
}

// After the arena wrapped, an offset a message of the previous lap used.
TEST_F(Ownership, PayloadReplayOfAnEarlierLapPoisons) {
  SPSQ_CLAUSES("S4.POISON.6/wrap-reuse", "W.ARENA.3/wrap-reuse");
  const uint64_t a = layout().input_arena;
  // 96-byte messages at a, a + 96, then a (the tail skipped), then a + 96:
  // the fourth is published at a, the offset of the third.
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(peer().enqueue_data(Bytes(96, static_cast<uint8_t>(i))), kOk);
    Handle h{};
    ASSERT_TRUE(try_peek(h));
    ASSERT_TRUE(release(h));
  }
  peer().publish_raw(wire::Descriptor{4, wire::kData, a, 96});
  ExpectTryPeekPoisons(wire::kInvalidDescriptor, "offset of the message before, want a + 96");
}

// --------------------------------------------------------- view failures

TEST_F(Ownership, PayloadWriteFailureAfterMutationPoisons) {
  SPSQ_CLAUSES("S4.POISON.7/first-write", "S4.POISON.7/later-write", "W.VIEW.2/publish-write");
  q().view_state().sticky_faults = false;  // so the endpoint can still raise its flag
  Reservation r{};
  ASSERT_TRUE(try_reserve(16, r));
  const auto bytes = Bytes(16, 1);
  q().l2_store(Api::payload(r), bytes.data(), bytes.size());
  faults().arm(ViewCall::kWrite, 1);
  EXPECT_FALSE(publish(r, wire::kData));
  ASSERT_TRUE(faults().fired()) << "publish made no payload write to fail";
  ExpectPoisoned(wire::kEndpointError, wire::kOpOutputPublish, "first write of publish failed");
  EXPECT_EQ(peer().counter(wire::kOutputTail), 0);
  // Each later write of publish, failing, poisons the same way.
  for (uint64_t k = 2; k <= 4; ++k) {
    Rebuild(q().params());
    q().view_state().sticky_faults = false;
    ASSERT_TRUE(try_reserve(16, r));
    q().l2_store(Api::payload(r), bytes.data(), bytes.size());
    faults().arm(ViewCall::kWrite, k);
    const bool published = publish(r, wire::kData);
    // Publish may make fewer writes (the flush open point lets it leave the
    // payload to L2 code): only a fault that fired is judged.
    if (!faults().fired()) continue;
    EXPECT_FALSE(published) << "publish succeeded although write " << k << " failed";
    ExpectPoisoned(wire::kEndpointError, wire::kOpOutputPublish, "later write of publish failed");
    EXPECT_EQ(peer().counter(wire::kOutputTail), 0) << "tail published after a failed write";
  }
}

TEST_F(Ownership, StickyViewFailureLeavesTheEndpointDeadAndQuiet) {
  SPSQ_CLAUSES("W.VIEW.2/sticky", "S4.POISON.10/view");
  Reservation r{};
  ASSERT_TRUE(try_reserve(16, r));
  faults().arm(ViewCall::kWrite, 1);  // sticky: the view stays failed
  EXPECT_FALSE(publish(r, wire::kData));
  EXPECT_FALSE(ep().live());
  EXPECT_EQ(kind(), wire::kEndpointError) << Api::message(ep());
  EXPECT_EQ(op(), wire::kOpOutputPublish);
  EXPECT_EQ(peer().counter(wire::kOutputTail), 0);
  const size_t mark = log().mark();
  Handle h{};
  EXPECT_FALSE(try_peek(h));
  EXPECT_FALSE(try_reserve(8, r));
  EXPECT_EQ(kind(), wire::kEndpointError) << "the first error stays recorded";
  EXPECT_EQ(log().shared_accesses_since(mark), 0u) << log().dump(mark);
}

TEST_F(Ownership, CounterNotifyFailurePoisons) {
  SPSQ_CLAUSES("S4.POISON.8/tail", "S4.POISON.8/head", "S4.POISON.8/head-prefix",
               "W.VIEW.2/publish-notify", "W.VIEW.2/release-notify");
  q().view_state().sticky_faults = false;
  faults().arm(ViewCall::kNotify, 1);  // the output tail Set
  EXPECT_FALSE(send(wire::kData, Bytes(4, 1)));
  ASSERT_TRUE(faults().fired());
  ExpectPoisoned(wire::kEndpointError, wire::kOpOutputPublish, "tail notify failed");
  // The input head Set of a release, for a zero-byte and a sized input.
  for (uint64_t n : {uint64_t{0}, uint64_t{4}}) {
    Rebuild(q().params());
    q().view_state().sticky_faults = false;
    ASSERT_EQ(peer().enqueue_data(Bytes(n, 1)), kOk);
    Handle h{};
    ASSERT_TRUE(try_peek(h));
    faults().arm(ViewCall::kNotify, 1);
    EXPECT_FALSE(release(h));
    ASSERT_TRUE(faults().fired());
    ExpectPoisoned(wire::kEndpointError, wire::kOpInputRelease, "head notify failed");
  }
  // The release that completes a FIFO prefix of two: its first head Set and,
  // if it makes one, its second.
  if (kN < 2) return;
  for (uint64_t k = 1; k <= 2; ++k) {
    Rebuild(q().params());
    q().view_state().sticky_faults = false;
    for (int i = 0; i < 2; ++i) ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), kOk);
    auto hs = Acquire(2);
    ASSERT_TRUE(release(hs[1]));
    faults().arm(ViewCall::kNotify, k);
    const bool released = release(hs[0]);
    if (!faults().fired()) continue;  // one Set for the whole prefix
    EXPECT_FALSE(released) << "release succeeded although head Set " << k << " failed";
    ExpectPoisoned(wire::kEndpointError, wire::kOpInputRelease, "prefix head notify failed");
  }
}

// ------------------------------------------------------ stale handles

TEST_F(Ownership, StaleHandleOwnershipPoisons) {
  SPSQ_CLAUSES("AMB.KINDS/handle");
  {
    SPSQ_JUDGING("S4.POISON.9/never");
    Handle never{};
    ExpectReleasePoisons(never, "release of a handle never acquired");
  }
  {
    SPSQ_JUDGING("S4.POISON.9/never-held");
    Rebuild(q().params());
    ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), kOk);
    Handle h{}, never{};
    ASSERT_TRUE(try_peek(h));
    ExpectReleasePoisons(never, "default handle released while one is held");
  }
  for (uint64_t n : {uint64_t{4}, uint64_t{0}}) {
    SPSQ_JUDGING(n ? "S4.POISON.9/twice" : "S4.POISON.9/twice-zero");
    Rebuild(q().params());
    ASSERT_EQ(peer().enqueue_data(Bytes(n, 1)), kOk);
    Handle h{};
    ASSERT_TRUE(try_peek(h));
    ASSERT_TRUE(release(h));
    ExpectReleasePoisons(h, n ? "sized handle released twice" : "zero-byte handle released twice");
  }
  // Forged: the held handle (seq 1) renamed to the next seq, to one 2^32
  // away (the same low 32 bits), to 2^64 - 1 and to 0.
  size_t pass = 0;
  for (uint64_t seq : {uint64_t{2}, (uint64_t{1} << 32) + 1, kMax64, uint64_t{0}}) {
    SPSQ_JUDGING(nth_case(pass++, {"S4.POISON.9/forged-seq", "S4.POISON.9/forged-alias",
                                   "S4.POISON.9/forged-max", "S4.POISON.9/forged-seq0"}));
    Rebuild(q().params());
    ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), kOk);
    Handle h{};
    ASSERT_TRUE(try_peek(h));
    ASSERT_EQ(Api::seq(h), 1u);
    Handle forged = h;
    Api::forge_seq(forged, seq);
    const std::string what = "held handle forged to seq " + std::to_string(seq);
    ExpectReleasePoisons(forged, what.c_str());
  }
  // Another queue's handle, with the same seq, offset and size.
  {
    SPSQ_JUDGING("S4.POISON.9/foreign");
    Rebuild(q().params());
    Queue other(q().params());
    auto e2 = other.make_endpoint(kN);
    ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), kOk);
    ASSERT_EQ(other.peer().enqueue_data(Bytes(4, 1)), kOk);
    Handle h{}, theirs{};
    ASSERT_TRUE(try_peek(h));
    ASSERT_TRUE(e2->input().try_peek(theirs));
    ExpectReleasePoisons(theirs, "another queue's handle");
    EXPECT_TRUE(e2->live()) << "the other queue is not affected";
    e2.reset();
    other.check_invariants("other queue");
  }
}

TEST_F(Ownership, ReleasingAnOutOfOrderReleasedInputAgainPoisons) {
  SPSQ_CLAUSES("S4.POISON.9/twice-owned", "S4.L2IN.6", "AMB.KINDS/handle");
  if (kN < 2) GTEST_SKIP() << "not applicable: needs MaxInflight >= 2 to hold two inputs";
  for (uint64_t n : {uint64_t{8}, uint64_t{0}}) {
    Rebuild(q().params());
    for (int i = 0; i < 2; ++i) ASSERT_EQ(peer().enqueue_data(Bytes(n, 1)), kOk);
    auto hs = Acquire(2);
    ASSERT_TRUE(release(hs[1]));  // released, still physically owned behind input 1
    ExpectReleasePoisons(hs[1], "input 2 released twice while input 1 is held");
    EXPECT_EQ(peer().counter(wire::kInputHead), 0);
  }
}

TEST_F(Ownership, AStaleHandleWhoseSlotRepeatsAfterAWrapPoisons) {
  SPSQ_CLAUSES("S4.POISON.9/wrap", "AMB.KINDS/handle");
  // Zero-byte messages all carry offset 0 and size 0: once the ring (or an
  // endpoint's own table) reuses the stale handle's slot, it looks like the
  // held message but for its seq. Several hold points cover any table size.
  for (uint64_t extra = 1; extra <= 8; ++extra) {
    Rebuild(q().params());
    const uint64_t n = layout().depth + extra;
    Handle first{}, h{};
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(peer().enqueue(wire::kData, nullptr, 0), kOk);
      ASSERT_TRUE(try_peek(h)) << "input " << i + 1;
      if (i == 0) first = h;
      if (i + 1 < n) {
        ASSERT_TRUE(release(h));  // the last one stays held
      }
    }
    ExpectReleasePoisons(first, "seq 1 released again with a later one held after a ring wrap");
  }
}

// A stale sized handle whose payload_offset and size match a held one: the
// arena wrapped, so the same offset is in use again.
TEST_F(Ownership, AStaleHandleWhoseOffsetIsLiveAgainPoisons) {
  SPSQ_CLAUSES("S4.POISON.9/same-offset", "AMB.KINDS/handle");
  const uint64_t half = layout().input_arena_bytes / 2;
  // Messages of half the arena alternate between two offsets; the last one
  // (odd count) sits where the first did. Several counts cover any table.
  for (uint64_t n = 3; n <= layout().depth + 9; n += 2) {
    Rebuild(q().params());
    Handle first{}, h{};
    for (uint64_t i = 0; i < n; ++i) {
      ASSERT_EQ(peer().enqueue_data(Bytes(half, static_cast<uint8_t>(i))),
                kOk);
      ASSERT_TRUE(try_peek(h)) << "input " << i + 1;
      if (i == 0) first = h;
      if (i + 1 < n) {
        ASSERT_TRUE(release(h));
      }
    }
    ASSERT_EQ(Api::payload(h), Api::payload(first)) << "the arena rule reuses the offset";
    ExpectReleasePoisons(first, "stale handle whose offset a held input uses again");
  }
}

TEST_F(Ownership, AForgedZeroByteHandlePoisons) {
  SPSQ_CLAUSES("S4.POISON.9/forged-zero", "AMB.KINDS/handle");
  if (kN < 2) GTEST_SKIP() << "not applicable: needs MaxInflight >= 2 to hold two inputs";
  ASSERT_EQ(peer().enqueue(wire::kData, nullptr, 0), kOk);
  ASSERT_EQ(peer().enqueue_data(Bytes(8, 2)), kOk);
  auto hs = Acquire(2);
  Handle forged = hs[0];  // zero-byte, renamed to the 8-byte message
  Api::forge_seq(forged, Api::seq(hs[1]));
  ExpectReleasePoisons(forged, "a zero-byte handle forged to seq 2");
  EXPECT_EQ(peer().counter(wire::kInputHead), 0);
}

// ---------------------------------------------- poison is terminal

TEST_F(Ownership, PoisonIsTerminalAndCleanupStaysValid) {
  SPSQ_CLAUSES("S4.POISON.10/descriptor");
  ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), kOk);
  Handle held{};
  ASSERT_TRUE(try_peek(held));
  Reservation active{};
  ASSERT_TRUE(try_reserve(8, active));
  peer().publish_raw(wire::Descriptor{7, wire::kData, 0, 0});
  Handle h{};
  if (kN >= 2) {
    EXPECT_FALSE(try_peek(h));
  } else {
    ASSERT_TRUE(release(held));
    EXPECT_FALSE(try_peek(h));
  }
  ExpectPoisoned(wire::kInvalidDescriptor, wire::kOpInputTryPeek, "bad seq");
  {
    // One walk checks every operation and that the first error stays.
    SPSQ_JUDGING("S4.POISON.14/try-peek", "S4.POISON.14/peek", "S4.POISON.14/try-reserve",
                 "S4.POISON.14/reserve", "S4.POISON.10/descriptor");
    ExpectRejectsEverything("after poison");
  }
  size_t mark = log().mark();
  {
    SPSQ_JUDGING("S4.POISON.15/queries");
    EXPECT_FALSE(drained());  // cleanup queries still answer
    EXPECT_FALSE(ep().live());
    EXPECT_EQ(kind(), wire::kInvalidDescriptor);
    EXPECT_NE(Api::message(ep())[0], '\0');
    EXPECT_EQ(log().shared_accesses_since(mark), 0u)
        << "queries after poison touched shared memory:\n" << log().dump(mark);
  }
  {
    SPSQ_JUDGING("S4.POISON.15/destroy-held");
    mark = log().mark();
    endpoint_.reset();  // destruction after poison, a handle and a reservation out
    EXPECT_EQ(log().shared_accesses_since(mark), 0u)
        << "cleanup after poison touched shared memory:\n" << log().dump(mark);
  }
  SPSQ_JUDGING("S4.POISON.11/l2-first");
  EXPECT_EQ(peer().l2_flag(), 1) << "the flag stays raised after destruction";
}

// A misuse poison, then more misuse of other kinds: the first error (kind,
// op and message) stays, and nothing else reaches shared memory.
TEST_F(Ownership, TheFirstErrorStaysAfterMoreMisuse) {
  // The flag Set once in all is judged by ExpectPoisoned (S4.POISON.11/l2-repeat).
  for (bool handle_first : {true, false}) {
    SPSQ_JUDGING(handle_first ? "S4.POISON.10/ownership" : "S4.POISON.10/reservation");
    Rebuild(q().params());
    Handle never{};
    Reservation none{};
    if (handle_first) {
      EXPECT_FALSE(release(never));
      ExpectPoisoned(0, wire::kOpInputRelease, "release of a handle never acquired");
    } else {
      EXPECT_FALSE(publish(none, wire::kData));
      ExpectPoisoned(0, wire::kOpOutputPublish, "publish of a reservation never made");
    }
    const uint32_t first_kind = kind(), first_op = op();
    const std::string first_message = Api::message(ep());
    const size_t mark = log().mark();
    EXPECT_FALSE(publish(none, wire::kStop));
    EXPECT_FALSE(release(never));
    peer().publish_raw(wire::Descriptor{9, 0, 1, 1});
    Handle h{};
    EXPECT_FALSE(try_peek(h));
    EXPECT_EQ(kind(), first_kind) << "a later misuse replaced the first error's kind";
    EXPECT_EQ(op(), first_op) << "a later misuse replaced the first error's op";
    EXPECT_EQ(std::string(Api::message(ep())), first_message);
    EXPECT_EQ(log().shared_accesses_since(mark), 0u) << log().dump(mark);
    // Still one flag Set in all, and the first misuse's op.
    ExpectPoisoned(0, handle_first ? wire::kOpInputRelease : wire::kOpOutputPublish,
                   "after more misuse");
  }
}

TEST_F(Ownership, LocalPoisonSetsTheFlagOnce) {
  SPSQ_CLAUSES("S4.POISON.11/l2-first", "S4.POISON.11/l2-repeat", "W.FLAG.1/l2");
  Handle never{};
  EXPECT_FALSE(release(never));
  EXPECT_EQ(peer().l2_flag(), 1) << "raised by the first poison";
  Reservation r{};
  EXPECT_FALSE(publish(r, wire::kData));
  EXPECT_FALSE(release(never));
  ExpectPoisoned(0, wire::kOpInputRelease, "three misuses");
  EXPECT_EQ(log().count([](const spsq_conf::Access& a) {
              return a.kind == AccessKind::kNotify && a.offset == wire::kPeerFlag && a.value == 1 &&
                     a.op == 0;
            }), 1u) << "notify(320, 1, Set)";
  EXPECT_EQ(log().count([](const spsq_conf::Access& a) {
              return a.kind == AccessKind::kNotify && a.offset == wire::kInitiatorFlag;
            }), 0u) << "a side never writes the other side's flag";
}

TEST_F(Ownership, RemoteAbortIsReportedWithoutRaisingTheLocalFlag) {
  SPSQ_CLAUSES("S4.POISON.12/l2-peek", "S4.POISON.13/l2", "S4.POISON.14/after-remote",
               "S4.POISON.10/remote");
  peer().set_initiator_flag(1);
  Handle h{};
  EXPECT_FALSE(peek(2000, h));
  EXPECT_EQ(kind(), wire::kRemoteAborted);
  EXPECT_FALSE(ep().live());
  EXPECT_EQ(peer().l2_flag(), 0);
  ExpectRejectsEverything("after remote abort");
  EXPECT_EQ(peer().l2_flag(), 0);
  EXPECT_EQ(log().count([](const spsq_conf::Access& a) {
              return a.kind == AccessKind::kNotify && a.offset == wire::kPeerFlag;
            }), 0u) << "observing the peer flag raised the local one";
}

TEST_F(Ownership, RemoteAbortIsReportedByABlockingReserve) {
  SPSQ_CLAUSES("S4.POISON.12/l2-reserve", "S4.POISON.13/l2");
  for (uint64_t i = 0; i < layout().depth; ++i) ASSERT_TRUE(send(wire::kData, {}));
  peer().set_initiator_flag(1);
  Reservation r{};
  EXPECT_FALSE(reserve(8, 2000, r)) << "ring full, the peer flag raised";
  EXPECT_EQ(kind(), wire::kRemoteAborted) << Api::message(ep());
  EXPECT_FALSE(ep().live());
  EXPECT_EQ(peer().l2_flag(), 0);
}

TEST_F(Ownership, PublishAfterPoisonPublishesNothing) {
  SPSQ_CLAUSES("S4.POISON.14/publish-active", "S4.POISON.14/publish-active-zero");
  for (uint64_t n : {uint64_t{8}, uint64_t{0}}) {
    Rebuild(q().params());
    Reservation r{};
    ASSERT_TRUE(try_reserve(n, r));
    Handle never{};
    EXPECT_FALSE(release(never));
    ExpectPoisoned(0, wire::kOpInputRelease, "release of a handle never acquired");
    const size_t mark = log().mark();
    EXPECT_FALSE(publish(r, wire::kData)) << "the reservation was taken before the poison";
    EXPECT_EQ(peer().counter(wire::kOutputTail), 0);
    EXPECT_EQ(log().shared_accesses_since(mark), 0u) << log().dump(mark);
  }
}

TEST_F(Ownership, ReleaseAfterPoisonReleasesNothing) {
  SPSQ_CLAUSES("S4.POISON.14/release-held", "S4.POISON.14/release-held-zero");
  for (uint64_t n : {uint64_t{8}, uint64_t{0}}) {
    Rebuild(q().params());
    ASSERT_EQ(peer().enqueue_data(Bytes(n, 1)), kOk);
    Handle held{};
    ASSERT_TRUE(try_peek(held));
    Reservation never{};
    EXPECT_FALSE(publish(never, wire::kData));
    ExpectPoisoned(0, wire::kOpOutputPublish, "publish of a reservation never made");
    const size_t mark = log().mark();
    EXPECT_FALSE(release(held)) << "the handle was acquired before the poison";
    EXPECT_EQ(peer().counter(wire::kInputHead), 0);
    EXPECT_EQ(log().shared_accesses_since(mark), 0u) << log().dump(mark);
  }
}

// ------------------------------------------------------- error ops

TEST_F(Ownership, PublishPoisonRecordsThePublishOp) {
  SPSQ_CLAUSES("S4.L2OUT.3/forged-bigger");
  Reservation r{};
  ASSERT_TRUE(try_reserve(8, r));
  Reservation forged = r;
  Api::forge_nbytes(forged, 16);
  EXPECT_FALSE(publish(forged, wire::kData));
  ExpectPoisoned(0, wire::kOpOutputPublish, "forged reservation (size)");
}

TEST_F(Ownership, ReleasePoisonRecordsTheReleaseOp) {
  SPSQ_CLAUSES("S4.POISON.9/twice");
  ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), kOk);
  Handle h{};
  ASSERT_TRUE(try_peek(h));
  ASSERT_TRUE(release(h));
  EXPECT_FALSE(release(h));
  ExpectPoisoned(0, wire::kOpInputRelease, "handle released twice");
}

// An impossible head observed by try_reserve: the poison names try_reserve.
TEST_F(Ownership, ImpossibleCountersPoisonTheCallThatReadsThem) {
  const uint64_t depth = layout().depth;
  {
    // Input tail more than depth ahead.
    SPSQ_JUDGING("S4.POISON.5/tail-ahead");
    peer().set_input_tail(wire::low32(depth + 1));
    ExpectTryPeekPoisons(wire::kInvalidDescriptor, "input tail depth + 1 ahead");
  }
  {
    // Input tail moved back after a message was consumed.
    SPSQ_JUDGING("S4.POISON.5/tail-back");
    Rebuild(q().params());
    CycleZeroByteInputs(1);
    peer().set_input_tail(0);
    ExpectTryPeekPoisons(wire::kInvalidDescriptor, "input tail moved back");
  }
  Reservation r{};
  {
    // Output head ahead of the tail, read when the ring is full (a producer
    // may read the head only when it needs room).
    SPSQ_JUDGING("S4.POISON.5/head-ahead");
    Rebuild(q().params());
    for (uint64_t i = 0; i < depth; ++i) ASSERT_TRUE(send(wire::kData, {}));
    peer().set_output_head(wire::low32(depth + 1));
    EXPECT_FALSE(try_reserve(0, r));
    ExpectPoisoned(wire::kInvalidDescriptor, wire::kOpOutputTryReserve,
                   "output head past the tail");
  }
  // Output head moved back.
  SPSQ_JUDGING("S4.POISON.5/head-back");
  Rebuild(q().params());
  for (uint64_t i = 0; i < depth; ++i) ASSERT_TRUE(send(wire::kData, {}));
  peer().drain_outputs();
  for (uint64_t i = 0; i < depth; ++i) ASSERT_TRUE(send(wire::kData, {})) << "after L3 released";
  peer().set_output_head(wire::low32(depth - 1));
  EXPECT_FALSE(try_reserve(0, r));
  ExpectPoisoned(wire::kInvalidDescriptor, wire::kOpOutputTryReserve, "output head moved back");
}

TEST_F(Ownership, AConstructionErrorRecordsTheInitOp) {
  SPSQ_CLAUSES("W.ENUM.3/init");
  wire::BindingFields f = q().fields();
  f.payload_bytes += 64;  // the binding no longer matches the layout nor the view
  auto e = q().make_endpoint_from(q().binding_with(f));
  EXPECT_FALSE(e->live());
  EXPECT_NE(Api::kind(*e), wire::kKindNone);
  EXPECT_EQ(Api::op(*e), wire::kOpInit) << "a construction error names INIT";
}

// ------------------------------------------------- the arena room bound

// W.ARENA.2 is a bound, not a promise of room: "The producer may place it
// only when new_cursor - released_cursor <= arena_bytes", with the liveness
// rule's exception for an idle arena (nothing unreleased), where any message
// that fits may be placed. So these tests judge every placement L2 makes
// against the bound (the harness's own arena model), and never a refusal: a
// producer that refuses more than the bound asks is a liveness matter
// (W.LIVE.*, AMB.ROOM), and a refusal that poisons is S4.NOPROG.2's.
class RoomBound : public Ownership {
 protected:
  void SetUp() override {
    Ownership::SetUp();
    QueueParams p = q().params();
    p.depth = 64;  // the arena, not the ring, runs out
    Rebuild(p);
  }
  // Tries to place n bytes; on success checks the bound and publishes. The
  // model follows the arena rule; `released_` is what L3 released so far.
  bool Place(uint64_t n, const char* context) {
    wire::Placement p;
    const uint64_t arena = layout().output_arena_bytes;
    const bool fits = wire::place(cursor_, n, layout().output_arena, arena, &p);
    Reservation r{};
    if (!try_reserve(n, r)) {
      if (!ep().live()) {
        // Nothing left to judge; the skip comes from a lambda since this
        // function returns a value.
        [&] {
          GTEST_SKIP() << context << ": a refusal poisoned (" << Api::message(ep())
                       << "): no-progress is judged by S4.NOPROG.2";
        }();
      }
      return false;
    }
    EXPECT_TRUE(fits) << context << ": placed " << n << " bytes, more than the arena";
    const bool idle = released_ == cursor_;
    EXPECT_TRUE(wire::has_room(released_, cursor_, p, arena, /*idle_exception=*/true))
        << context << ": W.ARENA.2: placed " << n << " bytes at cursor " << cursor_
        << " with released cursor " << released_ << ": new_cursor - released_cursor = "
        << p.next - released_ << " > arena_bytes " << arena << (idle ? "" : " (arena not idle)");
    const auto bytes = Bytes(n, static_cast<uint8_t>(n));
    if (n != 0) q().l2_store(Api::payload(r), bytes.data(), n);
    EXPECT_TRUE(publish(r, wire::kData)) << context << ": " << Api::message(ep());
    if (n != 0) {
      cursor_ = p.next;
      ends_.push_back(p.next);
    } else {
      ends_.push_back(cursor_);
    }
    return true;
  }
  // L3 takes and releases the oldest k outputs.
  void ReleaseOutputs(uint64_t k) {
    for (uint64_t i = 0; i < k; ++i) {
      ScriptedL3::Message m;
      ASSERT_TRUE(peer().poll_output(&m));
      peer().release_outputs(1);
      released_ = ends_.front();
      ends_.pop_front();
    }
  }
  // Every size from the whole arena down to 1: whatever is placed must keep
  // the bound.
  void Probe(const char* context) {
    for (uint64_t n = layout().output_arena_bytes; n >= 1; n = n > 8 ? n - 7 : n - 1) {
      if (HasFatalFailure() || IsSkipped()) return;
      Place(n, context);
    }
  }

  uint64_t cursor_ = 0, released_ = 0;
  std::deque<uint64_t> ends_;  // cursor after each published, unreleased output
};

TEST_F(RoomBound, NoPlacementOverUnreleasedPayload) {
  SPSQ_CLAUSES("W.ARENA.2/unreleased");
  SPSQ_EXERCISES("S4.NOPROG.2", "W.ARENA.1");
  // Assorted sizes, L3 releasing nothing, then every size again.
  for (uint64_t n : {40, 64, 1, 100, 17, 0, 30}) {
    Place(n, "filling the arena");
    if (IsSkipped()) return;
  }
  Probe("arena full, nothing released");
}

TEST_F(RoomBound, NoSkipOntoUnreleasedPayload) {
  SPSQ_CLAUSES("W.ARENA.2/skip");
  SPSQ_EXERCISES("S4.NOPROG.2", "W.ARENA.1");
  // 200 bytes unreleased: 100 more would skip the 56-byte tail onto them.
  ASSERT_TRUE(Place(200, "first message"));
  Place(100, "a skip onto unreleased payload");
  Place(57, "one byte more than the tail");
  Probe("after the skip probes");
}

TEST_F(RoomBound, NoPlacementPastTheReleasedPrefix) {
  SPSQ_CLAUSES("W.ARENA.2/partial", "W.ARENA.2/wrapped");
  SPSQ_EXERCISES("S4.NOPROG.2", "W.ARENA.1");
  // Two 100-byte messages, L3 releases the first: 120 more would skip onto
  // the second (new_cursor - released = 276); 100 would end where it starts.
  ASSERT_TRUE(Place(100, "first"));
  ASSERT_TRUE(Place(100, "second"));
  ReleaseOutputs(1);
  Place(120, "skip past the released prefix");
  Place(100, "skip up to the released prefix");
  Probe("one of two released");
  // Many laps later, with the cursor far past the arena size.
  for (int lap = 0; lap < 6 && !IsSkipped() && !HasFatalFailure(); ++lap) {
    ReleaseOutputs(ends_.size() > 1 ? ends_.size() - 1 : 0);
    Place(88, "a later lap");
    Probe("a later lap, the newest output held");
  }
}

}  // namespace
}  // namespace spsq_conf
