// The shared memory of one queue instance as the harness owns it: a PAYLOAD
// part and a COUNTER part, each placed flush against a PROT_NONE guard page
// (an overrun past the end faults at once) with canary bytes in front of it
// (an underrun is reported by guards_intact()).
//
// The hostile peer writes through write()/store_counter(), which keep an
// optional shadow copy in sync. Any byte that changes without such a call, or
// without a harness view write, shows up in take_unaccounted_changes(): that
// is how the suite notices an endpoint storing to shared memory behind its
// view's back (no flush on real hardware).
#ifndef SPSQ_CONFORMANCE_HARNESS_REGION_MEMORY_H_
#define SPSQ_CONFORMANCE_HARNESS_REGION_MEMORY_H_

#include <cstdint>
#include <string>
#include <vector>

namespace spsq_conf {

class RegionMemory {
 public:
  enum Part : int { kPayload = 0, kCounter = 1 };

  struct Change {
    Part part;
    uint64_t offset;
    uint64_t nbytes;
  };

  // kPrivate: a forked child gets a copy-on-write copy. kSharedForFork: both
  // parts are MAP_SHARED, so a child forked after construction works on the
  // same bytes (a peer or an endpoint in another process).
  enum class Sharing { kPrivate, kSharedForFork };

  // Both parts start zero-filled and, up to 64 MiB, resident. Larger parts
  // are reserved lazily (MAP_NORESERVE), so a depth-2^30 layout costs only
  // the pages touched. A private part of at most 1 MiB may reuse the mapping
  // of one destroyed before it, guard pages included, zero-filled again.
  RegionMemory(uint64_t payload_bytes, uint64_t counter_bytes,
               Sharing sharing = Sharing::kPrivate);
  ~RegionMemory();
  RegionMemory(const RegionMemory&) = delete;
  RegionMemory& operator=(const RegionMemory&) = delete;

  uint8_t* base(Part part) const { return parts_[part].data; }
  uint64_t size(Part part) const { return parts_[part].bytes; }
  uint8_t* payload() const { return base(kPayload); }
  uint8_t* counter() const { return base(kCounter); }
  uint64_t payload_bytes() const { return size(kPayload); }
  uint64_t counter_bytes() const { return size(kCounter); }

  // True when [offset, offset + nbytes) lies inside the part (overflow-safe).
  bool contains(Part part, uint64_t offset, uint64_t nbytes) const {
    return offset <= size(part) && nbytes <= size(part) - offset;
  }

  // Peer-side access. Out-of-range use is a harness bug and aborts.
  void write(uint64_t offset, const void* src, uint64_t nbytes);
  void read(uint64_t offset, void* dst, uint64_t nbytes) const;
  void fill(uint64_t offset, uint8_t byte, uint64_t nbytes);
  int32_t load_counter(uint64_t offset) const;          // acquire
  void store_counter(uint64_t offset, int32_t value);  // release

  // Shadow tracking (off by default: it doubles the memory).
  void enable_shadow();
  bool shadow_enabled() const { return !shadow_[kPayload].empty() || !shadow_[kCounter].empty(); }
  // Records [offset, offset + nbytes) of `part` as written by a known writer.
  void sync_shadow(Part part, uint64_t offset, uint64_t nbytes);
  // Ranges that differ from the shadow; the shadow is then brought up to date.
  std::vector<Change> take_unaccounted_changes();

  // False (with the reason) when a canary in front of a part was overwritten.
  bool guards_intact(std::string* why) const;

  // Copies of both parts (payload bytes, then counter bytes), the format
  // `spsq inspect` reads.
  std::string dump() const;

 private:
  struct Mapping {
    uint8_t* map = nullptr;   // whole mapping including guards
    uint64_t map_bytes = 0;
    uint8_t* data = nullptr;  // first byte of the part
    uint64_t bytes = 0;
    uint8_t* canary = nullptr;  // slack in front of data
    uint64_t canary_bytes = 0;
    bool shared = false;  // MAP_SHARED (Sharing::kSharedForFork)
  };
  static Mapping map_part(uint64_t bytes, Sharing sharing);
  static void unmap_part(Mapping* m);

  Mapping parts_[2];
  std::vector<uint8_t> shadow_[2];
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_HARNESS_REGION_MEMORY_H_
