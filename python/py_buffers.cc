#include "python/py_buffers.h"

#include <string>

#include "python/host_buffer.h"

namespace py = pybind11;

namespace spsq_python {
namespace {

const char* kAdmitted = "a spsq.HostBuffer, bytes, bytearray or a contiguous memoryview";

std::string type_name(py::handle h) { return Py_TYPE(h.ptr())->tp_name; }

}  // namespace

PayloadSpan::PayloadSpan(py::handle obj, Use use, const char* call) {
  try {
    admit(obj, use == Use::kTarget, call);
  } catch (...) {
    if (has_view_) PyBuffer_Release(&view_);  // the destructor will not run
    throw;
  }
}

void PayloadSpan::admit(py::handle obj, bool writable, const char* call) {
  const std::string where = std::string(call) + ": ";
  if (obj.is_none()) return;
  none_ = false;
  if (py::isinstance<HostBuffer>(obj)) {
    HostBuffer& b = obj.cast<HostBuffer&>();
    keep_ = py::reinterpret_borrow<py::object>(obj);
    data_ = b.data();
    nbytes_ = b.nbytes();
    return;
  }
  PyObject* o = obj.ptr();
  if (PyUnicode_Check(o)) {
    throw py::type_error(where + "a str is not a payload; encode it to bytes first (payload "
                         "must be " + kAdmitted + ")");
  }
  const bool admitted = PyBytes_Check(o) || PyByteArray_Check(o) || PyMemoryView_Check(o);
  if (!admitted) {
    throw py::type_error(where + "payload must be " + kAdmitted + ", not " + type_name(obj));
  }
  if (writable && PyBytes_Check(o)) {
    throw py::type_error(where + "the target is bytes, which is read-only; pass a bytearray, a "
                         "writable memoryview or a spsq.HostBuffer");
  }
  // Ask for strides so a non-contiguous view is seen (and named) here rather
  // than refused with CPython's generic BufferError.
  if (PyObject_GetBuffer(o, &view_, PyBUF_FULL_RO) != 0) throw py::error_already_set();
  has_view_ = true;
  if (!PyBuffer_IsContiguous(&view_, 'C')) {
    throw py::value_error(where + "the memoryview is not C-contiguous (" +
                          std::to_string(view_.ndim) +
                          "-d with strides); pass a contiguous copy, e.g. bytes(view)");
  }
  if (writable && view_.readonly) {
    throw py::type_error(where + "the target " + type_name(obj) +
                         " is read-only; reading a message needs writable memory");
  }
  data_ = static_cast<uint8_t*>(view_.buf);
  nbytes_ = static_cast<uint64_t>(view_.len);
}

PayloadSpan::~PayloadSpan() {
  if (has_view_) PyBuffer_Release(&view_);
}

}  // namespace spsq_python
