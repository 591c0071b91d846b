#include "conformance/l2/l2_fixture.h"

#include <cinttypes>
#include <cstdarg>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "model/region_decoder.h"

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
  l2_adapter::set_fields(&b, f);
  return b;
}

std::unique_ptr<Endpoint> Queue::make_endpoint_from(const Binding& b, uint64_t n) {
  std::unique_ptr<Endpoint> e = l2_adapter::make(n, b, view());
  if (e == nullptr) {
    // A suite defect, not the endpoint's: every window a test asks for is one
    // the adapter builds (l2_adapter::builds_window).
    std::fprintf(stderr, "suite: MaxInflight %" PRIu64 " is not built by the adapter\n", n);
    std::abort();
  }
  return e;
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
    endpoint_ = queue_->make_endpoint(kN);
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
  // Live is what the caller's clause demands (this call is no poison); the
  // kind and the flag of a live endpoint are judged apart, and only once it is
  // live, so a poison FAILs the caller's clause and not these too.
  ASSERT_TRUE(ep().live()) << context << ": endpoint not live: " << Api::message(ep());
  {
    SPSQ_JUDGING("S3.TO.5");
    EXPECT_EQ(kind(), wire::kKindNone)
        << context << ": ordinary no-progress must leave error().kind NONE (S3.TO.5); saw "
        << wire::kind_name(kind()) << ": " << Api::message(ep());
  }
  {
    SPSQ_JUDGING("W.FLAG.1/l2");
    EXPECT_EQ(peer().l2_flag(), 0) << context << ": L2 abort flag raised without a poison";
  }
}

void L2Test::ExpectPoisoned(uint32_t want_kind, uint32_t want_op, const char* context) {
  // Not live and the kind: the poison itself, judged by the caller's clause
  // (its cause). The flag, the message and the op describe a poison, so they
  // are judged apart and only once there is one.
  ASSERT_FALSE(ep().live()) << context << ": still live: the call did not poison";
  if (want_kind != 0) {
    EXPECT_EQ(kind(), want_kind) << context << ": want " << wire::kind_name(want_kind)
                                 << ", saw " << wire::kind_name(kind()) << ": "
                                 << Api::message(ep());
  } else {
    EXPECT_NE(kind(), wire::kKindNone) << context << ": poisoned without an error kind";
  }
  {
    SPSQ_JUDGING("S4.POISON.11/l2-first");
    EXPECT_EQ(peer().l2_flag(), 1) << context
                                   << ": S4.POISON.11: a local poison sets the L2 abort "
                                      "flag (offset 320) to 1";
  }
  {
    SPSQ_JUDGING("W.FLAG.1/l2", "S4.POISON.11/l2-repeat");
    const size_t sets = log().count([](const spsq_conf::Access& a) {
      return a.kind == AccessKind::kNotify && a.offset == wire::kPeerFlag;
    });
    EXPECT_EQ(sets, 1u) << context << ": W.FLAG.1: the abort flag is Set exactly once";
  }
  {
    SPSQ_JUDGING("W.ERR.1/poison");
    EXPECT_NE(Api::message(ep())[0], '\0') << context << ": W.ERR.1: empty error message";
  }
  const auto expect_op = [&] {
    EXPECT_EQ(op(), want_op) << context
                             << ": W.ENUM.3: error().op names the poisoning call: want "
                             << want_op << ", saw " << op();
  };
  // One block per call, so the op judges its own case of W.ENUM.3.
  switch (want_op) {
    case wire::kOpInputTryPeek: {
      SPSQ_JUDGING("W.ENUM.3/try-peek");
      expect_op();
      break;
    }
    case wire::kOpInputRelease: {
      SPSQ_JUDGING("W.ENUM.3/release");
      expect_op();
      break;
    }
    case wire::kOpOutputTryReserve: {
      SPSQ_JUDGING("W.ENUM.3/try-reserve");
      expect_op();
      break;
    }
    case wire::kOpOutputPublish: {
      SPSQ_JUDGING("W.ENUM.3/publish");
      expect_op();
      break;
    }
    default: {
      SPSQ_JUDGING("W.ENUM.3");
      expect_op();
    }
  }
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
