"""Stagecraft's runtime: executes a compiled `stagecraft/plan@2` (or `@3`, on device meshes) on
torch.distributed, one process per plan device, and checks the training step against a
single-process reference. docs/runtime.md ("The package") says which module holds what."""

__all__ = ["plan", "instructions", "scheduler", "executor", "model", "reference", "launch"]
