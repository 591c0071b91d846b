#include "python/py_errors.h"

#include <stdexcept>
#include <string>

#include "common/spsq_constants.h"

namespace py = pybind11;

namespace spsq_python {
namespace {

using spsc_queue::SpscQueueError;
using spsc_queue::SpscQueueErrorKind;
using spsc_queue::WorkerChipQueueStatus;

// Owned by the module object; never released (the classes live as long as
// the interpreter keeps the module).
PyObject* g_spsq_error = nullptr;
PyObject* g_rejected = nullptr;
PyObject* g_timeout = nullptr;
PyObject* g_poisoned = nullptr;
PyObject* g_remote_abort = nullptr;

PyObject* new_class(py::module_& m, const char* name, const char* doc, py::tuple bases) {
  const std::string qualified = std::string("spsq.") + name;
  PyObject* cls =
      PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), /*dict=*/nullptr);
  if (cls == nullptr) throw py::error_already_set();
  m.add_object(name, py::handle(cls));  // the module takes a reference
  return cls;
}

std::string text_of(const SpscQueueError& e) {
  std::string s = spsc_queue::operation_name(e.op);
  s += ": ";
  s += e.message;
  if (e.kind != SpscQueueErrorKind::NONE) {
    s = std::string(spsc_queue::error_kind_name(e.kind)) + " in " + s;
  }
  return s;
}

[[noreturn]] void raise_as(PyObject* cls, const SpscQueueError& e) {
  py::object exc = py::reinterpret_borrow<py::object>(cls)(text_of(e));
  exc.attr("kind") = py::cast(e.kind);
  exc.attr("operation") = py::cast(e.op);
  exc.attr("session_instance_id_bits") = py::int_(e.session_instance_id_bits);
  exc.attr("transaction_id") = py::int_(e.transaction_id);
  exc.attr("has_identity") = py::bool_(e.has_identity());
  exc.attr("detail") = py::str(e.message);
  PyErr_SetObject(cls, exc.ptr());
  throw py::error_already_set();
}

}  // namespace

void register_exceptions(py::module_& m) {
  PyObject* base = new_class(
      m, "SpsqError",
      "Base of the queue's errors. Attributes: kind (ErrorKind), operation (Operation),\n"
      "session_instance_id_bits and transaction_id (the RegionInstance identity, valid when\n"
      "has_identity), detail (the endpoint's message).",
      py::make_tuple(py::handle(PyExc_Exception)));
  g_spsq_error = base;
  g_rejected = new_class(
      m, "RejectedError",
      "A usage error refused before any shared-memory effect (bad size, input closed by\n"
      "STOP, freed handle). The queue stays live. Also a ValueError.",
      py::make_tuple(py::handle(base), py::handle(PyExc_ValueError)));
  g_timeout = new_class(
      m, "QueueTimeoutError",
      "A blocking call's positive timeout expired with the peer abort flag down. Ordinary\n"
      "no-progress: the queue stays live. Also a TimeoutError.",
      py::make_tuple(py::handle(base), py::handle(PyExc_TimeoutError)));
  g_poisoned = new_class(
      m, "PoisonedError",
      "The queue handle is poisoned (infrastructure failure or stale handle ownership).\n"
      "Terminal: every later normal operation raises it again; free() stays valid.",
      py::make_tuple(py::handle(base)));
  g_remote_abort = new_class(
      m, "RemoteAbortError",
      "The peer (L2) raised its abort flag; kind is REMOTE_ABORTED. Terminal, like\n"
      "PoisonedError, but the local abort flag stays down.",
      py::make_tuple(py::handle(g_poisoned)));
}

void raise_status(WorkerChipQueueStatus status, const SpscQueueError& error) {
  switch (status) {
    case WorkerChipQueueStatus::TIMED_OUT: raise_as(g_timeout, error);
    case WorkerChipQueueStatus::REJECTED: raise_as(g_rejected, error);
    case WorkerChipQueueStatus::FAILED:
      raise_as(error.kind == SpscQueueErrorKind::REMOTE_ABORTED ? g_remote_abort : g_poisoned,
               error);
    case WorkerChipQueueStatus::OK:
    case WorkerChipQueueStatus::WOULD_BLOCK:
      break;
  }
  throw std::logic_error(std::string("no exception for queue status ") +
                         spsc_queue::worker_chip_queue_status_name(status));
}

void raise_call_error(const SpscQueueError& error) {
  raise_as(error.kind == SpscQueueErrorKind::BAD_ARGUMENT ? g_rejected : g_spsq_error, error);
}

}  // namespace spsq_python
