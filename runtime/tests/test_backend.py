"""The backend choice: NCCL with CUDA tensors on the process's own GPU when CUDA is there (or
asked for), gloo on the CPU otherwise; native collectives only where the backend implements them.
The GPU branches are checked as choices here (this machine has no GPU)."""
import pytest
import torch
import torch.distributed as dist

from stagecraft_runtime.backend import BackendError, choose, from_environment, natives

TORCH2 = {"reduce_scatter_tensor", "all_gather_into_tensor", "_reduce_scatter_base", "_all_gather_base"}
TORCH113_NCCL = {"_reduce_scatter_base", "_all_gather_base"}


def test_auto_takes_nccl_on_the_local_rank_s_gpu_when_cuda_is_there():
    b = choose("auto", cuda_available=True, nccl_available=True, local_rank=3, available=TORCH2)
    assert b.name == "nccl" and b.device == torch.device("cuda", 3) and b.cuda


def test_auto_takes_gloo_on_the_cpu_without_cuda():
    b = choose("auto", cuda_available=False, nccl_available=True, local_rank=3, available=TORCH2)
    assert b.name == "gloo" and b.device == torch.device("cpu") and not b.cuda


def test_auto_takes_gloo_when_torch_has_no_nccl_even_with_cuda():
    assert choose("auto", cuda_available=True, nccl_available=False).name == "gloo"


def test_nccl_asked_for_without_cuda_is_refused_with_the_reason():
    with pytest.raises(BackendError, match="--backend nccl: CUDA is not available"):
        choose("nccl", cuda_available=False, nccl_available=True)


def test_gloo_asked_for_stays_on_the_cpu_even_with_a_gpu():
    b = choose("gloo", cuda_available=True, nccl_available=True, local_rank=1)
    assert b.name == "gloo" and b.device == torch.device("cpu")


def test_an_unknown_backend_is_refused_naming_the_choices():
    with pytest.raises(BackendError, match="expected one of auto, gloo, nccl"):
        choose("mpi")


def test_nccl_uses_the_native_collectives_under_their_newest_names():
    assert natives("nccl", TORCH2) == {"reduce_scatter": "reduce_scatter_tensor", "all_gather": "all_gather_into_tensor"}
    assert natives("nccl", TORCH113_NCCL) == {"reduce_scatter": "_reduce_scatter_base", "all_gather": "_all_gather_base"}


def test_gloo_builds_reduce_scatter_and_all_gather_from_what_it_has():
    # torch 1.13 exports the native names, but gloo does not implement them.
    assert natives("gloo", TORCH2) == {}


def test_this_machine_runs_gloo_on_the_cpu():
    b = from_environment("auto")
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    assert b.name == "gloo" and b.native == {}
    assert dist.is_available()
