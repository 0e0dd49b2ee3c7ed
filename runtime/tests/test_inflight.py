"""Communications in flight: watched by waiter threads without one holding back another, and the
loop blocking on a SEND or RECV only where nothing else could run meanwhile."""
import threading
import time

from stagecraft_runtime.inflight import InFlight, worth_blocking_on


class Work:
    """A communication that completes when the test says so."""

    def __init__(self, fails=None):
        self.released = threading.Event()
        self.fails = fails

    def wait(self):
        assert self.released.wait(10), "never released"
        if self.fails:
            raise self.fails


def finished_tags(flight, count, within=10.0):
    got, deadline = [], time.monotonic() + within
    while len(got) < count and time.monotonic() < deadline:
        flight.wake.wait(0.05)
        flight.wake.clear()
        got += flight.take()
    return got


def test_a_communication_still_in_flight_never_holds_back_the_watch_of_a_later_one():
    flight = InFlight(lambda w: w.wait())
    early, late = Work(), Work()
    flight.watch(early, "RECV.mb5")  # posted first, its data comes last
    flight.watch(late, "RECV.mb1")
    late.released.set()
    assert finished_tags(flight, 1) == [("RECV.mb1", None)]
    early.released.set()
    assert finished_tags(flight, 1) == [("RECV.mb5", None)]


def test_waiter_threads_are_reused_not_started_per_communication():
    flight = InFlight(lambda w: w.wait())
    before = threading.active_count()
    for k in range(20):
        w = Work()
        w.released.set()
        flight.watch(w, k)
        assert finished_tags(flight, 1) == [(k, None)]
    assert threading.active_count() - before <= 2


def test_a_failure_is_handed_to_the_loop_with_its_tag_and_runs_what_comes_first():
    flight = InFlight(lambda w: w.wait())
    noted = []
    w = Work(fails=RuntimeError("connection closed by peer"))
    w.released.set()
    flight.watch(w, "ALL_REDUCE.grads", before=lambda: noted.append("reached"))
    ((tag, error),) = finished_tags(flight, 1)
    assert tag == "ALL_REDUCE.grads" and "connection closed" in str(error)
    assert noted == ["reached"]


def test_the_loop_blocks_on_what_every_stream_waits_for():
    # compute waits for RECV.a; comm's head waits for RECV.a and SEND.b
    issued = {"RECV.a", "SEND.b"}
    assert worth_blocking_on([{"RECV.a"}, {"RECV.a", "SEND.b"}], {"RECV.a": 0, "SEND.b": 1}, issued) == "RECV.a"


def test_a_stream_waiting_for_compute_not_issued_yet_does_not_stand_in_the_way():
    # 1F1B's comm stream: its SEND waits for the F that waits for the RECV the compute stream needs
    assert worth_blocking_on([{"RECV.a"}, {"F.b1.mb0"}], {"RECV.a": 0}, {"RECV.a"}) == "RECV.a"


def test_the_loop_never_blocks_on_one_of_two_alternatives():
    # compute waits for RECV.a, comm for RECV.b: either may come first, and what follows it may be
    # the SEND the other's peer waits for.
    assert worth_blocking_on([{"RECV.a"}, {"RECV.b"}], {"RECV.a": 0, "RECV.b": 1}, {"RECV.a", "RECV.b"}) is None


def test_the_loop_never_blocks_on_what_a_waiter_thread_already_watches():
    # a collective (watched by a thread) is what every stream waits for
    assert worth_blocking_on([{"ALL_REDUCE.g"}], {"SEND.x": 0}, {"ALL_REDUCE.g", "SEND.x"}) is None


def test_once_every_stream_has_issued_everything_any_communication_left_may_be_waited():
    assert worth_blocking_on([], {"SEND.x": 0, "SEND.y": 1}, {"SEND.x", "SEND.y"}) == "SEND.x"
    assert worth_blocking_on([], {}, set()) is None
