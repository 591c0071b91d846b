#include "testkit/region_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

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

}  // namespace

RegionMemory::Mapping RegionMemory::map_part(uint64_t bytes, Sharing sharing) {
  const uint64_t page = page_size();
  const uint64_t data_pages = (bytes + page - 1) / page;
  // Guard page, data pages, guard page. An empty part still gets one page so
  // its base is a distinct, faulting-on-use address.
  const uint64_t pages = (data_pages == 0 ? 1 : data_pages) + 2;
  Mapping m;
  m.map_bytes = pages * page;
  const int share = sharing == Sharing::kSharedForFork ? MAP_SHARED : MAP_PRIVATE;
  void* p = mmap(nullptr, m.map_bytes, PROT_NONE, share | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    std::fprintf(stderr, "RegionMemory: cannot map %llu bytes\n",
                 static_cast<unsigned long long>(m.map_bytes));
    std::abort();
  }
  m.map = static_cast<uint8_t*>(p);
  uint8_t* first = m.map + page;
  const uint64_t usable = (pages - 2) * page;
  if (mprotect(first, usable, PROT_READ | PROT_WRITE) != 0) {
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
    for (uint64_t off = 0; off < usable; off += page) first[off] = 0;
  }
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
  if (m->map != nullptr) munmap(m->map, m->map_bytes);
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
  std::vector<Change> changes;
  for (int p = 0; p < 2; ++p) {
    std::vector<uint8_t>& s = shadow_[p];
    if (s.empty()) continue;
    const uint8_t* live = parts_[p].data;
    uint64_t i = 0;
    const uint64_t n = parts_[p].bytes;
    while (i < n) {
      if (live[i] == s[i]) {
        ++i;
        continue;
      }
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
    for (uint64_t i = 0; i < m.canary_bytes; ++i) {
      if (m.canary[i] != kCanary) {
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
  }
  return true;
}

std::string RegionMemory::dump() const {
  std::string out(reinterpret_cast<const char*>(payload()), payload_bytes());
  out.append(reinterpret_cast<const char*>(counter()), counter_bytes());
  return out;
}

}  // namespace spsq_conf
