// The one l2_stream source compiled against the endpoint under test
// (fuzz/l2_stream.bzl): SPSQ_CERT_ENDPOINT<FuzzView, 1> and <FuzzView, 4>
// from a certification config ("spsq_cert/config.h") behind the harness's
// interface (l2_stream_endpoint.h), reached only through
// spsq_conf::EndpointAccess, so adapter endpoints work. Nothing is judged
// here: every observation goes back to the harness.
#include "fuzz/l2_stream_endpoint.h"

#include <any>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "fuzz/fuzz_time.h"
#include "fuzz/fuzz_view.h"
#include "spsq_cert/config.h"

namespace spsq_fuzz {
namespace {

template <uint64_t MI>
class Box final : public L2StreamEndpoint {
 public:
  using Endpoint = SPSQ_CERT_ENDPOINT<FuzzView, MI>;
  using Api = spsq_conf::EndpointAccess<Endpoint>;
  using H = typename Api::Handle;
  using R = typename Api::Reservation;

  Box(const typename Api::Binding& b, FuzzView view, bool with_clock)
      : ep_(b, std::move(view), Api::clock(with_clock ? &FuzzTime::now_ns : nullptr)) {}

  bool live() const override { return ep_.live(); }
  uint32_t kind() const override { return Api::kind(ep_); }
  uint32_t op() const override { return Api::op(ep_); }
  uint64_t session() const override { return Api::session(ep_); }
  uint64_t transaction() const override { return Api::transaction(ep_); }
  const char* message() const override { return Api::message(ep_); }
  size_t message_capacity() const override { return Api::message_capacity(ep_); }
  spsq_conf::LayoutFields layout() const override { return Api::layout(ep_); }

  bool try_peek(Handle* h) override {
    H v{};
    const bool ok = ep_.input().try_peek(v);
    *h = std::move(v);
    return ok;
  }
  bool peek(uint64_t timeout_ns, Handle* h) override {
    H v{};
    const bool ok = ep_.input().peek(timeout_ns, v);
    *h = std::move(v);
    return ok;
  }
  bool release(Handle& h) override { return ep_.input().release(as_handle(h)); }
  bool drained() override { return ep_.input().drained(); }

  bool try_reserve(uint64_t n, Reservation* r) override {
    R v{};
    const bool ok = ep_.output().try_reserve(n, v);
    *r = std::move(v);
    return ok;
  }
  bool reserve(uint64_t n, uint64_t timeout_ns, Reservation* r) override {
    R v{};
    const bool ok = ep_.output().reserve(n, timeout_ns, v);
    *r = std::move(v);
    return ok;
  }
  bool publish(Reservation& r, uint64_t opcode) override {
    return ep_.output().publish(as_reservation(r), Api::opcode_value(opcode));
  }

  Handle handle() const override { return H{}; }
  Reservation reservation() const override { return R{}; }

  uint64_t handle_seq(const Handle& h) const override { return Api::seq(as_handle(h)); }
  uint64_t handle_opcode(const Handle& h) const override { return Api::opcode(as_handle(h)); }
  uint64_t handle_nbytes(const Handle& h) const override { return Api::nbytes(as_handle(h)); }
  const uint8_t* handle_payload(const Handle& h) const override {
    return Api::payload(as_handle(h));
  }
  uint64_t reservation_nbytes(const Reservation& r) const override {
    return Api::nbytes(as_reservation(r));
  }
  uint8_t* reservation_payload(const Reservation& r) const override {
    return Api::payload(as_reservation(r));
  }
  void forge_seq(Handle* h, uint64_t seq) const override { Api::forge_seq(as_handle(*h), seq); }
  void forge_nbytes(Reservation* r, uint64_t nbytes) const override {
    Api::forge_nbytes(as_reservation(*r), nbytes);
  }

 private:
  // The harness only passes values this window's endpoints made.
  static H& as_handle(Handle& h) { return *std::any_cast<H>(&h); }
  static const H& as_handle(const Handle& h) { return *std::any_cast<H>(&h); }
  static R& as_reservation(Reservation& r) { return *std::any_cast<R>(&r); }
  static const R& as_reservation(const Reservation& r) { return *std::any_cast<R>(&r); }

  Endpoint ep_;
};

// The binding type is the runtime's (wire contract, "Source compatibility"),
// the same at every window.
using Binding = typename spsq_conf::EndpointAccess<SPSQ_CERT_ENDPOINT<FuzzView, 1>>::Binding;
using Api1 = spsq_conf::EndpointAccess<SPSQ_CERT_ENDPOINT<FuzzView, 1>>;

}  // namespace

bool l2_stream_decode_binding(const uint64_t* scalars, size_t count, int fault,
                              std::any* binding) {
  Binding b{};
  const bool decoded = Api1::decode(scalars, count, &b);
  switch (fault) {
    case 0:
      b.payload_bytes += 64;
      break;
    case 1:
      b.transaction_id = 0;
      break;
    case 2:
      b.magic_version += 1;
      break;
    case 3:
      b.depth *= 2;
      break;
    case 4:
      b.counter_bytes = 320;
      break;
    case 5:
      b.input_arena_bytes += 1;
      break;
    default:
      break;
  }
  *binding = b;
  return decoded;
}

std::unique_ptr<L2StreamEndpoint> l2_stream_make_endpoint(uint64_t max_inflight,
                                                          const std::any& binding, FuzzView view,
                                                          bool with_clock) {
  const Binding& b = *std::any_cast<Binding>(&binding);
  if (max_inflight == 4) return std::make_unique<Box<4>>(b, std::move(view), with_clock);
  return std::make_unique<Box<1>>(b, std::move(view), with_clock);
}

}  // namespace spsq_fuzz
