"""A task split as padded tensors, the form every fine-tuning head trains on."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class EncodedSet:
    """A task split as padded tensors, each (N, T), or (N, C, T) for multiple choice (C endings per example).
    ``labels``: (N,) a class per sequence, or the right ending; (N, T) a tag per token, -100 where no loss; (N, 2)
    an answer's start and end token (question answering)."""

    input_ids: torch.Tensor
    token_type_ids: torch.Tensor
    attention_mask: torch.Tensor
    labels: torch.Tensor

    def __len__(self) -> int:
        return self.input_ids.size(0)

    def batch(self, index: torch.Tensor) -> EncodedSet:
        keep = int(self.attention_mask[index].sum(dim=-1).max())  # trim padding columns
        per_token = self.labels.shape[1:] == self.input_ids.shape[1:]
        labels = self.labels[index, :keep] if per_token else self.labels[index]
        return EncodedSet(
            self.input_ids[index, ..., :keep],
            self.token_type_ids[index, ..., :keep],
            self.attention_mask[index, ..., :keep],
            labels,
        )


def padded(rows: list[list[int]], fill: int) -> torch.Tensor:
    """Rows of different lengths as one (N, T) tensor, each filled on the right with ``fill`` up to the longest."""
    out = torch.full((len(rows), max(len(r) for r in rows)), fill, dtype=torch.long)
    for i, row in enumerate(rows):
        out[i, : len(row)] = torch.tensor(row, dtype=torch.long)
    return out


__all__ = ["EncodedSet", "padded"]
