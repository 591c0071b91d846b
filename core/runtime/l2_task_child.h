// The child side of the exec ABI (runtime/l2_task.h): what an external L2
// binary calls first. It reads the task from the environment, maps every
// inherited region memfd, and rebases the scalars that point into a region
// part from the parent's addresses to this process's mapping (the
// simulation's stand-in for the device's local view), so the L2 code that
// decodes them afterwards only ever sees its own local addresses.
//
//   void my_l2(const spsq_runtime::TaskArgs& args, const spsq_runtime::ChipCallConfig& cfg);
//   int main() { return spsq_runtime::run_l2_task_child(&my_l2); }
//
// Depends on nothing but libc and the header-only TaskArgs.
#ifndef SPSQ_RUNTIME_L2_TASK_CHILD_H_
#define SPSQ_RUNTIME_L2_TASK_CHILD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/l2_task.h"
#include "runtime/task_args.h"

namespace spsq_runtime {

// One inherited RegionInstance as mapped in this process.
struct L2ChildRegion {
  int fd = -1;
  uint8_t* map = nullptr;  // MAP_SHARED of fd from offset 0
  uint64_t map_bytes = 0;
  uint64_t payload_base = 0;  // this process's addresses
  uint64_t payload_bytes = 0;
  uint64_t counter_base = 0;
  uint64_t counter_bytes = 0;
  uint64_t parent_payload_base = 0;  // L3's addresses, as found in the scalars
  uint64_t parent_counter_base = 0;
};

struct L2TaskChild {
  std::string name;
  TaskArgs args;  // rebased
  ChipCallConfig cfg;
  std::vector<L2ChildRegion> regions;
  uint64_t rebased_scalars = 0;  // how many scalars were rewritten
};

// Parses the environment, maps the regions (they stay mapped for the life of
// the process) and rebases the scalars. False with *error on any malformed or
// missing variable or failed mapping.
bool attach_l2_task_child(L2TaskChild* out, std::string* error);

// attach_l2_task_child, then fn(args, cfg); returns the exit status for main:
// 0 after fn returned, 2 (with a one-line reason on stderr) if attaching
// failed.
int run_l2_task_child(L2OrchFunction fn);

}  // namespace spsq_runtime

#endif  // SPSQ_RUNTIME_L2_TASK_CHILD_H_
