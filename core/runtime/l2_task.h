// What an L2 orchestration task is to the runtime, and how one that is an
// external binary is launched.
//
// An L2 task is either a function pointer (the stand-in for an AICPU binary's
// entry point, run on the chip worker's thread or in a forked child) or the
// path of an executable (process mode only: the chip worker forks and execs
// it). Either way it gets the TaskArgs scalars and the call config and no
// pointer into L3 state.
//
// ---------------------------------------------------------------- exec ABI
// An external L2 binary is started as `execve(binary, {binary, NULL}, env)`
// with the parent's environment plus the variables below (ABI version 1).
// Numbers are unsigned C literals (decimal, or hex with 0x), parsed with
// strtoull(..., 0).
//
//   SPSQ_L2_TASK_ABI        "1"
//   SPSQ_L2_TASK_NAME       the handle's name
//   SPSQ_L2_TASK_SCALARS    the TaskArgs scalars in order, comma separated
//                           (empty for none); as L3 wrote them, i.e. holding
//                           the PARENT's addresses
//   SPSQ_L2_TASK_BLOCK_DIM  ChipCallConfig::block_dim
//   SPSQ_L2_TASK_REGIONS    one record per RegionInstance of the worker that
//                           is alive at submit (the task's pins), separated
//                           by ';' (empty for none); each record is seven
//                           comma-separated fields
//                             fd,payload_offset,payload_bytes,
//                             counter_offset,counter_bytes,
//                             parent_payload_base,parent_counter_base
//                           `fd` is an inherited memfd (a descriptor of the
//                           child; close-on-exec cleared for it alone), the
//                           offsets are from the start of that memfd, and the
//                           parent bases are where the parts lie in L3's
//                           address space.
//
// Address rebasing (the simulation's stand-in for the device's local view):
// on a device the L2 task sees region memory at its own local addresses. Here
// the child maps each memfd wherever mmap puts it (MAP_SHARED, from offset 0
// up to the end of its later part), so the parent's addresses are meaningless
// to it. Before any L2 code decodes the scalars, the child-side helper
// rewrites every scalar v with parent_X_base <= v < parent_X_base + X_bytes
// (X = payload or counter of some region) to child_X_base + (v -
// parent_X_base). A queue's payload_base and counter_base (binding scalars 3
// and 5) are rebased that way; sizes, ids and the magic are not addresses in
// those ranges and stay as they are. runtime/l2_task_child.h implements the
// child side; a binary that must not link the runtime (a third-party L2
// endpoint under certification) implements these few lines itself.
//
// The exit status of the child is the task's result: 0 completed, anything
// else (or a signal) failed, reported by ChipWorker::run().
#ifndef SPSQ_RUNTIME_L2_TASK_H_
#define SPSQ_RUNTIME_L2_TASK_H_

#include <cstdint>

#include "runtime/task_args.h"

namespace spsq_runtime {

// Launch parameters of one next-level call.
struct ChipCallConfig {
  uint32_t block_dim = 1;  // AIV blocks the L2 task may split kernel work across
};

using L2OrchFunction = void (*)(const TaskArgs& orch_args, const ChipCallConfig& cfg);

// Exactly one of `fn` and `binary` is set.
struct L2OrchHandle {
  const char* name = "";
  L2OrchFunction fn = nullptr;
  // Path of an executable implementing the exec ABI above (process mode only);
  // relative paths resolve against the working directory. Read at submit.
  const char* binary = nullptr;
};

inline constexpr const char* kL2TaskAbiEnv = "SPSQ_L2_TASK_ABI";
inline constexpr const char* kL2TaskAbiVersion = "1";
inline constexpr const char* kL2TaskNameEnv = "SPSQ_L2_TASK_NAME";
inline constexpr const char* kL2TaskScalarsEnv = "SPSQ_L2_TASK_SCALARS";
inline constexpr const char* kL2TaskBlockDimEnv = "SPSQ_L2_TASK_BLOCK_DIM";
inline constexpr const char* kL2TaskRegionsEnv = "SPSQ_L2_TASK_REGIONS";
// Every variable of the ABI starts with this; the parent's own copies are
// dropped from the child's environment.
inline constexpr const char* kL2TaskEnvPrefix = "SPSQ_L2_TASK_";

}  // namespace spsq_runtime

#endif  // SPSQ_RUNTIME_L2_TASK_H_
