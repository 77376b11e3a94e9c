"""One downstream measure every pre-trained encoder can take: a linear probe on its frozen sentence vectors.

ELECTRA's discriminator cannot fill a [MASK] and BERT cannot say which token was replaced, so the two objectives are
compared where both are used: on a labelled task, from what the encoder learnt. The encoder is frozen; each text's
vector is the mean of its last layer over its tokens; a logistic regression is fitted on 1,000 labelled texts and
scored on up to 500 of the task's held-out split. Beside it, the strongest baselines without pre-training: the same
probe on the same model untrained (its random features), logistic regression on the texts' bags of words (the same
tokens), and always answering the most frequent label.

The tasks are the fine-tuning lab's (``model.data.tasks``): English news topics (BBC, five classes), Chinese review
sentiment (two). Texts are cut to the live preset's sequence length: the probe reads what the model was trained to
read.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import torch
import torch.nn.functional as F

from ..data.tasks import load_task
from ..tokenization import BertTokenizer

TASKS = {"en": "topics-en", "zh": "sentiment-zh"}
TRAIN_EXAMPLES, TEST_EXAMPLES = 1000, 500
L2 = 1e-3  # on the standardised features: enough to keep 128 features from fitting 1,000 texts' noise


@dataclass(frozen=True)
class ProbeSet:
    ids: torch.Tensor  # (N, T)
    attention_mask: torch.Tensor  # (N, T)
    labels: torch.Tensor  # (N,)
    num_labels: int


@dataclass(frozen=True)
class ProbeData:
    task: str
    train: ProbeSet
    test: ProbeSet


def encode(tokenizer: BertTokenizer, texts: list[str], labels: list[int], seq_len: int, num_labels: int) -> ProbeSet:
    ids = torch.full((len(texts), seq_len), tokenizer.pad_token_id, dtype=torch.long)
    for i, text in enumerate(texts):
        pieces = tokenizer._tok.encode(text[: 8 * seq_len], add_special_tokens=False).ids[: seq_len - 2]
        row = [tokenizer.cls_token_id, *pieces, tokenizer.sep_token_id]
        ids[i, : len(row)] = torch.tensor(row)
    return ProbeSet(ids, (ids != tokenizer.pad_token_id).long(), torch.tensor(labels), num_labels)


@lru_cache(maxsize=2)
def probe_data(tokenizer: BertTokenizer, lang: str, seq_len: int) -> ProbeData:
    task = load_task(TASKS[lang])
    n = len(task.labels)
    train, test = task.train[:TRAIN_EXAMPLES], task.heldout[:TEST_EXAMPLES]
    return ProbeData(
        TASKS[lang],
        encode(tokenizer, [e.text for e in train], [e.label for e in train], seq_len, n),
        encode(tokenizer, [e.text for e in test], [e.label for e in test], seq_len, n),
    )


@torch.no_grad()
def sentence_vectors(encoder: torch.nn.Module, data: ProbeSet, batch_size: int = 250) -> torch.Tensor:
    """(N, H): the mean of the last layer over each text's real tokens."""
    was_training = encoder.training
    encoder.eval()
    vectors = []
    for start in range(0, len(data.ids), batch_size):
        ids, mask = data.ids[start : start + batch_size], data.attention_mask[start : start + batch_size]
        hidden = encoder(ids, torch.zeros_like(ids), mask).last_hidden_state  # (b, T, H)
        weights = mask.unsqueeze(-1).float()
        vectors.append((hidden * weights).sum(1) / weights.sum(1))
    encoder.train(was_training)
    return torch.cat(vectors)


def bags_of_words(data: ProbeSet, vocab_size: int) -> torch.Tensor:
    """(N, V): how often each token occurs in each text (padding not counted)."""
    counts = torch.zeros(len(data.ids), vocab_size)
    counts.scatter_add_(1, data.ids, data.attention_mask.float())
    counts[:, 0] = 0  # the padding id
    return counts


def logistic_regression(train_x, train_y, test_x, test_y, num_labels: int, steps: int = 100) -> float:
    """Test accuracy of an L2-regularised logistic regression fitted with L-BFGS on standardised features."""
    mean, std = train_x.mean(0), train_x.std(0).clamp(min=1e-6)
    train_x, test_x = (train_x - mean) / std, (test_x - mean) / std
    weight = torch.zeros(train_x.shape[1], num_labels, requires_grad=True)
    bias = torch.zeros(num_labels, requires_grad=True)
    optimizer = torch.optim.LBFGS([weight, bias], max_iter=steps, line_search_fn="strong_wolfe")

    def loss():
        optimizer.zero_grad()
        value = F.cross_entropy(train_x @ weight + bias, train_y) + L2 * weight.pow(2).sum()
        value.backward()
        return value

    optimizer.step(loss)
    with torch.no_grad():
        return float(((test_x @ weight + bias).argmax(-1) == test_y).float().mean())


def linear_probe(
    encoder: torch.nn.Module, untrained: torch.nn.Module, tokenizer: BertTokenizer, lang: str, seq_len: int
) -> dict:
    """The probe's accuracy on ``encoder``'s vectors, beside the untrained model's, bags of words and the majority."""
    data = probe_data(tokenizer, lang, seq_len)
    n = data.train.num_labels

    def accuracy(features) -> float:
        return logistic_regression(features(data.train), data.train.labels, features(data.test), data.test.labels, n)

    majority = torch.bincount(data.train.labels, minlength=n).argmax()  # the training split's most frequent label
    return {
        "probe_task": data.task,
        "probe_test": len(data.test.labels),
        "probe_acc": accuracy(lambda s: sentence_vectors(encoder, s)),
        "probe_untrained_acc": accuracy(lambda s: sentence_vectors(untrained, s)),
        "probe_bow_acc": accuracy(lambda s: bags_of_words(s, tokenizer.vocab_size)),
        "probe_majority": float((data.test.labels == majority).float().mean()),
    }


__all__ = [
    "TASKS",
    "ProbeData",
    "bags_of_words",
    "linear_probe",
    "logistic_regression",
    "probe_data",
    "sentence_vectors",
]
