"""Ctrl-C as torch reports it: a SIGINT that arrives inside torch's C++ code (while its extension
loads, in a collective) comes back as RuntimeError("KeyboardInterrupt: …"), not as
KeyboardInterrupt; both end a run with the one line `interrupted`."""


def interrupted(e: BaseException) -> bool:
    return isinstance(e, KeyboardInterrupt) or isinstance(e, RuntimeError) and str(e).startswith("KeyboardInterrupt")
