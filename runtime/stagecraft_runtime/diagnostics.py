"""What a failing run needs to be explained, apart from what it computes: the status file naming
what a device last issued (read by the launcher when a process dies without a word), fault
injection for tests and drills, and each collective reached noted in the process group's store, so
a timeout names the members that never reached it."""
from __future__ import annotations

import mmap
import os
import signal
import threading
from typing import Callable, List, Optional

from .instructions import Collective, Instruction

STATUS_BYTES = 256  # one instruction id and its step, NUL-terminated


class Diagnostics:
    def __init__(self, rank: int, store=None, prefix: str = "plan", environ=os.environ):
        self.rank = rank
        # What this device last issued, in a small file the launcher reads if the process dies
        # without a word (killed): a memory map, so noting it costs a copy, not a system call.
        self.status = None
        path = environ.get("STAGECRAFT_RUNTIME_STATUS")
        if path:
            with open(path, "w+b") as f:
                f.write(b"\0" * STATUS_BYTES)
                f.flush()
                self.status = mmap.mmap(f.fileno(), STATUS_BYTES)
        # Fault injection: STAGECRAFT_RUNTIME_KILL="<device>:<instruction id>" kills this process
        # (SIGKILL, no goodbye) when it issues that instruction.
        device, _, kill_at = environ.get("STAGECRAFT_RUNTIME_KILL", "").partition(":")
        self.kill_at = kill_at if device == str(rank) else None
        self.store = store
        # Waiter threads note collectives reached while the loop may be reading the notes: one
        # client, one request at a time.
        self.store_lock = threading.Lock()
        self.prefix = prefix

    def issuing(self, ins: Instruction, step: int) -> None:
        if self.status is not None:
            note = f"{ins.id} (step {step})".encode()[: STATUS_BYTES - 1]
            self.status[: len(note) + 1] = note + b"\0"
        if ins.id == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    def _key(self, ins: Collective, step: int, rank: int) -> str:
        return f"{self.prefix}/step{step}/{ins.name}/{rank}"

    def reached(self, ins: Collective, step: int) -> Optional[Callable[[], None]]:
        """What notes this device reached `ins`, run off the loop (a round trip to the store)."""
        if self.store is None:
            return None
        key = self._key(ins, step, self.rank)

        def note():
            with self.store_lock:
                self.store.add(key, 1)

        return note

    def never_reached(self, ins: Collective, step: int) -> Optional[List[int]]:
        """The members that have not noted `ins`, or None without a store."""
        if self.store is None:
            return None
        with self.store_lock:
            return [d for d in ins.devices if self.store.add(self._key(ins, step, d), 0) == 0]
