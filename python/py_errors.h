// The module's exception classes and the one place that turns a queue status
// into a Python outcome:
//
//   SpsqError(Exception)             kind, operation, session_instance_id_bits,
//   |                                transaction_id, has_identity, detail
//   |-- RejectedError(ValueError)    usage error; the queue stays live
//   |-- QueueTimeoutError(TimeoutError)  blocking call expired; not poison
//   `-- PoisonedError                terminal for the queue handle
//       `-- RemoteAbortError         the peer raised its abort flag
#ifndef SPSQ_PYTHON_PY_ERRORS_H_
#define SPSQ_PYTHON_PY_ERRORS_H_

#include <pybind11/pybind11.h>

#include "common/spsq_error.h"
#include "l3/worker_chip_queue_status.h"

namespace spsq_python {

void register_exceptions(pybind11::module_& m);

// Raises the exception class that `status` maps to (never for OK or
// WOULD_BLOCK, which the caller turns into a return value).
[[noreturn]] void raise_status(spsc_queue::WorkerChipQueueStatus status,
                               const spsc_queue::SpscQueueError& error);

// Raises for a failed factory or submit call: BAD_ARGUMENT is a
// RejectedError, anything else a plain SpsqError.
[[noreturn]] void raise_call_error(const spsc_queue::SpscQueueError& error);

}  // namespace spsq_python

#endif  // SPSQ_PYTHON_PY_ERRORS_H_
