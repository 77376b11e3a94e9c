"""BERT's family (issue 56): RoBERTa's, DistilBERT's, ALBERT's and ELECTRA's checkpoints, read into this package's
BERT, compute what transformers computes on the same weights: MLM (or replaced-token, or sentence-order) logits,
every hidden state and every attention map, to 1e-5, on a padded batch."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from model.checkpoint import load_weights
from model.families import ElectraForPreTraining, bert_config, bert_state, family_of
from model.modeling import BertForPreTraining, count_parameters
from model.tokenization import BertTokenizer

ROOT = Path(__file__).resolve().parents[1]

TOL = 1e-5


def tiny(family: str):
    """A randomly initialised transformers model of ``family`` with small shapes, its LayerNorms and biases moved
    off their initial values so that a swapped name cannot go unnoticed."""
    import transformers

    torch.manual_seed(0)
    if family == "roberta":
        config = transformers.RobertaConfig(
            vocab_size=60, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=48,
            max_position_embeddings=40, type_vocab_size=1, pad_token_id=1,
        )  # fmt: skip
        model = transformers.RobertaForMaskedLM(config)
    elif family == "distilbert":
        config = transformers.DistilBertConfig(
            vocab_size=60, dim=32, n_layers=2, n_heads=4, hidden_dim=48, max_position_embeddings=40, pad_token_id=0
        )
        model = transformers.DistilBertForMaskedLM(config)
    elif family == "albert":
        config = transformers.AlbertConfig(
            vocab_size=60, embedding_size=16, hidden_size=32, num_hidden_layers=3, num_attention_heads=4,
            intermediate_size=48, max_position_embeddings=40, pad_token_id=0,
        )  # fmt: skip
        model = transformers.AlbertForPreTraining(config)
    else:
        config = transformers.ElectraConfig(
            vocab_size=60, embedding_size=16, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
            intermediate_size=48, max_position_embeddings=40, pad_token_id=0,
        )  # fmt: skip
        model = (
            transformers.ElectraForMaskedLM if family == "electra-generator" else transformers.ElectraForPreTraining
        )(config)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "LayerNorm" in name or "layer_norm" in name or name.endswith("bias"):
                p.add_(torch.randn_like(p) * 0.1)
    return model.eval()


# What each checkpoint lacks of BertForPreTraining: its pooler and next-sentence head, unless it has them (ALBERT's
# pooler feeds its sentence-order head); ELECTRA's discriminator has its own head instead of the MLM's.
LACKS = {
    "roberta": ("bert.pooler.", "cls.seq_relationship."),
    "distilbert": ("bert.pooler.", "cls.seq_relationship."),
    "albert": (),
    "electra-generator": ("bert.pooler.", "cls.seq_relationship."),
    "electra": ("bert.pooler.",),
}


@pytest.mark.parametrize("family", list(LACKS))
def test_a_family_checkpoint_computes_what_transformers_computes(family):
    reference = tiny(family)
    reference.config._attn_implementation = "eager"  # returns attention maps
    config = bert_config(reference.config.to_dict())
    assert family_of(reference.config.to_dict()) == family.split("-")[0] == config.extra["family"]
    ours = (ElectraForPreTraining if family == "electra" else BertForPreTraining)(config).eval()
    state = bert_state(config.extra["family"], reference.state_dict(), config.num_hidden_layers)
    fresh = load_weights(ours, state, "tiny")
    assert set(fresh) == {key for key in ours.state_dict() if key.startswith(LACKS[family])}
    pad = reference.config.pad_token_id
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(3, 60, (2, 9), generator=g)
    mask = torch.ones_like(ids)
    ids[1, 6:], mask[1, 6:] = pad, 0  # a padded sequence: RoBERTa's positions skip padding
    with torch.no_grad():
        out = ours(ids, None, mask, output_attentions=True, output_hidden_states=True)
        ref = reference(input_ids=ids, attention_mask=mask, output_attentions=True, output_hidden_states=True)
    real = mask.bool()
    if family == "electra":  # one "replaced?" logit per token
        torch.testing.assert_close(out.logits[real], ref.logits[real], atol=TOL, rtol=0)
    else:
        mlm = ref.prediction_logits if family == "albert" else ref.logits
        torch.testing.assert_close(out.mlm_logits[real], mlm[real], atol=TOL, rtol=0)
    if family == "albert":  # the sentence-order head, read from the pooled [CLS]
        torch.testing.assert_close(out.nsp_logits, ref.sop_logits, atol=TOL, rtol=0)
    assert len(out.hidden_states) == len(ref.hidden_states) == config.num_hidden_layers + 1
    for mine, theirs in zip(out.hidden_states, ref.hidden_states, strict=True):
        torch.testing.assert_close(mine[real], theirs[real], atol=TOL, rtol=0)
    for mine, theirs in zip(out.attentions, ref.attentions, strict=True):
        torch.testing.assert_close(mine[0], theirs[0], atol=TOL, rtol=0)
        torch.testing.assert_close(mine[1, :, :6, :], theirs[1, :, :6, :], atol=TOL, rtol=0)


def test_roberta_counts_positions_after_the_padding_index_and_distilbert_has_no_segments():
    roberta = BertForPreTraining(bert_config(tiny("roberta").config.to_dict()))
    ids = torch.tensor([[0, 5, 6, 2, 1, 1]])  # <s> a b </s> <pad> <pad>, pad_token_id 1
    assert roberta.bert.embeddings.position_ids(ids).tolist() == [[2, 3, 4, 5, 1, 1]]
    distil = BertForPreTraining(bert_config(tiny("distilbert").config.to_dict()))
    assert distil.bert.embeddings.token_type_embeddings is None
    assert "bert.embeddings.token_type_embeddings.weight" not in distil.state_dict()
    parts = distil.bert(torch.tensor([[5, 6, 7]]), output_embeddings=True).embeddings
    assert not parts.segment.any()  # nothing is added for a segment
    assert distil.config.to_dict()["type_vocab_size"] == 0


def test_albert_shares_one_layer_and_counts_its_parameters_once():
    reference = tiny("albert")
    config = bert_config(reference.config.to_dict())
    ours = BertForPreTraining(config)
    layers = ours.bert.encoder.layer
    assert all(layer is layers[0] for layer in layers) and len(layers) == 3
    assert count_parameters(config)["total"] == ours.num_parameters() == reference.num_parameters()


def test_an_unknown_family_is_named():
    with pytest.raises(ValueError, match="'gpt2' is not one of BERT's family"):
        family_of({"model_type": "gpt2"})


# --- tokenizers ---------------------------------------------------------------------------------------------------

SAMPLES = [
    *(ROOT / "model/analysis/sentences_en.txt").read_text(encoding="utf-8").splitlines()[:40],
    *(ROOT / "model/analysis/sentences_zh.txt").read_text(encoding="utf-8").splitlines()[:40],
]


def roberta_files(folder: Path) -> Path:
    """RoBERTa's tokenizer files (vocab.json, merges.txt), a byte-level BPE trained on the sample sentences."""
    from tokenizers import ByteLevelBPETokenizer

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(SAMPLES, vocab_size=400, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    folder.mkdir(parents=True, exist_ok=True)
    bpe.save_model(str(folder))
    return folder


def test_roberta_reads_text_as_its_fast_tokenizer_does_from_vocab_and_merges_or_tokenizer_json(tmp_path):
    from tokenizers import AddedToken
    from transformers import RobertaTokenizerFast

    folder = roberta_files(tmp_path / "bpe")
    saved = tmp_path / "saved"
    RobertaTokenizerFast.from_pretrained(str(folder)).save_pretrained(saved)  # tokenizer.json, tokenizer_config.json
    references = {
        # From vocab.json and merges.txt, <mask> takes the space before it, as RoBERTa's tokenizer defines it.
        folder: RobertaTokenizerFast.from_pretrained(str(folder), mask_token=AddedToken("<mask>", lstrip=True)),
        saved: RobertaTokenizerFast.from_pretrained(str(saved)),  # its tokenizer.json says how <mask> is matched
    }
    for source, reference in references.items():
        ours = BertTokenizer.from_folder(source)
        assert ours.special_tokens == {"pad": "<pad>", "unk": "<unk>", "cls": "<s>", "sep": "</s>", "mask": "<mask>"}
        for a, b in zip(SAMPLES, SAMPLES[1:] + SAMPLES[:1]):
            assert ours.encode(a).ids == reference(a)["input_ids"], a
            pair = reference(a, b, return_offsets_mapping=True)
            # Offsets too: each token's characters, the space before "Ġthe" not among them (and no letter lost).
            assert ours.encode(a, b).ids == pair["input_ids"], (a, b)
            assert ours.encode(a, b).offsets == [tuple(o) for o in pair["offset_mapping"]], (a, b)
        # Tokens are shown with their bytes decoded: a Chinese character reads as itself where one token holds it,
        # and as \\xNN where its bytes are split; read back, the shown tokens give the text.
        for text in (SAMPLES[0], SAMPLES[-1], "我去电影院 the cafés"):
            shown = ours.encode(text).tokens[1:-1]
            back = b"".join(
                bytes.fromhex(piece[2:]) if piece.startswith("\\x") else piece.replace("Ġ", " ").encode()
                for token in shown
                for piece in re.split(r"(\\x[0-9a-f]{2})", token)
                if piece
            )
            assert back.decode() == text, shown
            assert not any("\u0100" <= char <= "\u0143" for token in shown for char in token.replace("Ġ", ""))
        typed = ours.encode("The cat sat on the [MASK].")  # the app's blank is the model's <mask>
        assert typed.ids == reference("The cat sat on the <mask>.")["input_ids"]
        assert ours.mask_token_id in typed.ids and typed.special[0] and typed.special[-1]


def test_a_unigram_tokenizer_json_with_bert_style_specials_reads_as_transformers_does(tmp_path):
    """ALBERT's shape: a SentencePiece Unigram model, [CLS] A [SEP] B [SEP], <pad> and <unk>."""
    from tokenizers import SentencePieceUnigramTokenizer, processors
    from transformers import PreTrainedTokenizerFast

    unigram = SentencePieceUnigramTokenizer()
    specials = ["<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"]
    unigram.train_from_iterator(SAMPLES, vocab_size=1500, special_tokens=specials, unk_token="<unk>")
    cls_id, sep_id = unigram.token_to_id("[CLS]"), unigram.token_to_id("[SEP]")
    unigram.post_processor = processors.TemplateProcessing(
        single="[CLS]:0 $A:0 [SEP]:0",
        pair="[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )
    reference = PreTrainedTokenizerFast(
        tokenizer_object=unigram._tokenizer,
        pad_token="<pad>",
        unk_token="<unk>",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    reference.save_pretrained(tmp_path)
    ours = BertTokenizer.from_folder(tmp_path)
    assert ours.special_tokens["pad"] == "<pad>" and ours.special_tokens["unk"] == "<unk>"
    for a, b in zip(SAMPLES, SAMPLES[1:] + SAMPLES[:1]):
        assert ours.encode(a).ids == reference(a)["input_ids"], a
        pair = reference(a, b, return_token_type_ids=True)
        assert ours.encode(a, b).ids == pair["input_ids"] and ours.encode(a, b).token_type_ids == pair["token_type_ids"]
    # "▁the" stands for "the": its offsets leave out the space that the piece's ▁ marks, so that masking a word (or
    # showing its characters) keeps the text around it as it was.
    from app.core.tokens import last_word_position, mask_selected

    text = "She opened the door and walked into the room."
    enc = ours.encode(text)
    assert all(not text[start:end][:1].isspace() for start, end in enc.offsets)
    assert "".join(text[s:e] for s, e in enc.offsets) == text.replace(" ", "")
    masked = mask_selected(text, enc.offsets, [last_word_position(enc, ours.mask_token_id) or 0])
    changed = [(w, m) for w, m in zip(text.split(" "), masked.split(" "), strict=True) if w != m]
    assert len(changed) == 1 and changed[0][1] == "[MASK]", masked  # one whole word, the spaces around it kept


# --- the app on each family -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def family_folders(tmp_path_factory) -> dict[str, Path]:
    """A tiny checkpoint of each family as transformers saves it, with a tokenizer of the family's kind."""
    import transformers
    from conftest import write_vocab
    from tokenizers import SentencePieceUnigramTokenizer, processors

    root = tmp_path_factory.mktemp("families")
    folders = {}
    for family in ("roberta", "distilbert", "albert", "electra-generator", "electra-discriminator"):
        folder = folders.setdefault(family, root / family)
        model = tiny(family.replace("-discriminator", ""))
        if family == "roberta":
            files = roberta_files(root / "bpe")
            tokenizer = transformers.RobertaTokenizerFast.from_pretrained(
                str(files), mask_token=transformers.AddedToken("<mask>", lstrip=True)
            )
            model.resize_token_embeddings(len(tokenizer))
            tokenizer.save_pretrained(folder)
        elif family == "albert":
            unigram = SentencePieceUnigramTokenizer()
            specials = ["<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"]
            unigram.train_from_iterator(SAMPLES, vocab_size=1500, special_tokens=specials, unk_token="<unk>")
            unigram.post_processor = processors.TemplateProcessing(
                single="[CLS]:0 $A:0 [SEP]:0",
                pair="[CLS]:0 $A:0 [SEP]:0 $B:1 [SEP]:1",
                special_tokens=[("[CLS]", unigram.token_to_id("[CLS]")), ("[SEP]", unigram.token_to_id("[SEP]"))],
            )
            tokenizer = transformers.PreTrainedTokenizerFast(
                tokenizer_object=unigram._tokenizer, pad_token="<pad>", unk_token="<unk>", cls_token="[CLS]",
                sep_token="[SEP]", mask_token="[MASK]",
            )  # fmt: skip
            model.resize_token_embeddings(len(tokenizer))
            tokenizer.save_pretrained(folder)
        else:
            folder.mkdir(parents=True)
            model.resize_token_embeddings(len(write_vocab(folder / "vocab.txt")))
        model.save_pretrained(folder)
    return folders


# What each page says about a family's difference from BERT, by page (the strings' keys).
PAGE_NOTES = {
    "roberta": {"nsp": ["nsp.family_roberta"], "embeddings": ["embeddings.family_one_segment",
                                                              "embeddings.family_positions_after_padding"]},
    "distilbert": {"nsp": ["nsp.family_distilbert"], "embeddings": ["embeddings.family_no_segments"]},
    "albert": {"nsp": ["nsp.family_albert"], "embeddings": ["embeddings.family_factorized"]},
    "electra-generator": {"nsp": ["nsp.family_electra"], "embeddings": ["embeddings.family_factorized"]},
    "electra-discriminator": {"embeddings": ["embeddings.family_factorized"]},
}  # fmt: skip
PAGES = ("nsp", "embeddings", "attention", "heads", "fill_mask", "masking", "layers", "finetune", "sentence_vectors")


@pytest.mark.parametrize("family", list(PAGE_NOTES))
def test_every_page_runs_on_each_family_and_says_what_the_family_changed(family, family_folders):
    from apptest_helpers import start_app_page

    from app.core.i18n import strings_of

    def string(key: str, lang: str, **values) -> str:
        group, name = key.split(".")
        return strings_of(group)[name][lang].format(**values)

    config = bert_config(json.loads((family_folders[family] / "config.json").read_text()))
    sizes = {"width": config.embedding_width, "hidden": config.hidden_size, "first": config.pad_token_id + 1}
    for name in PAGES:
        for lang in ("en", "zh") if name in ("nsp", "fill_mask") else ("en",):
            at = start_app_page(name, lang, model_choice="folder", model_folder=str(family_folders[family]))
            assert not at.exception, (family, name, at.exception[0].stack_trace if at.exception else "")
            shown = [m.value for m in [*at.info, *at.warning, *at.markdown, *at.caption]]
            for key in PAGE_NOTES[family].get(name, []):
                assert string(key, lang, **sizes) in shown, (family, name, key)
            sidebar = " ".join(c.value for c in at.sidebar.caption)
            assert string(f"common.family_{family.replace('-', '_')}", lang) in sidebar
    if family == "electra-discriminator":
        folder = {"model_choice": "folder", "model_folder": str(family_folders[family])}
        # No next-sentence head: the page says why instead of a random gauge.
        assert any("ELECTRA" in w.value for w in start_app_page("nsp", "en", **folder).warning)
        # The head lab's first two steps read its own loss; the two that read an MLM head say so.
        heads = strings_of("heads")
        first = start_app_page("heads", "en", **folder)
        own_task = heads["sample_note_replaced"]["en"].split(". ")[1][:40]  # "This model is ELECTRA's discriminator"
        assert any(own_task in c.value for c in first.caption)
        third = start_app_page("heads", "zh", heads_step=3, **folder)
        title = heads["step3_title"]["zh"]
        assert heads["discriminator_step"]["zh"].format(title=title) in [m.value for m in third.info]


def test_the_discriminator_shows_which_tokens_it_thinks_were_replaced(family_folders):
    from apptest_helpers import charts, start_app_page

    from app.core.i18n import strings_of

    folder = str(family_folders["electra-discriminator"])
    at = start_app_page("fill_mask", "en", model_choice="folder", model_folder=folder, text="The chef ate the meal.")
    assert strings_of("fill_mask")["replaced_heading"]["en"] in [h.value for h in at.header]
    reference = transformers_discriminator(family_folders["electra-discriminator"], "The chef ate the meal.")
    (bars,) = charts(at)[0]["data"]  # one bar per token, in the sentence's order, in percent
    assert [label.rstrip("\u200b") for label in bars["y"]] == [token for token, _ in reference]  # repeats made unique
    assert np.allclose(bars["x"], [round(100 * p, 1) for _, p in reference], atol=0.051)
    summary = " ".join(c.value for c in at.caption).replace("\\", "")  # as read, without Markdown escapes
    flagged = [token for token, p in reference if p >= 0.5]
    assert ("calls no token replaced" in summary) == (not flagged)
    for token in flagged:
        assert f"“{token}”" in summary


def transformers_discriminator(folder: Path, text: str) -> list[tuple[str, float]]:
    """transformers' ElectraForPreTraining on ``text``: each non-special token and its P(replaced)."""
    import transformers

    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.ElectraForPreTraining.from_pretrained(folder).eval()
    batch = tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        replaced = model(**batch).logits[0].sigmoid().tolist()
    tokens = tokenizer.convert_ids_to_tokens(batch["input_ids"][0])
    return [(token, p) for token, p in zip(tokens, replaced) if token not in ("[CLS]", "[SEP]")]


def test_info_names_the_family_and_breaks_its_parameters_down_as_the_checkpoint_holds_them(family_folders, capsys):
    import transformers

    from model.cli import main

    assert main(["info", "--model", str(family_folders["albert"])]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("(albert, BertForPreTraining)")
    assert lines[2] == "embeddings 16 wide, projected to 32, one layer's weights shared by all 3"
    for family, reference in (
        ("albert", transformers.AlbertForPreTraining),
        ("distilbert", transformers.DistilBertForMaskedLM),
        ("electra-discriminator", transformers.ElectraForPreTraining),
    ):
        assert main(["info", "--model", str(family_folders[family]), "--json"]) == 0
        info = json.loads(capsys.readouterr().out)
        parts = info["parameters"]
        # Each tensor once, as transformers counts it: ALBERT's shared layer once, the tied decoder not again.
        assert parts["total"] == reference.from_pretrained(family_folders[family]).num_parameters(), family
        assert parts["total"] == sum(n for part, n in parts.items() if part != "total")
        layer = 4 * (32 * 32 + 32) + 2 * 32 + (32 * 48 + 48) + (48 * 32 + 32) + 2 * 32
        assert parts["encoder"] == (1 if family == "albert" else 2) * layer, family
        assert parts["factorization"] == (0 if family == "distilbert" else 16 * 32 + 32), family
    assert info["family"] == "electra" and info["architecture"] == "ElectraForPreTraining"
    assert info["added_at_random"] == 32 * 32 + 32  # the pooler BERT has and ELECTRA's discriminator lacks
    assert main(["info", "--model", str(family_folders["distilbert"]), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["family"] == "distilbert" and info["config"]["type_vocab_size"] == 0
    assert info["parameters"]["pooler"] == 0
    assert info["added_at_random"] == (32 * 32 + 32) + (2 * 32 + 2)  # the pooler and the next-sentence head


@pytest.mark.parametrize("family", list(PAGE_NOTES))
def test_a_model_fine_tuned_from_each_family_is_saved_and_loaded_back_and_finds_the_passage(
    family, family_folders, tmp_path
):
    """A classifier and a question-answering reader on each family's encoder: saved as this package saves them
    (ALBERT's shared layer once) and loaded back with the same outputs; the reader's passage tokens are sentence B's
    in every family, RoBERTa's and DistilBERT's too, whose segment ids do not mark B."""
    from model.checkpoint import load_folder, save_folder
    from model.training.finetune import build_task_model
    from model.training.qa import encode_question

    base = load_folder(family_folders[family])
    question, passage = "Who opened the door?", "Anna opened the door and walked in."
    for kind, labels in (("sequence", ["negative", "positive"]), ("span", ["start", "end"])):
        tuned = build_task_model(base, labels, kind).eval()
        folder = save_folder(tuned, base.tokenizer, tmp_path / f"{family}-{kind}")
        loaded = load_folder(folder)
        assert type(loaded.model) is type(tuned) and not loaded.fresh_keys
        enc = base.tokenizer.encode(question, passage)
        ids, types = torch.tensor([enc.ids]), torch.tensor([enc.token_type_ids])
        with torch.no_grad():
            torch.testing.assert_close(loaded.model(ids, types).logits, tuned(ids, types).logits, atol=0, rtol=0)
    encoded = encode_question(base.tokenizer, question, passage, 64)
    read = "".join(passage[start:end] for start, end in (encoded.char_spans[i] for i in encoded.passage_tokens))
    assert read == passage.replace(" ", "")


def test_the_head_lab_reads_a_discriminators_heads_from_its_own_task(family_folders):
    """ELECTRA's discriminator has no MLM head: a head's importance is read from replaced-token detection on the
    sample, the masked positions given other tokens, and agrees with what nudging that head's gate does to the loss."""
    import torch.nn.functional as F

    from model.analysis import heads
    from model.checkpoint import load_folder

    bundle = load_folder(family_folders["electra-discriminator"])
    sample = heads.encode_sample(bundle, heads.sample_pairs("en")[:6])
    moved = sample.replaced_ids != sample.ids
    assert torch.equal(moved, sample.labels != -100)  # exactly the masked positions, each given another token
    assert not any(int(i) in bundle.tokenizer.special_ids for i in sample.replaced_ids[moved])
    importance, loss = heads.head_importance(bundle, sample)

    def loss_with(gate: torch.Tensor) -> torch.Tensor:  # (N,): each input's mean "replaced?" cross-entropy
        with torch.no_grad():
            logits = bundle.model(sample.replaced_ids, sample.types, sample.attention_mask, head_mask=gate).logits
        mask = sample.attention_mask.float()
        per_token = F.binary_cross_entropy_with_logits(logits, moved.float(), reduction="none") * mask
        return (per_token.sum(1) / mask.sum(1)).double()

    L, nh = importance.shape
    ones = torch.ones(L, nh)
    assert loss == pytest.approx(float(loss_with(ones).mean()), abs=1e-5)
    step = 1e-3
    for layer, head in ((0, 0), (L - 1, nh - 1)):
        nudged = ones.clone()
        nudged[layer, head] -= step
        finite = ((loss_with(ones) - loss_with(nudged)) / step).abs().sum()
        assert float(finite) == pytest.approx(importance[layer, head], rel=0.05, abs=1e-4)
