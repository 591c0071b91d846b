// Spec preamble and section 1, "Create And Bind", from the L2 side: the
// ten-scalar binding, its decode, the endpoint's construction checks, the
// spec's own L2 snippet, and the MaxInflight window.
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

//
// Compiled twice (certify/l2.bzl): once for every certification, through the
// suite's endpoint interface; and per certification with SPSQ_L2_TYPED, which
// keeps only the test of the spec's snippet, written against the
// implementation's own names.
#if SPSQ_L2_TYPED
#include "conformance/l2/l2_typed.h"
#else
#include "conformance/l2/l2_fixture.h"
#endif

namespace spsq_conf {
namespace {

#if !SPSQ_L2_TYPED

class CreateBind : public L2Test {
 protected:
  // A binding struct full of a sentinel byte, to prove decode leaves it alone.
  static Binding Sentinel() {
    Binding b;
    std::memset(b.get(), 0xC3, b.size());
    return b;
  }
  static bool Untouched(const Binding& b) {
    const Binding s = Sentinel();
    return std::memcmp(b.get(), s.get(), b.size()) == 0;
  }
  // Constructs an endpoint from `b` and checks the rejection: not live,
  // the kind (0: any), no shared access at all, no abort flag.
  template <uint64_t N = 1>
  void ExpectRejected(const Binding& b, uint32_t want_kind, const char* what) {
    const size_t mark = log().mark();
    auto e = q().make_endpoint_from<N>(b);
    // Not live, the kind, no access and no flag are the caller's clause; the
    // op and the message describe an error, so they are judged apart and only
    // once there is one.
    ASSERT_FALSE(e->live()) << what << ": endpoint went live";
    const uint32_t k = Api::kind(*e);
    if (want_kind != 0) {
      EXPECT_EQ(k, want_kind) << what << ": saw " << wire::kind_name(k) << ": "
                              << Api::message(*e);
    } else {
      EXPECT_NE(k, wire::kKindNone) << what;
    }
    EXPECT_EQ(log().shared_accesses_since(mark), 0u)
        << what << ": a rejected construction touched shared memory:\n" << log().dump(mark);
    EXPECT_EQ(peer().l2_flag(), 0) << what << ": construction errors never raise the flag";
    {
      SPSQ_JUDGING("W.ENUM.3/init");
      EXPECT_EQ(Api::op(*e), wire::kOpInit) << what << ": W.ENUM.3";
    }
    SPSQ_JUDGING("W.ERR.1/construction");
    const char* m = Api::message(*e);
    const size_t cap = Api::message_capacity(*e);
    EXPECT_LT(strnlen(m, cap), cap) << what << ": W.ERR.1: message not NUL-terminated";
    EXPECT_GT(strnlen(m, cap), 0u) << what << ": W.ERR.1: empty message";
  }
  // The AMB.WINDOW reading a refused peek on a full window showed.
  static void RecordWindowAnswer(const Endpoint& e) {
    const uint32_t k = Api::kind(e);
    if (!e.live()) {
      SPSQ_READING("AMB.WINDOW", "C", std::string("poison: ") + wire::kind_name(k));
    } else if (k != wire::kKindNone) {
      SPSQ_READING("AMB.WINDOW", "B", std::string("error without poison: ") + wire::kind_name(k));
    } else {
      SPSQ_READING("AMB.WINDOW", "A", "ordinary no-progress");
    }
  }
  // A window of one on endpoint type E: two inputs published, the second is
  // held back until the first is released (how the refusal answers is
  // AMB.WINDOW's question; reading C poisons, and the release path is then
  // judged on a fresh queue, without the misuse).
  // `make` builds the endpoint on the current queue.
  template <class Make>
  void ExpectWindowOfOne(const char* what, Make make) {
    using Access = Api;
    endpoint_.reset();
    std::unique_ptr<Endpoint> e;
    Handle h1{}, h2{};
    auto start = [&] {
      e = make();
      ASSERT_TRUE(e->live()) << what << ": " << Access::message(*e);
      ASSERT_EQ(peer().enqueue_data(Bytes(4, 1)), ScriptedL3::Enqueue::kOk);
      ASSERT_EQ(peer().enqueue_data(Bytes(4, 2)), ScriptedL3::Enqueue::kOk);
      ASSERT_TRUE(e->input().try_peek(h1)) << what;
      EXPECT_EQ(Access::seq(h1), 1u) << what;
    };
    ASSERT_NO_FATAL_FAILURE(start());
    EXPECT_FALSE(e->input().try_peek(h2)) << what << ": a second DATA handle while one is active";
    RecordWindowAnswer(*e);
    if (!e->live()) {
      EXPECT_NE(Access::kind(*e), wire::kKindNone) << what << ": not live, yet no error kind";
      EXPECT_EQ(peer().l2_flag(), 1) << what << ": a poison raises the L2 abort flag";
      e.reset();
      Rebuild(q().params(), /*with_endpoint=*/false);
      ASSERT_NO_FATAL_FAILURE(start());
    }
    ASSERT_TRUE(e->input().release(h1)) << what;
    ASSERT_TRUE(e->input().try_peek(h2)) << what << ": the held-back input after release";
    EXPECT_EQ(Access::seq(h2), 2u) << what;
    const uint8_t* p = Access::payload(h2);
    ASSERT_NE(p, nullptr) << what;
    EXPECT_EQ(std::vector<uint8_t>(p, p + Access::nbytes(h2)), Bytes(4, 2)) << what;
    EXPECT_TRUE(e->input().release(h2)) << what;
    EXPECT_TRUE(e->live()) << what;
  }
  // Template<View>, the template with its default window argument.
  void ExpectDefaultWindowOfOne() {
    if (!l2_adapter::has_default_window()) {
      GTEST_SKIP() << "not applicable: " << l2_adapter::certification_name()
                   << "'s endpoint template has no default MaxInflight argument "
                      "(Template<View> names no type)";
    }
    record_observation("default_window.same_type_as_mi1",
                       l2_adapter::default_window_same_as_mi1() ? "yes" : "no");
    ExpectWindowOfOne("Template<View> (the default MaxInflight)", [this] {
      return l2_adapter::make_default_window(q().binding(), q().view());
    });
  }
};

TEST_F(CreateBind, DecodesTenScalarsInSpecOrder) {
  SPSQ_CLAUSES("S0.BIND.1/l2-decode", "S1.BIND.ORDER/l2");
  EXPECT_EQ(Api::scalar_count(), 10u);
  const auto s = q().scalars();
  Binding b = Sentinel();
  {
    SPSQ_JUDGING("S1.MAGIC.1/l2-accepts", "W.CONST.1/l2-accepts", "W.BIND.1/valid");
    EXPECT_EQ(s[0], 0x5350535100010000ull);
    ASSERT_TRUE(Api::decode(s.data(), s.size(), &b));
  }
  const wire::BindingFields f = q().fields();
  const wire::BindingFields d = Api::fields(b);  // by the spec's field names
  EXPECT_EQ(d.magic_version, f.magic_version);
  EXPECT_EQ(d.session_instance_id_bits, f.session_instance_id_bits);
  EXPECT_EQ(d.transaction_id, f.transaction_id);
  EXPECT_EQ(d.payload_base, f.payload_base);
  EXPECT_EQ(d.payload_bytes, f.payload_bytes);
  EXPECT_EQ(d.counter_base, f.counter_base);
  EXPECT_EQ(d.counter_bytes, f.counter_bytes);
  EXPECT_EQ(d.depth, f.depth);
  EXPECT_EQ(d.input_arena_bytes, f.input_arena_bytes);
  EXPECT_EQ(d.output_arena_bytes, f.output_arena_bytes);
}

TEST_F(CreateBind, RejectsEveryOtherScalarCountWithoutFallback) {
  SPSQ_CLAUSES("W.BIND.1/count");
  const auto ten = q().scalars();
  uint64_t twelve[12];
  std::memcpy(twelve, ten.data(), sizeof(uint64_t) * 10);
  twelve[10] = 0;  // a 12-scalar TaskArgs form would append two more fields
  twelve[11] = 0;
  // The first ten are valid: only the count is wrong.
  Binding ok = Sentinel();
  ASSERT_TRUE(Api::decode(twelve, 10, &ok)) << "harness: the first ten scalars are not valid";
  for (size_t count : {size_t{0}, size_t{1}, size_t{9}, size_t{11}, size_t{12}}) {
    Binding b = Sentinel();
    {
      SPSQ_JUDGING(count < 10 ? "S0.BIND.2/fewer" : count == 11 ? "S0.BIND.2/eleven"
                                                                : "S0.BIND.2/twelve",
                   "W.BIND.1/count");
      EXPECT_FALSE(Api::decode(twelve, count, &b)) << "count " << count << " accepted";
    }
    SPSQ_JUDGING("S0.BIND.3/decode");
    EXPECT_TRUE(Untouched(b)) << "count " << count << ": a rejected decode wrote output";
  }
}

TEST_F(CreateBind, RejectsEveryOtherPackedMagicVersion) {
  // Every case judges the decode rule and the one accepted value too.
  const uint64_t bad[] = {
      0,                      // zero
      0x5350535100000000ull,  // major: version 0.0
      0x5350535100020000ull,  // major 2
      0x5350535100000001ull,  // major 0, minor 1
      0x5350535100010001ull,  // minor 1
      0x53505351FFFF0000ull,  // major 0xFFFF
      0x535053510001FFFFull,  // minor 0xFFFF
      0x5350535200010000ull,  // magic: another magic
      0x0000000000010000ull,  // magic 0 with the right version
      0x5350535100010000ull ^ (uint64_t{1} << 63),
      ~uint64_t{0},
      0x0000010051535053ull,  // byte order: the packed value byte-swapped
  };
  for (const uint64_t& mv : bad) {
    SPSQ_JUDGING(nth_case(&mv - bad, {"S1.MAGIC.2/zero", "S1.MAGIC.2/major", "S1.MAGIC.2/major",
                                      "S1.MAGIC.2/major", "S1.MAGIC.2/minor", "S1.MAGIC.2/major",
                                      "S1.MAGIC.2/minor", "S1.MAGIC.2/magic", "S1.MAGIC.2/magic",
                                      "S1.MAGIC.2/magic", "S1.MAGIC.2/magic",
                                      "S1.MAGIC.2/byte-order"}),
                 "W.BIND.1/magic", "W.CONST.1/l2-accepts");
    auto s = q().scalars();
    s[0] = mv;
    Binding b = Sentinel();
    EXPECT_FALSE(Api::decode(s.data(), s.size(), &b)) << std::hex << mv << " accepted";
    EXPECT_TRUE(Untouched(b)) << std::hex << mv;
  }
}

TEST_F(CreateBind, RejectsZeroTransactionId) {
  {
    SPSQ_JUDGING("S1.TXN.1/decode", "W.BIND.1/txn");
    auto s = q().scalars();
    s[2] = 0;
    Binding b = Sentinel();
    EXPECT_FALSE(Api::decode(s.data(), s.size(), &b));
    EXPECT_TRUE(Untouched(b));
  }
  SPSQ_JUDGING("S1.TXN.1/endpoint", "S0.BIND.3/endpoint");
  wire::BindingFields f = q().fields();
  f.transaction_id = 0;
  ExpectRejected(q().binding_with(f), 0, "transaction_id 0");
}

TEST_F(CreateBind, EndpointRefusesAnUnsupportedVersion) {
  // The op and the message are judged by ExpectRejected's own blocks.
  SPSQ_CLAUSES("S1.MAGIC.2/endpoint", "S0.BIND.3/endpoint", "W.ENUM.2");
  for (uint64_t mv :
       {uint64_t{0}, uint64_t{0x5350535100020000ull}, uint64_t{0x5350535100010001ull}}) {
    wire::BindingFields f = q().fields();
    f.magic_version = mv;
    const Binding b = q().binding_with(f);
    ExpectRejected(b, wire::kBadBinding, "bad magic_version");
    auto e = q().make_endpoint_from<1>(b);
    // Identity is only reported once the binding was accepted.
    SPSQ_JUDGING("W.ERR.2/rejected");
    EXPECT_EQ(Api::transaction(*e), 0u) << "W.ERR.2";
    EXPECT_EQ(Api::session(*e), 0u) << "W.ERR.2";
  }
}

TEST_F(CreateBind, AcceptsZeroSessionBits) {
  SPSQ_CLAUSES("S1.SESSION.1/l2", "S0.USE.1");
  QueueParams p;
  p.depth = window_depth();
  p.session = 0;
  Rebuild(p);
  ASSERT_TRUE(ep().live());
  ASSERT_EQ(peer().enqueue_data(Bytes(16, 1)), ScriptedL3::Enqueue::kOk);
  Handle h{};
  ASSERT_TRUE(try_peek(h));
  EXPECT_EQ(HandleBytes(h), Bytes(16, 1));
  ASSERT_TRUE(send(wire::kData, Bytes(8, 2)));
  ASSERT_TRUE(release(h));
  ScriptedL3::Message m;
  ASSERT_TRUE(peer().poll_output(&m));
  EXPECT_EQ(m.payload, Bytes(8, 2));
  ExpectHealthy("session 0");
}

TEST_F(CreateBind, PoisonDiagnosticsCarryTheInstanceIdentity) {
  SPSQ_CLAUSES("S1.DIAG.1/l2-poison", "W.ERR.1/poison", "W.ERR.2/accepted");
  peer().publish_raw(wire::Descriptor{5, wire::kData, 0, 0});  // seq 5 at index 0
  Handle h{};
  EXPECT_FALSE(try_peek(h));
  ExpectPoisoned(wire::kInvalidDescriptor, wire::kOpInputTryPeek, "seq mismatch");
  EXPECT_EQ(Api::session(ep()), q().params().session);
  EXPECT_EQ(Api::transaction(ep()), q().params().transaction);
  const char* m = Api::message(ep());
  EXPECT_LT(strnlen(m, Api::message_capacity(ep())), Api::message_capacity(ep()))
      << "message not NUL-terminated within its bound";
  EXPECT_GT(std::strlen(m), 0u);
}

// Both directions keep publication order: numbered inputs are delivered in
// the order L3 published them, across several ring cycles and with more than
// one input waiting; outputs reach L3 in publish order with consecutive seq.
TEST_F(CreateBind, MessagesKeepTheirOrderBothWays) {
  SPSQ_CLAUSES("S0.PURPOSE.1/input-fifo", "S0.PURPOSE.1/output-fifo");
  uint64_t in_seq = 0, out_seq = 0;
  for (int round = 0; round < 3; ++round) {
    const uint64_t batch = layout().depth;
    for (uint64_t i = 0; i < batch; ++i) {
      const uint8_t tag = static_cast<uint8_t>(in_seq + i);
      ASSERT_EQ(peer().enqueue_data(Bytes(1 + (tag % 5), tag)), ScriptedL3::Enqueue::kOk);
    }
    for (uint64_t i = 0; i < batch; ++i) {
      const uint8_t tag = static_cast<uint8_t>(in_seq);
      Handle h{};
      ASSERT_TRUE(try_peek(h)) << "input " << in_seq + 1;
      EXPECT_EQ(Api::seq(h), in_seq + 1);
      EXPECT_EQ(HandleBytes(h), Bytes(1 + (tag % 5), tag)) << "input " << in_seq + 1;
      ASSERT_TRUE(release(h));
      ++in_seq;
      ASSERT_TRUE(send(wire::kData, Bytes(2 + (tag % 3), static_cast<uint8_t>(tag + 100))));
    }
    for (uint64_t i = 0; i < batch; ++i) {
      const uint8_t tag = static_cast<uint8_t>(out_seq);
      ScriptedL3::Message m;
      ASSERT_TRUE(peer().poll_output(&m)) << "output " << out_seq + 1;
      EXPECT_EQ(m.seq, out_seq + 1);
      EXPECT_EQ(m.payload, Bytes(2 + (tag % 3), static_cast<uint8_t>(tag + 100)));
      peer().release_outputs(1);
      ++out_seq;
    }
  }
  ExpectHealthy("after three ring cycles each way");
}

#else  // SPSQ_L2_TYPED

// The L2 snippet of spec section 1, verbatim, against the implementation's
// own RegionInstanceView over this queue's memory.
struct OrchArgs {
  const uint64_t* values;
  uint64_t scalar(int32_t i) const { return values[i]; }
};

struct SnippetOutcome {
  bool live = false;
  uint64_t depth = 0;
};

// The spec's function body returns void; the outcome is read after it.
template <class Clock>
void RunSpecSnippet(const OrchArgs& orch_args, Clock clock, SnippetOutcome* outcome) {
  // ---- begin spec text (section 1) ----
  uint64_t scalars[spsc_queue::kSpscQueueEndpointBindingScalarCount];
  for (size_t i = 0; i < spsc_queue::kSpscQueueEndpointBindingScalarCount; ++i) {
      scalars[i] = orch_args.scalar(static_cast<int32_t>(i));
  }

  spsc_queue::SpscQueueEndpointBinding binding{};
  if (!spsc_queue::decode_endpoint_binding(
          scalars, spsc_queue::kSpscQueueEndpointBindingScalarCount, &binding)) {
      return;
  }

  RegionInstanceView view(
      RegionPartLocalSpan{binding.payload_base, binding.payload_bytes},
      RegionPartLocalSpan{binding.counter_base, binding.counter_bytes}
  );
  spsc_queue::SpscQueueEndpoint<RegionInstanceView> queue(binding, std::move(view), clock);
  if (!queue.live()) {
      return;
  }
  // ---- end spec text ----
  outcome->live = true;
  outcome->depth = queue.layout().depth;
}

class CreateBindTyped : public L2TypedTest {};

TEST_F(CreateBindTyped, SpecL2SnippetCompilesAndBinds) {
  SPSQ_CLAUSES("S1.L2DECODE.1", "S1.L2DECODE.2", "S1.L2DECODE.3", "S1.L2DECODE.4",
               "S1.L2DECODE.5");
  const auto s = q().scalars();
  SnippetOutcome ok;
  RunSpecSnippet(OrchArgs{s.data()}, Api::clock(&VirtualClock::now_ns), &ok);
  EXPECT_TRUE(ok.live) << "the spec's snippet did not produce a live endpoint";
  EXPECT_EQ(ok.depth, q().params().depth);
  auto bad = s;
  bad[0] = 0;
  SnippetOutcome rejected;
  RunSpecSnippet(OrchArgs{bad.data()}, Api::clock(&VirtualClock::now_ns), &rejected);
  EXPECT_FALSE(rejected.live);
}

#endif  // SPSQ_L2_TYPED

#if !SPSQ_L2_TYPED

TEST_F(CreateBind, DefaultEndpointHoldsOneDataHandle) {
  SPSQ_CLAUSES("S1.WIN.1/mi1", "S4.L2IN.1", "S4.L2IN.2");
  ExpectWindowOfOne("MaxInflight 1", [this] { return q().make_endpoint(1); });
}

// "The default endpoint" is the template with its default argument:
// Template<View> must behave as MaxInflight 1.
TEST_F(CreateBind, TemplateDefaultArgumentIsAWindowOfOne) {
  SPSQ_CLAUSES("S1.WIN.1/default-arg");
  ExpectDefaultWindowOfOne();
}

TEST_F(CreateBind, WindowOfNHoldsNDataHandles) {
  SPSQ_CLAUSES("S1.WIN.2/full", "S1.WIN.2/oldest-released", "S4.L2IN.4", "S4.L2IN.2");
  std::vector<Handle> held(kN);
  auto start = [&] {  // kN + 1 inputs published, kN acquired
    for (uint64_t i = 0; i <= kN; ++i) {
      ASSERT_EQ(peer().enqueue_data(Bytes(8, static_cast<uint8_t>(i))), ScriptedL3::Enqueue::kOk);
    }
    for (uint64_t i = 0; i < kN; ++i) {
      ASSERT_TRUE(try_peek(held[i])) << "handle " << i + 1 << " of a window of " << kN;
      EXPECT_EQ(Api::seq(held[i]), i + 1);
    }
  };
  ASSERT_NO_FATAL_FAILURE(start());
  Handle extra{};
  EXPECT_FALSE(try_peek(extra)) << "handle " << kN + 1 << " exceeds MaxInflight " << kN;
  RecordWindowAnswer(ep());
  if (!ep().live()) {
    // Reading C poisons: the window is judged again on a fresh queue,
    // without the misuse.
    ExpectPoisoned(0, wire::kOpInputTryPeek, "refused handle beyond the window");
    Rebuild(q().params());
    ASSERT_NO_FATAL_FAILURE(start());
  }
  // Releasing input 1 alone lets the held-back input in, with the other
  // kN - 1 still held (readings A and B go on from the refusal itself).
  ASSERT_TRUE(release(held[0])) << Api::message(ep());
  ASSERT_TRUE(try_peek(extra)) << "input " << kN + 1 << " held back after input 1 was released";
  EXPECT_EQ(Api::seq(extra), kN + 1);
  EXPECT_EQ(HandleBytes(extra), Bytes(8, static_cast<uint8_t>(kN)));
  for (uint64_t i = 1; i < kN; ++i) {
    EXPECT_EQ(HandleBytes(held[i]), Bytes(8, static_cast<uint8_t>(i))) << i;
    ASSERT_TRUE(release(held[i]));
  }
  ASSERT_TRUE(release(extra));
  ExpectHealthy("window of N after the held-back input");
}

// Input 2 released ahead of input 1 stays physically owned; whether it still
// counts against the window is AMB.WINDOWPHYS's question (recorded). Once
// input 1 is released too, both are gone under either reading and the next
// input must be acquired.
TEST_F(CreateBind, HeldBackInputFollowsTheOldestRelease) {
  SPSQ_CLAUSES("S1.WIN.2/out-of-order", "S4.L2IN.4");
  if (kN < 2) GTEST_SKIP() << "not applicable: needs MaxInflight >= 2";
  for (uint64_t i = 0; i < kN + 2; ++i) {
    ASSERT_EQ(peer().enqueue_data(Bytes(4, static_cast<uint8_t>(i))), ScriptedL3::Enqueue::kOk);
  }
  std::vector<Handle> held(kN);
  for (auto& h : held) ASSERT_TRUE(try_peek(h));
  ASSERT_TRUE(release(held[1]));
  uint64_t next = kN + 1;
  std::vector<Handle> more;
  Handle h{};
  if (try_peek(h)) {
    SPSQ_READING("AMB.WINDOWPHYS", "A", "window counts logically active handles");
    EXPECT_EQ(Api::seq(h), next++);
    more.push_back(h);
  } else {
    ExpectHealthy("window of physically owned inputs");
    SPSQ_READING("AMB.WINDOWPHYS", "B", "window counts physically owned inputs");
  }
  ASSERT_TRUE(release(held[0]));
  ASSERT_TRUE(try_peek(h)) << "input " << next << " held back after inputs 1 and 2 were released";
  EXPECT_EQ(Api::seq(h), next);
  EXPECT_EQ(HandleBytes(h), Bytes(4, static_cast<uint8_t>(next - 1)));
  more.push_back(h);
  for (uint64_t i = 2; i < kN; ++i) ASSERT_TRUE(release(held[i]));
  for (const Handle& m : more) ASSERT_TRUE(release(m));
  ExpectHealthy("after the out-of-order release");
}

TEST_F(CreateBind, MaxInflightChangesNeitherLayoutNorBinding) {
  SPSQ_CLAUSES("S1.WIN.3", "S1.WIN.5/same-layout", "S1.WIN.5/wire-layout", "S1.WIN.6");
  endpoint_.reset();
  QueueParams p;
  p.depth = 4;
  Rebuild(p, /*with_endpoint=*/false);
  const Binding b = q().binding();
  auto e1 = q().make_endpoint_from<1>(b);
  const LayoutFields l1 = Api::layout(*e1);
  e1.reset();
  auto e2 = q().make_endpoint_from<2>(b);
  const LayoutFields l2 = Api::layout(*e2);
  EXPECT_TRUE(e2->live());
  e2.reset();
  auto e4 = q().make_endpoint_from<4>(b);
  EXPECT_TRUE(e4->live());
  const LayoutFields l4 = Api::layout(*e4);
  e4.reset();
  EXPECT_EQ(std::memcmp(&l1, &l2, sizeof(l1)), 0);
  EXPECT_EQ(std::memcmp(&l1, &l4, sizeof(l1)), 0);
  EXPECT_EQ(l1.depth, layout().depth);
  EXPECT_EQ(l1.input_ring, layout().input_ring);
  EXPECT_EQ(l1.output_ring, layout().output_ring);
  EXPECT_EQ(l1.input_arena, layout().input_arena);
  EXPECT_EQ(l1.input_arena_bytes, layout().input_arena_bytes);
  EXPECT_EQ(l1.output_arena, layout().output_arena);
  EXPECT_EQ(l1.output_arena_bytes, layout().output_arena_bytes);
  EXPECT_EQ(l1.payload_bytes, layout().payload_bytes);
  EXPECT_EQ(l1.counter_bytes, layout().counter_bytes);
}

TEST_F(CreateBind, MaxInflightAboveDepthIsBadArgumentWithoutTheFlag) {
  SPSQ_CLAUSES("S1.WIN.7/above-depth", "S1.WIN.7/equal-depth", "S1.WIN.8",
               "S1.WIN.9", "W.ENUM.2", "W.ENUM.3");
  endpoint_.reset();
  QueueParams p;
  p.depth = 1;
  Rebuild(p, false);
  ExpectRejected<2>(q().binding(), wire::kBadArgument, "MaxInflight 2 > depth 1");
  auto ok1 = q().make_endpoint_from<1>(q().binding());
  EXPECT_TRUE(ok1->live()) << "MaxInflight 1 == depth 1 is valid";
  ok1.reset();
  p.depth = 2;
  Rebuild(p, false);
  ExpectRejected<4>(q().binding(), wire::kBadArgument, "MaxInflight 4 > depth 2");
  ExpectRejected<3>(q().binding(), wire::kBadArgument, "MaxInflight 3 > depth 2");
  auto ok = q().make_endpoint_from<2>(q().binding());
  EXPECT_TRUE(ok->live()) << "MaxInflight == depth is valid";
  ok.reset();
  p.depth = 4;
  Rebuild(p, false);
  auto ok4 = q().make_endpoint_from<4>(q().binding());
  EXPECT_TRUE(ok4->live()) << "MaxInflight 4 == depth 4 is valid";
}

// MaxInflight 0 may be refused at compile time (a static_assert), which a test
// binary cannot observe: the certification's probe compiled the endpoint with
// it beforehand (certify/mi0_probe.bzl), and only an endpoint that
// compiles with it is built and judged here.
TEST_F(CreateBind, MaxInflightZeroIsRefused) {
  SPSQ_CLAUSES("S1.WIN.7/zero");
  if (l2_adapter::mi0_compiles()) {
    record_observation("mi0", "compiles");
    endpoint_.reset();
    ExpectRejected<0>(q().binding(), wire::kBadArgument, "MaxInflight 0");
  } else {
    record_observation("mi0", std::string("refused at compile time: ") + l2_adapter::mi0_error());
    // The probe saw the MaxInflight 1 build succeed; a refusal of 0 is an error.
    EXPECT_STRNE(l2_adapter::mi0_error(), "") << "the probe found no compiler error line";
  }
}

TEST_F(CreateBind, StopTakesTheExtraSlotBehindAFullWindow) {
  SPSQ_CLAUSES("S1.WIN.10", "S1.WIN.11", "S4.L2IN.3");
  for (uint64_t i = 0; i < kN; ++i) {
    ASSERT_EQ(peer().enqueue_data(Bytes(4, static_cast<uint8_t>(i))), ScriptedL3::Enqueue::kOk);
  }
  ASSERT_EQ(peer().enqueue_stop(), ScriptedL3::Enqueue::kOk);
  std::vector<Handle> held(kN);
  for (uint64_t i = 0; i < kN; ++i) ASSERT_TRUE(try_peek(held[i]));
  Handle stop{};
  ASSERT_TRUE(try_peek(stop)) << "STOP must be acquired with " << kN << " DATA handles active";
  EXPECT_EQ(Api::opcode(stop), wire::kStop);
  EXPECT_EQ(Api::seq(stop), kN + 1);
  ASSERT_TRUE(release(stop));
  EXPECT_FALSE(drained()) << "STOP pending behind active DATA";
  EXPECT_EQ(peer().counter(wire::kInputHead), 0);
  for (uint64_t i = 0; i < kN; ++i) {
    EXPECT_FALSE(drained());
    ASSERT_TRUE(release(held[i]));
  }
  EXPECT_TRUE(drained());
  EXPECT_EQ(peer().counter(wire::kInputHead), static_cast<int32_t>(kN + 1));
  ExpectHealthy("after drain");
}

// The queue a binding names is all the shared state there is: after a
// duplex exchange that wraps both arenas, every access the endpoint made was a
// view call inside the bound PAYLOAD and COUNTER parts, no byte changed
// without a view write, and L2 wrote only its own direction. Checked here as
// this test's own verdict; the fixture re-checks it after every test.
TEST_F(CreateBind, AllSharedStateIsTheBoundRegionReachedThroughTheView) {
  SPSQ_CLAUSES("S0.REGION.1/l2", "W.VIEW.1", "S2.ARENA.1", "W.CTR.1");
  // Arenas of 1024 and messages of at most 200 bytes: the arenas wrap, but
  // never into the idle-arena case (liveness_test.cc judges that one).
  QueueParams p = q().params();
  p.input_arena = 1024;
  p.output_arena = 1024;
  Rebuild(p);
  const uint64_t sizes[] = {0, 1, 63, 64, 65, 100, 200, 7, 0, 128, 200, 199};
  uint64_t messages = 0;
  for (int round = 0; round < 4; ++round) {
    for (uint64_t n : sizes) {
      ASSERT_EQ(peer().enqueue_data(Bytes(n, static_cast<uint8_t>(n))), ScriptedL3::Enqueue::kOk);
      Handle h{};
      ASSERT_TRUE(try_peek(h)) << Api::message(ep());
      ASSERT_TRUE(send(wire::kData, HandleBytes(h)));
      ASSERT_TRUE(release(h));
      ASSERT_EQ(peer().drain_outputs().size(), 1u);
      ++messages;
    }
  }
  std::set<std::string> violated;
  q().check_invariants("after a duplex exchange", &violated);
  EXPECT_TRUE(violated.empty()) << "broken: " << *violated.begin();
  // Not vacuous: the endpoint did publish and release through the view, with
  // plain Sets of the low 32 bits of each count.
  std::vector<int32_t> heads, tails;
  for (size_t i = 0; i < log().size(); ++i) {
    const spsq_conf::Access& a = log()[i];
    if (a.kind != AccessKind::kNotify || !a.ok) continue;
    EXPECT_EQ(a.op, 0u) << "W.CTR.1: counter update that is not a plain Set: " << a.describe();
    if (a.offset == wire::kInputHead) heads.push_back(a.value);
    if (a.offset == wire::kOutputTail) tails.push_back(a.value);
  }
  // Each published value is the low 32 bits of a count: never backwards,
  // ending at the number of messages (republishing a value is allowed).
  for (const std::vector<int32_t>* values : {&heads, &tails}) {
    ASSERT_FALSE(values->empty()) << "no head or tail publish at all";
    for (size_t k = 1; k < values->size(); ++k) {
      EXPECT_LE((*values)[k - 1], (*values)[k]) << "W.CTR.1: a counter went backwards";
    }
    EXPECT_EQ(values->back(), static_cast<int32_t>(messages)) << "W.CTR.1: final count";
  }
}

#endif  // !SPSQ_L2_TYPED

}  // namespace
}  // namespace spsq_conf
