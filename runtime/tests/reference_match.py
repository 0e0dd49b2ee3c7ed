"""What a clean float64 run of a test plan must show: every step run, and every tensor compared and
every step's loss equal to the single-device reference's within `tolerance`."""


def assert_equal_to_one_device(r, tolerance=1e-12):
    assert r["steps"] == 3 and len(r["loss"]) == 3
    assert r["equal"] and r["maxRelDiff"] <= tolerance, r
    for loss, ref in zip(r["loss"], r["referenceLoss"]):
        assert abs(loss - ref) <= tolerance * abs(ref)
