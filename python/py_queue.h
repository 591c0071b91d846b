// The Python WorkerChipQueue: queue.input, queue.output, Message, layout,
// chip_task_arg_scalars(), region and free(), over the C++ L3 queue: one the
// runtime created (host memory), or one bound over a Python region object
// (spsq.bind_worker_chip_queue; every shared access a call into that object).
//
// Every call on one queue is serialized by the queue's lock (the C++ handle
// is single-threaded) and runs with the GIL released, so a call blocked for
// its timeout never stalls other Python threads. Arguments are converted and
// checked first, with the GIL held and before the queue is touched.
#ifndef SPSQ_PYTHON_PY_QUEUE_H_
#define SPSQ_PYTHON_PY_QUEUE_H_

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>

#include "l3/worker_chip_queue.h"
#include "python/queue_backend.h"

namespace spsq_python {

struct QueueBox {
  std::mutex mu;
  std::unique_ptr<QueueBackend> queue;  // never null
  // For a queue bound over a Python region: that object, which queue.region
  // reaches the counters through (the spans are not mapped in this process).
  pybind11::object region_object;
};

void bind_queue(pybind11::module_& m);

// The Python object for a queue the orchestrator created.
// `now_ns` is the clock it was created with.
pybind11::object wrap_queue(std::unique_ptr<spsc_queue::WorkerChipQueue> queue,
                            uint64_t (*now_ns)());

// Number of threads inside a blocking queue call right now (GIL released,
// queue lock held). Lets a test see that a blocked call has let go of the GIL.
int blocked_calls();

}  // namespace spsq_python

#endif  // SPSQ_PYTHON_PY_QUEUE_H_
