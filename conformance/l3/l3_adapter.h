// How an L3 queue implementation plugs into the conformance suite.
//
// The suite owns the queue's memory (a RegionMemory with guards) and plays a
// scripted or hostile L2 on it. An implementation is wrapped in an L3Adapter
// that binds the queue onto that memory and maps its API onto the spec's L3
// operations (the Python names of spec sections 1, 3 and 4). The adapter
// library defines make_l3_adapter(); spsq_l3_certification links it with the
// suite. See INTERPRETING.md, "Certifying an L3 queue".
//
// Outcomes use the spec's vocabulary, not any implementation's:
//   kOk          the operation happened
//   kNoProgress  ordinary no-progress of a try_* call (Python: False / None)
//   kTimedOut    a blocking call's positive timeout expired (not poison)
//   kRejected    refused locally without poison (e.g. input after STOP,
//                a usage error); the queue stays live
//   kFailed      the queue is poisoned or reports remote abort (terminal)
#ifndef SPSQ_CONFORMANCE_L3_L3_ADAPTER_H_
#define SPSQ_CONFORMANCE_L3_L3_ADAPTER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "testkit/harness_view.h"
#include "testkit/layout_fields.h"

namespace spsq_conf {

enum class L3Status { kOk, kNoProgress, kTimedOut, kRejected, kFailed };

inline const char* l3_status_name(L3Status s) {
  switch (s) {
    case L3Status::kOk: return "OK";
    case L3Status::kNoProgress: return "NO_PROGRESS";
    case L3Status::kTimedOut: return "TIMED_OUT";
    case L3Status::kRejected: return "REJECTED";
    case L3Status::kFailed: return "FAILED";
  }
  return "?";
}

// An output message handle. The public fields are what the spec's message
// carries; `opaque` holds whatever else the implementation's handle needs
// (an owner token, say). The suite forges wrong handles by changing the
// public fields, so an adapter must build the implementation's handle from
// them, not only from `opaque`.
struct L3Message {
  uint64_t seq = 0;
  uint64_t opcode = 0;
  uint64_t payload_offset = 0;
  uint64_t payload_nbytes = 0;
  uint64_t opaque[4] = {};
};

// The terminal error, as wire-contract numbers. `kind_known` false: the
// implementation cannot tell its error kinds (a testee answering null), so
// the suite judges no kind of it (l3_fixture.h, KindsReported).
struct L3ErrorInfo {
  bool kind_known = true;
  uint32_t kind = 0;
  uint32_t op = 0;
  uint64_t session_instance_id_bits = 0;
  uint64_t transaction_id = 0;
  std::string message;
};

class L3Adapter {
 public:
  virtual ~L3Adapter() = default;

  virtual const char* name() const = 0;
  // Which API sentences of the spec the queue is judged by: "cpp" (the C++
  // L3 API) or "python" (timeouts <= 0 raise ValueError, S3.PYTO.1). Known
  // once open() returned.
  virtual const char* surface() const { return "cpp"; }

  // Binds a queue onto harness memory described by the ten binding scalars
  // (payload_base/counter_base are host addresses). An implementation
  // templated on a RegionView should run on `view` (the harness's recording,
  // bounds-checking view over the same memory) and return true from
  // uses_view(); others may use the addresses directly. `now_ns` is the
  // virtual clock every blocking call must measure time with.
  virtual bool open(const uint64_t* scalars, size_t count, HarnessView view,
                    uint64_t (*now_ns)()) = 0;
  virtual bool uses_view() const = 0;

  virtual bool live() = 0;
  virtual L3ErrorInfo error() = 0;
  // queue.chip_task_arg_scalars() and queue.layout.
  virtual bool chip_task_arg_scalars(uint64_t* out, size_t count) = 0;
  virtual LayoutFields layout() = 0;

  // queue.input: DATA and STOP.
  virtual L3Status try_enqueue(const void* data, uint64_t nbytes) = 0;
  virtual L3Status enqueue(const void* data, uint64_t nbytes, uint64_t timeout_ns) = 0;
  // queue.try_request_stop() and queue.request_stop(timeout): the spec names
  // them on the queue; an implementation with only input-side names maps those.
  virtual L3Status try_request_stop() = 0;
  virtual L3Status request_stop(uint64_t timeout_ns) = 0;

  // queue.output: one active message at a time.
  virtual L3Status try_peek(L3Message* m) = 0;
  virtual L3Status peek(uint64_t timeout_ns, L3Message* m) = 0;
  virtual L3Status read_into(const L3Message& m, void* buffer, uint64_t capacity) = 0;
  virtual L3Status release(const L3Message& m) = 0;
  virtual L3Status try_dequeue_into(void* buffer, uint64_t capacity, L3Message* m) = 0;
  virtual L3Status dequeue_into(void* buffer, uint64_t capacity, uint64_t timeout_ns,
                                L3Message* m) = 0;

  // queue.free(): logical release of the handle.
  virtual void free() = 0;

  // queue.region, the projected region handle, for a queue that projects one:
  // binds like open() and hands the queue a region handle over the same
  // memory. An adapter that cannot returns false (the default); the suite's
  // region clauses are then NOT-APPLICABLE to it, with that reason.
  virtual bool open_with_region(const uint64_t* scalars, size_t count, HarnessView view,
                                uint64_t (*now_ns)()) {
    (void)scalars, (void)count, (void)view, (void)now_ns;
    return false;
  }
  // Whether the region handle of open_with_region() is marked released.
  virtual bool region_released() { return false; }

  // Optional, for the counter wrap alone (wrap_test.cc: 2^33 calls of
  // try_enqueue and try_dequeue_into): a fresh adapter of the same
  // implementation whose open() binds onto LeanView(view)
  // (testkit/lean_view.h), which checks, inline, what the
  // harness view checks in lean mode, and refuses an Add. nullptr (the
  // default): the wrap runs on open() over `view` in lean mode, as every
  // adapter can.
  virtual std::unique_ptr<L3Adapter> make_lean() { return nullptr; }

  // Optional, for the counter wrap alone, like make_lean(): `count` calls of
  // try_enqueue(nullptr, 0) in a row, stopping at the first that does not
  // return kOk. Returns that call's status (kOk when all did) and sets *done
  // to the calls that returned kOk. The default makes the calls one by one;
  // an adapter may make them inside one call of its own, so that the wrap's
  // 2^32 messages pay no call boundary each. Every call still makes every
  // check it makes alone.
  virtual L3Status try_enqueue_n(uint64_t count, uint64_t* done) {
    return repeat(count, done, [&](uint64_t) { return try_enqueue(nullptr, 0); });
  }
  // The same for `count` calls of try_dequeue_into(buffer, capacity, &out[i]).
  virtual L3Status try_dequeue_into_n(void* buffer, uint64_t capacity, L3Message* out,
                                      uint64_t count, uint64_t* done) {
    return repeat_into(out, count, done,
                       [&](L3Message* m) { return try_dequeue_into(buffer, capacity, m); });
  }

 protected:
  // call(i) for i = 0, 1, ... while it returns kOk, at most `count` times.
  template <class Call>
  static L3Status repeat(uint64_t count, uint64_t* done, Call call) {
    uint64_t i = 0;
    L3Status s = L3Status::kOk;
    while (i < count && (s = call(i)) == L3Status::kOk) ++i;
    *done = i;
    return s;
  }
  // call(m) for m = out, out + 1, ... the same way: one cursor over `out`
  // rather than an index and a pointer, a value fewer for a flattened loop to
  // keep in registers.
  template <class Call>
  static L3Status repeat_into(L3Message* out, uint64_t count, uint64_t* done, Call call) {
    L3Message* m = out;
    L3Message* const end = out + count;
    L3Status s = L3Status::kOk;
    while (m != end && (s = call(m)) == L3Status::kOk) ++m;
    *done = static_cast<uint64_t>(m - out);
    return s;
  }
};

// Defined by the adapter library linked into an L3 certification.
std::unique_ptr<L3Adapter> make_l3_adapter();

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_L3_L3_ADAPTER_H_
