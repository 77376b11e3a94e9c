"""Every example sentence the pages offer a reader, for the model card's table of what the model answers there.

A class meets the model first through these sentences, so the card lists each with the model's top 3 (or, for the
sentence-scoring candidates, the order it ranks them in): a miss is visible, not hidden (issue 41). Each concept
declares its examples in its ``settings.py`` (``EXAMPLES``: string keys by kind); the shared sentence that every page
opens on is listed too, masked as the fill-mask page masks it when it holds no [MASK].

    python -m app.core.examples            # writes model/embedded/page_examples.json
    python -m model card                   # renders the table from it and the weights

A test holds the written file to what the pages offer today.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from app.core.i18n import STRINGS, TEXT_LANGUAGES
from app.core.registry import concept_modules
from app.core.state import DEFAULT_TEXT
from app.core.tokens import last_word_position, mask_selected
from model.checkpoint import EMBEDDED_DIR
from model.tokenization import BertTokenizer
from model.training.card import EXAMPLES_NAME

_CJK = re.compile(r"[\u3400-\u9fff]")
SHARED_PAGES = ("fill_mask", "masking")  # the shared sentence: the fill-mask page masks it, the masking lab too


def _language(text: str) -> str:
    return "zh" if _CJK.search(text) else "en"


def page_examples(tokenizer: BertTokenizer) -> list[dict]:
    """The examples, each once (with every page that offers it), in the pages' order: fill-in sentences, then
    sentences to rank. ``tokenizer`` masks the shared sentence's last word as the fill-mask page does."""
    found: dict[tuple, dict] = {}

    def add(page: str, kind: str, text: str) -> None:
        entry = found.setdefault((kind, text), {"kind": kind, "lang": _language(text), "text": text, "pages": []})
        if page not in entry["pages"]:
            entry["pages"].append(page)

    for lang in TEXT_LANGUAGES:
        text = DEFAULT_TEXT[lang]
        enc = tokenizer.encode(text)
        position = last_word_position(enc, tokenizer.mask_token_id)
        for page in SHARED_PAGES:
            add(page, "fill", mask_selected(text, enc.offsets, [position]) if position is not None else text)
    for page, module in concept_modules("settings").items():
        for kind, keys in getattr(module, "EXAMPLES", {}).items():
            for key in keys:
                for lang in TEXT_LANGUAGES:
                    add(page, kind, STRINGS[f"{page}.{key}"][lang])
    return sorted(found.values(), key=lambda e: (e["kind"] != "fill", e["lang"], e["text"]))


def dumps(examples: list[dict]) -> str:
    """One example a line, so a changed example is one changed line in a diff."""
    return "[\n" + ",\n".join(json.dumps(e, ensure_ascii=False) for e in examples) + "\n]\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=EMBEDDED_DIR, help="the model folder whose card lists them")
    args = parser.parse_args()
    examples = page_examples(BertTokenizer.from_folder(args.folder))
    path = args.folder / EXAMPLES_NAME
    path.write_text(dumps(examples), encoding="utf-8")
    print(f"wrote {len(examples)} examples to {path}")


if __name__ == "__main__":
    main()
