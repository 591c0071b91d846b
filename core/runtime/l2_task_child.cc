#include "runtime/l2_task_child.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace spsq_runtime {
namespace {

// One unsigned number at *p (decimal or 0x hex); advances *p past it.
bool parse_u64(const char** p, uint64_t* v) {
  if (!std::isdigit(static_cast<unsigned char>(**p))) return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(*p, &end, 0);
  if (errno != 0 || end == *p) return false;
  *v = static_cast<uint64_t>(x);
  *p = end;
  return true;
}

const char* env(const char* name, std::string* error) {
  const char* v = std::getenv(name);
  if (v == nullptr) *error = std::string(name) + " is not set: not started by a chip worker";
  return v;
}

bool rebase(uint64_t parent_base, uint64_t bytes, uint64_t local_base, uint64_t* v) {
  if (*v < parent_base || *v - parent_base >= bytes) return false;
  *v = local_base + (*v - parent_base);
  return true;
}

}  // namespace

bool attach_l2_task_child(L2TaskChild* out, std::string* error) {
  const char* abi = env(kL2TaskAbiEnv, error);
  if (abi == nullptr) return false;
  if (std::strcmp(abi, kL2TaskAbiVersion) != 0) {
    *error = std::string("unsupported ") + kL2TaskAbiEnv + " '" + abi + "'";
    return false;
  }
  const char* name = env(kL2TaskNameEnv, error);
  const char* scalars = env(kL2TaskScalarsEnv, error);
  const char* block_dim = env(kL2TaskBlockDimEnv, error);
  const char* regions = env(kL2TaskRegionsEnv, error);
  if (name == nullptr || scalars == nullptr || block_dim == nullptr || regions == nullptr) {
    return false;
  }
  L2TaskChild task;
  task.name = name;

  std::vector<uint64_t> values;
  for (const char* p = scalars; *p != '\0';) {
    uint64_t v;
    if (!parse_u64(&p, &v) || (*p != ',' && *p != '\0') || (*p == ',' && p[1] == '\0')) {
      *error = std::string("malformed ") + kL2TaskScalarsEnv + " '" + scalars + "'";
      return false;
    }
    values.push_back(v);
    if (*p == ',') ++p;
  }
  {
    const char* p = block_dim;
    uint64_t v;
    if (!parse_u64(&p, &v) || *p != '\0' || v == 0 || v > UINT32_MAX) {
      *error = std::string("malformed ") + kL2TaskBlockDimEnv + " '" + block_dim + "'";
      return false;
    }
    task.cfg.block_dim = static_cast<uint32_t>(v);
  }
  for (const char* p = regions; *p != '\0';) {
    uint64_t f[7];
    bool ok = true;
    for (int i = 0; i < 7 && ok; ++i) {
      ok = parse_u64(&p, &f[i]) && (i == 6 ? (*p == ';' || *p == '\0') : *p == ',');
      if (ok && i < 6) ++p;
    }
    if (!ok || f[0] > INT32_MAX) {
      *error = std::string("malformed ") + kL2TaskRegionsEnv + " '" + regions + "'";
      return false;
    }
    if (*p == ';') ++p;
    L2ChildRegion r;
    r.fd = static_cast<int>(f[0]);
    const uint64_t payload_end = f[1] + f[2], counter_end = f[3] + f[4];
    if (payload_end < f[1] || counter_end < f[3]) {
      *error = std::string("region part overflows in ") + kL2TaskRegionsEnv;
      return false;
    }
    r.map_bytes = payload_end > counter_end ? payload_end : counter_end;
    struct stat st;
    errno = 0;
    if (fstat(r.fd, &st) != 0 || static_cast<uint64_t>(st.st_size) < r.map_bytes) {
      *error = "region fd " + std::to_string(r.fd) + " is not an inherited memfd of " +
               std::to_string(r.map_bytes) + " bytes: " +
               (errno != 0 ? std::strerror(errno) : "too small");
      return false;
    }
    void* m = mmap(nullptr, static_cast<size_t>(r.map_bytes), PROT_READ | PROT_WRITE, MAP_SHARED,
                   r.fd, 0);
    if (m == MAP_FAILED) {
      *error = "mmap of region fd " + std::to_string(r.fd) + " failed: " + std::strerror(errno);
      return false;
    }
    r.map = static_cast<uint8_t*>(m);
    const uint64_t local = reinterpret_cast<uintptr_t>(m);
    r.payload_base = local + f[1];
    r.payload_bytes = f[2];
    r.counter_base = local + f[3];
    r.counter_bytes = f[4];
    r.parent_payload_base = f[5];
    r.parent_counter_base = f[6];
    task.regions.push_back(r);
  }

  // The rebase: parent addresses inside a region part become this process's.
  for (uint64_t& v : values) {
    for (const L2ChildRegion& r : task.regions) {
      if (rebase(r.parent_payload_base, r.payload_bytes, r.payload_base, &v) ||
          rebase(r.parent_counter_base, r.counter_bytes, r.counter_base, &v)) {
        ++task.rebased_scalars;
        break;
      }
    }
    task.args.add_scalar(v);
  }
  *out = std::move(task);
  return true;
}

int run_l2_task_child(L2OrchFunction fn) {
  L2TaskChild task;
  std::string why;
  if (!attach_l2_task_child(&task, &why)) {
    std::fprintf(stderr, "L2 task child: %s\n", why.c_str());
    return 2;
  }
  fn(task.args, task.cfg);
  std::fflush(nullptr);
  return 0;
}

}  // namespace spsq_runtime
