// The spsq Python module: the L3 side of the SPSQ queue and the runtime
// simulation, over the C++ reference implementation.
#include <pybind11/pybind11.h>

#include "common/spsq_constants.h"
#include "common/spsq_error.h"
#include "python/host_buffer.h"
#include "python/py_args.h"
#include "python/py_errors.h"
#include "python/py_queue.h"
#include "python/py_region.h"
#include "python/py_runtime.h"
#include "python/virtual_clock.h"

namespace py = pybind11;

namespace spsq_python {
namespace {

void bind_enums(py::module_& m) {
  using spsc_queue::SpscQueueErrorKind;
  using spsc_queue::SpscQueueOpcode;
  using spsc_queue::SpscQueueOp;
  py::enum_<SpscQueueOpcode>(m, "Opcode", py::arithmetic())
      .value("INVALID", SpscQueueOpcode::INVALID)
      .value("DATA", SpscQueueOpcode::DATA)
      .value("STOP", SpscQueueOpcode::STOP)
      .value("ERROR", SpscQueueOpcode::ERROR);
  py::enum_<SpscQueueErrorKind>(m, "ErrorKind", py::arithmetic())
      .value("NONE", SpscQueueErrorKind::NONE)
      .value("BAD_ARGUMENT", SpscQueueErrorKind::BAD_ARGUMENT)
      .value("BAD_BINDING", SpscQueueErrorKind::BAD_BINDING)
      .value("INVALID_DESCRIPTOR", SpscQueueErrorKind::INVALID_DESCRIPTOR)
      .value("OWNERSHIP", SpscQueueErrorKind::OWNERSHIP)
      .value("REMOTE_ABORTED", SpscQueueErrorKind::REMOTE_ABORTED)
      .value("ENDPOINT_ERROR", SpscQueueErrorKind::ENDPOINT_ERROR);
  py::enum_<SpscQueueOp>(m, "Operation", py::arithmetic())
      .value("NONE", SpscQueueOp::NONE)
      .value("INIT", SpscQueueOp::INIT)
      .value("TIMEOUT", SpscQueueOp::TIMEOUT)
      .value("INPUT_TRY_PEEK", SpscQueueOp::INPUT_TRY_PEEK)
      .value("INPUT_RELEASE", SpscQueueOp::INPUT_RELEASE)
      .value("OUTPUT_TRY_RESERVE", SpscQueueOp::OUTPUT_TRY_RESERVE)
      .value("OUTPUT_PUBLISH", SpscQueueOp::OUTPUT_PUBLISH)
      .value("L3_ENQUEUE", SpscQueueOp::L3_ENQUEUE)
      .value("L3_REQUEST_STOP", SpscQueueOp::L3_REQUEST_STOP)
      .value("L3_OUTPUT_PEEK", SpscQueueOp::L3_OUTPUT_PEEK)
      .value("L3_OUTPUT_READ", SpscQueueOp::L3_OUTPUT_READ)
      .value("L3_OUTPUT_RELEASE", SpscQueueOp::L3_OUTPUT_RELEASE);
}

void bind_host_buffer(py::module_& m) {
  py::class_<HostBuffer>(m, "HostBuffer", py::buffer_protocol(),
                         "A registered HOST buffer: fixed-size, 64-byte aligned host memory\n"
                         "that enqueue, read_into and dequeue_into accept directly.")
      .def(py::init([](py::handle size_or_data) {
             if (PyLong_Check(size_or_data.ptr()) && !PyBool_Check(size_or_data.ptr())) {
               return new HostBuffer(uint64_arg(size_or_data, "HostBuffer", "size"));
             }
             py::buffer data = py::reinterpret_borrow<py::buffer>(size_or_data);
             if (!PyObject_CheckBuffer(size_or_data.ptr())) {
               throw py::type_error("HostBuffer: pass a size in bytes or a bytes-like object");
             }
             py::buffer_info info = data.request();
             const uint64_t n = static_cast<uint64_t>(info.size * info.itemsize);
             auto* b = new HostBuffer(n);
             if (n != 0) {
               if (PyBuffer_ToContiguous(b->data(), info.view(), static_cast<Py_ssize_t>(n), 'C') != 0) {
                 delete b;
                 throw py::error_already_set();
               }
             }
             return b;
           }),
           py::arg("size_or_data"),
           "HostBuffer(n): n zero bytes. HostBuffer(data): a copy of a bytes-like object.")
      .def_property_readonly("nbytes", &HostBuffer::nbytes)
      .def_property_readonly("kind", [](const HostBuffer&) { return "HOST"; })
      .def("__len__", &HostBuffer::nbytes)
      .def_buffer([](HostBuffer& b) {
        return py::buffer_info(b.data(), 1, py::format_descriptor<uint8_t>::format(), 1,
                               {static_cast<py::ssize_t>(b.nbytes())}, {1});
      });
}

}  // namespace
}  // namespace spsq_python

PYBIND11_MODULE(spsq, m) {
  using namespace spsq_python;
  m.doc() =
      "SPSQ (L3-L2 message queue) for Python: the L3 side of the queue and the runtime\n"
      "simulation, over the C++ reference implementation.\n\n"
      "Blocking calls take a finite positive timeout in seconds (None, NaN, inf, <= 0 raise\n"
      "ValueError before the queue is touched); try_* calls return False or None for\n"
      "ordinary no-progress. Payloads are HostBuffer, bytes, bytearray or a contiguous\n"
      "memoryview (None for zero-byte messages); read targets must be writable.\n"
      "Outcomes: RejectedError (usage, a ValueError), QueueTimeoutError (a TimeoutError),\n"
      "PoisonedError (terminal) and its subclass RemoteAbortError.";
  bind_enums(m);
  register_exceptions(m);
  bind_host_buffer(m);
  bind_region(m);
  bind_queue(m);
  bind_runtime(m);
  m.attr("MAGIC_VERSION") = py::int_(spsc_queue::kSpscQueueMagicVersion);
  m.attr("BINDING_SCALAR_COUNT") = spsc_queue::kSpscQueueEndpointBindingScalarCount;
  m.attr("DESCRIPTOR_BYTES") = spsc_queue::kDescriptorBytes;
  m.attr("COUNTER_BYTES") = spsc_queue::kCounterBytes;
  m.attr("MAX_DEPTH") = spsc_queue::kMaxDepth;
  m.attr("VIRTUAL_CLOCK_STEP_NS") = kVirtualClockStepNs;
  m.def("virtual_clock_ns", &virtual_clock_peek_ns,
        "The virtual clock's reading, without advancing it.");
  m.def("_blocked_calls", &blocked_calls,
        "Threads inside a blocking queue call with the GIL released (test hook).");
}
