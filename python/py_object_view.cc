#include "python/py_object_view.h"

#include <array>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace py = pybind11;

namespace spsq_python {
namespace {

// The first exception no view call may judge, kept until the queue call
// returns (Python's own error indicator cannot survive the C++ frames).
struct Pending {
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
};
thread_local Pending t_pending;

bool pending() { return t_pending.type != nullptr; }

// "Type: message", without the traceback what() appends (GIL held).
std::string exception_text(const py::error_already_set& e) {
  std::string text = Py_TYPE(e.value().ptr())->tp_name;
  text += ": ";
  text += py::str(e.value()).cast<std::string>();
  return text;
}

// Keeps `e` when nothing is kept yet (GIL held).
void keep(py::error_already_set& e) {
  e.restore();
  Pending p;
  PyErr_Fetch(&p.type, &p.value, &p.traceback);
  if (pending()) {
    Py_XDECREF(p.type);
    Py_XDECREF(p.value);
    Py_XDECREF(p.traceback);
    return;
  }
  t_pending = p;
}

// An int that fits [lo, hi], or false.
bool int_in(py::handle v, long long lo, unsigned long long hi, unsigned long long* out,
            long long* sout) {
  if (PyBool_Check(v.ptr()) || !PyLong_Check(v.ptr())) return false;
  int overflow = 0;
  const long long s = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow == 0) {
    if (s < lo || (s >= 0 && static_cast<unsigned long long>(s) > hi)) return false;
    if (sout != nullptr) *sout = s;
    if (out != nullptr) *out = static_cast<unsigned long long>(s);
    return true;
  }
  if (overflow < 0 || out == nullptr) return false;
  const unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  if (u > hi) return false;
  *out = u;
  return true;
}

uint64_t g_last_now = 0;

}  // namespace

struct PyObjectView::State {
  py::object region;
  RegionPartLocalSpan payload;
  RegionPartLocalSpan counter;
  bool failed = false;
  RegionViewError error;
  // Recent reads, lent to the queue in turn.
  std::array<std::vector<uint8_t>, 4> reads;
  size_t next_read = 0;

  ~State() {
    py::gil_scoped_acquire gil;
    region = py::object();
  }

  void fail(RegionViewErrorKind kind, RegionViewOp op, const char* fmt, ...)
      __attribute__((format(printf, 4, 5))) {
    failed = true;
    error = RegionViewError{};
    error.kind = kind;
    error.op = op;
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(error.message, sizeof(error.message), fmt, args);
    va_end(args);
  }

  // Runs f() (GIL held), which returns an empty string or what was wrong
  // with the object's answer. True when the call succeeded.
  template <class F>
  bool call(RegionViewOp op, const char* what, F&& f) {
    py::gil_scoped_acquire gil;
    if (pending()) {
      fail(RegionViewErrorKind::INVALID_VIEW, op, "%s refused: an earlier call raised", what);
      return false;
    }
    try {
      const std::string wrong = f();
      if (!wrong.empty()) {
        fail(RegionViewErrorKind::INVALID_VIEW, op, "%s: %s", what, wrong.c_str());
        return false;
      }
    } catch (py::error_already_set& e) {
      if (e.matches(PyExc_RuntimeError)) {
        fail(RegionViewErrorKind::ISSUED_FAILURE, op, "%s: %s", what, exception_text(e).c_str());
      } else {
        fail(RegionViewErrorKind::INVALID_VIEW, op, "%s raised %s", what, exception_text(e).c_str());
        keep(e);
      }
      return false;
    }
    failed = false;
    return true;
  }
};

PyObjectView::PyObjectView(py::object region, RegionPartLocalSpan payload,
                           RegionPartLocalSpan counter)
    : s_(std::make_shared<State>()) {
  s_->region = std::move(region);
  s_->payload = payload;
  s_->counter = counter;
}

bool PyObjectView::failed() const { return s_->failed; }
const RegionViewError& PyObjectView::error() const { return s_->error; }

RegionPartLocalSpan PyObjectView::Payload::span() const { return view_->s_->payload; }
RegionPartLocalSpan PyObjectView::Counter::span() const { return view_->s_->counter; }

bool PyObjectView::read(uint64_t offset, uint64_t nbytes, const uint8_t** addr) {
  State& s = *s_;
  std::vector<uint8_t>& buf = s.reads[s.next_read];
  s.next_read = (s.next_read + 1) % s.reads.size();
  return s.call(RegionViewOp::PAYLOAD_READ, "payload_read", [&]() -> std::string {
    py::object data = s.region.attr("payload_read")(py::int_(offset), py::int_(nbytes));
    Py_buffer b{};
    if (PyObject_GetBuffer(data.ptr(), &b, PyBUF_SIMPLE) != 0) {
      PyErr_Clear();
      return std::string("answered a ") + Py_TYPE(data.ptr())->tp_name + ", not bytes";
    }
    const uint64_t got = static_cast<uint64_t>(b.len);
    if (got == nbytes) {
      // Never a null address, even for zero bytes: the queue reads null as failure.
      buf.assign(nbytes == 0 ? 1 : nbytes, 0);
      if (nbytes != 0) std::memcpy(buf.data(), b.buf, nbytes);
      *addr = buf.data();
    }
    PyBuffer_Release(&b);
    if (got != nbytes) {
      char text[96];
      std::snprintf(text, sizeof(text), "answered %" PRIu64 " bytes for %" PRIu64, got, nbytes);
      return text;
    }
    return {};
  });
}

bool PyObjectView::Payload::write(uint64_t offset, const void* src, uint64_t nbytes) {
  State& s = *view_->s_;
  if (src == nullptr && nbytes != 0) {
    s.fail(RegionViewErrorKind::INVALID_VIEW, RegionViewOp::PAYLOAD_WRITE,
           "payload write of %" PRIu64 " bytes from a null source", nbytes);
    return false;
  }
  return s.call(RegionViewOp::PAYLOAD_WRITE, "payload_write", [&]() -> std::string {
    py::bytes data(static_cast<const char*>(src), nbytes);
    s.region.attr("payload_write")(py::int_(offset), data);
    return {};
  });
}

bool PyObjectView::Counter::notify(uint64_t offset, int32_t value, RegionNotifyOp op) {
  State& s = *view_->s_;
  return s.call(RegionViewOp::NOTIFY, "counter notify", [&]() -> std::string {
    s.region.attr("counter")(py::int_(offset))
        .attr("notify")(py::int_(value), py::int_(static_cast<uint32_t>(op)));
    return {};
  });
}

bool PyObjectView::Counter::wait(uint64_t offset, int32_t cmp_value, RegionWaitCmp cmp,
                                 uint64_t timeout_ns, int32_t& observed) {
  bool held = false;
  int32_t seen = 0;
  if (!view_->signal_call(offset, "wait", cmp_value, static_cast<uint32_t>(cmp), &timeout_ns,
                          &held, &seen)) {
    return false;
  }
  observed = seen;
  return held;
}

bool PyObjectView::signal_call(uint64_t offset, const char* method, int32_t cmp_value,
                               uint32_t cmp, const uint64_t* timeout_ns, bool* flag,
                               int32_t* observed) {
  State& s = *s_;
  const RegionViewOp op = timeout_ns ? RegionViewOp::WAIT : RegionViewOp::TEST;
  const std::string what = std::string("counter ") + method;
  return s.call(op, what.c_str(), [&]() -> std::string {
    py::object c = s.region.attr("counter")(py::int_(offset));
    py::object r = timeout_ns ? c.attr(method)(py::int_(cmp_value), py::int_(cmp),
                                               py::int_(*timeout_ns))
                              : c.attr(method)(py::int_(cmp_value), py::int_(cmp));
    if (!py::isinstance<py::tuple>(r) || py::len(r) != 2) {
      return "answered " + py::repr(r).cast<std::string>() + ", not (bool, int32)";
    }
    py::tuple t = r.cast<py::tuple>();
    long long v = 0;
    if (!PyBool_Check(t[0].ptr()) ||
        !int_in(t[1], std::numeric_limits<int32_t>::min(),
                std::numeric_limits<int32_t>::max(), nullptr, &v)) {
      return "answered " + py::repr(r).cast<std::string>() + ", not (bool, int32)";
    }
    *flag = t[0].ptr() == Py_True;
    *observed = static_cast<int32_t>(v);
    return {};
  });
}

uint64_t python_monotonic_ns() {
  py::gil_scoped_acquire gil;
  if (pending()) return g_last_now;
  try {
    // Leaked on purpose: a module object outliving the interpreter must not
    // be released at exit.
    static PyObject* time_module = py::module_::import("time").release().ptr();
    py::object now = py::reinterpret_borrow<py::object>(time_module).attr("monotonic_ns")();
    unsigned long long v = 0;
    if (!int_in(now, 0, std::numeric_limits<uint64_t>::max(), &v, nullptr)) {
      throw py::type_error("time.monotonic_ns() answered " + py::repr(now).cast<std::string>() +
                           ", not a uint64");
    }
    g_last_now = v;
  } catch (py::error_already_set& e) {
    keep(e);
  } catch (py::builtin_exception& e) {
    e.set_error();
    py::error_already_set kept;
    keep(kept);
  }
  return g_last_now;
}

void raise_pending_python_error() {
  if (!pending()) return;
  const Pending p = t_pending;
  t_pending = Pending{};
  PyErr_Restore(p.type, p.value, p.traceback);
  throw py::error_already_set();
}

}  // namespace spsq_python
