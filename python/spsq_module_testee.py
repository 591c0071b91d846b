"""The spsq module's L3 queue as a testee: bound over the harness's region
through spsq.bind_worker_chip_queue, so every shared access and clock
reading is a callback (testee/PROTOCOL.md)."""

import spsq
import spsq_testee


class SpsqModule(spsq_testee.Adapter):
    def create(self, region, scalars, project_region):
        return spsq.bind_worker_chip_queue(region, scalars, project_region=project_region)

    def new_message(self, fields):
        return spsq.Message(**fields)


if __name__ == "__main__":
    # A bound queue keeps its state in the object and the region: one
    # process serves a test's queues one after another.
    spsq_testee.serve(SpsqModule(), name="spsq-harness Python module (//python:spsq.so)",
                      reuse=True)
