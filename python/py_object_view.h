// PyObjectView: a RegionView (wire-contract.md, "The RegionView contract")
// over a Python region object, so the C++ L3 queue reaches shared memory
// only through that object's methods:
//
//   region.payload_read(offset, nbytes) -> bytes
//   region.payload_write(offset, data)
//   c = region.counter(offset)
//   c.test(cmp_value, cmp) -> (matched, observed)
//   c.notify(value, op)                     # op 0 Set, 1 Add
//   c.wait(cmp_value, cmp, timeout_ns) -> (held, observed)
//
// A RuntimeError from the object, or an answer of the wrong shape, is a view
// failure: the call returns false and failed() holds until the next call
// succeeds (whether a failure sticks is the object's to decide). Any other
// exception (an interrupt, a lost peer) is not the queue's to judge: the view
// keeps it, refuses every later call, and raise_pending_python_error()
// raises it once the queue call has returned.
//
// Calls take the GIL themselves: the queue runs with it released.
#ifndef SPSQ_PYTHON_PY_OBJECT_VIEW_H_
#define SPSQ_PYTHON_PY_OBJECT_VIEW_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <type_traits>

#include "aicpu/region_view_types.h"

namespace spsq_python {

class PyObjectView {
 public:
  // The spans are the binding's: the object's memory is not mapped here, so
  // they are numbers the queue checks against its binding, never addresses.
  PyObjectView(pybind11::object region, RegionPartLocalSpan payload, RegionPartLocalSpan counter);

  bool failed() const;
  const RegionViewError& error() const;

  class Payload {
   public:
    RegionPartLocalSpan span() const;
    // Lends a copy of the bytes read; it stays valid for the next few reads
    // (the contract asks only until the next read or write).
    template <class Out>
    bool read(uint64_t offset, uint64_t nbytes, Out& out) {
      const uint8_t* addr = nullptr;
      if (!view_->read(offset, nbytes, &addr)) return false;
      using Addr = std::remove_reference_t<decltype(out.local_addr)>;
      if constexpr (std::is_pointer_v<Addr>) {
        out.local_addr = reinterpret_cast<Addr>(const_cast<uint8_t*>(addr));
      } else {
        out.local_addr = static_cast<Addr>(reinterpret_cast<uintptr_t>(addr));
      }
      out.nbytes = nbytes;
      return true;
    }
    bool write(uint64_t offset, const void* src, uint64_t nbytes);

   private:
    friend class PyObjectView;
    explicit Payload(PyObjectView* view) : view_(view) {}
    PyObjectView* view_;
  };

  class Counter {
   public:
    RegionPartLocalSpan span() const;
    bool notify(uint64_t offset, int32_t value, RegionNotifyOp op);
    template <class Sample>
    bool test(uint64_t offset, int32_t cmp_value, RegionWaitCmp cmp, Sample& sample) {
      bool matched = false;
      int32_t observed = 0;
      if (!view_->signal_call(offset, "test", cmp_value, static_cast<uint32_t>(cmp), nullptr,
                              &matched, &observed)) {
        return false;
      }
      sample.matched = matched;
      sample.observed = observed;
      return true;
    }
    bool wait(uint64_t offset, int32_t cmp_value, RegionWaitCmp cmp, uint64_t timeout_ns,
              int32_t& observed);

   private:
    friend class PyObjectView;
    explicit Counter(PyObjectView* view) : view_(view) {}
    PyObjectView* view_;
  };

  Payload payload() { return Payload(this); }
  Counter counter() { return Counter(this); }

 private:
  struct State;
  bool read(uint64_t offset, uint64_t nbytes, const uint8_t** addr);
  // test (timeout null) or wait: (bool, int32) answers.
  bool signal_call(uint64_t offset, const char* method, int32_t cmp_value, uint32_t cmp,
                   const uint64_t* timeout_ns, bool* flag, int32_t* observed);

  std::shared_ptr<State> s_;  // copies share one state, as views are handles
};

// The clock of a queue bound over a Python region: time.monotonic_ns(),
// looked up at every reading (a testee replaces it with the harness's). A
// failed reading keeps its exception as a view call does and answers the
// last good reading.
uint64_t python_monotonic_ns();

// Raises (GIL held) the exception a view or clock call kept, if any.
void raise_pending_python_error();

}  // namespace spsq_python

#endif  // SPSQ_PYTHON_PY_OBJECT_VIEW_H_
