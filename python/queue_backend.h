// QueueBackend: the C++ L3 queue behind a Python WorkerChipQueue, whatever
// view it runs on. The runtime's queues run on RegionInstanceView (host
// memory); a queue bound over a Python region object runs on PyObjectView
// (every access a call into that object). The bindings see only this
// interface, so both are the same Python type with the same checks.
#ifndef SPSQ_PYTHON_QUEUE_BACKEND_H_
#define SPSQ_PYTHON_QUEUE_BACKEND_H_

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>

#include "common/spsq_error.h"
#include "common/spsq_layout.h"
#include "l3/unsigned_timeout.h"
#include "l3/worker_chip_queue.h"

namespace spsq_python {

class QueueBackend {
 public:
  using Status = spsc_queue::WorkerChipQueueStatus;
  using Message = spsc_queue::WorkerChipMessage;
  // Blocking calls take unsigned nanoseconds (Python's timeouts reach
  // 2^64 - 1 ns); the queue's signed range is waited in consecutive calls.
  using ns = uint64_t;

  virtual ~QueueBackend() = default;

  virtual Status enqueue(const void* data, uint64_t nbytes, ns timeout) = 0;
  virtual Status try_enqueue(const void* data, uint64_t nbytes) = 0;
  virtual Status request_stop(ns timeout) = 0;
  virtual Status try_request_stop() = 0;
  virtual bool stop_published() = 0;

  virtual Status peek(ns timeout, Message* out) = 0;
  virtual Status try_peek(Message* out) = 0;
  virtual Status read_into(const Message& m, void* buffer, uint64_t capacity) = 0;
  virtual Status release(const Message& m) = 0;
  virtual Status dequeue_into(void* buffer, uint64_t capacity, ns timeout, Message* out) = 0;
  virtual Status try_dequeue_into(void* buffer, uint64_t capacity, Message* out) = 0;

  virtual bool live() = 0;
  virtual bool freed() = 0;
  virtual void free() = 0;
  virtual const spsc_queue::SpscQueueError& error() = 0;
  virtual const spsc_queue::SpscQueueError& last_error() = 0;
  virtual const spsc_queue::SpscQueueLayout& layout() = 0;
  virtual std::array<uint64_t, spsc_queue::kSpscQueueEndpointBindingScalarCount>
  chip_task_arg_scalars() = 0;
  virtual spsq_runtime::WorkerChipOrchRegion& region() = 0;
};

template <class View>
class QueueBackendOf final : public QueueBackend {
 public:
  using Queue = spsc_queue::BasicWorkerChipQueue<View>;
  // `now_ns`: the clock the queue measures its timeouts with.
  QueueBackendOf(std::unique_ptr<Queue> q, uint64_t (*now_ns)())
      : q_(std::move(q)), now_ns_(now_ns) {}

  Status enqueue(const void* d, uint64_t n, ns t) override {
    return waiting(t, [&](std::chrono::nanoseconds c) { return q_->input().enqueue(d, n, c); });
  }
  Status try_enqueue(const void* d, uint64_t n) override { return q_->input().try_enqueue(d, n); }
  Status request_stop(ns t) override {
    return waiting(t, [&](std::chrono::nanoseconds c) { return q_->request_stop(c); });
  }
  Status try_request_stop() override { return q_->try_request_stop(); }
  bool stop_published() override { return q_->input().stop_published(); }

  Status peek(ns t, Message* out) override {
    return waiting(t, [&](std::chrono::nanoseconds c) { return q_->output().peek(c, out); });
  }
  Status try_peek(Message* out) override { return q_->output().try_peek(out); }
  Status read_into(const Message& m, void* b, uint64_t c) override {
    return q_->output().read_into(m, b, c);
  }
  Status release(const Message& m) override { return q_->output().release(m); }
  Status dequeue_into(void* b, uint64_t cap, ns t, Message* out) override {
    return waiting(t, [&](std::chrono::nanoseconds c) {
      return q_->output().dequeue_into(b, cap, c, out);
    });
  }
  Status try_dequeue_into(void* b, uint64_t c, Message* out) override {
    return q_->output().try_dequeue_into(b, c, out);
  }

  bool live() override { return q_->live(); }
  bool freed() override { return q_->freed(); }
  void free() override { q_->free(); }
  const spsc_queue::SpscQueueError& error() override { return q_->error(); }
  const spsc_queue::SpscQueueError& last_error() override { return q_->last_error(); }
  const spsc_queue::SpscQueueLayout& layout() override { return q_->layout(); }
  std::array<uint64_t, spsc_queue::kSpscQueueEndpointBindingScalarCount> chip_task_arg_scalars()
      override {
    return q_->chip_task_arg_scalars();
  }
  spsq_runtime::WorkerChipOrchRegion& region() override { return q_->region(); }

 private:
  template <class Call>
  Status waiting(uint64_t timeout_ns, Call call) {
    return spsc_queue::call_with_unsigned_timeout(
        timeout_ns, now_ns_, call, [](Status s) { return s == Status::TIMED_OUT; });
  }

  std::unique_ptr<Queue> q_;
  uint64_t (*now_ns_)();
};

}  // namespace spsq_python

#endif  // SPSQ_PYTHON_QUEUE_BACKEND_H_
