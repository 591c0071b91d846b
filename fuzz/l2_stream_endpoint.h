// The L2 endpoint under test as the l2_stream harness drives it: the calls
// and accessors of EndpointAccess (conformance/l2/endpoint_access.h) behind
// one virtual interface, with the endpoint's handles and reservations held by
// value in std::any. The harness (l2_stream_fuzz.cc) is compiled once against
// this header; each certification compiles only l2_stream_endpoint.cc over
// its config ("spsq_cert/config.h"), which defines the two functions below for
// SPSQ_CERT_ENDPOINT<FuzzView, 1> and <FuzzView, 4>.
//
// A handle or reservation value passed in must come from an endpoint of the
// same window (this one or another built by the same function): the harness
// forges, replays and swaps them between queues, never between windows.
//
// The suite's erased endpoint (conformance/l2/l2_endpoint.h) is the same idea
// over HarnessView, which records far more per call than a fuzzer can afford
// (fuzz_view.h says why); this one is over FuzzView, for speed.
#ifndef SPSQ_FUZZ_L2_STREAM_ENDPOINT_H_
#define SPSQ_FUZZ_L2_STREAM_ENDPOINT_H_

#include <any>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "testkit/layout_fields.h"
#include "fuzz/fuzz_view.h"

namespace spsq_fuzz {

class L2StreamEndpoint {
 public:
  using Handle = std::any;       // the endpoint's input handle
  using Reservation = std::any;  // its output reservation

  virtual ~L2StreamEndpoint() = default;

  virtual bool live() const = 0;

  // error(): kind, op, session, transaction, message and its capacity.
  virtual uint32_t kind() const = 0;
  virtual uint32_t op() const = 0;
  virtual uint64_t session() const = 0;
  virtual uint64_t transaction() const = 0;
  virtual const char* message() const = 0;
  virtual size_t message_capacity() const = 0;
  // layout(), asked only of an endpoint constructed as the contract allows.
  virtual spsq_conf::LayoutFields layout() const = 0;

  // input(): the value in `h` is the endpoint's own after the call, whatever
  // it answered.
  virtual bool try_peek(Handle* h) = 0;
  virtual bool peek(uint64_t timeout_ns, Handle* h) = 0;
  virtual bool release(Handle& h) = 0;
  virtual bool drained() = 0;

  // output().
  virtual bool try_reserve(uint64_t n, Reservation* r) = 0;
  virtual bool reserve(uint64_t n, uint64_t timeout_ns, Reservation* r) = 0;
  virtual bool publish(Reservation& r, uint64_t opcode) = 0;

  // Value-initialized values, as L2 code declares them before a call.
  virtual Handle handle() const = 0;
  virtual Reservation reservation() const = 0;

  // What the contract shows of a handle and a reservation, and the fields the
  // harness forges.
  virtual uint64_t handle_seq(const Handle& h) const = 0;
  virtual uint64_t handle_opcode(const Handle& h) const = 0;
  virtual uint64_t handle_nbytes(const Handle& h) const = 0;
  virtual const uint8_t* handle_payload(const Handle& h) const = 0;
  virtual uint64_t reservation_nbytes(const Reservation& r) const = 0;
  virtual uint8_t* reservation_payload(const Reservation& r) const = 0;
  virtual void forge_seq(Handle* h, uint64_t seq) const = 0;
  virtual void forge_nbytes(Reservation* r, uint64_t nbytes) const = 0;
};

// The binding L3 hands over (`count` scalars in spec order), decoded by the
// endpoint's own decoder into `*binding`; false if the decoder refused. Then,
// for `fault` 0-5, one field broken through the names the spec lists (the
// payload bytes, the transaction id, the magic, the depth, the counter bytes,
// the input arena bytes); any other fault leaves it as decoded.
bool l2_stream_decode_binding(const uint64_t* scalars, size_t count, int fault,
                              std::any* binding);

// SPSQ_CERT_ENDPOINT<FuzzView, max_inflight> (1 or 4) over a binding from
// l2_stream_decode_binding and `view`; its clock reads FuzzTime, or is null
// (`with_clock` false: L2 code that forgot the clock).
std::unique_ptr<L2StreamEndpoint> l2_stream_make_endpoint(uint64_t max_inflight,
                                                          const std::any& binding, FuzzView view,
                                                          bool with_clock);

}  // namespace spsq_fuzz

#endif  // SPSQ_FUZZ_L2_STREAM_ENDPOINT_H_
