"""Communications in flight on one device, issued with their work handles (isend, irecv,
async_op) while the executor's loop goes on issuing compute (docs/plan-format.md rules 3, 4 and
6: a RECV is posted, a SEND is eager, a collective ends when its work does). When the loop is idle
and the plan waits for one communication before anything else can run, the loop blocks on its work
itself (`worth_blocking_on`): gloo's thread wakes the loop directly. Other communications are
watched by a waiter thread here that wakes the loop when they complete.

Why threads that block on `work.wait()`, not polling `work.is_completed()` from the loop: gloo's
point-to-point work is marked complete only by a call to `wait` (checked on torch 1.13; an async
collective's turns complete by itself), and `wait` with a timeout aborts the whole process group
when it expires, so a SEND or RECV can only be seen to finish by blocking on it (the wait releases
the GIL). Why a pool: starting a thread per
communication costs the loop a hand-off to the new thread (Thread.start waits until it runs), on a
loaded machine a scheduler slice per SEND; a waiting thread kept from an earlier communication
takes the next one at the cost of a queue put. The pool never waits for a thread to free up: a
communication that finds none idle gets a new one, so one still in flight (a RECV whose SEND comes
after compute this loop has not run yet) never delays the watch of another."""
import queue
import threading


class InFlight:
    def __init__(self, wait):
        # wait(work): blocks until the communication has really finished (backend.Backend.wait).
        self._wait = wait
        self._queue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # threads waiting for a communication to watch, not yet promised one
        self.wake = threading.Event()  # set whenever something in flight finishes or fails
        self.finished = []  # (tag, None) or (tag, exception), taken by `take`

    def watch(self, work, tag, before=None):
        """Marks `tag` finished once `work` completes; `before()` runs first, off the loop
        (noting a collective reached costs a round trip to the store)."""
        with self._lock:
            spawn = self._idle == 0
            if not spawn:
                self._idle -= 1
        self._queue.put((work, tag, before))
        if spawn:
            threading.Thread(target=self._serve, daemon=True, name="stagecraft-inflight").start()

    def take(self):
        """What finished since the last call, in the order it did."""
        with self._lock:
            done, self.finished = self.finished, []
        return done

    def _serve(self):
        while True:
            work, tag, before = self._queue.get()
            error = None
            try:
                if before is not None:
                    before()
                self._wait(work)
            except Exception as e:  # noqa: BLE001 - handed to the loop, which names the instruction
                error = e
            with self._lock:
                self.finished.append((tag, error))
                # Idle again before the loop hears of it: a communication issued in reply reuses us.
                self._idle += 1
            self.wake.set()


def worth_blocking_on(blocking, unwatched, issued):
    """The communication among `unwatched` that the loop may block on, or None. `blocking`: per
    stream that has instructions left, the ids keeping it from issuing its head; `issued`: the ids
    issued so far. A stream waiting for an instruction not issued yet can only move after another
    stream has, so it is left out. One communication that every other stream waits for (or any,
    once every stream has issued its last instruction) holds back nothing the device could issue
    meanwhile; a wait on one of two alternatives could deadlock, the other's completion letting go
    a SEND the first depends on."""
    if not blocking:
        return next(iter(unwatched), None)
    direct = [ids for ids in blocking if ids <= issued]
    if not direct:
        return None
    common = set.intersection(*direct)
    return next((i for i in unwatched if i in common), None)
