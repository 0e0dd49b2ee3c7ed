"""The issue loop (scheduler.py) against an in-process fake backend, without torch.distributed: on
every golden plan's devices it issues each stream in order, nothing before its waits have
finished, an OVERLAP's members together and in order, and a collective holds its stream until it
completes; a plan whose waits cannot be met, or that cannot be typed, is refused naming where."""
import json
import pathlib
import threading

import pytest

from stagecraft_runtime.instructions import Collective, Overlap, parse_program
from stagecraft_runtime.mesh import replica_program
from stagecraft_runtime.plan import PlanError, device_program
from stagecraft_runtime.scheduler import RunError, Scheduler

PLANS = sorted((pathlib.Path(__file__).parent / "plans").glob("*.json"))


class FakeWork:
    """A communication that completes a moment after it is started, on another thread, as gloo's do."""

    def __init__(self, fails=None):
        self.completed = threading.Event()
        self.fails = fails
        threading.Timer(0.0005, self.completed.set).start()


class FakeBackend:
    """Records what the scheduler asks for, in order: ("issue", id) when an instruction starts
    (compute also finishes then), ("finish", id) when a communication's result is taken."""

    def __init__(self, failing=()):
        self.events = []
        self.overlaps = {}
        self.failing = set(failing)
        self.lock = threading.Lock()

    def _note(self, kind, ins_id):
        with self.lock:
            self.events.append((kind, ins_id))

    def compute(self, ins, done):
        assert ins.id in done
        self._note("issue", ins.id)
        if isinstance(ins, Overlap):
            self.overlaps[ins.id] = [m.id for m in ins.members]

    def _communicate(self, ins):
        self._note("issue", ins.id)
        fails = RuntimeError("connection reset by peer") if ins.id in self.failing else None
        return FakeWork(fails), lambda: self._note("finish", ins.id)

    send = recv = collective = _communicate

    def wait(self, work, timeout=None):
        assert work.completed.wait(5 if timeout is None else timeout), "the fake's work never completed"
        if work.fails:
            raise work.fails


def programs(path):
    """(rank, plan entry) of every rank that runs, a replica over its own sub-groups."""
    plan = json.loads(path.read_text())
    ranks = sorted({r for d in plan["devices"] if d.get("group", -1) >= 0 for r in [d["device"], *(d.get("replicas") or [])]})
    transfers = sorted({m["transfer"] for d in plan["devices"] for s in d["streams"] for i in s["instructions"]
                        for m in [i, *i.get("members", [])] if "transfer" in m})
    tags = {t: k + 1 for k, t in enumerate(transfers)}
    for rank in ranks:
        raw, peer_of = device_program(plan, rank)
        if raw["device"] != rank:
            raw = replica_program(raw, plan, rank)
        yield rank, parse_program(raw, rank, peer_of, tags)


@pytest.mark.parametrize("path", PLANS, ids=[p.stem for p in PLANS])
def test_the_fake_backend_sees_each_plan_s_waits_and_overlaps_in_order(path):
    for rank, program in programs(path):
        fake = FakeBackend()
        Scheduler(program, fake, timeout=10).run(0)
        issued = [i for kind, i in fake.events if kind == "issue"]
        finished_at = {}
        for at, (kind, i) in enumerate(fake.events):
            # Compute finishes as it is issued; a communication when the loop takes its result.
            comm = isinstance(program_ins(program, i), Collective) or program_ins(program, i).op in ("SEND", "RECV")
            if kind == "finish" or (kind == "issue" and not comm):
                finished_at[i] = at
        issued_at = {i: at for at, (kind, i) in enumerate(fake.events) if kind == "issue"}
        everything = [ins.id for ins in program.instructions()]
        assert sorted(issued) == sorted(everything), f"device {rank}: every instruction issued once"
        for stream in program.streams:
            ids = [ins.id for ins in stream.instructions]
            assert sorted(ids, key=issued_at.get) == ids, f"device {rank}: stream {stream.name} issued out of order"
            for ins, after in zip(stream.instructions, stream.instructions[1:]):
                if isinstance(ins, Collective):
                    assert finished_at[ins.id] < issued_at[after.id], f"device {rank}: {after.id} issued while {ins.id} held its stream"
        for ins in program.instructions():
            for w in ins.waits:
                assert finished_at[w] < issued_at[ins.id], f"device {rank}: {ins.id} issued before {w} finished"
            if isinstance(ins, Overlap):
                assert fake.overlaps[ins.id] == [m.id for m in ins.members]


def program_ins(program, ins_id):
    return next(ins for ins in program.instructions() if ins.id == ins_id)


def one_device(instructions, streams=None):
    """A one-device plan entry from (stream, instruction) pairs."""
    out = {}
    for stream, ins in instructions:
        out.setdefault(stream, []).append(ins)
    return {"device": 0, "group": 0, "streams": [{"stream": s, "instructions": i} for s, i in out.items()]}


def f(block, mb, waits=()):
    return {"op": "F", "id": f"F.b{block}.mb{mb}", "block": block, "microbatch": mb, "waits": list(waits)}


def test_waits_that_can_never_be_met_end_in_a_no_progress_error_naming_them():
    raw = one_device([("compute", f(0, 0, ["F.b0.mb1"])), ("other", f(0, 1, ["F.b0.mb0"]))])
    program = parse_program(raw, 0, lambda p: p, {})
    with pytest.raises(RunError, match=r"device 0: no progress .*compute: F\.b0\.mb0 waiting for F\.b0\.mb1; "
                                       r"other: F\.b0\.mb1 waiting for F\.b0\.mb0"):
        Scheduler(program, FakeBackend(), timeout=0.2).run(0)


def test_a_wait_on_an_instruction_the_device_does_not_have_is_refused_with_its_path():
    raw = one_device([("compute", f(0, 0)), ("compute", f(0, 1, ["F.b9.mb9"]))])
    with pytest.raises(PlanError, match=r"streams\[0\]\.instructions\[1\] \(F\.b0\.mb1, device 0\)\.waits: F\.b9\.mb9"):
        parse_program(raw, 0, lambda p: p, {})


def test_an_overlap_of_a_communication_is_refused_with_its_path():
    send = {"op": "SEND", "id": "SEND.x", "tensor": {"block": 0, "microbatch": 0, "pass": "F"}, "peer": 1,
            "transfer": "x", "waits": []}
    raw = one_device([("compute", {"op": "OVERLAP", "id": "(F;SEND)", "waits": [], "members": [f(0, 0), send]})])
    with pytest.raises(PlanError, match=r"instructions\[0\] \(\(F;SEND\), device 0\)\.members\[1\]: SEND is not compute"):
        parse_program(raw, 0, lambda p: p, {"x": 1})


def test_an_unknown_op_is_refused_with_its_path():
    raw = one_device([("compute", {"op": "FORWARD", "id": "x", "waits": []})])
    with pytest.raises(PlanError, match=r"instructions\[0\] \(x, device 0\)\.op: 'FORWARD'"):
        parse_program(raw, 0, lambda p: p, {})


def test_a_failed_communication_is_named_by_its_instruction():
    ar = {"op": "ALL_REDUCE", "id": "ALL_REDUCE.grads", "devices": [0, 1], "params": [0], "waits": ["F.b0.mb0"],
          "collective": "ALL_REDUCE.grads"}
    raw = one_device([("compute", f(0, 0)), ("comm", ar)])
    program = parse_program(raw, 0, lambda p: p, {})
    with pytest.raises(RunError, match=r"device 0: ALL_REDUCE\.grads \(ALL_REDUCE\) failed: connection reset by peer"):
        Scheduler(program, FakeBackend(failing={"ALL_REDUCE.grads"}), timeout=5).run(0)


class ThreadNotingBackend(FakeBackend):
    """The fake, noting which instructions' waits ran on a thread other than the loop's."""

    def __init__(self):
        super().__init__()
        self.loop = threading.current_thread()
        self.works = {}
        self.off_loop = set()

    def _communicate(self, ins):
        work, finish = super()._communicate(ins)
        self.works[id(work)] = ins.id
        return work, finish

    send = recv = collective = _communicate

    def wait(self, work, timeout=None):
        if threading.current_thread() is not self.loop:
            self.off_loop.add(self.works[id(work)])
        super().wait(work, timeout)


def send(block, mb, waits=()):
    return {"op": "SEND", "id": f"SEND.b{block}.mb{mb}", "tensor": {"block": block, "microbatch": mb, "pass": "F"},
            "peer": 1, "transfer": f"t{block}.{mb}", "waits": list(waits)}


def recv(block, mb, waits=()):
    return {"op": "RECV", "id": f"RECV.b{block}.mb{mb}", "tensor": {"block": block, "microbatch": mb, "pass": "F"},
            "peer": 1, "transfer": f"r{block}.{mb}", "waits": list(waits)}


def test_a_send_nothing_waits_for_is_waited_by_the_loop_after_its_last_instruction():
    # The loop is idle while RECV.b1.mb0 is in flight: the SEND issued before it is not handed to a
    # waiter thread then, and finishes after the last instruction has issued.
    raw = one_device([("compute", f(0, 0)), ("comm", send(0, 0, ["F.b0.mb0"])), ("comm", recv(1, 0)),
                      ("compute", f(2, 0, ["RECV.b1.mb0"])), ("comm", send(2, 0, ["F.b2.mb0"]))])
    program = parse_program(raw, 0, lambda p: p, {"t0.0": 1, "r1.0": 2, "t2.0": 3})
    fake = ThreadNotingBackend()
    Scheduler(program, fake, timeout=5).run(0)
    order = [(kind, i) for kind, i in fake.events]
    last_issue = max(at for at, (kind, _) in enumerate(order) if kind == "issue")
    finishes = {i: at for at, (kind, i) in enumerate(order) if kind == "finish"}
    assert all(finishes[i] > last_issue for i in ("SEND.b0.mb0", "SEND.b2.mb0")), order
    assert fake.off_loop == set()


def test_a_send_an_instruction_waits_for_has_finished_before_that_instruction_issues():
    raw = one_device([("compute", f(0, 0)), ("comm", send(0, 0, ["F.b0.mb0"])), ("compute", f(0, 1, ["SEND.b0.mb0"]))])
    program = parse_program(raw, 0, lambda p: p, {"t0.0": 1})
    fake = FakeBackend()
    Scheduler(program, fake, timeout=5).run(0)
    assert fake.events.index(("finish", "SEND.b0.mb0")) < fake.events.index(("issue", "F.b0.mb1"))
