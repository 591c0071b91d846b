#include "conformance/l2/l2_fixture.h"

#include <cinttypes>
#include <cstdarg>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "conformance/model/region_decoder.h"

namespace spsq_conf {
Binding Queue::binding() const {
  const auto s = scalars();
  Binding b{};
  if (!Api::decode(s.data(), s.size(), &b)) {
    ADD_FAILURE() << "S1.BIND.ORDER: decode_endpoint_binding rejected a valid binding "
                     "built in spec order";
  }
  return b;
}

Binding Queue::binding_with(const wire::BindingFields& f) const {
  Binding b = binding();
  b.magic_version = f.magic_version;
  b.session_instance_id_bits = f.session_instance_id_bits;
  b.transaction_id = f.transaction_id;
  b.payload_base = f.payload_base;
  b.payload_bytes = f.payload_bytes;
  b.counter_base = f.counter_base;
  b.counter_bytes = f.counter_bytes;
  b.depth = f.depth;
  b.input_arena_bytes = f.input_arena_bytes;
  b.output_arena_bytes = f.output_arena_bytes;
  return b;
}

// ------------------------------------------------------------------ L2Test

void L2Test::SetUp() {
  VirtualClock::reset();
  QueueParams p;
  p.depth = window_depth();
  Rebuild(p);
}

void L2Test::Rebuild(QueueParams p, bool with_endpoint) {
  endpoint_.reset();
  if (queue_) queue_->check_invariants("previous queue", &violated_);
  queue_.reset(new Queue(p));
  if (with_endpoint) {
    endpoint_ = queue_->make_endpoint<kN>();
    ASSERT_TRUE(endpoint_->live()) << "endpoint not live on a valid binding: "
                                   << Api::message(*endpoint_);
  }
}

void L2Test::TearDown() {
  if (!queue_) return;
  endpoint_.reset();  // the endpoint's destructor may still touch the view
  queue_->check_invariants("invariant", &violated_);
  // Every test checks these; the report counts them per clause.
  record_invariants_of(Side::kL2, violated_);
  if (HasFailure()) {
    const std::string text = queue_->describe();
    std::printf("---- region at failure (spsq inspect) ----\n%s", text.c_str());
    RecordProperty("region", text);
    const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
    const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
    if (dir != nullptr && t != nullptr) {
      q().dump_to(dir, std::string(t->test_suite_name()) + "." + t->name());
    }
  }
  queue_.reset();
}

bool L2Test::send(uint64_t opcode, const std::vector<uint8_t>& bytes) {
  Reservation r{};
  if (!try_reserve(bytes.size(), r)) return false;
  if (!bytes.empty()) q().l2_store(Api::payload(r), bytes.data(), bytes.size());
  return publish(r, opcode);
}

void L2Test::ExpectHealthy(const char* context) {
  EXPECT_TRUE(ep().live()) << context << ": endpoint not live: " << Api::message(ep());
  EXPECT_EQ(kind(), wire::kKindNone)
      << context << ": ordinary no-progress must leave error().kind NONE (S3.TO.5); saw "
      << wire::kind_name(kind()) << ": " << Api::message(ep());
  EXPECT_EQ(peer().l2_flag(), 0) << context << ": L2 abort flag raised";
}

void L2Test::ExpectPoisoned(uint32_t want_kind, uint32_t want_op, const char* context) {
  EXPECT_FALSE(ep().live()) << context << ": S4.POISON.10: still live after poison";
  if (want_kind != 0) {
    EXPECT_EQ(kind(), want_kind) << context << ": want " << wire::kind_name(want_kind)
                                 << ", saw " << wire::kind_name(kind()) << ": "
                                 << Api::message(ep());
  } else {
    EXPECT_NE(kind(), wire::kKindNone) << context << ": poisoned without an error kind";
  }
  EXPECT_EQ(peer().l2_flag(), 1) << context
                                 << ": S4.POISON.11/W.FLAG.1: a local poison sets the L2 abort "
                                    "flag (offset 320) to 1";
  const size_t sets = log().count([](const spsq_conf::Access& a) {
    return a.kind == AccessKind::kNotify && a.offset == wire::kPeerFlag;
  });
  EXPECT_EQ(sets, 1u) << context << ": W.FLAG.1: the abort flag is Set exactly once";
  EXPECT_NE(Api::message(ep())[0], '\0') << context << ": W.ERR.1: empty error message";
  EXPECT_EQ(op(), want_op) << context << ": W.ENUM.3: error().op names the poisoning call: want "
                           << want_op << ", saw " << op();
}

void L2Test::RecordKind(const char* cause) {
  record_observation(std::string("kind.") + cause, wire::kind_name(kind()));
}

void L2Test::NoteKind(const char* cause, std::initializer_list<uint32_t> reading_a) {
  RecordKind(cause);
  const uint32_t k = kind();
  if (k == wire::kKindNone) return;
  for (uint32_t a : reading_a) {
    if (k == a) return;
  }
  SPSQ_READING("AMB.KINDS", "B", std::string(cause) + ": " + wire::kind_name(k));
}

}  // namespace spsq_conf
