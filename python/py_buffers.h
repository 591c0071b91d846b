// Admission of Python payload objects. A payload is a HostBuffer, or a
// contiguous host bytes / bytearray / memoryview, or None for a zero-byte
// message; anything else is refused with an error that names the problem.
// A span pins its object's memory (a held Py_buffer) until destroyed, so the
// bytes cannot move or go away while a call runs without the GIL. Create and
// destroy spans with the GIL held.
#ifndef SPSQ_PYTHON_PY_BUFFERS_H_
#define SPSQ_PYTHON_PY_BUFFERS_H_

#include <pybind11/pybind11.h>

#include <cstdint>

namespace spsq_python {

class PayloadSpan {
 public:
  enum class Use {
    // Source of an enqueue: None is an empty span; read-only is fine.
    //   TypeError:  str, int, list, array.array, ... (not an admitted type)
    //   ValueError: a memoryview that is not C-contiguous
    kSource,
    // Target of read_into / dequeue_into: must also be writable (TypeError
    // for bytes or a read-only memoryview, naming it).
    kTarget,
  };

  PayloadSpan(pybind11::handle obj, Use use, const char* call);
  PayloadSpan(const PayloadSpan&) = delete;
  PayloadSpan& operator=(const PayloadSpan&) = delete;
  ~PayloadSpan();

  bool none() const { return none_; }
  uint8_t* data() const { return data_; }
  uint64_t nbytes() const { return nbytes_; }

 private:
  void admit(pybind11::handle obj, bool writable, const char* call);

  bool none_ = true;
  bool has_view_ = false;
  Py_buffer view_{};
  pybind11::object keep_;  // a HostBuffer held by reference instead of a view
  uint8_t* data_ = nullptr;
  uint64_t nbytes_ = 0;
};

}  // namespace spsq_python

#endif  // SPSQ_PYTHON_PY_BUFFERS_H_
