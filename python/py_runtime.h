// The runtime simulation for Python: Orchestrator, Worker (run() is the L2
// drain), TaskArgs, ChipCallConfig and the registered C++ L2 functions.
#ifndef SPSQ_PYTHON_PY_RUNTIME_H_
#define SPSQ_PYTHON_PY_RUNTIME_H_

#include <pybind11/pybind11.h>

namespace spsq_python {

void bind_runtime(pybind11::module_& m);

}  // namespace spsq_python

#endif  // SPSQ_PYTHON_PY_RUNTIME_H_
