// The C++ L2 functions the module can submit, by name. They are compiled
// into the extension: a Python L3 names an L2 binary the way the runtime
// names an AICPU orchestration entry point.
#ifndef SPSQ_PYTHON_L2_REGISTRY_H_
#define SPSQ_PYTHON_L2_REGISTRY_H_

#include <cstddef>
#include <string>

#include "runtime/chip_worker.h"

namespace spsq_python {

struct RegisteredL2 {
  spsq_runtime::L2OrchHandle handle;
  const char* summary;
};

// All registered functions, in a fixed order.
const RegisteredL2* registered_l2_begin();
const RegisteredL2* registered_l2_end();

// Null when no function has that name.
const RegisteredL2* find_registered_l2(const std::string& name);

}  // namespace spsq_python

#endif  // SPSQ_PYTHON_L2_REGISTRY_H_
