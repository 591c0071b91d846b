// The endpoint under test by its own types, for the tests that judge those
// types and names: the spec's L2 snippet, RegionInstanceView, source
// compatibility, the wrap run on a lean view. These sources are compiled per
// certification, against "spsq_cert/config.h"; every other suite source sees
// only l2_endpoint.h.
//
// L2TypedTest is L2Test with the fixture's endpoint reached as the
// implementation's object: inside a test, Endpoint, Api, Handle, Reservation
// and Binding are the implementation's (as members, they hide the suite's
// erased names of the same meaning).
#ifndef SPSQ_CONFORMANCE_L2_L2_TYPED_H_
#define SPSQ_CONFORMANCE_L2_L2_TYPED_H_

#include <cstdint>
#include <vector>

#include "conformance/l2/l2_adapter.h"  // first: the certification's config

#include "testkit/virtual_clock.h"
#include "conformance/l2/l2_fixture.h"
#include "spsq_cert/contract_ok.h"

namespace spsq_conf {

template <uint64_t N>
using TypedEndpointT = SPSQ_CERT_ENDPOINT<HarnessView, N>;
using TypedEndpoint = TypedEndpointT<SPSQ_CERT_MAX_INFLIGHT>;
using TypedApi = EndpointAccess<TypedEndpoint>;

// The implementation's binding for `q`, decoded by its own decode.
inline typename TypedApi::Binding TypedBinding(const QueueRegion& q) {
  const auto s = q.scalars();
  typename TypedApi::Binding b{};
  if (!TypedApi::decode(s.data(), s.size(), &b)) {
    ADD_FAILURE() << "S1.BIND.ORDER: decode_endpoint_binding rejected a valid binding "
                     "built in spec order";
  }
  return b;
}

class L2TypedTest : public L2Test {
 protected:
  using Endpoint = TypedEndpoint;
  using Api = TypedApi;
  using Handle = typename TypedApi::Handle;
  using Reservation = typename TypedApi::Reservation;
  using Binding = typename TypedApi::Binding;

  // The fixture's endpoint (built by the adapter at window kN) as the
  // implementation's object.
  Endpoint& ep() {
    return static_cast<l2_typed::ErasedEndpoint<Endpoint>&>(L2Test::ep()).impl();
  }

  bool try_peek(Handle& h) { return ep().input().try_peek(h); }
  bool release(const Handle& h) { return ep().input().release(h); }
  bool try_reserve(uint64_t n, Reservation& r) { return ep().output().try_reserve(n, r); }
  bool publish(const Reservation& r, uint64_t opcode) {
    return ep().output().publish(r, Api::opcode_value(opcode));
  }
  static std::vector<uint8_t> HandleBytes(const Handle& h) {
    const uint8_t* p = Api::payload(h);
    return p == nullptr ? std::vector<uint8_t>()
                        : std::vector<uint8_t>(p, p + Api::nbytes(h));
  }
};

}  // namespace spsq_conf

#endif  // SPSQ_CONFORMANCE_L2_L2_TYPED_H_
