// The external L2 binary of chip_worker_test's exec tests: attaches through
// runtime/l2_task_child.h, checks what crossed (scalars rebased onto its own
// mapping, call config, task name), reads the byte L3 wrote and writes bytes
// L3 checks. Scalars: payload_base, payload_bytes, counter_base,
// counter_bytes, payload_base + 100, a magic, an action (0: probe, else exit
// with that status at once).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/l2_task_child.h"

namespace {

int fail(const char* why) {
  std::fprintf(stderr, "l2_exec_test_child: %s\n", why);
  return 1;
}

}  // namespace

int main() {
  spsq_runtime::L2TaskChild task;
  std::string why;
  if (!spsq_runtime::attach_l2_task_child(&task, &why)) return fail(why.c_str());
  const spsq_runtime::TaskArgs& a = task.args;
  if (a.scalar_count() != 7) return fail("expected 7 scalars");
  if (a.scalar(6) != 0) return static_cast<int>(a.scalar(6));
  if (task.name != "probe") return fail("task name did not cross");
  if (task.cfg.block_dim != 3) return fail("block_dim did not cross");
  if (task.regions.size() != 1) return fail("expected exactly one region");
  const spsq_runtime::L2ChildRegion& r = task.regions[0];
  if (a.scalar(0) != r.payload_base || a.scalar(2) != r.counter_base) {
    return fail("part bases not rebased onto the child's mapping");
  }
  if (a.scalar(4) != r.payload_base + 100) return fail("interior address not rebased");
  if (a.scalar(1) != r.payload_bytes || a.scalar(3) != r.counter_bytes) {
    return fail("part sizes changed or do not match the region record");
  }
  if (a.scalar(5) != 0x5350535100010000ull) return fail("non-address scalar was rewritten");
  if (task.rebased_scalars != 3) return fail("expected exactly 3 rebased scalars");
  auto* payload = reinterpret_cast<uint8_t*>(a.scalar(0));
  auto* counter = reinterpret_cast<uint8_t*>(a.scalar(2));
  if (payload[0] != 0x5a) return fail("L3's payload byte is not visible");
  payload[1] = 0xa5;
  counter[0] = 0x77;
  *reinterpret_cast<uint8_t*>(a.scalar(4)) = 0x42;
  return 0;
}
