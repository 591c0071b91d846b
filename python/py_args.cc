#include "python/py_args.h"

#include <cmath>
#include <limits>
#include <string>

namespace py = pybind11;

namespace spsq_python {
namespace {

std::string type_name(py::handle h) { return Py_TYPE(h.ptr())->tp_name; }

}  // namespace

uint64_t timeout_arg(py::handle timeout, const char* call) {
  constexpr uint64_t kMaxNs = std::numeric_limits<uint64_t>::max();
  const std::string where = std::string(call) + ": ";
  if (timeout.is_none()) {
    throw py::value_error(where + "a blocking call needs a finite positive timeout in seconds, "
                          "got None (use the try_* call for a non-blocking attempt)");
  }
  if (PyBool_Check(timeout.ptr())) {
    throw py::type_error(where + "timeout must be a number of seconds, not bool");
  }
  if (PyLong_Check(timeout.ptr())) {
    int overflow = 0;
    const long long s = PyLong_AsLongLongAndOverflow(timeout.ptr(), &overflow);
    if (overflow < 0 || (overflow == 0 && s <= 0)) {
      throw py::value_error(where + "timeout must be positive, got " +
                            py::str(timeout).cast<std::string>() + " s");
    }
    if (overflow > 0 || static_cast<uint64_t>(s) > kMaxNs / 1000000000) return kMaxNs;
    return static_cast<uint64_t>(s) * 1000000000;
  }
  const double s = PyFloat_AsDouble(timeout.ptr());
  if (s == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    throw py::type_error(where + "timeout must be a number of seconds, not " + type_name(timeout));
  }
  if (std::isnan(s)) throw py::value_error(where + "timeout is NaN; it must be finite and positive");
  if (std::isinf(s)) {
    throw py::value_error(where + "timeout is " + (s > 0 ? "infinite" : "-infinite") +
                          "; it must be finite and positive");
  }
  if (s <= 0) {
    throw py::value_error(where + "timeout must be positive, got " +
                          py::str(py::float_(s)).cast<std::string>() + " s");
  }
  const double ns = std::ceil(s * 1e9);
  // 2^64 as a double: anything at or past it saturates.
  if (ns >= 18446744073709551616.0) return kMaxNs;
  return ns < 1 ? 1 : static_cast<uint64_t>(ns);
}

uint64_t uint64_arg(py::handle value, const char* call, const char* name) {
  const std::string where = std::string(call) + ": " + name;
  if (PyBool_Check(value.ptr()) || !PyLong_Check(value.ptr())) {
    throw py::type_error(where + " must be an int, not " + type_name(value));
  }
  if (PyObject_RichCompareBool(value.ptr(), py::int_(0).ptr(), Py_LT) == 1) {
    throw py::value_error(where + " must be non-negative, got " +
                          py::str(value).cast<std::string>());
  }
  const unsigned long long v = PyLong_AsUnsignedLongLong(value.ptr());
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error(where + " does not fit in 64 bits: " +
                          py::str(value).cast<std::string>());
  }
  return v;
}

}  // namespace spsq_python
