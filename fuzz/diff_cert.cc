// The differential harness's second target when a certification builds it:
// SPSQ_CERT_ENDPOINT<FuzzView, N> (the endpoint under test, from the
// certification's "spsq_cert/config.h"), reached only through
// spsq_conf::EndpointAccess, as l2_stream reaches it.
//
// This file is linked into a shared object of its own whose only exported
// name is spsq_diff_make_second_target (fuzz/diff_second.lds). An endpoint
// under test uses the same global names as the reference the harness links
// (spsc_queue::..., RegionPartLocalSpan, ...); in one executable the two
// would be one definition each, silently merged. Inside the shared object every
// name binds locally, so the two copies never meet.
#include "spsq_cert/config.h"  // first: the endpoint's own headers and names

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "conformance/l2/endpoint_access.h"
#include "fuzz/diff_target.h"
#include "fuzz/fuzz_time.h"
#include "fuzz/fuzz_view.h"

namespace spsq_fuzz {
namespace {

// The shared object's FuzzTime is its own (FuzzView's waits advance it):
// each call starts from the harness's time and hands the time back.
class SharedTime {
 public:
  explicit SharedTime(uint64_t* harness) : harness_(harness) { FuzzTime::now() = *harness; }
  ~SharedTime() { *harness_ = FuzzTime::now(); }
  SharedTime(const SharedTime&) = delete;
  SharedTime& operator=(const SharedTime&) = delete;

 private:
  uint64_t* harness_;
};

template <uint64_t MI>
class CertTarget final : public DiffTarget {
 public:
  using Endpoint = SPSQ_CERT_ENDPOINT<FuzzView, MI>;
  using Api = spsq_conf::EndpointAccess<Endpoint>;
  using Handle = typename Api::Handle;
  using Reservation = typename Api::Reservation;
  using Binding = typename Api::Binding;

  explicit CertTarget(const DiffWorld& w)
      : region_(w.region),
        now_(w.now),
        ep_(decode(w.scalars), FuzzView(w.region, w.view_state),
            Api::clock(&FuzzTime::now_ns)) {}

  const char* name() const override { return "endpoint under test"; }
  bool live() const override { return ep_.live(); }
  uint32_t error_kind() const override { return Api::kind(ep_); }
  uint32_t error_op() const override { return Api::op(ep_); }
  const char* error_message() const override { return Api::message(ep_); }

  bool try_peek(DiffHandle* h) override {
    SharedTime t(now_);
    Handle n{};
    return ep_.input().try_peek(n) && keep(n, h);
  }
  bool peek(uint64_t timeout_ns, DiffHandle* h) override {
    SharedTime t(now_);
    Handle n{};
    return ep_.input().peek(timeout_ns, n) && keep(n, h);
  }
  bool release(uint64_t id, int64_t seq_delta) override {
    SharedTime t(now_);
    Handle n = handles_.at(id);
    if (seq_delta != 0) Api::forge_seq(n, Api::seq(n) + static_cast<uint64_t>(seq_delta));
    return ep_.input().release(n);
  }
  bool drained() override {
    SharedTime t(now_);
    return ep_.input().drained();
  }

  bool try_reserve(uint64_t nbytes, DiffReservation* r) override {
    SharedTime t(now_);
    Reservation n{};
    return ep_.output().try_reserve(nbytes, n) && keep(n, r);
  }
  bool reserve(uint64_t nbytes, uint64_t timeout_ns, DiffReservation* r) override {
    SharedTime t(now_);
    Reservation n{};
    return ep_.output().reserve(nbytes, timeout_ns, n) && keep(n, r);
  }
  bool publish(uint64_t id, uint64_t opcode) override {
    SharedTime t(now_);
    return ep_.output().publish(reservations_.at(id), Api::opcode_value(opcode));
  }

 private:
  // As the reference target does: a binding the endpoint's decoder refuses
  // becomes one the endpoint refuses (magic_version 0).
  static Binding decode(const uint64_t* s) {
    Binding b{};
    if (!Api::decode(s, Api::kScalarCount, &b)) b.magic_version = 0;
    return b;
  }

  // A payload pointer as its descriptor offset, relative to the payload base
  // (S2.OFF.1); 0 for a zero-byte message, whose pointer is left open.
  uint64_t offset_of(const uint8_t* p, uint64_t n) const {
    if (n == 0 || p == nullptr) return 0;
    return static_cast<uint64_t>(p - region_->payload());
  }

  bool keep(const Handle& n, DiffHandle* h) {
    handles_.push_back(n);
    const uint64_t nbytes = Api::nbytes(n);
    *h = DiffHandle{Api::seq(n),
                    Api::opcode(n),
                    offset_of(Api::payload(n), nbytes),
                    nbytes,
                    Api::payload(n),
                    handles_.size() - 1};
    return true;
  }
  bool keep(const Reservation& n, DiffReservation* r) {
    reservations_.push_back(n);
    const uint64_t nbytes = Api::nbytes(n);
    *r = DiffReservation{offset_of(Api::payload(n), nbytes),
                         nbytes, Api::payload(n), reservations_.size() - 1};
    return true;
  }

  FuzzMemory* region_;
  uint64_t* now_;
  Endpoint ep_;
  std::vector<Handle> handles_;
  std::vector<Reservation> reservations_;
};

}  // namespace
}  // namespace spsq_fuzz

// The shared object's one exported name (C linkage: the version script names
// it, and nothing about it depends on either side's C++ names).
extern "C" spsq_fuzz::DiffTarget* spsq_diff_make_second_target(const spsq_fuzz::DiffWorld* w,
                                                                uint64_t max_inflight) {
  spsq_fuzz::SharedTime t(w->now);
  if (max_inflight == 4) return new spsq_fuzz::CertTarget<4>(*w);
  return new spsq_fuzz::CertTarget<1>(*w);
}
