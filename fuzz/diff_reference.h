// DiffTarget over the reference SpscQueueEndpoint<FuzzView, N>. Written only
// against the endpoint API of the wire contract, so an endpoint with the same
// surface can reuse it by changing the type it wraps.
//
// Everything here has internal linkage on purpose: the second build
// configuration compiles this header again with the spsc_queue namespace
// renamed, and the two copies must not be merged by the linker.
#ifndef SPSQ_FUZZ_DIFF_REFERENCE_H_
#define SPSQ_FUZZ_DIFF_REFERENCE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "common/region_template.h"
#include "fuzz/diff_target.h"
#include "fuzz/fuzz_clock.h"
#include "fuzz/fuzz_view.h"

namespace spsq_fuzz {
namespace {

template <uint64_t MI>
class ReferenceTarget final : public DiffTarget {
 public:
  using Endpoint = spsc_queue::SpscQueueEndpoint<FuzzView, MI>;

  ReferenceTarget(const DiffWorld& w, const char* name)
      : name_(name),
        ep_(decode(w.scalars), FuzzView(w.region, w.view_state),
            spsc_queue::MonotonicClock{&FuzzClock::now_ns}) {}

  const char* name() const override { return name_; }
  bool live() const override { return ep_.live(); }
  uint32_t error_kind() const override { return static_cast<uint32_t>(ep_.error().kind); }
  uint32_t error_op() const override { return static_cast<uint32_t>(ep_.error().op); }
  const char* error_message() const override { return ep_.error().message; }

  bool try_peek(DiffHandle* h) override {
    spsc_queue::SpscQueueInputHandle n{};
    return ep_.input().try_peek(n) && keep(n, h);
  }
  bool peek(uint64_t timeout_ns, DiffHandle* h) override {
    spsc_queue::SpscQueueInputHandle n{};
    return ep_.input().peek(timeout_ns, n) && keep(n, h);
  }
  bool release(uint64_t id, int64_t seq_delta) override {
    spsc_queue::SpscQueueInputHandle n = handles_.at(id);
    n.seq += static_cast<uint64_t>(seq_delta);
    return ep_.input().release(n);
  }
  bool drained() override { return ep_.input().drained(); }

  bool try_reserve(uint64_t nbytes, DiffReservation* r) override {
    spsc_queue::SpscQueueOutputReservation n{};
    return ep_.output().try_reserve(nbytes, n) && keep(n, r);
  }
  bool reserve(uint64_t nbytes, uint64_t timeout_ns, DiffReservation* r) override {
    spsc_queue::SpscQueueOutputReservation n{};
    return ep_.output().reserve(nbytes, timeout_ns, n) && keep(n, r);
  }
  bool publish(uint64_t id, uint64_t opcode) override {
    return ep_.output().publish(reservations_.at(id),
                                static_cast<spsc_queue::SpscQueueOpcode>(opcode));
  }

 private:
  // L2 code decodes the scalars itself; a binding it refuses becomes one the
  // endpoint refuses (magic_version 0), so both report BAD_BINDING.
  static spsc_queue::SpscQueueEndpointBinding decode(const uint64_t* s) {
    spsc_queue::SpscQueueEndpointBinding b{};
    if (!spsc_queue::decode_endpoint_binding(s, 10, &b)) b.magic_version = 0;
    return b;
  }

  bool keep(const spsc_queue::SpscQueueInputHandle& n, DiffHandle* h) {
    handles_.push_back(n);
    *h = DiffHandle{n.seq,     static_cast<uint64_t>(n.opcode),           n.payload_offset, n.payload_nbytes,
                    spsc_queue::payload_data(n), handles_.size() - 1};
    return true;
  }
  bool keep(const spsc_queue::SpscQueueOutputReservation& n, DiffReservation* r) {
    reservations_.push_back(n);
    *r = DiffReservation{n.payload_offset, n.payload_nbytes, spsc_queue::payload_data(n), reservations_.size() - 1};
    return true;
  }

  const char* name_;
  Endpoint ep_;
  std::vector<spsc_queue::SpscQueueInputHandle> handles_;
  std::vector<spsc_queue::SpscQueueOutputReservation> reservations_;
};

inline std::unique_ptr<DiffTarget> make_reference(const DiffWorld& w, uint64_t max_inflight,
                                                  const char* name) {
  if (max_inflight == 4) return std::make_unique<ReferenceTarget<4>>(w, name);
  return std::make_unique<ReferenceTarget<1>>(w, name);
}

}  // namespace
}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_DIFF_REFERENCE_H_
