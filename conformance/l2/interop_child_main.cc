// Interop, the L2 side: the main of the child binary the chip worker of the
// reference runtime forks and execs in process mode (see interop_test.cc, the
// parent). It holds only the endpoint under test, its adapter and this echo
// task: no harness, no gtest, nothing of the reference runtime, so an
// implementation with the reference's header paths and namespace links here
// without a clash. Built once per certification by spsq_l2_certification
// from "spsq_cert/config.h", for every window it certifies (SPSQ_CERT_WINDOWS).
//
// The task: decode the ten binding scalars through the implementation's own
// decoder, construct the implementation's RegionInstanceView exactly as the
// spec's L2 snippet does, hold up to N inputs, answer them newest first with
// each payload reversed (out-of-order release), and on STOP answer what is
// held, release, and return only once input().drained(). The clock is this
// binary's own CLOCK_MONOTONIC.
//
// Launch ABI (runtime/l2_task.h, ABI version 1), implemented here in a few
// lines because this binary must not link the runtime: the environment
// carries the TaskArgs scalars (SPSQ_L2_TASK_SCALARS) and one record per
// inherited region memfd (SPSQ_L2_TASK_REGIONS: fd, payload offset/bytes,
// counter offset/bytes, the parent's payload/counter bases). Each memfd is
// mapped here, wherever mmap puts it, and every scalar that points into a
// part in the parent's address space is rebased onto this process's mapping
// before the endpoint decodes it: the simulation's stand-in for the device's
// local view. Scalar 10 (after the binding) is the parent's MaxInflight: the
// child runs the endpoint built for it, or fails if none was.
//
// Exit status 0 on success; otherwise 1 with a one-line reason on stderr.
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spsq_cert/config.h"

namespace spsq_conf {
namespace {

constexpr uint64_t kWaitNs = 20000000000ull;  // 20 s: a failure bound only
// Opcodes of the wire contract (the harness's wire model is not linked here).
constexpr uint64_t kOpData = 1;
constexpr uint64_t kOpStop = 2;
// The binding occupies scalars 0..9; the parent appends its MaxInflight.
constexpr size_t kBindingScalars = 10;
constexpr size_t kMaxInflightScalar = kBindingScalars;

int Fail(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
int Fail(const char* fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "interop child (%s): %s\n", SPSQ_CERT_NAME, msg);
  std::fflush(stderr);
  return 1;
}

uint64_t MonotonicNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// ---------------------------------------------------------------- launch ABI

bool ParseU64(const char** p, uint64_t* v) {
  if (!std::isdigit(static_cast<unsigned char>(**p))) return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(*p, &end, 0);
  if (errno != 0 || end == *p) return false;
  *v = static_cast<uint64_t>(x);
  *p = end;
  return true;
}

// A comma-separated list of numbers with `fields` entries per record and
// records separated by `record_sep` (0: one flat list of any length).
bool ParseList(const char* text, size_t fields, char record_sep, std::vector<uint64_t>* out) {
  for (const char* p = text; *p != '\0';) {
    uint64_t v;
    if (!ParseU64(&p, &v)) return false;
    out->push_back(v);
    const bool record_end = fields != 0 && out->size() % fields == 0;
    const char sep = record_end ? record_sep : ',';
    if (*p == '\0') break;
    if (*p != sep || p[1] == '\0') return false;
    ++p;
  }
  return fields == 0 || out->size() % fields == 0;
}

struct Part {
  uint64_t parent_base, bytes, local_base;
};

// Reads the task from the environment, maps the region memfds and rebases
// the scalars. Returns 0 or Fail()'s status.
int Attach(std::vector<uint64_t>* scalars) {
  const char* abi = std::getenv("SPSQ_L2_TASK_ABI");
  const char* scalar_text = std::getenv("SPSQ_L2_TASK_SCALARS");
  const char* region_text = std::getenv("SPSQ_L2_TASK_REGIONS");
  if (abi == nullptr || scalar_text == nullptr || region_text == nullptr) {
    return Fail("SPSQ_L2_TASK_* not set: this binary is started by the reference chip worker "
                "(process mode, external L2 binary), not by hand");
  }
  if (std::strcmp(abi, "1") != 0) return Fail("unsupported SPSQ_L2_TASK_ABI '%s'", abi);
  if (!ParseList(scalar_text, 0, ',', scalars)) {
    return Fail("malformed SPSQ_L2_TASK_SCALARS '%s'", scalar_text);
  }
  std::vector<uint64_t> f;
  if (!ParseList(region_text, 7, ';', &f)) {
    return Fail("malformed SPSQ_L2_TASK_REGIONS '%s'", region_text);
  }
  std::vector<Part> parts;
  for (size_t i = 0; i < f.size(); i += 7) {
    const uint64_t fd = f[i], p_off = f[i + 1], p_bytes = f[i + 2], c_off = f[i + 3],
                   c_bytes = f[i + 4];
    if (fd > 0x7fffffffu || p_off + p_bytes < p_off || c_off + c_bytes < c_off) {
      return Fail("bad region record %zu in SPSQ_L2_TASK_REGIONS", i / 7);
    }
    const uint64_t map_bytes = p_off + p_bytes > c_off + c_bytes ? p_off + p_bytes : c_off + c_bytes;
    struct stat st;
    if (fstat(static_cast<int>(fd), &st) != 0) {
      return Fail("region fd %" PRIu64 " was not inherited: %s", fd, std::strerror(errno));
    }
    if (static_cast<uint64_t>(st.st_size) < map_bytes) {
      return Fail("region fd %" PRIu64 " holds %lld bytes, the record needs %" PRIu64, fd,
                  static_cast<long long>(st.st_size), map_bytes);
    }
    void* m = mmap(nullptr, static_cast<size_t>(map_bytes), PROT_READ | PROT_WRITE, MAP_SHARED,
                   static_cast<int>(fd), 0);
    if (m == MAP_FAILED) {
      return Fail("mmap of region fd %" PRIu64 " (%" PRIu64 " bytes) failed: %s", fd, map_bytes,
                  std::strerror(errno));
    }
    const uint64_t local = reinterpret_cast<uintptr_t>(m);
    parts.push_back(Part{f[i + 5], p_bytes, local + p_off});
    parts.push_back(Part{f[i + 6], c_bytes, local + c_off});
  }
  // The rebase: a parent address inside a region part becomes this
  // process's address of the same byte (binding scalars 3 and 5).
  for (uint64_t& v : *scalars) {
    for (const Part& p : parts) {
      if (v >= p.parent_base && v - p.parent_base < p.bytes) {
        v = p.local_base + (v - p.parent_base);
        break;
      }
    }
  }
  return 0;
}

// ---------------------------------------------------------------- the task

template <uint64_t N>
int Echo(const std::vector<uint64_t>& scalars) {
  using Ep = SPSQ_CERT_ENDPOINT<RegionInstanceView, N>;
  using A = EndpointAccess<Ep>;
  static_assert(A::kScalarCount == kBindingScalars, "the binding is ten scalars");
  uint64_t s[A::kScalarCount];
  for (size_t i = 0; i < A::kScalarCount; ++i) s[i] = i < scalars.size() ? scalars[i] : 0;
  const std::unique_ptr<Ep> bound = BindEndpoint<Ep, RegionInstanceView>(s, &MonotonicNs);
  if (!bound) return Fail("decode_endpoint_binding rejected the ten scalars");
  Ep& queue = *bound;
  auto why = [&](const char* what) {
    return Fail("%s (error kind %u: %s)", what, static_cast<unsigned>(A::kind(queue)),
                A::message(queue));
  };
  if (!queue.live()) return why("the endpoint is not live after construction");
  // Hold up to N inputs, then answer them newest first (out-of-order release).
  std::vector<typename A::Handle> held;
  for (;;) {
    typename A::Handle h{};
    if (!queue.input().peek(kWaitNs, h)) return why("input().peek failed or timed out");
    const bool stop = A::opcode(h) == kOpStop;
    if (!stop) held.push_back(h);
    if (stop || held.size() == N) {
      for (size_t i = held.size(); i-- > 0;) {
        const uint64_t n = A::nbytes(held[i]);
        typename A::Reservation r{};
        if (!queue.output().reserve(n, kWaitNs, r)) {
          return why("output().reserve failed or timed out");
        }
        const uint8_t* in = A::payload(held[i]);
        uint8_t* out = A::payload(r);
        for (uint64_t k = 0; k < n; ++k) out[k] = in[n - 1 - k];
        if (!queue.output().publish(r, A::opcode_value(kOpData))) {
          return why("output().publish failed");
        }
      }
      for (size_t i = held.size(); i-- > 0;) {
        if (!queue.input().release(held[i])) return why("input().release of a DATA input failed");
      }
      held.clear();
    }
    if (stop) {
      if (!queue.input().release(h)) return why("input().release of STOP failed");
      // The spec: return only after drained().
      if (!queue.input().drained()) return why("input().drained() is false after STOP");
      return 0;
    }
  }
}

// Every window the certification certifies.
constexpr uint64_t kWindows[] = {SPSQ_CERT_WINDOWS};

// Echo at the parent's MaxInflight, if this child was built for it.
template <size_t... I>
int EchoAt(const std::vector<uint64_t>& scalars, std::index_sequence<I...>) {
  const uint64_t n = scalars[kMaxInflightScalar];
  int rc = -1;
  (void)((n == kWindows[I] && (rc = Echo<kWindows[I]>(scalars), true)) || ...);
  if (rc >= 0) return rc;
  std::string built;
  for (const uint64_t w : kWindows) built += (built.empty() ? "" : ", ") + std::to_string(w);
  return Fail("the parent runs MaxInflight %" PRIu64 ", this child was built for %s", n,
              built.c_str());
}

}  // namespace
}  // namespace spsq_conf

int main() {
  std::vector<uint64_t> scalars;
  if (const int rc = spsq_conf::Attach(&scalars)) return rc;
  if (scalars.size() != spsq_conf::kMaxInflightScalar + 1) {
    return spsq_conf::Fail("expected the ten binding scalars plus MaxInflight, got %zu scalars",
                           scalars.size());
  }
  return spsq_conf::EchoAt(scalars, std::make_index_sequence<std::size(spsq_conf::kWindows)>());
}
