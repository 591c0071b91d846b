"""spsq_l3 (this directory's independent Python L3 queue) as a testee: the
spec's Python names map one to one; the hooks cover where it chose otherwise
(its NOTES.md)."""

import spsq_l3
import spsq_testee


class PythonL3(spsq_testee.Adapter):
    def create(self, region, scalars, project_region):
        if project_region:
            raise spsq_testee.Unsupported("spsq_l3 projects no queue.region (NOTES.md)")
        return spsq_l3.Queue(region, scalars)

    def outcome(self, exc):
        # A region access that failed before any shared mutation: refused,
        # the queue stays live (NOTES.md, "Region access failures").
        if isinstance(exc, spsq_l3.SpsqError) and not exc.terminal:
            return "rejected"
        return super().outcome(exc)

    def forge(self, real, fields):
        # payload_nbytes is a read-only alias of the handle's nbytes.
        fields = dict(fields)
        fields["nbytes"] = fields.pop("payload_nbytes")
        return super().forge(real, fields)

    def new_message(self, fields):
        return spsq_l3.OutputMessage(None, fields["seq"], fields["opcode"],
                                     fields["payload_offset"], fields["payload_nbytes"], 0)


if __name__ == "__main__":
    # A spsq_l3.Queue keeps its state in the object and the region: one
    # process serves a test's queues one after another.
    spsq_testee.serve(PythonL3(), name="spsq_l3 (examples/python_l3, independent Python L3)",
                      reuse=True)
