#include "testkit/region_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace spsq_conf {
namespace {

constexpr uint8_t kCanary = 0xA5;
constexpr uint64_t kResidentLimit = uint64_t{64} << 20;  // bytes

[[noreturn]] void die(const char* what, uint64_t offset, uint64_t nbytes, uint64_t size) {
  std::fprintf(stderr,
               "RegionMemory: harness bug: %s [%llu, +%llu) outside a %llu-byte part\n", what,
               static_cast<unsigned long long>(offset), static_cast<unsigned long long>(nbytes),
               static_cast<unsigned long long>(size));
  std::abort();
}

uint64_t page_size() { return static_cast<uint64_t>(sysconf(_SC_PAGESIZE)); }

constexpr uint64_t kBlock = 256;

// The first index in [i, n) where a and b differ, or n.
uint64_t first_difference(const uint8_t* a, const uint8_t* b, uint64_t i, uint64_t n) {
  while (n - i >= kBlock && std::memcmp(a + i, b + i, kBlock) == 0) i += kBlock;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

// The first index in [0, n) whose byte is not `byte`, or n.
uint64_t first_other_byte(const uint8_t* p, uint8_t byte, uint64_t n) {
  uint8_t block[kBlock];
  std::memset(block, byte, sizeof(block));
  uint64_t i = 0;
  while (n - i >= kBlock && std::memcmp(p + i, block, kBlock) == 0) i += kBlock;
  while (i < n && p[i] == byte) ++i;
  return i;
}

// Unmapped private parts kept for reuse. A test that rebuilds its queue
// thousands of times (the liveness sweeps) otherwise spends most of its time
// in mmap, mprotect, the first-touch faults and munmap's TLB shootdowns. A
// reused mapping keeps its guard pages and is zero-filled again, so a new part
// is indistinguishable from a fresh mapping. Shared parts are never reused: a
// forked process may still hold them.
constexpr uint64_t kReuseLimit = uint64_t{1} << 20;  // map_bytes
constexpr int kReuseSlots = 8;

struct ReuseCache {
  std::mutex mu;
  uint8_t* map[kReuseSlots] = {};
  uint64_t map_bytes[kReuseSlots] = {};
};

ReuseCache& reuse_cache() {
  static ReuseCache* cache = new ReuseCache;  // never destroyed: parts outlive statics
  return *cache;
}

uint8_t* take_reusable(uint64_t map_bytes) {
  ReuseCache& c = reuse_cache();
  std::lock_guard<std::mutex> lock(c.mu);
  for (int i = 0; i < kReuseSlots; ++i) {
    if (c.map[i] != nullptr && c.map_bytes[i] == map_bytes) {
      uint8_t* m = c.map[i];
      c.map[i] = nullptr;
      return m;
    }
  }
  return nullptr;
}

bool keep_reusable(uint8_t* map, uint64_t map_bytes) {
  if (map_bytes > kReuseLimit) return false;
  ReuseCache& c = reuse_cache();
  std::lock_guard<std::mutex> lock(c.mu);
  for (int i = 0; i < kReuseSlots; ++i) {
    if (c.map[i] == nullptr) {
      c.map[i] = map;
      c.map_bytes[i] = map_bytes;
      return true;
    }
  }
  return false;
}

}  // namespace

RegionMemory::Mapping RegionMemory::map_part(uint64_t bytes, Sharing sharing) {
  const uint64_t page = page_size();
  const uint64_t data_pages = (bytes + page - 1) / page;
  // Guard page, data pages, guard page. An empty part still gets one page so
  // its base is a distinct, faulting-on-use address.
  const uint64_t pages = (data_pages == 0 ? 1 : data_pages) + 2;
  Mapping m;
  m.map_bytes = pages * page;
  m.shared = sharing == Sharing::kSharedForFork;
  const uint64_t usable = (pages - 2) * page;
  m.map = m.shared ? nullptr : take_reusable(m.map_bytes);
  if (m.map != nullptr) {
    std::memset(m.map + page, 0, usable);  // as a fresh mapping reads
  } else {
    const int share = m.shared ? MAP_SHARED : MAP_PRIVATE;
    void* p = mmap(nullptr, m.map_bytes, PROT_NONE, share | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      std::fprintf(stderr, "RegionMemory: cannot map %llu bytes\n",
                   static_cast<unsigned long long>(m.map_bytes));
      std::abort();
    }
    m.map = static_cast<uint8_t*>(p);
    if (mprotect(m.map + page, usable, PROT_READ | PROT_WRITE) != 0) {
      std::fprintf(stderr, "RegionMemory: mprotect failed\n");
      std::abort();
    }
    // Parts of a realistic size are made resident now, as device memory is: a
    // page never written stays unmapped, and a software prefetch into it (an
    // endpoint's hint at the arena line that zero-byte traffic never writes)
    // then costs a failed page walk each time, over 100 ns here, which made the
    // 2^33-message wrap run several times slower than the endpoint is. Huge
    // layouts stay lazy.
    if (usable <= kResidentLimit) {
      for (uint64_t off = 0; off < usable; off += page) m.map[page + off] = 0;
    }
  }
  uint8_t* first = m.map + page;
  // Flush against the back guard; sizes are 64-byte multiples in practice,
  // and a page-aligned end keeps any 64-multiple size 64-byte aligned.
  m.bytes = bytes;
  m.data = first + usable - bytes;
  m.canary = first;
  m.canary_bytes = usable - bytes;
  if (m.canary_bytes != 0 && m.canary_bytes < (uint64_t{1} << 20)) {
    std::memset(m.canary, kCanary, m.canary_bytes);
  } else if (m.canary_bytes != 0) {
    // Only the last 4 KiB in front of the data are watched for huge parts.
    m.canary = m.data - 4096;
    m.canary_bytes = 4096;
    std::memset(m.canary, kCanary, m.canary_bytes);
  }
  return m;
}

void RegionMemory::unmap_part(Mapping* m) {
  if (m->map != nullptr && (m->shared || !keep_reusable(m->map, m->map_bytes))) {
    munmap(m->map, m->map_bytes);
  }
  *m = Mapping{};
}

RegionMemory::RegionMemory(uint64_t payload_bytes, uint64_t counter_bytes, Sharing sharing) {
  parts_[kPayload] = map_part(payload_bytes, sharing);
  parts_[kCounter] = map_part(counter_bytes, sharing);
}

RegionMemory::~RegionMemory() {
  unmap_part(&parts_[kPayload]);
  unmap_part(&parts_[kCounter]);
}

void RegionMemory::write(uint64_t offset, const void* src, uint64_t nbytes) {
  if (!contains(kPayload, offset, nbytes)) die("peer write", offset, nbytes, payload_bytes());
  if (nbytes != 0) std::memmove(payload() + offset, src, nbytes);
  sync_shadow(kPayload, offset, nbytes);
}

void RegionMemory::read(uint64_t offset, void* dst, uint64_t nbytes) const {
  if (!contains(kPayload, offset, nbytes)) die("peer read", offset, nbytes, payload_bytes());
  if (nbytes != 0) std::memcpy(dst, payload() + offset, nbytes);
}

void RegionMemory::fill(uint64_t offset, uint8_t byte, uint64_t nbytes) {
  if (!contains(kPayload, offset, nbytes)) die("peer fill", offset, nbytes, payload_bytes());
  if (nbytes != 0) std::memset(payload() + offset, byte, nbytes);
  sync_shadow(kPayload, offset, nbytes);
}

int32_t RegionMemory::load_counter(uint64_t offset) const {
  if (offset % 4 != 0 || !contains(kCounter, offset, 4)) {
    die("peer counter load", offset, 4, counter_bytes());
  }
  return __atomic_load_n(reinterpret_cast<int32_t*>(counter() + offset), __ATOMIC_ACQUIRE);
}

void RegionMemory::store_counter(uint64_t offset, int32_t value) {
  if (offset % 4 != 0 || !contains(kCounter, offset, 4)) {
    die("peer counter store", offset, 4, counter_bytes());
  }
  __atomic_store_n(reinterpret_cast<int32_t*>(counter() + offset), value, __ATOMIC_RELEASE);
  sync_shadow(kCounter, offset, 4);
}

void RegionMemory::enable_shadow() {
  for (int p = 0; p < 2; ++p) {
    shadow_[p].assign(parts_[p].data, parts_[p].data + parts_[p].bytes);
  }
}

void RegionMemory::sync_shadow(Part part, uint64_t offset, uint64_t nbytes) {
  std::vector<uint8_t>& s = shadow_[part];
  if (s.empty() || !contains(part, offset, nbytes)) return;
  if (nbytes != 0) std::memcpy(s.data() + offset, base(part) + offset, nbytes);
}

std::vector<RegionMemory::Change> RegionMemory::take_unaccounted_changes() {
  // Runs before every call of a harness view, over both whole parts: the
  // common case (nothing changed) is one memcmp per part, and an equal
  // stretch before a change is skipped a block at a time.
  std::vector<Change> changes;
  for (int p = 0; p < 2; ++p) {
    std::vector<uint8_t>& s = shadow_[p];
    if (s.empty()) continue;
    const uint8_t* live = parts_[p].data;
    const uint64_t n = parts_[p].bytes;
    if (std::memcmp(live, s.data(), n) == 0) continue;
    uint64_t i = 0;
    while (i < n) {
      i = first_difference(live, s.data(), i, n);
      if (i == n) break;
      const uint64_t start = i;
      while (i < n && live[i] != s[i]) {
        s[i] = live[i];
        ++i;
      }
      changes.push_back(Change{static_cast<Part>(p), start, i - start});
    }
  }
  return changes;
}

bool RegionMemory::guards_intact(std::string* why) const {
  static const char* const kNames[2] = {"payload", "counter"};
  for (int p = 0; p < 2; ++p) {
    const Mapping& m = parts_[p];
    const uint64_t i = first_other_byte(m.canary, kCanary, m.canary_bytes);
    if (i < m.canary_bytes) {
      if (why != nullptr) {
        char text[160];
        std::snprintf(text, sizeof(text),
                      "byte %llu in front of the %s part was overwritten (0x%02x)",
                      static_cast<unsigned long long>(m.canary_bytes - i), kNames[p],
                      m.canary[i]);
        *why = text;
      }
      return false;
    }
  }
  return true;
}

std::string RegionMemory::dump() const {
  std::string out(reinterpret_cast<const char*>(payload()), payload_bytes());
  out.append(reinterpret_cast<const char*>(counter()), counter_bytes());
  return out;
}

}  // namespace spsq_conf
