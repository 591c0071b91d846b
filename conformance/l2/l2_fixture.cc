#include "conformance/l2/l2_fixture.h"

#include <cinttypes>
#include <cstdarg>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "conformance/harness/region_decoder.h"

namespace spsq_conf {
namespace {

// Shadow tracking doubles memory and costs a scan per view call: keep it for
// the small regions nearly every test uses.
constexpr uint64_t kShadowLimit = 1 << 20;

std::string format(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* f, ...) {
  char text[512];
  va_list args;
  va_start(args, f);
  std::vsnprintf(text, sizeof(text), f, args);
  va_end(args);
  return text;
}

bool overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) {
  return an != 0 && bn != 0 && a < b + bn && b < a + an;
}

}  // namespace

Queue::Queue(QueueParams p) : params_(p) {
  if (!wire::compute_layout(p.depth, p.input_arena, p.output_arena, &layout_)) {
    std::fprintf(stderr, "Queue: harness bug: no layout for depth %" PRIu64 "\n", p.depth);
    std::abort();
  }
  memory_.reset(new RegionMemory(layout_.payload_bytes, wire::kCounterBytes));
  if (p.shadow && layout_.payload_bytes <= kShadowLimit) memory_->enable_shadow();
  view_state_.memory = memory_.get();
  view_state_.payload_span = layout_.payload_bytes;
  view_state_.counter_span = wire::kCounterBytes;
  view_state_.log = &log_;
  view_state_.faults = &faults_;
  peer_.reset(new ScriptedL3(memory_.get(), layout_));
}

wire::BindingFields Queue::fields() const {
  wire::BindingFields f;
  f.session_instance_id_bits = params_.session;
  f.transaction_id = params_.transaction;
  f.payload_base = reinterpret_cast<uint64_t>(memory_->payload());
  f.payload_bytes = layout_.payload_bytes;
  f.counter_base = reinterpret_cast<uint64_t>(memory_->counter());
  f.counter_bytes = wire::kCounterBytes;
  f.depth = params_.depth;
  f.input_arena_bytes = params_.input_arena;
  f.output_arena_bytes = params_.output_arena;
  return f;
}

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

void Queue::l2_store(uint8_t* dst, const void* src, uint64_t n) {
  if (n == 0) return;
  const uint8_t* base = memory_->payload();
  const uint64_t lo = layout_.output_arena;
  const uint64_t hi = lo + layout_.output_arena_bytes;
  if (dst == nullptr || dst < base + lo || dst > base + hi || n > static_cast<uint64_t>(base + hi - dst)) {
    ADD_FAILURE() << "S2.FIT.1: the reservation's writable span (" << static_cast<void*>(dst)
                  << ", " << n << " bytes) is not inside the output arena";
    return;
  }
  std::memcpy(dst, src, n);
  const uint64_t off = static_cast<uint64_t>(dst - base);
  memory_->sync_shadow(RegionMemory::kPayload, off, n);
  Access a;
  a.kind = AccessKind::kL2CodeStore;
  a.offset = off;
  a.nbytes = n;
  a.time_ns = VirtualClock::peek();
  log_.add(a);
}

void Queue::check_invariants(const char* who, std::set<std::string>* violated) {
  std::set<std::string> local;
  if (violated == nullptr) violated = &local;
  for (const std::string& v : view_state_.violations) {
    ADD_FAILURE() << who << ": W.VIEW.1/S0.REGION.1: contract misuse through the view: " << v;
    violated->insert("W.VIEW.1");
    violated->insert("S0.REGION.1");
  }
  std::string why;
  if (!memory_->guards_intact(&why)) {
    ADD_FAILURE() << who << ": S0.REGION.1: a store landed outside the region: " << why;
    violated->insert("S0.REGION.1");
  }
  // Drain stores made since the last view call, then judge the whole log.
  if (memory_->shadow_enabled()) {
    for (const RegionMemory::Change& c : memory_->take_unaccounted_changes()) {
      Access a;
      a.kind = AccessKind::kUnaccountedStore;
      a.part = c.part;
      a.offset = c.offset;
      a.nbytes = c.nbytes;
      log_.add(a);
    }
  }
  const wire::Layout& l = layout_;
  for (size_t i = 0; i < log_.size(); ++i) {
    const Access& a = log_[i];
    if (a.kind == AccessKind::kUnaccountedStore) {
      ADD_FAILURE() << who << ": W.VIEW.1: shared memory changed without a view write "
                    << "(nothing flushed it): " << a.describe();
      violated->insert("W.VIEW.1");
    } else if (a.kind == AccessKind::kNotify && a.ok) {
      const bool l2_slot = a.offset == wire::kInputHead || a.offset == wire::kOutputTail ||
                           a.offset == wire::kPeerFlag;
      if (!l2_slot) {
        ADD_FAILURE() << who << ": W.FLAG.3/S3.SIG.1: L2 wrote counter offset " << a.offset
                      << ", whose writer is L3: " << a.describe();
        violated->insert("W.FLAG.3");
        violated->insert("S3.SIG.1");
      } else if (a.op != 0) {
        ADD_FAILURE() << who << ": W.CTR.1: L2 updated counter offset " << a.offset
                      << " with op " << a.op << ", not a plain Set";
        violated->insert("W.CTR.1");
      }
    } else if (a.kind == AccessKind::kWrite && a.ok) {
      if (overlaps(a.offset, a.nbytes, l.input_ring, l.ring_bytes) ||
          overlaps(a.offset, a.nbytes, l.input_arena, l.input_arena_bytes)) {
        ADD_FAILURE() << who << ": S2.ARENA.1: L2 wrote input-direction memory (producer is L3): "
                      << a.describe();
        violated->insert("S2.ARENA.1");
      }
    }
  }
  for (const std::string& v : peer_->violations()) {
    ADD_FAILURE() << who << ": L3 saw: " << v;
    violated->insert(v.substr(0, v.find(':')));  // each starts with its clause ID
  }
}

std::string Queue::describe() const {
  const DecodedRegion r = decode_region(memory_->payload(), memory_->payload_bytes(),
                                        memory_->counter(), memory_->counter_bytes(),
                                        params_.depth, params_.input_arena, params_.output_arena);
  std::string s = region_to_text(r);
  const size_t n = log_.size();
  const size_t from = n > 40 ? n - 40 : 0;
  s += format("view log (last %zu of %zu):\n", n - from, n);
  s += log_.dump(from);
  return s;
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
  SPSQ_INVARIANTS("W.VIEW.1", "S0.REGION.1", "S2.ARENA.1", "W.FLAG.3", "W.CTR.1", "S3.SIG.1");
  std::string broken;
  for (const std::string& id : violated_) broken += (broken.empty() ? "" : ",") + id;
  if (!broken.empty()) RecordProperty("invariant_violations", broken);
  if (HasFailure()) {
    const std::string text = queue_->describe();
    std::printf("---- region at failure (spsq inspect) ----\n%s", text.c_str());
    RecordProperty("region", text);
    const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
    const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
    if (dir != nullptr && t != nullptr) {
      const std::string base = std::string(dir) + "/" + t->test_suite_name() + "." + t->name();
      std::ofstream(base + ".region", std::ios::binary) << q().memory().dump();
      std::ofstream(base + ".region.args")
          << "--depth " << q().params().depth << " --input-arena " << q().params().input_arena
          << " --output-arena " << q().params().output_arena << "\n";
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

void L2Test::ExpectPoisoned(uint32_t want_kind, const char* context) {
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
}

void L2Test::RecordKind(const char* cause) {
  record_observation(std::string("kind.") + cause, wire::kind_name(kind()));
}

}  // namespace spsq_conf
