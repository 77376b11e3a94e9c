"""Traditional Chinese strings, made from the Simplified ones: ``python -m app.core.locales``.

``app/locales/zh-Hant/`` is OpenCC's Simplified -> Traditional conversion with Taiwan's phrasing (``s2twp``: 软件 ->
軟體, 默认 -> 預設) of ``app/locales/zh/``, key for key, corrected by a reviewer's ``zh-Hant.review.json``:
``phrases`` that the conversion gets wrong everywhere (参数, a model's parameters, is 參數, not 引數, a function's
arguments) and whole ``strings`` where one string's context needs another word (对象 as "what is counted" is 對象,
not 物件). A test holds the folder to this command's output, so a Simplified edit that was not carried over fails.
"""

from __future__ import annotations

import json

from app.core.i18n import LOCALES_DIR

SOURCE, TARGET = "zh", "zh-Hant"
REVIEW_PATH = LOCALES_DIR / f"{TARGET}.review.json"


def traditional_files() -> dict[str, str]:
    """Each ``zh-Hant`` locale file's text by file name, as the command writes it."""
    from opencc_purepy import OpenCC  # a build step: the app reads the files it wrote

    convert = OpenCC("s2twp").convert
    review = json.loads(REVIEW_PATH.read_text(encoding="utf-8"))

    def traditional(value: str) -> str:
        value = convert(value)
        for wrong, right in review["phrases"].items():
            value = value.replace(wrong, right)
        return value

    files = {}
    for path in sorted((LOCALES_DIR / SOURCE).glob("*.json")):
        strings = json.loads(path.read_text(encoding="utf-8"))
        reviewed = {key: review["strings"].get(f"{path.stem}.{key}") for key in strings}
        files[path.name] = dumps({key: reviewed[key] or traditional(value) for key, value in strings.items()})
    return files


def dumps(strings: dict[str, str]) -> str:
    """A locale file as every language's is written: two-space indents, characters as they are."""
    return json.dumps(strings, ensure_ascii=False, indent=2) + "\n"


def main() -> None:
    folder = LOCALES_DIR / TARGET
    folder.mkdir(exist_ok=True)
    files = traditional_files()
    for stale in set(p.name for p in folder.glob("*.json")) - set(files):
        (folder / stale).unlink()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} files to {folder}")


if __name__ == "__main__":
    main()
