// Argument conversion shared by the bindings. Every check here runs before
// the call reaches the queue, so a refused argument never touches shared
// memory.
#ifndef SPSQ_PYTHON_PY_ARGS_H_
#define SPSQ_PYTHON_PY_ARGS_H_

#include <pybind11/pybind11.h>

#include <cstdint>

namespace spsq_python {

// A blocking call's timeout in seconds -> positive nanoseconds. None, NaN,
// infinity and values <= 0 raise ValueError; non-numbers (and bool) raise
// TypeError. Sub-nanosecond values round up to 1 ns; values beyond 2^64 - 1 ns
// (about 584 years) saturate there, as a deadline does.
uint64_t timeout_arg(pybind11::handle timeout, const char* call);

// A non-negative integer argument (bool refused); `name` goes in the error.
uint64_t uint64_arg(pybind11::handle value, const char* call, const char* name);

}  // namespace spsq_python

#endif  // SPSQ_PYTHON_PY_ARGS_H_
