// DiffTarget over any L2 endpoint type, reached only through
// spsq_conf::EndpointAccess (conformance/l2/endpoint_access.h), as the suite
// and l2_stream reach it: the reference (diff_reference.h) and an endpoint
// under test (diff_cert.cc) are driven by the same code.
//
// Everything here has internal linkage on purpose: the header is compiled
// into the executable for the reference, again with the spsc_queue namespace
// renamed for the default second target, and into a shared object for an
// endpoint under test; no two copies may be merged. Include the endpoint's
// headers first.
#ifndef SPSQ_FUZZ_DIFF_ENDPOINT_H_
#define SPSQ_FUZZ_DIFF_ENDPOINT_H_

#include <cstdint>
#include <vector>

#include "conformance/l2/endpoint_access.h"
#include "fuzz/diff_target.h"
#include "fuzz/fuzz_time.h"
#include "fuzz/fuzz_view.h"

namespace spsq_fuzz {
namespace {

// A target in a shared object has a FuzzTime of its own (FuzzView's waits
// advance it): each call starts from the harness's time and hands the time
// back. In the harness's own module the two are one variable.
class SharedTime {
 public:
  explicit SharedTime(uint64_t* harness) : harness_(harness) { FuzzTime::now() = *harness; }
  ~SharedTime() { *harness_ = FuzzTime::now(); }
  SharedTime(const SharedTime&) = delete;
  SharedTime& operator=(const SharedTime&) = delete;

 private:
  uint64_t* harness_;
};

template <class Endpoint>
class EndpointTarget final : public DiffTarget {
 public:
  using Api = spsq_conf::EndpointAccess<Endpoint>;
  using Handle = typename Api::Handle;
  using Reservation = typename Api::Reservation;
  using Binding = typename Api::Binding;

  EndpointTarget(const DiffWorld& w, const char* name)
      : name_(name),
        region_(w.region),
        now_(w.now),
        ep_(decode(w.scalars), FuzzView(w.region, w.view_state),
            Api::clock(&FuzzTime::now_ns)) {}

  const char* name() const override { return name_; }
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
  // L2 code decodes the scalars itself; a binding the decoder refuses becomes
  // one the endpoint refuses (magic_version 0), so every endpoint reports
  // BAD_BINDING from its constructor.
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

  const char* name_;
  FuzzMemory* region_;
  uint64_t* now_;
  Endpoint ep_;
  std::vector<Handle> handles_;
  std::vector<Reservation> reservations_;
};

// The target over the endpoint at MaxInflight 1 (E1) or 4 (E4).
template <class E1, class E4>
DiffTarget* make_endpoint_target(const DiffWorld& w, uint64_t max_inflight, const char* name) {
  SharedTime t(w.now);
  if (max_inflight == 4) return new EndpointTarget<E4>(w, name);
  return new EndpointTarget<E1>(w, name);
}

}  // namespace
}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_DIFF_ENDPOINT_H_
