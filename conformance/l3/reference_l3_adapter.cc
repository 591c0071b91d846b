// The L3Adapter of the reference L3 queue: spsc_queue::BasicWorkerChipQueue
// instantiated on the harness view, and for the counter wrap on LeanView
// (make_lean). This is implementation-specific glue (it includes core/l3
// headers); the suite itself never does.
//
// The wrap's calls (try_enqueue_n, try_dequeue_into_n and the two they
// repeat) are flattened (the queue's calls inlined into them).
// Inlined that deep, GCC's flow analysis reports maybe-uninitialized on
// out-parameters the queue's checks set on every path that uses them.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <chrono>
#include <cstring>
#include <memory>
#include <type_traits>

#include "common/spsq_binding.h"
#include "testkit/lean_view.h"
#include "conformance/l3/l3_adapter.h"
#include "l3/unsigned_timeout.h"
#include "l3/worker_chip_queue.h"
#include "region/region_instance.h"

namespace spsq_conf {
namespace {

using spsc_queue::WorkerChipQueueStatus;

L3Status map(WorkerChipQueueStatus s) {
  switch (s) {
    case WorkerChipQueueStatus::OK: return L3Status::kOk;
    case WorkerChipQueueStatus::WOULD_BLOCK: return L3Status::kNoProgress;
    case WorkerChipQueueStatus::TIMED_OUT: return L3Status::kTimedOut;
    case WorkerChipQueueStatus::REJECTED: return L3Status::kRejected;
    case WorkerChipQueueStatus::FAILED: return L3Status::kFailed;
  }
  return L3Status::kFailed;
}

template <class View>
class ReferenceL3Adapter : public L3Adapter {
 public:
  using Queue = spsc_queue::BasicWorkerChipQueue<View>;

  const char* name() const override {
    return std::is_same<View, HarnessView>::value
               ? "spsc_queue::BasicWorkerChipQueue<HarnessView>"
               : "spsc_queue::BasicWorkerChipQueue<LeanView>";
  }
  std::unique_ptr<L3Adapter> make_lean() override {
    if (!std::is_same<View, HarnessView>::value) return nullptr;
    return std::unique_ptr<L3Adapter>(new ReferenceL3Adapter<LeanView>());
  }

  bool open(const uint64_t* scalars, size_t count, HarnessView view,
            uint64_t (*now_ns)()) override {
    return bind(scalars, count, view, now_ns, false);
  }
  // The queue's region projects an instance adopted over the suite's memory
  // (the binding's spans), as the runtime's projects the one it materialized.
  bool open_with_region(const uint64_t* scalars, size_t count, HarnessView view,
                        uint64_t (*now_ns)()) override {
    return bind(scalars, count, view, now_ns, true);
  }
  bool region_released() override { return queue_->region().released(); }
  bool uses_view() const override { return true; }
  bool live() override { return queue_ && queue_->live(); }
  L3ErrorInfo error() override {
    L3ErrorInfo e;
    if (!queue_) return e;
    const spsc_queue::SpscQueueError& q = queue_->error();
    e.kind = static_cast<uint32_t>(q.kind);
    e.op = static_cast<uint32_t>(q.op);
    e.session_instance_id_bits = q.session_instance_id_bits;
    e.transaction_id = q.transaction_id;
    e.message = q.message;
    return e;
  }
  bool chip_task_arg_scalars(uint64_t* out, size_t count) override {
    const auto s = queue_->chip_task_arg_scalars();
    if (count != s.size()) return false;
    std::memcpy(out, s.data(), sizeof(uint64_t) * s.size());
    return true;
  }
  LayoutFields layout() override {
    const spsc_queue::SpscQueueLayout& l = queue_->layout();
    return LayoutFields{l.depth,          l.input_desc_offset, l.output_desc_offset,
                        l.input_arena_offset, l.input_arena_bytes,  l.output_arena_offset,
                        l.output_arena_bytes, l.payload_bytes,      l.counter_bytes};
  }

  __attribute__((flatten)) L3Status try_enqueue(const void* data, uint64_t n) override {
    return map(queue_->input().try_enqueue(data, n));
  }
  L3Status enqueue(const void* data, uint64_t n, uint64_t timeout_ns) override {
    return waiting(timeout_ns, [&](std::chrono::nanoseconds t) {
      return queue_->input().enqueue(data, n, t);
    });
  }
  // The queue-level stop calls, as the spec spells them: the suite's stop
  // clauses are then judged on that spelling.
  L3Status try_request_stop() override { return map(queue_->try_request_stop()); }
  L3Status request_stop(uint64_t timeout_ns) override {
    return waiting(timeout_ns, [&](std::chrono::nanoseconds t) { return queue_->request_stop(t); });
  }

  L3Status try_peek(L3Message* m) override {
    spsc_queue::WorkerChipMessage h{};
    const L3Status s = map(queue_->output().try_peek(&h));
    if (s == L3Status::kOk) to_message(h, m);
    return s;
  }
  L3Status peek(uint64_t timeout_ns, L3Message* m) override {
    spsc_queue::WorkerChipMessage h{};
    const L3Status s = waiting(timeout_ns, [&](std::chrono::nanoseconds t) {
      return queue_->output().peek(t, &h);
    });
    if (s == L3Status::kOk) to_message(h, m);
    return s;
  }
  L3Status read_into(const L3Message& m, void* buffer, uint64_t capacity) override {
    return map(queue_->output().read_into(to_handle(m), buffer, capacity));
  }
  L3Status release(const L3Message& m) override {
    return map(queue_->output().release(to_handle(m)));
  }
  __attribute__((flatten)) L3Status try_dequeue_into(void* buffer, uint64_t capacity,
                                                     L3Message* m) override {
    return take_into(queue_->output(), buffer, capacity, m);
  }
  // The wrap's runs of calls: the calls above, not virtual, inlined into one
  // loop each.
  __attribute__((flatten)) L3Status try_enqueue_n(uint64_t count, uint64_t* done) override {
    return repeat(count, done,
                  [&](uint64_t) { return ReferenceL3Adapter::try_enqueue(nullptr, 0); });
  }
  __attribute__((flatten)) L3Status try_dequeue_into_n(void* buffer, uint64_t capacity,
                                                       L3Message* out, uint64_t count,
                                                       uint64_t* done) override {
    auto& output = queue_->output();  // once per run, not per message
    return repeat_into(out, count, done,
                       [&](L3Message* m) { return take_into(output, buffer, capacity, m); });
  }
  L3Status dequeue_into(void* buffer, uint64_t capacity, uint64_t timeout_ns,
                        L3Message* m) override {
    spsc_queue::WorkerChipMessage h{};
    const L3Status s = waiting(timeout_ns, [&](std::chrono::nanoseconds t) {
      return queue_->output().dequeue_into(buffer, capacity, t, &h);
    });
    if (s == L3Status::kOk) to_message(h, m);
    return s;
  }
  void free() override { queue_->free(); }

 private:
  bool bind(const uint64_t* scalars, size_t count, HarnessView view, uint64_t (*now_ns)(),
            bool with_region) {
    spsc_queue::SpscQueueEndpointBinding b{};
    if (!spsc_queue::decode_endpoint_binding(scalars, count, &b)) return false;
    spsc_queue::MonotonicClock clock{};
    clock.now_ns = now_ns;
    now_ns_ = now_ns;
    std::shared_ptr<spsq_runtime::RegionInstance> instance;
    if (with_region) {
      instance = spsq_runtime::RegionInstance::adopt(
          spsq_runtime::RegionInstanceId{0, b.session_instance_id_bits, b.transaction_id},
          RegionPartLocalSpan{b.payload_base, b.payload_bytes},
          RegionPartLocalSpan{b.counter_base, b.counter_bytes});
    }
    queue_.reset(new Queue(b, View(view), clock, std::move(instance)));
    return true;
  }

  // The queue takes signed nanoseconds, the suite unsigned ones.
  template <class Call>
  L3Status waiting(uint64_t timeout_ns, Call call) {
    return map(spsc_queue::call_with_unsigned_timeout(
        timeout_ns, now_ns_, call,
        [](WorkerChipQueueStatus s) { return s == WorkerChipQueueStatus::TIMED_OUT; }));
  }

  // Field by field into the caller's message: a temporary copied whole would
  // be reloaded wider than it was stored, which stalls. opaque[2..3] are not
  // this adapter's: to_handle never reads them, so they are not written.
  static void to_message(const spsc_queue::WorkerChipMessage& h, L3Message* m) {
    to_released_message(h, m);
    m->opaque[0] = h.owner_cookie;
    m->opaque[1] = h.payload.local_addr;
  }
  // A dequeued message is released: no handle to carry, so opaque is not
  // written (any handle made from it is foreign to the queue).
  static void to_released_message(const spsc_queue::WorkerChipMessage& h, L3Message* m) {
    m->seq = h.seq;
    m->opcode = static_cast<uint64_t>(h.opcode);
    m->payload_offset = h.payload_offset;
    m->payload_nbytes = h.payload_nbytes;
  }
  // try_dequeue_into on the queue's output.
  template <class Output>
  static L3Status take_into(Output& output, void* buffer, uint64_t capacity, L3Message* m) {
    spsc_queue::WorkerChipMessage h{};
    const L3Status s = map(output.try_dequeue_into(buffer, capacity, &h));
    if (s == L3Status::kOk) to_released_message(h, m);
    return s;
  }
  static spsc_queue::WorkerChipMessage to_handle(const L3Message& m) {
    spsc_queue::WorkerChipMessage h{};
    h.seq = m.seq;
    h.opcode = static_cast<spsc_queue::SpscQueueOpcode>(m.opcode);
    h.payload_offset = m.payload_offset;
    h.payload_nbytes = m.payload_nbytes;
    h.owner_cookie = m.opaque[0];
    h.payload = spsc_queue::SpscQueuePayloadView{m.opaque[1], m.payload_nbytes};
    return h;
  }

  std::unique_ptr<Queue> queue_;
  uint64_t (*now_ns_)() = nullptr;
};

}  // namespace

std::unique_ptr<L3Adapter> make_l3_adapter() {
  return std::unique_ptr<L3Adapter>(new ReferenceL3Adapter<HarnessView>());
}

}  // namespace spsq_conf
