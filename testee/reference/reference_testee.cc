// The reference L3 queue (core/l3, BasicWorkerChipQueue) as a testee of the
// driver protocol: the queue runs here, on spsq_testee::View, and reaches the
// harness's memory and clock only through callbacks. Glue only: the
// conformance adapter's mapping (conformance/l3/reference_l3_adapter.cc) in
// protocol terms.
#include <array>
#include <chrono>
#include <memory>
#include <utility>

#include "common/spsq_binding.h"
#include "l3/unsigned_timeout.h"
#include "l3/worker_chip_queue.h"
#include "region/region_instance.h"
#include "testee/cpp/spsq_testee.h"

namespace {

using spsq_testee::Json;
using spsq_testee::Outcome;
using spsc_queue::WorkerChipQueueStatus;
using WorkerChipQueue = spsc_queue::BasicWorkerChipQueue<spsq_testee::View>;

Outcome map(WorkerChipQueueStatus s) {
  switch (s) {
    case WorkerChipQueueStatus::OK: return Outcome::kOk;
    case WorkerChipQueueStatus::WOULD_BLOCK: return Outcome::kNoProgress;
    case WorkerChipQueueStatus::TIMED_OUT: return Outcome::kTimedOut;
    case WorkerChipQueueStatus::REJECTED: return Outcome::kRejected;
    case WorkerChipQueueStatus::FAILED: return Outcome::kFailed;
  }
  return Outcome::kFailed;
}

class ReferenceTestee : public spsq_testee::Queue {
 public:
  Outcome create(const std::array<uint64_t, 10>& scalars, bool with_region,
                 spsq_testee::View view) override {
    spsc_queue::SpscQueueEndpointBinding b{};
    if (!spsc_queue::decode_endpoint_binding(scalars.data(), scalars.size(), &b)) {
      return Outcome::kRejected;  // refused before any queue exists
    }
    spsc_queue::MonotonicClock clock{};
    clock.now_ns = &spsq_testee::now_ns;
    std::shared_ptr<spsq_runtime::RegionInstance> instance;
    if (with_region) {
      // The projected region adopts the harness's spans, as the conformance
      // adapter's does; nothing is mapped or dereferenced.
      instance = spsq_runtime::RegionInstance::adopt(
          spsq_runtime::RegionInstanceId{0, b.session_instance_id_bits, b.transaction_id},
          RegionPartLocalSpan{b.payload_base, b.payload_bytes},
          RegionPartLocalSpan{b.counter_base, b.counter_bytes});
    }
    queue_.reset(new WorkerChipQueue(b, std::move(view), clock, std::move(instance)));
    return Outcome::kOk;
  }

  Outcome try_enqueue(const void* data, uint64_t n) override {
    return map(queue_->input().try_enqueue(data, n));
  }
  Outcome enqueue(const void* data, uint64_t n, uint64_t timeout_ns) override {
    return waiting(timeout_ns,
                   [&](std::chrono::nanoseconds t) { return queue_->input().enqueue(data, n, t); });
  }
  Outcome try_request_stop() override { return map(queue_->try_request_stop()); }
  Outcome request_stop(uint64_t timeout_ns) override {
    return waiting(timeout_ns, [&](std::chrono::nanoseconds t) { return queue_->request_stop(t); });
  }
  Outcome try_peek(spsq_testee::Message* m) override {
    spsc_queue::WorkerChipMessage h{};
    return handed_out(map(queue_->output().try_peek(&h)), h, m);
  }
  Outcome peek(uint64_t timeout_ns, spsq_testee::Message* m) override {
    spsc_queue::WorkerChipMessage h{};
    const Outcome o = waiting(
        timeout_ns, [&](std::chrono::nanoseconds t) { return queue_->output().peek(t, &h); });
    return handed_out(o, h, m);
  }
  Outcome read_into(const spsq_testee::Message& m, void* buffer, uint64_t capacity) override {
    return map(queue_->output().read_into(handle(m), buffer, capacity));
  }
  Outcome release(const spsq_testee::Message& m) override {
    return map(queue_->output().release(handle(m)));
  }
  Outcome try_dequeue_into(void* buffer, uint64_t capacity, spsq_testee::Message* m) override {
    spsc_queue::WorkerChipMessage h{};
    return handed_out(map(queue_->output().try_dequeue_into(buffer, capacity, &h)), h, m);
  }
  Outcome dequeue_into(void* buffer, uint64_t capacity, uint64_t timeout_ns,
                       spsq_testee::Message* m) override {
    spsc_queue::WorkerChipMessage h{};
    const Outcome o = waiting(timeout_ns, [&](std::chrono::nanoseconds t) {
      return queue_->output().dequeue_into(buffer, capacity, t, &h);
    });
    return handed_out(o, h, m);
  }
  void free() override { queue_->free(); }
  bool live() override { return queue_ && queue_->live(); }
  spsq_testee::Error error() override {
    spsq_testee::Error e;
    if (!queue_) {
      e.text = "no queue: the binding was refused";
      return e;
    }
    const spsc_queue::SpscQueueError& q = queue_->error();
    e.kind = Json::u64(static_cast<uint32_t>(q.kind));
    e.op = Json::u64(static_cast<uint32_t>(q.op));
    e.session_instance_id_bits = Json::u64(q.session_instance_id_bits);
    e.transaction_id = Json::u64(q.transaction_id);
    e.text = q.message;
    return e;
  }
  Json layout() override {
    const spsc_queue::SpscQueueLayout& l = queue_->layout();
    const std::pair<const char*, uint64_t> fields[] = {
        {"depth", l.depth},
        {"input_arena_bytes", l.input_arena_bytes},
        {"output_arena_bytes", l.output_arena_bytes},
        {"input_desc_offset", l.input_desc_offset},
        {"output_desc_offset", l.output_desc_offset},
        {"input_arena_offset", l.input_arena_offset},
        {"output_arena_offset", l.output_arena_offset},
        {"payload_bytes", l.payload_bytes},
        {"input_desc_tail_offset", l.input_desc_tail_offset},
        {"input_desc_head_offset", l.input_desc_head_offset},
        {"output_desc_tail_offset", l.output_desc_tail_offset},
        {"output_desc_head_offset", l.output_desc_head_offset},
        {"initiator_abort_offset", l.initiator_abort_offset},
        {"peer_abort_offset", l.peer_abort_offset},
        {"counter_bytes", l.counter_bytes}};
    Json j = Json::object();
    for (const auto& f : fields) j.set(f.first, Json::u64(f.second));
    return j;
  }
  std::array<uint64_t, 10> chip_task_arg_scalars() override {
    std::array<uint64_t, 10> out{};
    const auto s = queue_->chip_task_arg_scalars();
    for (size_t i = 0; i < out.size() && i < s.size(); ++i) out[i] = s[i];
    return out;
  }
  Outcome region_released(bool* released) override {
    *released = queue_->region().released();
    return Outcome::kOk;
  }

 private:
  template <class Call>
  Outcome waiting(uint64_t timeout_ns, Call call) {
    return map(spsc_queue::call_with_unsigned_timeout(
        timeout_ns, &spsq_testee::now_ns, call,
        [](WorkerChipQueueStatus s) { return s == WorkerChipQueueStatus::TIMED_OUT; }));
  }
  // The public fields travel as they are; the owner cookie is the token.
  static Outcome handed_out(Outcome o, const spsc_queue::WorkerChipMessage& h,
                            spsq_testee::Message* m) {
    if (o != Outcome::kOk) return o;
    m->seq = h.seq;
    m->opcode = static_cast<uint64_t>(h.opcode);
    m->payload_offset = h.payload_offset;
    m->payload_nbytes = h.payload_nbytes;
    m->token = Json::u64(h.owner_cookie);
    return o;
  }
  // Built from the public fields (the harness forges them); the payload
  // address is not sent: the queue reads through its view again.
  static spsc_queue::WorkerChipMessage handle(const spsq_testee::Message& m) {
    spsc_queue::WorkerChipMessage h{};
    h.seq = m.seq;
    h.opcode = static_cast<spsc_queue::SpscQueueOpcode>(m.opcode);
    h.payload_offset = m.payload_offset;
    h.payload_nbytes = m.payload_nbytes;
    uint64_t cookie = 0;
    if (m.token.get_u64(&cookie)) h.owner_cookie = cookie;
    return h;
  }

  std::unique_ptr<WorkerChipQueue> queue_;
};

}  // namespace

// Each queue is its object and nothing else: one process serves a test's
// queues one after another.
int main() {
  return spsq_testee::serve({"spsq-harness reference L3 queue (//core/l3:worker_chip_queue)"},
                            [] { return std::unique_ptr<spsq_testee::Queue>(new ReferenceTestee()); });
}
