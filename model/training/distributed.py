"""DistributedDataParallel plumbing, kept apart so the training loop reads the same on one device and under
``torchrun``: the loop asks only whether it runs distributed, and takes rank 0's word where every rank must agree.
"""

from __future__ import annotations

import gc
import os

import torch


def setup_distributed() -> tuple[bool, str]:
    """Under torchrun: join the process group (NCCL on GPUs, gloo on CPUs); returns (ddp, device)."""
    if "RANK" not in os.environ:
        return False, "cuda" if torch.cuda.is_available() else "cpu"
    backend = "nccl" if torch.cuda.is_available() else "gloo"
    torch.distributed.init_process_group(backend)
    if torch.cuda.is_available():
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        return True, f"cuda:{local}"
    return True, "cpu"


def from_rank0(value: float, device) -> float:
    """Rank 0's ``value`` on every rank of the process group."""
    shared = torch.tensor([value], dtype=torch.float64, device=device)
    torch.distributed.broadcast(shared, src=0)
    return float(shared.item())


def finish_distributed() -> None:
    """Leave the process group so that no rank exits while another still talks to it.

    A rank that leaves early, or a DistributedDataParallel wrapper whose gradient reducer still holds the group
    until the interpreter tears it down, can abort the process at exit ("terminate called without an active
    exception") after every step went well. So: wait for all ranks, free what still holds the group, then leave.
    """
    torch.distributed.barrier()
    gc.collect()
    torch.distributed.destroy_process_group()


__all__ = ["finish_distributed", "from_rank0", "setup_distributed"]
