"""Ctrl-C as torch reports it: a SIGINT that arrives inside torch's C++ code (while its extension
loads, in a collective, in autograd's engine) comes back as RuntimeError("KeyboardInterrupt: …"),
not as KeyboardInterrupt, and the scheduler may then have wrapped that in a RunError naming the
instruction; each of these ends a run with the one line `interrupted`."""


def interrupted(e: BaseException) -> bool:
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, KeyboardInterrupt) or isinstance(e, RuntimeError) and str(e).startswith("KeyboardInterrupt"):
            return True
        e = e.__cause__ or e.__context__
    return False
