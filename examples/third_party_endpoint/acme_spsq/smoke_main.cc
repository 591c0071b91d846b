// Self-check of the independent L2 endpoint without Bazel (not in BUILD):
//
//   g++ -std=c++17 -Wall -Wextra -Werror -O2 -pthread
//       -I selftest/variants/independent/include
//       selftest/variants/independent/smoke_main.cc -o /tmp/spsq_smoke
//   /tmp/spsq_smoke   (same with clang++-14)
//
// Maps the PAYLOAD and COUNTER parts between guard pages and plays the L3
// peer directly on the wire bytes (its own LE codec and arena arithmetic,
// not the endpoint's), so a disagreement about the wire shows up here.
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "aicpu/region_instance_view.h"
#include "common/region_template.h"

namespace {

using spsc_queue::SpscQueueErrorKind;
using spsc_queue::SpscQueueOp;
using spsc_queue::SpscQueueOpcode;

int g_checks = 0;
int g_failures = 0;

#define CHECK(cond)                                                          \
  do {                                                                       \
    ++g_checks;                                                              \
    if (!(cond)) {                                                           \
      ++g_failures;                                                          \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                        \
  } while (0)

uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}
const spsc_queue::MonotonicClock kClock{&now_ns};

// `bytes` of memory that end exactly at a PROT_NONE page (and start after
// one), so any access past a span's end faults.
class GuardedBytes {
 public:
  explicit GuardedBytes(uint64_t bytes) {
    page_ = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    pages_ = (bytes + page_ - 1) / page_ + 2;
    void* m = mmap(nullptr, pages_ * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (m == MAP_FAILED) std::abort();
    map_ = static_cast<uint8_t*>(m);
    mprotect(map_, page_, PROT_NONE);
    mprotect(map_ + (pages_ - 1) * page_, page_, PROT_NONE);
    base_ = map_ + (pages_ - 1) * page_ - bytes;
  }
  ~GuardedBytes() { munmap(map_, pages_ * page_); }
  GuardedBytes(const GuardedBytes&) = delete;
  GuardedBytes& operator=(const GuardedBytes&) = delete;
  uint8_t* data() const { return base_; }

 private:
  uint64_t page_ = 0, pages_ = 0;
  uint8_t* map_ = nullptr;
  uint8_t* base_ = nullptr;
};

void put_le64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// One queue region plus the L3 peer, played on the raw bytes.
class Wire {
 public:
  Wire(uint64_t depth, uint64_t in_arena, uint64_t out_arena, uint64_t session = 0x5e55,
       uint64_t txn = 0x7a11)
      : depth_(depth), in_arena_(in_arena), out_arena_(out_arena),
        in_ring_(0), out_ring_(depth * 32),
        in_arena_off_((2 * depth * 32 + 63) / 64 * 64),
        out_arena_off_((in_arena_off_ + in_arena + 63) / 64 * 64),
        payload_bytes_(out_arena_off_ + out_arena),
        payload_(payload_bytes_), counters_(384) {
    const uint64_t scalars[10] = {0x5350535100010000ull,
                                  session,
                                  txn,
                                  reinterpret_cast<uintptr_t>(payload_.data()),
                                  payload_bytes_,
                                  reinterpret_cast<uintptr_t>(counters_.data()),
                                  384,
                                  depth,
                                  in_arena,
                                  out_arena};
    std::memcpy(scalars_, scalars, sizeof(scalars_));
    if (!spsc_queue::decode_endpoint_binding(scalars_, 10, &binding_)) std::abort();
  }

  const spsc_queue::SpscQueueEndpointBinding& binding() const { return binding_; }
  const uint64_t* scalars() const { return scalars_; }
  RegionInstanceView view() const {
    return RegionInstanceView(RegionPartLocalSpan{binding_.payload_base, binding_.payload_bytes},
                              RegionPartLocalSpan{binding_.counter_base, binding_.counter_bytes});
  }
  uint8_t* payload() const { return payload_.data(); }
  uint64_t in_arena_offset() const { return in_arena_off_; }
  uint64_t out_arena_offset() const { return out_arena_off_; }

  int32_t load(uint64_t off) const {
    return __atomic_load_n(reinterpret_cast<int32_t*>(counters_.data() + off), __ATOMIC_ACQUIRE);
  }
  void store(uint64_t off, int32_t v) {
    __atomic_store_n(reinterpret_cast<int32_t*>(counters_.data() + off), v, __ATOMIC_RELEASE);
  }
  int32_t peer_abort() const { return load(320); }
  int32_t input_head_raw() const { return load(64); }

  // L3 input producer: places by the arena rule, honours ring and arena room
  // against L2's published head (including the idle-arena liveness rule).
  // `seq_delta` / `offset_delta` corrupt the descriptor on purpose.
  bool push(SpscQueueOpcode op, const std::vector<uint8_t>& bytes, int64_t seq_delta = 0,
            int64_t offset_delta = 0, uint64_t raw_opcode = 0) {
    const uint64_t n = bytes.size();
    const uint64_t head = in_head();
    if (in_tail_ - head >= depth_) return false;
    const uint64_t released = head == 0 ? 0 : in_end_[head - 1];
    uint64_t cursor = in_cursor_;
    uint64_t offset = 0;
    if (n != 0) {
      uint64_t pos = cursor % in_arena_;
      if (pos + n > in_arena_) {
        cursor += in_arena_ - pos;
        pos = 0;
      }
      cursor += n;
      if (released != in_cursor_ && cursor - released > in_arena_) return false;
      offset = in_arena_off_ + pos;
      std::memcpy(payload_.data() + offset, bytes.data(), n);
    }
    uint8_t* d = payload_.data() + in_ring_ + (in_tail_ % depth_) * 32;
    put_le64(d + 8, raw_opcode != 0 ? raw_opcode : static_cast<uint64_t>(op));
    put_le64(d + 16, offset + static_cast<uint64_t>(offset_delta));
    put_le64(d + 24, n);
    put_le64(d + 0, in_tail_ + 1 + static_cast<uint64_t>(seq_delta));
    ++in_tail_;
    in_cursor_ = cursor;
    in_end_.push_back(cursor);
    store(0, static_cast<int32_t>(static_cast<uint32_t>(in_tail_)));
    return true;
  }
  bool push_data(const std::vector<uint8_t>& bytes) { return push(SpscQueueOpcode::DATA, bytes); }
  bool push_stop() { return push(SpscQueueOpcode::STOP, {}); }

  struct Output {
    uint64_t opcode = 0;
    uint64_t offset = 0;
    std::vector<uint8_t> bytes;
  };
  // L3 output consumer: validates seq and the arena replay, copies, releases.
  bool pop(Output* out, bool release = true) {
    out_tail_seen_ += static_cast<uint32_t>(load(128)) - static_cast<uint32_t>(out_tail_seen_);
    const uint64_t tail = out_tail_seen_;
    if (out_head_ == tail) return false;
    const uint8_t* d = payload_.data() + out_ring_ + (out_head_ % depth_) * 32;
    const uint64_t seq = get_le64(d), op = get_le64(d + 8), off = get_le64(d + 16),
                   n = get_le64(d + 24);
    CHECK(seq == out_head_ + 1);
    CHECK(op == 1 || op == 3);
    if (n == 0) {
      CHECK(off == 0);
    } else {
      uint64_t pos = out_cursor_ % out_arena_;
      if (pos + n > out_arena_) {
        out_cursor_ += out_arena_ - pos;
        pos = 0;
      }
      out_cursor_ += n;
      CHECK(off == out_arena_off_ + pos);
    }
    out->opcode = op;
    out->offset = off;
    out->bytes.assign(payload_.data() + off, payload_.data() + off + n);
    ++out_head_;
    if (release) store(192, static_cast<int32_t>(static_cast<uint32_t>(out_head_)));
    return true;
  }
  void release_outputs() { store(192, static_cast<int32_t>(static_cast<uint32_t>(out_head_))); }
  uint64_t out_head() const { return out_head_; }

 private:
  uint64_t in_head() {
    const uint32_t d = static_cast<uint32_t>(load(64)) - static_cast<uint32_t>(in_head_seen_);
    in_head_seen_ += d;
    return in_head_seen_;
  }

  uint64_t depth_, in_arena_, out_arena_, in_ring_, out_ring_, in_arena_off_, out_arena_off_,
      payload_bytes_;
  GuardedBytes payload_;
  GuardedBytes counters_;
  uint64_t scalars_[10] = {};
  spsc_queue::SpscQueueEndpointBinding binding_{};
  uint64_t in_tail_ = 0, in_cursor_ = 0, in_head_seen_ = 0;
  std::vector<uint64_t> in_end_;  // L3's arena cursor after each input
  uint64_t out_head_ = 0, out_cursor_ = 0, out_tail_seen_ = 0;
};

std::vector<uint8_t> pattern(uint64_t n, uint8_t salt) {
  std::vector<uint8_t> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 7 + salt);
  return v;
}

const uint8_t* ptr(const spsc_queue::SpscQueuePayloadView& p) {
  return reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(p.local_addr));
}
uint8_t* wptr(const spsc_queue::SpscQueuePayloadView& p) {
  return reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(p.local_addr));
}

template <class Q>
bool kind_is(const Q& q, SpscQueueErrorKind k) {
  return q.error().kind == k;
}

// A view of the contract's shape that is not RegionInstanceView: template
// out-parameters and enums, its own span type, and a count of every call
// that can reach shared memory.
class CountingView {
 public:
  struct Span {
    uint64_t base = 0;
    uint64_t logical_bytes = 0;
    operator RegionPartLocalSpan() const { return RegionPartLocalSpan{base, logical_bytes}; }
  };
  CountingView(RegionInstanceView inner, int* calls) : inner_(std::move(inner)), calls_(calls) {}
  bool failed() const { return inner_.failed(); }
  const RegionViewError& error() const { return inner_.error(); }

  class Payload {
   public:
    explicit Payload(CountingView* v) : v_(v) {}
    Span span() const {
      const RegionPartLocalSpan s = v_->inner_.payload().span();
      return Span{s.base, s.logical_bytes};
    }
    template <class Out>
    bool read(uint64_t off, uint64_t n, Out& out) {
      ++*v_->calls_;
      return v_->inner_.payload().read(off, n, out);
    }
    bool write(uint64_t off, const void* src, uint64_t n) {
      ++*v_->calls_;
      return v_->inner_.payload().write(off, src, n);
    }

   private:
    CountingView* v_;
  };
  class Counter {
   public:
    explicit Counter(CountingView* v) : v_(v) {}
    Span span() const {
      const RegionPartLocalSpan s = v_->inner_.counter().span();
      return Span{s.base, s.logical_bytes};
    }
    template <class Op>
    bool notify(uint64_t off, int32_t value, Op op) {
      ++*v_->calls_;
      return v_->inner_.counter().notify(off, value, static_cast<RegionNotifyOp>(op));
    }
    template <class Cmp, class Sample>
    bool test(uint64_t off, int32_t value, Cmp cmp, Sample& s) {
      ++*v_->calls_;
      return v_->inner_.counter().test(off, value, static_cast<RegionWaitCmp>(cmp), s);
    }
    template <class Cmp>
    bool wait(uint64_t off, int32_t value, Cmp cmp, uint64_t timeout_ns, int32_t& observed) {
      ++*v_->calls_;
      return v_->inner_.counter().wait(off, value, static_cast<RegionWaitCmp>(cmp), timeout_ns,
                                       observed);
    }

   private:
    CountingView* v_;
  };
  Payload payload() { return Payload(this); }
  Counter counter() { return Counter(this); }

 private:
  RegionInstanceView inner_;
  int* calls_;
};

// ---- the spec's L2 snippet, verbatim --------------------------------------

struct FakeOrchArgs {
  const uint64_t* values;
  uint64_t scalar(int32_t i) const { return values[i]; }
};

bool g_snippet_live = false;

void spec_snippet_default(const FakeOrchArgs& orch_args, spsc_queue::MonotonicClock clock) {
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
  g_snippet_live = true;
}

void spec_snippet_window(const FakeOrchArgs& orch_args, spsc_queue::MonotonicClock clock) {
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
      RegionPartLocalSpan{binding.counter_base, binding.counter_bytes});
spsc_queue::SpscQueueEndpoint<RegionInstanceView, 4> queue(binding, std::move(view), clock);
  g_snippet_live = queue.live();
}

// ---- tests -----------------------------------------------------------------

void test_wire_vocabulary() {
  using spsc_queue::SpscQueueLayout;
  struct Golden { uint64_t depth, in, out, out_ring, in_arena, out_arena, payload; };
  const Golden golden[] = {{1, 64, 64, 32, 64, 128, 192},
                           {4, 128, 192, 128, 256, 384, 576},
                           {8, 192, 64, 256, 512, 704, 768},
                           {2, 64, 128, 64, 128, 192, 320}};
  for (const Golden& g : golden) {
    SpscQueueLayout l;
    CHECK(SpscQueueLayout::create(g.depth, g.in, g.out, &l));
    CHECK(l.output_desc_offset == g.out_ring && l.input_arena_offset == g.in_arena &&
          l.output_arena_offset == g.out_arena && l.payload_bytes == g.payload &&
          l.counter_bytes == 384 && l.peer_abort_offset == 320);
  }
  SpscQueueLayout l;
  CHECK(!SpscQueueLayout::create(3, 64, 64, &l));
  CHECK(!SpscQueueLayout::create(0, 64, 64, &l));
  CHECK(!SpscQueueLayout::create(uint64_t{1} << 31, 64, 64, &l));
  CHECK(!SpscQueueLayout::create(4, 96, 64, &l));
  CHECK(!SpscQueueLayout::create(4, UINT64_MAX - 63, 64, &l));  // overflow
  CHECK(spsc_queue::kSpscQueueMagicVersion == 0x5350535100010000ull);

  uint8_t raw[32];
  spsc_queue::SpscQueueDescriptor d{7, 1, 0x1234, 48};
  spsc_queue::encode_descriptor(d, raw);
  CHECK(get_le64(raw) == 7 && get_le64(raw + 8) == 1 && get_le64(raw + 16) == 0x1234 &&
        get_le64(raw + 24) == 48);
  const spsc_queue::SpscQueueDescriptor e = spsc_queue::decode_descriptor(raw);
  CHECK(e.seq == 7 && e.opcode == 1 && e.payload_offset == 0x1234 && e.payload_nbytes == 48);

  uint64_t v = 0;
  CHECK(spsc_queue::reconstruct_counter(0xfffffffeull, 1, 4, &v) && v == 0x100000001ull);
  CHECK(!spsc_queue::reconstruct_counter(10, 9, 4, &v));   // backwards
  CHECK(!spsc_queue::reconstruct_counter(10, 15, 4, &v));  // more than depth
  CHECK(spsc_queue::counter_low32(0x1ffffffffull) == -1);

  uint64_t scalars[10] = {0x5350535100010000ull, 0, 1, 2, 3, 4, 5, 6, 7, 8};
  spsc_queue::SpscQueueEndpointBinding b{};
  CHECK(spsc_queue::decode_endpoint_binding(scalars, 10, &b) && b.output_arena_bytes == 8);
  CHECK(!spsc_queue::decode_endpoint_binding(scalars, 9, &b));
  scalars[2] = 0;
  CHECK(!spsc_queue::decode_endpoint_binding(scalars, 10, &b));
  scalars[2] = 1;
  scalars[0] = 0x5350535100010001ull;
  CHECK(!spsc_queue::decode_endpoint_binding(scalars, 10, &b));
  uint64_t back[10] = {};
  CHECK(spsc_queue::encode_endpoint_binding(b, back, 10) && back[9] == 8 && back[2] == 1);
}

void test_view() {
  Wire w(4, 128, 128);
  RegionInstanceView view = w.view();
  CHECK(!view.failed());
  struct PtrOut { const uint8_t* local_addr; size_t nbytes; } p{};
  CHECK(view.payload().read(8, 16, p) && p.local_addr == w.payload() + 8 && p.nbytes == 16);
  RegionPayloadView iv{};
  CHECK(view.payload().read(w.binding().payload_bytes, 0, iv));
  struct Sample { bool matched; int32_t observed; } s{};
  CHECK(view.counter().notify(64, 41, RegionNotifyOp::Set));
  CHECK(view.counter().notify(64, 1, RegionNotifyOp::Add));
  CHECK(view.counter().test(64, 42, RegionWaitCmp::EQ, s) && s.matched && s.observed == 42);
  int32_t observed = 0;
  const uint64_t t0 = now_ns();
  CHECK(!view.counter().wait(64, 42, RegionWaitCmp::NE, 5000000, observed) && observed == 42);
  CHECK(now_ns() - t0 >= 5000000);
  CHECK(!view.failed() && view.error().kind == RegionViewErrorKind::TIMEOUT);
  CHECK(view.counter().notify(64, 0, RegionNotifyOp::Set));
  RegionInstanceView moved(std::move(view));
  CHECK(!moved.failed());
  CHECK(!moved.payload().read(w.binding().payload_bytes - 8, 16, iv));  // out of bounds
  CHECK(moved.failed() && moved.error().kind == RegionViewErrorKind::OUT_OF_BOUNDS &&
        moved.error().op == RegionViewOp::PAYLOAD_READ);
  CHECK(!moved.counter().test(0, 0, RegionWaitCmp::EQ, s));  // sticky
  RegionInstanceView bad(RegionPartLocalSpan{0, 64}, RegionPartLocalSpan{0, 384});
  CHECK(bad.failed() && bad.error().kind == RegionViewErrorKind::INVALID_VIEW &&
        bad.error().op == RegionViewOp::CONSTRUCT);
}

void test_spec_snippet() {
  Wire w(4, 1 << 10, 1 << 10);
  const FakeOrchArgs args{w.scalars()};
  g_snippet_live = false;
  spec_snippet_default(args, kClock);
  CHECK(g_snippet_live);
  g_snippet_live = false;
  spec_snippet_window(args, kClock);
  CHECK(g_snippet_live);
  CHECK(w.peer_abort() == 0);
}

// Echo with zero-byte messages and arena wrap (skip) in both directions.
void test_echo() {
  Wire w(4, 128, 128);
  spsc_queue::SpscQueueEndpoint<RegionInstanceView> q(w.binding(), w.view(), kClock);
  CHECK(q.live());
  CHECK(q.layout().input_arena_offset == w.in_arena_offset() &&
        q.layout().output_arena_offset == w.out_arena_offset());
  // 48 @0, 0, 48 @48, 48 skips to @0 (96 + 48 > 128), 128 = whole arena, ...
  const uint64_t sizes[] = {48, 0, 48, 48, 0, 128, 1, 127, 64, 65, 0, 0, 100, 28, 64, 64};
  size_t sent = 0, echoed = 0, received = 0;
  const size_t total = sizeof(sizes) / sizeof(sizes[0]);
  std::vector<uint64_t> input_offsets;
  uint64_t last_wrap_checks = 0;
  while (received < total) {
    while (sent < total && w.push_data(pattern(sizes[sent], static_cast<uint8_t>(sent)))) ++sent;
    spsc_queue::SpscQueueInputHandle h;
    if (q.input().try_peek(h)) {
      CHECK(h.seq == echoed + 1 && h.opcode == SpscQueueOpcode::DATA);
      CHECK(h.payload_nbytes == sizes[echoed] && h.payload.nbytes == sizes[echoed]);
      if (h.payload_nbytes != 0) {
        CHECK(ptr(h.payload) == w.payload() + h.payload_offset);
      } else {
        CHECK(h.payload_offset == 0);
      }
      input_offsets.push_back(h.payload_offset);
      spsc_queue::SpscQueueOutputReservation r;
      CHECK(q.output().reserve(h.payload_nbytes, 1000000000ull, r));
      CHECK(r.valid && r.seq == echoed + 1 && r.payload_nbytes == h.payload_nbytes);
      for (uint64_t i = 0; i < h.payload_nbytes; ++i) wptr(r.payload)[i] = ptr(h.payload)[i] ^ 0xff;
      CHECK(q.output().publish(r, echoed % 5 == 4 ? SpscQueueOpcode::ERROR : SpscQueueOpcode::DATA));
      CHECK(q.input().release(h));
      ++echoed;
    }
    Wire::Output o;
    while (w.pop(&o)) {
      std::vector<uint8_t> want = pattern(sizes[received], static_cast<uint8_t>(received));
      for (auto& b : want) b ^= 0xff;
      CHECK(o.bytes == want);
      CHECK(o.opcode == (received % 5 == 4 ? 3u : 1u));
      ++received;
      ++last_wrap_checks;
    }
    CHECK(q.live());
    if (!q.live()) break;
  }
  CHECK(received == total);
  // The 4th input (48 bytes at cursor 96) skipped to the arena start.
  CHECK(input_offsets.size() > 3 && input_offsets[2] == w.in_arena_offset() + 48 &&
        input_offsets[3] == w.in_arena_offset());
  CHECK(q.error().kind == SpscQueueErrorKind::NONE && w.peer_abort() == 0);

  // OPEN.ERRIN, reading A: an input ERROR is a normal message.
  CHECK(w.push(SpscQueueOpcode::ERROR, pattern(24, 9)));
  spsc_queue::SpscQueueInputHandle e;
  CHECK(q.input().try_peek(e) && e.opcode == SpscQueueOpcode::ERROR && e.payload_nbytes == 24);
  CHECK(std::memcmp(ptr(e.payload), pattern(24, 9).data(), 24) == 0);
  CHECK(q.input().release(e) && q.live() && w.peer_abort() == 0);
}

// MaxInflight 4: out-of-order release, FIFO-prefix head, STOP drain, and a
// descriptor after STOP poisoning.
void test_window_and_stop() {
  Wire w(8, 1024, 1024);
  spsc_queue::SpscQueueEndpoint<RegionInstanceView, 4> q(w.binding(), w.view(), kClock);
  CHECK(q.live());
  for (int i = 0; i < 5; ++i) CHECK(w.push_data(pattern(16, static_cast<uint8_t>(i))));
  CHECK(w.push_stop());
  spsc_queue::SpscQueueInputHandle h[6];
  for (int i = 0; i < 4; ++i) CHECK(q.input().try_peek(h[i]) && h[i].seq == uint64_t(i) + 1);
  spsc_queue::SpscQueueInputHandle extra;
  CHECK(!q.input().try_peek(extra) && q.live());  // window full, next is DATA
  CHECK(q.input().release(h[2]) && w.input_head_raw() == 0);  // logical only
  CHECK(q.input().release(h[0]) && w.input_head_raw() == 1);
  CHECK(q.input().release(h[1]) && w.input_head_raw() == 3);  // prefix 0,1,2
  CHECK(q.input().try_peek(h[4]) && h[4].seq == 5);
  CHECK(q.input().try_peek(h[5]) && h[5].opcode == SpscQueueOpcode::STOP && h[5].seq == 6 &&
        h[5].payload_nbytes == 0);
  CHECK(!q.input().try_peek(extra) && q.live());  // draining, nothing after STOP
  CHECK(!q.input().drained());
  // Outputs may still be produced while draining.
  spsc_queue::SpscQueueOutputReservation r;
  CHECK(q.output().try_reserve(0, r) && q.output().publish(r, SpscQueueOpcode::DATA));
  CHECK(q.input().release(h[5]) && !q.input().drained() && w.input_head_raw() == 3);
  CHECK(q.input().release(h[3]) && w.input_head_raw() == 4 && !q.input().drained());
  CHECK(q.input().release(h[4]) && w.input_head_raw() == 6 && q.input().drained());
  CHECK(q.live() && w.peer_abort() == 0);
  CHECK(w.push_data(pattern(8, 1)));  // published after STOP
  CHECK(!q.input().try_peek(extra));
  CHECK(kind_is(q, SpscQueueErrorKind::INVALID_DESCRIPTOR) &&
        q.error().op == SpscQueueOp::INPUT_TRY_PEEK && w.peer_abort() == 1);

  // MaxInflight 1: STOP is acquired into the extra slot behind a held DATA.
  Wire w1(4, 128, 128);
  spsc_queue::SpscQueueEndpoint<RegionInstanceView> q1(w1.binding(), w1.view(), kClock);
  CHECK(w1.push_data(pattern(8, 2)) && w1.push_stop());
  spsc_queue::SpscQueueInputHandle d, s;
  CHECK(q1.input().try_peek(d) && q1.input().try_peek(s) && s.opcode == SpscQueueOpcode::STOP);
  CHECK(q1.input().release(s) && !q1.input().drained());
  CHECK(q1.input().release(d) && q1.input().drained() && w1.input_head_raw() == 2);
}

void test_hostile_inputs() {
  struct Case { const char* name; int64_t seq_delta; int64_t offset_delta; uint64_t raw_op; };
  const Case cases[] = {{"bad seq", 1, 0, 0}, {"replay offset", 0, 64, 0},
                        {"bad opcode", 0, 0, 9}, {"outside arena", 0, -64, 0}};
  for (const Case& c : cases) {
    Wire w(4, 256, 256, 0xabcdef, 0x1234567);
    spsc_queue::SpscQueueEndpoint<RegionInstanceView> q(w.binding(), w.view(), kClock);
    CHECK(w.push(SpscQueueOpcode::DATA, pattern(32, 1), c.seq_delta, c.offset_delta, c.raw_op));
    spsc_queue::SpscQueueInputHandle h;
    CHECK(!q.input().try_peek(h));
    CHECK(!q.live() && kind_is(q, SpscQueueErrorKind::INVALID_DESCRIPTOR));
    CHECK(q.error().op == SpscQueueOp::INPUT_TRY_PEEK);
    CHECK(q.error().session_instance_id_bits == 0xabcdef && q.error().transaction_id == 0x1234567);
    CHECK(std::strstr(q.error().message, "0x0000000001234567") != nullptr);
    CHECK(w.peer_abort() == 1);
    // Terminal: later calls reject, the flag is not written again.
    w.store(320, 7);
    spsc_queue::SpscQueueOutputReservation r;
    CHECK(!q.input().try_peek(h) && !q.output().try_reserve(0, r) && !q.input().peek(1000, h));
    CHECK(w.peer_abort() == 7);
    std::printf("  hostile %-13s -> %s\n", c.name, q.error().message);
  }
  // Impossible tail progress (more than depth unobserved).
  Wire w(4, 256, 256);
  spsc_queue::SpscQueueEndpoint<RegionInstanceView> q(w.binding(), w.view(), kClock);
  w.store(0, 5);
  spsc_queue::SpscQueueInputHandle h;
  CHECK(!q.input().try_peek(h) && kind_is(q, SpscQueueErrorKind::INVALID_DESCRIPTOR) &&
        w.peer_abort() == 1);
  // Each step is <= depth from the last tail seen, but 8 published against
  // head 0 would overwrite slots L2 still owns.
  Wire w2(4, 256, 256);
  spsc_queue::SpscQueueEndpoint<RegionInstanceView> q2(w2.binding(), w2.view(), kClock);
  for (int i = 0; i < 4; ++i) CHECK(w2.push_data(pattern(8, 1)));
  CHECK(q2.input().try_peek(h) && q2.live());  // sees tail 4, holds input 1
  w2.store(0, 8);
  spsc_queue::SpscQueueInputHandle h2;
  CHECK(!q2.input().try_peek(h2) && kind_is(q2, SpscQueueErrorKind::INVALID_DESCRIPTOR) &&
        w2.peer_abort() == 1);
}

void test_timeouts() {
  Wire w(4, 128, 128);
  int calls = 0;
  spsc_queue::SpscQueueEndpoint<CountingView, 2> q(w.binding(), CountingView(w.view(), &calls),
                                                   kClock);
  CHECK(q.live() && calls == 0);
  spsc_queue::SpscQueueInputHandle h;
  spsc_queue::SpscQueueOutputReservation r;
  CHECK(w.push_data(pattern(8, 3)));
  CHECK(!q.input().peek(0, h) && !q.output().reserve(8, 0, r));
  CHECK(calls == 0 && q.live() && kind_is(q, SpscQueueErrorKind::NONE));
  CHECK(q.input().peek(1000000, h) && calls > 0);
  CHECK(q.input().release(h));
  // Empty input: a positive timeout ends at its deadline, not poison.
  uint64_t t0 = now_ns();
  CHECK(!q.input().peek(20000000, h));
  uint64_t took = now_ns() - t0;
  CHECK(took >= 20000000 && took < 500000000);
  CHECK(q.live() && kind_is(q, SpscQueueErrorKind::NONE));
  // Output ring full (depth 4, L3 does not release): backpressure, not poison.
  for (int i = 0; i < 4; ++i) {
    CHECK(q.output().try_reserve(0, r) && q.output().publish(r, SpscQueueOpcode::DATA));
  }
  CHECK(!q.output().try_reserve(0, r) && q.live());
  t0 = now_ns();
  CHECK(!q.output().reserve(0, 10000000, r) && q.live() && now_ns() - t0 >= 10000000);
  // Huge timeout: the deadline saturates instead of wrapping into the past.
  Wire::Output o;
  std::thread releaser([&] {
    usleep(20000);
    while (w.pop(&o)) {
    }
  });
  const bool unblocked =
      q.output().reserve(0, UINT64_MAX, r) && q.output().publish(r, SpscQueueOpcode::DATA);
  releaser.join();  // before CHECK: the releaser's pop() checks too
  CHECK(unblocked);
  // Initiator abort seen after an expired wait: REMOTE_ABORTED, own flag untouched.
  w.store(256, 1);
  CHECK(!q.input().peek(5000000, h));
  CHECK(!q.live() && kind_is(q, SpscQueueErrorKind::REMOTE_ABORTED) &&
        q.error().op == SpscQueueOp::TIMEOUT && w.peer_abort() == 0);
  std::printf("  remote abort -> %s\n", q.error().message);
}

void test_construction() {
  Wire w(2, 128, 128);
  int calls = 0;
  spsc_queue::SpscQueueEndpointBinding b = w.binding();
  b.magic_version ^= 1;
  spsc_queue::SpscQueueEndpoint<CountingView> q1(b, CountingView(w.view(), &calls), kClock);
  CHECK(!q1.live() && kind_is(q1, SpscQueueErrorKind::BAD_BINDING) &&
        q1.error().op == SpscQueueOp::INIT && q1.error().transaction_id == 0);
  b = w.binding();
  b.payload_bytes += 64;
  spsc_queue::SpscQueueEndpoint<CountingView> q2(b, CountingView(w.view(), &calls), kClock);
  CHECK(kind_is(q2, SpscQueueErrorKind::BAD_BINDING));
  b = w.binding();
  b.depth = 3;
  spsc_queue::SpscQueueEndpoint<CountingView> q3(b, CountingView(w.view(), &calls), kClock);
  CHECK(kind_is(q3, SpscQueueErrorKind::BAD_BINDING));
  spsc_queue::SpscQueueEndpoint<CountingView, 4> q4(w.binding(), CountingView(w.view(), &calls),
                                                    kClock);  // 4 > depth 2
  CHECK(kind_is(q4, SpscQueueErrorKind::BAD_ARGUMENT) && q4.error().op == SpscQueueOp::INIT &&
        q4.error().transaction_id == w.binding().transaction_id);
  spsc_queue::SpscQueueEndpoint<CountingView, 0> q5(w.binding(), CountingView(w.view(), &calls),
                                                    kClock);
  CHECK(kind_is(q5, SpscQueueErrorKind::BAD_ARGUMENT));
  RegionInstanceView broken(RegionPartLocalSpan{0, 0}, RegionPartLocalSpan{0, 0});
  spsc_queue::SpscQueueEndpoint<CountingView> q6(w.binding(), CountingView(broken, &calls),
                                                 kClock);
  CHECK(kind_is(q6, SpscQueueErrorKind::ENDPOINT_ERROR) && q6.error().op == SpscQueueOp::INIT);
  RegionInstanceView shifted(
      RegionPartLocalSpan{w.binding().payload_base + 64, w.binding().payload_bytes - 64},
      RegionPartLocalSpan{w.binding().counter_base, 384});
  spsc_queue::SpscQueueEndpoint<CountingView> q7(w.binding(), CountingView(shifted, &calls),
                                                 kClock);
  CHECK(kind_is(q7, SpscQueueErrorKind::BAD_BINDING));
  spsc_queue::SpscQueueEndpoint<CountingView> q8(w.binding(), CountingView(w.view(), &calls),
                                                 spsc_queue::MonotonicClock{});
  CHECK(kind_is(q8, SpscQueueErrorKind::BAD_ARGUMENT));
  spsc_queue::SpscQueueInputHandle h;
  CHECK(!q4.input().try_peek(h) && !q4.input().peek(1000, h));
  CHECK(calls == 0 && w.peer_abort() == 0);
  std::printf("  bad binding -> %s\n  bad window -> %s\n", q1.error().message, q4.error().message);
}

void test_ownership() {
  {
    Wire w(4, 128, 128);
    spsc_queue::SpscQueueEndpoint<RegionInstanceView, 2> q(w.binding(), w.view(), kClock);
    CHECK(w.push_data(pattern(8, 1)) && w.push_data(pattern(8, 2)));
    spsc_queue::SpscQueueInputHandle a, b;
    CHECK(q.input().try_peek(a) && q.input().try_peek(b));
    CHECK(q.input().release(b));
    CHECK(!q.input().release(b));  // already released (still physically owned)
    CHECK(kind_is(q, SpscQueueErrorKind::OWNERSHIP) && q.error().op == SpscQueueOp::INPUT_RELEASE &&
          w.peer_abort() == 1);
  }
  {
    Wire w(4, 128, 128);
    spsc_queue::SpscQueueEndpoint<RegionInstanceView> q(w.binding(), w.view(), kClock);
    CHECK(w.push_data(pattern(8, 1)));
    spsc_queue::SpscQueueInputHandle a;
    CHECK(q.input().try_peek(a));
    spsc_queue::SpscQueueInputHandle forged = a;
    forged.owner_cookie ^= 1;
    CHECK(!q.input().release(forged) && kind_is(q, SpscQueueErrorKind::OWNERSHIP));
  }
  {
    Wire w(4, 128, 128);
    spsc_queue::SpscQueueEndpoint<RegionInstanceView> q(w.binding(), w.view(), kClock);
    spsc_queue::SpscQueueOutputReservation r, r2;
    CHECK(q.output().try_reserve(16, r));
    CHECK(!q.output().try_reserve(16, r2) && q.live());  // one active reservation
    CHECK(q.output().publish(r, SpscQueueOpcode::DATA));
    CHECK(!q.output().publish(r, SpscQueueOpcode::DATA));  // already published
    CHECK(kind_is(q, SpscQueueErrorKind::OWNERSHIP) && q.error().op == SpscQueueOp::OUTPUT_PUBLISH &&
          w.peer_abort() == 1);
  }
  {
    Wire wa(4, 128, 128), wb(4, 128, 128);
    spsc_queue::SpscQueueEndpoint<RegionInstanceView> qa(wa.binding(), wa.view(), kClock);
    spsc_queue::SpscQueueEndpoint<RegionInstanceView> qb(wb.binding(), wb.view(), kClock);
    spsc_queue::SpscQueueOutputReservation ra, rb;
    CHECK(qa.output().try_reserve(0, ra) && qb.output().try_reserve(0, rb));
    CHECK(!qb.output().publish(ra, SpscQueueOpcode::DATA));  // cross-queue
    CHECK(kind_is(qb, SpscQueueErrorKind::OWNERSHIP) && wb.peer_abort() == 1 && qa.live() &&
          wa.peer_abort() == 0);
  }
  {
    Wire w(4, 128, 128);
    spsc_queue::SpscQueueEndpoint<RegionInstanceView> q(w.binding(), w.view(), kClock);
    spsc_queue::SpscQueueOutputReservation r;
    CHECK(q.output().try_reserve(0, r) && !q.output().publish(r, SpscQueueOpcode::STOP));
    CHECK(kind_is(q, SpscQueueErrorKind::INVALID_DESCRIPTOR) && w.peer_abort() == 1);
  }
}

// Idle arena near its end still accepts any n <= arena; n > arena is no-progress.
void test_liveness_and_replay() {
  Wire w(4, 128, 128);
  spsc_queue::SpscQueueEndpoint<RegionInstanceView> q(w.binding(), w.view(), kClock);
  spsc_queue::SpscQueueOutputReservation r;
  Wire::Output o;
  CHECK(q.output().try_reserve(96, r) && q.output().publish(r, SpscQueueOpcode::DATA));
  CHECK(w.pop(&o) && o.offset == w.out_arena_offset());
  // Cursor 96, all released: 128 bytes would need 160 under the literal bound.
  CHECK(q.output().try_reserve(128, r) && r.payload_offset == w.out_arena_offset());
  CHECK(q.output().publish(r, SpscQueueOpcode::DATA) && w.pop(&o) && o.bytes.size() == 128);
  CHECK(!q.output().try_reserve(129, r) && q.live() && kind_is(q, SpscQueueErrorKind::NONE));
  // Not idle: 64 held by L3, 96 more does not fit.
  CHECK(q.output().try_reserve(64, r) && q.output().publish(r, SpscQueueOpcode::DATA));
  CHECK(!q.output().try_reserve(96, r) && q.live());
  CHECK(w.pop(&o) && q.output().try_reserve(96, r) && q.output().publish(r, SpscQueueOpcode::DATA));
  // L3 tampers with an output descriptor before releasing it: replay poisons.
  CHECK(w.pop(&o, /*release=*/false));
  uint8_t* slot = w.payload() + 32 * 4 + ((w.out_head() - 1) % 4) * 32;
  put_le64(slot + 16, get_le64(slot + 16) + 64);
  w.release_outputs();
  CHECK(!q.output().try_reserve(0, r) && kind_is(q, SpscQueueErrorKind::INVALID_DESCRIPTOR) &&
        q.error().op == SpscQueueOp::OUTPUT_TRY_RESERVE && w.peer_abort() == 1);
}

// Two threads, blocking calls, random sizes, MaxInflight 2 with releases in
// reverse pairs, STOP at the end.
void test_threads() {
  // Two held inputs of <= 256 bytes need <= 2 * (256 + 255) input bytes.
  Wire w(8, 1024, 256);
  const uint64_t kMessages = 20000;
  std::vector<uint64_t> sizes(kMessages);
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (auto& s : sizes) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    s = (seed % 5 == 0) ? 0 : seed % 257;
  }
  bool l2_ok = false;
  std::thread l2([&] {
    spsc_queue::SpscQueueEndpoint<RegionInstanceView, 2> q(w.binding(), w.view(), kClock);
    spsc_queue::SpscQueueInputHandle held[2];
    int nheld = 0;
    for (;;) {
      spsc_queue::SpscQueueInputHandle h;
      if (!q.input().peek(2000000000ull, h)) break;
      if (h.opcode == SpscQueueOpcode::STOP) {
        for (int i = nheld - 1; i >= 0; --i) q.input().release(held[i]);
        nheld = 0;
        q.input().release(h);
        break;
      }
      spsc_queue::SpscQueueOutputReservation r;
      if (!q.output().reserve(h.payload_nbytes, 2000000000ull, r)) break;
      for (uint64_t i = 0; i < h.payload_nbytes; ++i) wptr(r.payload)[i] = ptr(h.payload)[i] + 1;
      if (!q.output().publish(r, SpscQueueOpcode::DATA)) break;
      held[nheld++] = h;
      if (nheld == 2) {  // release the newer first: logical, then the prefix
        q.input().release(held[1]);
        q.input().release(held[0]);
        nheld = 0;
      }
    }
    l2_ok = q.live() && q.input().drained();
    if (!l2_ok) std::fprintf(stderr, "L2 thread: %s\n", q.error().message);
  });
  uint64_t sent = 0, received = 0;
  bool stop_sent = false;
  const uint64_t t0 = now_ns();
  Wire::Output o;
  while (received < kMessages && now_ns() - t0 < 60000000000ull) {
    if (sent < kMessages) {
      if (w.push_data(pattern(sizes[sent], static_cast<uint8_t>(sent)))) ++sent;
    } else if (!stop_sent) {
      stop_sent = w.push_stop();
    }
    while (w.pop(&o)) {
      std::vector<uint8_t> want = pattern(sizes[received], static_cast<uint8_t>(received));
      for (auto& b : want) b = static_cast<uint8_t>(b + 1);
      if (o.bytes != want) {
        CHECK(o.bytes == want);
        break;
      }
      ++received;
    }
  }
  while (!stop_sent) stop_sent = w.push_stop();
  l2.join();
  CHECK(received == kMessages && l2_ok && w.peer_abort() == 0);
  std::printf("  threads: %llu messages echoed in %.1f ms\n",
              static_cast<unsigned long long>(received), (now_ns() - t0) / 1e6);
}

}  // namespace

int main() {
  struct Test { const char* name; void (*fn)(); };
  const Test tests[] = {{"wire vocabulary", test_wire_vocabulary},
                        {"region view", test_view},
                        {"spec snippet", test_spec_snippet},
                        {"echo + zero-byte + arena skip", test_echo},
                        {"window 4 + out-of-order release + STOP drain", test_window_and_stop},
                        {"hostile descriptors", test_hostile_inputs},
                        {"timeouts + remote abort", test_timeouts},
                        {"construction failures", test_construction},
                        {"ownership", test_ownership},
                        {"liveness + output replay", test_liveness_and_replay},
                        {"two threads", test_threads}};
  for (const Test& t : tests) {
    const int before = g_failures;
    std::printf("[ RUN  ] %s\n", t.name);
    t.fn();
    std::printf("[ %s ] %s\n", g_failures == before ? " OK " : "FAIL", t.name);
  }
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
