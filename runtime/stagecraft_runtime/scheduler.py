"""The issue loop of one device's step, by the plan's rules (docs/plan-format.md): the head of every
stream is issued once the instruction before it has finished (a SEND and a RECV release their
stream when posted) and its waits have. Compute runs in the loop; SENDs, RECVs and collectives are
started by the backend and complete asynchronously: the loop waits on one itself when it is idle
and every stream waits for that one, inflight.py's waiter threads watch the others, so compute and
communication overlap as far as the plan's waits allow. A SEND no instruction waits for is waited
by the loop once the device has issued everything (no waiter thread, no thread switch for it).
Written against a small backend protocol (`DeviceBackend`): torch.distributed in executor.py, an
in-process fake in the tests."""
from __future__ import annotations

import time
from typing import AbstractSet, Any, Callable, List, Optional, Protocol, Tuple

from . import inflight
from .instructions import Collective, Compute, ComputeInstruction, Instruction, Overlap, Program, Recv, Send, Update

# (work, finish): `work` completes asynchronously (the backend's `wait` blocks on it); `finish()`,
# run by the loop afterwards, takes its result.
Pending = Tuple[Any, Callable[[], None]]


class RunError(Exception):
    """A device could not finish its step; the message names the device and the instruction."""


class DeviceBackend(Protocol):
    def compute(self, ins: ComputeInstruction, done: AbstractSet[str]) -> None:
        """Runs compute in the loop; `done` already holds `ins` (what a ZeRO reduce-scatter
        waiting on it may now take)."""

    def send(self, ins: Send) -> Pending: ...

    def recv(self, ins: Recv) -> Pending: ...

    def collective(self, ins: Collective) -> Pending: ...

    def wait(self, work: Any, timeout: Optional[float] = None) -> None:
        """Blocks until `work` has finished; with `timeout` (s), raises once it has passed."""


class Diagnostics(Protocol):
    def issuing(self, ins: Instruction, step: int) -> None: ...

    def reached(self, ins: Collective, step: int) -> Optional[Callable[[], None]]: ...

    def never_reached(self, ins: Collective, step: int) -> List[int]: ...


class _Stream:
    __slots__ = ("name", "instructions", "pos", "busy")

    def __init__(self, name, instructions):
        self.name = name
        self.instructions = instructions
        self.pos = 0
        self.busy = None  # the collective keeping the stream until it finishes


class Scheduler:
    def __init__(self, program: Program, backend: DeviceBackend, timeout: float = 30.0,
                 diagnostics: Optional[Diagnostics] = None, trace: Optional[list] = None):
        self.program = program
        self.backend = backend
        self.rank = program.rank
        self.timeout = timeout
        self.diagnostics = diagnostics
        self.trace = trace
        self.total = sum(len(s.instructions) for s in program.streams)
        self.waiters = inflight.InFlight(backend.wait)
        # What some instruction waits for; a SEND that nothing waits for only has to have finished
        # by the step's end (rule 4: it never holds back its stream).
        self.awaited = {w for s in program.streams for ins in s.instructions for w in ins.waits}

    def run(self, step: int) -> None:
        self.step = step
        if self.trace is not None:
            self.trace.clear()  # the measured trace is the last step's
        self.done = done = set()
        self.errors = []
        # Communications issued since the loop was last idle: when it is, it waits on one itself
        # where the plan waits for it and nothing else can run, and hands the rest to inflight's
        # threads (no thread hand-off while there is compute to issue).
        self.unwatched = {}  # id -> (ins, finish, start, stream, work, before)
        # SENDs nothing waits for, in the order issued: waited by the loop once every stream has
        # issued its last instruction (by then gloo's own thread has usually delivered them), never
        # by a waiter thread, whose wake-up and hand-back cost two thread switches per message.
        self.unawaited = []
        self.issued = set()
        streams = self.streams = [_Stream(s.name, s.instructions) for s in self.program.streams]
        last = time.monotonic()
        while len(done) < self.total:
            progress = self._drain()
            for s in streams:
                busy = s.busy
                if busy is not None:
                    if busy.id not in done:
                        continue
                    s.busy = None
                if s.pos >= len(s.instructions):
                    continue
                ins = s.instructions[s.pos]
                ready = True
                for w in ins.waits:
                    if w not in done:
                        ready = False
                        break
                if not ready:
                    continue
                s.pos += 1
                progress = True
                self.issued.add(ins.id)
                if self._issue(ins, s.name):
                    s.busy = ins
            if self.errors:
                raise self.errors[0]
            if progress:
                last = time.monotonic()
                continue
            # Idle: the messages issued since the last time are watched from now on (so a trace
            # still records each when the loop first hears it arrived), but the one every stream
            # waits for, which the loop waits on itself.
            needed = self._needed()
            for i in [i for i in self.unwatched if i != needed]:
                ins, finish, start, stream, work, before = self.unwatched.pop(i)
                self.waiters.watch(work, (ins, finish, start, stream), before)
            if needed is not None:
                self._wait_here(self.unwatched.pop(needed), last)
                last = time.monotonic()
                continue
            if self.unawaited and self._all_issued():
                # Safe to block on now: nothing this device has left to issue can be what a peer
                # needs before it posts the matching RECV.
                self._wait_here(self.unawaited.pop(0), last)
                last = time.monotonic()
                continue
            left = self.timeout - (time.monotonic() - last)
            if left < 0:
                raise RunError(self._stuck())
            # Nothing can start until something in flight finishes: sleep until a waiter says so,
            # or the no-progress timeout. No shorter poll is needed: a waiter appends what finished
            # before it sets `wake`, so one that finishes after this clear is drained next pass,
            # and one that finishes before the wait makes it return at once.
            self.waiters.wake.wait(left)
            self.waiters.wake.clear()

    def _issue(self, ins: Instruction, stream: str) -> bool:
        """Issues one instruction; True when it keeps its stream busy until it finishes."""
        if self.diagnostics is not None:
            self.diagnostics.issuing(ins, self.step)
        try:
            if isinstance(ins, (Compute, Update, Overlap)):
                start = time.perf_counter()
                self.done.add(ins.id)
                self.backend.compute(ins, self.done)
                self._record(ins, start, stream)
                return False
            if isinstance(ins, (Send, Recv)):
                # Rule 4 makes a SEND eager: it never waits for its receiver. Gloo's send completes
                # only once the peer has posted the receive, so holding the stream until then would
                # turn the plan's eager SENDs into a rendezvous (and deadlock V-shaped schedules).
                work, finish = self.backend.send(ins) if isinstance(ins, Send) else self.backend.recv(ins)
                entry = (ins, finish, time.perf_counter(), stream, work, None)
                if isinstance(ins, Send) and ins.id not in self.awaited:
                    self.unawaited.append(entry)
                else:
                    self.unwatched[ins.id] = entry
                return False
            # A collective holds its stream until it completes (rule 6).
            work, finish = self.backend.collective(ins)
            before = self.diagnostics.reached(ins, self.step) if self.diagnostics is not None else None
            self.unwatched[ins.id] = (ins, finish, time.perf_counter(), stream, work, before)
            return True
        except RunError:
            raise
        except Exception as e:
            raise RunError(f"device {self.rank}: {ins.id} ({ins.op}) failed: {type(e).__name__}: {e}") from e

    def _blocking(self):
        """Per unfinished stream, the ids not finished yet that keep it from issuing its head."""
        out = []
        for s in self.streams:
            if s.busy is not None and s.busy.id not in self.done:
                out.append({s.busy.id})
            elif s.pos < len(s.instructions):
                out.append(set(s.instructions[s.pos].waits) - self.done)
        return out

    def _needed(self):
        if not self.unwatched:
            return None
        return inflight.worth_blocking_on(self._blocking(), self.unwatched, self.issued)

    def _all_issued(self):
        for s in self.streams:
            if s.pos < len(s.instructions):
                return False
        return True

    def _wait_here(self, entry, last):
        """Waits in the loop for a communication (one thread switch fewer than a waiter's handing
        it over), no longer than the no-progress timeout allows."""
        ins, finish, start, stream, work, before = entry
        i = ins.id
        left = self.timeout - (time.monotonic() - last)
        try:
            if before is not None:
                before()
            self.backend.wait(work, max(left, 0.001))
        except Exception as e:  # noqa: BLE001 - a timeout is named by what stands still, else the failure
            if time.monotonic() - last >= self.timeout:
                raise RunError(self._stuck(also=f"{stream}: {i} in flight")) from e
            raise RunError(f"device {self.rank}: {i} ({ins.op}) failed: {e}") from e
        try:
            finish()
        except Exception as e:
            raise RunError(f"device {self.rank}: {i} ({ins.op}) failed: {type(e).__name__}: {e}") from e
        self._record(ins, start, stream)
        self.done.add(i)

    def _drain(self):
        if not self.waiters.finished:  # most passes: no lock to take (a late one is read next pass)
            return False
        ready = self.waiters.take()
        for (ins, finish, start, stream), error in ready:
            try:
                if error is not None:
                    raise error
                finish()
            except Exception as e:  # noqa: BLE001 - named and re-raised by the loop
                self.errors.append(RunError(f"device {self.rank}: {ins.id} ({ins.op}) failed: {e}"))
                continue
            self._record(ins, start, stream)
            self.done.add(ins.id)
        return bool(ready)

    def _record(self, ins, start, stream):
        if self.trace is not None:
            self.trace.append((stream, ins.id, start, time.perf_counter()))

    def _stuck(self, also=None):
        heads = [also] if also else []
        for s in self.streams:
            if s.busy is not None:
                ins = s.busy
                missing = self.diagnostics.never_reached(ins, self.step) if self.diagnostics is not None else None
                if missing is not None:
                    heads.append(
                        f"{s.name}: collective {ins.name} over devices {list(ins.devices)} "
                        f"never reached by device(s) {missing}"
                    )
                else:
                    heads.append(f"{s.name}: {ins.id} in flight")
            elif s.pos < len(s.instructions):
                ins = s.instructions[s.pos]
                missing = [w for w in ins.waits if w not in self.done]
                heads.append(f"{s.name}: {ins.id} waiting for {', '.join(missing) or 'its stream'}")
        return f"device {self.rank}: no progress for {self.timeout:.0f} s; " + "; ".join(heads)
