"""Every key the app builds at run time (``t(f"{name}.guide")`` over the page list) has a string in every
language.

The sites are found in the source: every ``t(...)`` in ``app/`` whose key is not a plain string. Each site's keys are
built by evaluating its own key expression over the values its names take:

* where the code itself says: a loop or comprehension over something defined in its module (a settings' options,
  ``PAGE_FILES``, ``TASKS``...) or a literal tuple is evaluated as the code would;
* otherwise (a function's parameter, a value met at run time) from ``BINDINGS`` below, built from the same lists the
  code takes its values from, or from the literals the code passes (``notice("store_down")``).

A new site that neither resolves nor appears in ``BINDINGS`` fails the first test, so no built key goes unchecked;
a new page, task or setting option with no string fails the second.
"""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import itertools
import string
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from app.core import attention_stats, live_jobs
from app.core.i18n import LANGUAGES, STRINGS, TEXT_LANGUAGES, forms
from app.core.models import FAMILY_KEYS
from app.core.state import SETTINGS as APP_SETTINGS
from model.analysis import search_pool, tracing
from model.data.tasks import TASKS
from model.training.downstream import TASKS as DOWNSTREAM_TASKS

ROOT = Path(__file__).resolve().parents[1]
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


class Unresolved(Exception):
    """A name whose values the code does not spell out where the site is (a parameter, a run-time value)."""


@dataclass(frozen=True)
class Site:
    path: str  # "app/overview/page.py"
    call: ast.Call
    ancestors: tuple[ast.AST, ...]  # innermost first, the module last

    @property
    def key(self) -> ast.expr:
        return self.call.args[0]

    @property
    def name(self) -> tuple[str, str]:
        """What ``BINDINGS`` knows a site by: its file and its key expression as written."""
        return self.path, ast.unparse(self.key)

    @property
    def module(self):
        return importlib.import_module(self.path.removesuffix(".py").replace("/", "."))


@functools.cache
def parsed(path: str) -> ast.Module:
    return ast.parse((ROOT / path).read_text(encoding="utf-8"))


def sources(folder: str) -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / folder).rglob("*.py"))


def walk_with_ancestors(node: ast.AST, ancestors: tuple = ()):
    yield node, ancestors
    for child in ast.iter_child_nodes(node):
        yield from walk_with_ancestors(child, (node, *ancestors))


@functools.cache
def lookups() -> tuple[Site, ...]:
    """Every ``t(key, ...)`` in app/."""
    return tuple(
        Site(path, node, ancestors)
        for path in sources("app")
        for node, ancestors in walk_with_ancestors(parsed(path))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "t" and node.args
    )


def sites() -> list[Site]:
    """The lookups whose key is not a plain string."""
    return [site for site in lookups() if not isinstance(site.key, ast.Constant)]


# Reading values from the code -------------------------------------------------------------------------------


def names_in(expr: ast.expr) -> list[str]:
    """The names an expression reads, each once, in order (a comprehension's own variables left out)."""
    inner = {
        target.id
        for node in ast.walk(expr)
        if isinstance(node, COMPREHENSIONS)
        for generator in node.generators
        for target in ast.walk(generator.target)
        if isinstance(target, ast.Name)
    }
    read = [n.id for n in ast.walk(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return [name for name in dict.fromkeys(read) if name not in inner]


def binds(target: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


def parameters(function: ast.AST) -> set[str]:
    args = function.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]
    return {a.arg for a in every}


def own_nodes(function: ast.AST):
    """The nodes of a function's body, not those of the functions and lambdas defined inside it."""
    stack = list(function.body) if isinstance(function.body, list) else [function.body]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, FUNCTIONS))


def other_bindings(node: ast.AST) -> list[ast.expr]:
    """What a statement binds besides a plain assignment's targets (a loop's variable, ``with ... as``, ``except ...
    as``, an augmented assignment)."""
    if isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For):
        return [node.target]
    if isinstance(node, ast.With):
        return [item.optional_vars for item in node.items if item.optional_vars is not None]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [ast.Name(node.name)]
    return []


def only_assignment(function: ast.AST, name: str) -> ast.expr | None:
    """The expression a function assigns to ``name``, if it assigns it exactly once and binds it no other way."""
    values, elsewhere = [], False
    for node in own_nodes(function):
        if isinstance(node, ast.Assign):
            if any(isinstance(target, ast.Name) and target.id == name for target in node.targets):
                values.append(node.value)
            else:
                elsewhere |= any(binds(target, name) for target in node.targets)  # a, name = ...
        elsewhere |= any(binds(target, name) for target in other_bindings(node))
    return values[0] if len(values) == 1 and not elsewhere else None


def evaluated(expr: ast.expr, ancestors: tuple, module) -> object:
    """``expr`` as the code computes it, where every name it reads is the module's or a local the enclosing functions
    assign once from such names; ``Unresolved`` otherwise."""
    scope = {}
    for name in names_in(expr):
        scope[name] = value_of(name, ancestors, module)
    code = compile(ast.Expression(body=expr), "<site>", "eval")
    return eval(code, vars(module), scope)  # the app's own source, read back


def value_of(name: str, ancestors: tuple, module) -> object:
    for index, node in enumerate(ancestors):
        if isinstance(node, COMPREHENSIONS) and any(binds(g.target, name) for g in node.generators):
            raise Unresolved(name)  # one of several values: see values_of
        if isinstance(node, ast.For) and binds(node.target, name):
            raise Unresolved(name)
        if isinstance(node, FUNCTIONS):
            if name in parameters(node):
                raise Unresolved(name)
            if not isinstance(node, ast.Lambda):
                assigned = only_assignment(node, name)
                if assigned is not None:
                    return evaluated(assigned, ancestors[index:], module)
    if name in vars(module):
        return vars(module)[name]
    raise Unresolved(name)


def unpacked(target: ast.expr, name: str, item) -> object:
    """The part of a loop's item that ``name`` gets, by the loop's target (``for code, key in ...items()``)."""
    if isinstance(target, ast.Name):
        return item
    for part, value in zip(target.elts, item, strict=True):
        if binds(part, name):
            return unpacked(part, name, value)
    raise Unresolved(name)


def values_of(name: str, ancestors: tuple, module) -> list:
    """Every value a loop or comprehension around the site gives ``name``; ``Unresolved`` if it is bound otherwise."""
    for index, node in enumerate(ancestors):
        loops = node.generators if isinstance(node, COMPREHENSIONS) else [node] if isinstance(node, ast.For) else []
        for loop in loops:
            if binds(loop.target, name):
                outside = ancestors[index + 1 :] if isinstance(node, ast.For) else ancestors[index:]
                zipped = zipped_part(loop.iter, loop.target, name)
                if zipped is not None:  # for column, example in zip(st.columns(3), ("sentiment", ...))
                    return list(evaluated(zipped, outside, module))
                try:
                    items = list(evaluated(loop.iter, outside, module))
                except Unresolved:
                    items = literal_rows(loop.iter, loop.target, name)
                return [unpacked(loop.target, name, item) for item in items]
        if isinstance(node, FUNCTIONS):
            break
    return [value_of(name, ancestors, module)]


def zipped_part(iterable: ast.expr, target: ast.expr, name: str) -> ast.expr | None:
    """What ``name`` runs over in a loop over ``zip(...)`` that unpacks each part to a name, else None."""
    if not (isinstance(iterable, ast.Call) and called(iterable) == "zip" and isinstance(target, ast.Tuple)):
        return None
    if len(target.elts) != len(iterable.args) or not all(isinstance(part, ast.Name) for part in target.elts):
        return None
    return next(arg for part, arg in zip(target.elts, iterable.args) if part.id == name)


def literal_rows(iterable: ast.expr, target: ast.expr, name: str) -> list:
    """A loop over literal rows whose other parts are run-time values (``for column, mode, result in ((left,
    "causal", fill), ...)``): the rows with only ``name``'s part filled in, when that part is a literal."""
    if not (isinstance(iterable, ast.Tuple | ast.List) and isinstance(target, ast.Tuple)):
        raise Unresolved(name)
    position = next(i for i, part in enumerate(target.elts) if binds(part, name))
    rows = []
    for row in iterable.elts:
        if not isinstance(row, ast.Tuple | ast.List) or not isinstance(row.elts[position], ast.Constant):
            raise Unresolved(name)
        rows.append(tuple(e.value if i == position else None for i, e in enumerate(row.elts)))
    return rows


def key_expression(site: Site) -> tuple[ast.expr, tuple]:
    """The site's key, with a local name replaced by what the function assigns it (``key = f"common.{kind}_..."``)."""
    if isinstance(site.key, ast.Name):
        for index, node in enumerate(site.ancestors):
            if isinstance(node, FUNCTIONS) and not isinstance(node, ast.Lambda):
                assigned = only_assignment(node, site.key.id)
                if assigned is not None:
                    return assigned, site.ancestors[index:]
    return site.key, site.ancestors


def constant_keys(expr: ast.expr) -> list[str] | None:
    """The keys of a choice between plain strings (``t("a" if span else "b")``), or None."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [expr.value]
    if isinstance(expr, ast.IfExp):
        body, orelse = constant_keys(expr.body), constant_keys(expr.orelse)
        return body + orelse if body is not None and orelse is not None else None
    return None


# What the code passes as literals ---------------------------------------------------------------------------


def called(node: ast.Call) -> str | None:
    return node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)


def argument(node: ast.Call, position: int, keyword: str | None = None) -> ast.expr | None:
    if len(node.args) > position:
        return node.args[position]
    return next((k.value for k in node.keywords if keyword is not None and k.arg == keyword), None)


def literal_arguments(functions: set[str], folders: tuple[str, ...], position: int = 0, keyword: str | None = None):
    """The literals passed to any of ``functions`` at ``position`` (or as ``keyword``), in the folders' sources, and
    the other arguments, as written. One of the functions passing its own parameter on to another
    (``require_pretraining_head(bundle, head)`` calling ``missing_head(bundle, head)``) adds nothing: its callers'
    literals are counted."""
    literals, others = set(), set()
    for path in (p for folder in folders for p in sources(folder)):
        for node, ancestors in walk_with_ancestors(parsed(path)):
            if not (isinstance(node, ast.Call) and called(node) in functions):
                continue
            value = argument(node, position, keyword)
            if value is None or (isinstance(value, ast.Constant) and value.value is None):
                continue
            caller = next((a for a in ancestors if isinstance(a, ast.FunctionDef)), None)
            if isinstance(value, ast.Name) and caller and caller.name in functions and value.id in parameters(caller):
                continue
            try:
                literals.add(ast.literal_eval(value))
            except ValueError:
                others.add(ast.unparse(value))
    return literals, others


def literals_only(functions: set[str], folders: tuple[str, ...], position: int = 0, keyword: str | None = None):
    literals, others = literal_arguments(functions, folders, position, keyword)
    assert not others, f"{functions} given values the test cannot list: {others}"
    return literals


def state_literals(state_key: str) -> set[str]:
    """The literals app/ stores in ``st.session_state[state_key]``."""
    found = set()
    for path in sources("app"):
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                for target in node.targets:
                    if isinstance(target, ast.Subscript) and ast.unparse(target.slice) == repr(state_key):
                        found.add(node.value.value)
    return found


def strings_assigned(site: Site, name: str) -> set[str]:
    """Every string the site's function can assign to ``name``: the literals in what it assigns, and in what a
    function of the same module returns when the assignment calls one (``answer = _third(layer, layers)``)."""
    function = next(node for node in site.ancestors if isinstance(node, ast.FunctionDef))
    helpers = {node.name: node for node in parsed(site.path).body if isinstance(node, ast.FunctionDef)}
    found = set()
    for node in own_nodes(function):
        if isinstance(node, ast.Assign) and any(binds(t, name) for t in node.targets):
            values = [node.value]
            for call in (n for n in ast.walk(node.value) if isinstance(n, ast.Call)):
                if called(call) in helpers:
                    values += [n.value for n in ast.walk(helpers[called(call)]) if isinstance(n, ast.Return)]
            found |= {
                n.value for v in values for n in ast.walk(v) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            }
    return found


# The values the code meets at run time ----------------------------------------------------------------------


def each(**choices) -> list[dict]:
    """Every combination of the names' values."""
    return [dict(zip(choices, combination)) for combination in itertools.product(*choices.values())]


def error_codes() -> list[dict]:
    """Each coded error a page explains (``app.core.errors.explain``): the model's input errors and checkpoint errors,
    with their codes as raised in model/ and app/."""
    from model.inference import InputError, check_text

    input_codes, built = literal_arguments({"InputError"}, ("model", "app"))
    # Only the command line meets these: the head lab keeps a link's well-formed heads that the model has and drops
    # the rest itself (app.heads.logic.parse_off), so no page explains them (and a page counts heads from 1, these
    # messages from 0).
    command_line_only = {"bad_head", "no_such_head"}
    assert command_line_only <= input_codes
    input_codes -= command_line_only
    # check_text builds "empty_" + the part of the input that is empty; its docstring names the parts.
    assert built == {"f'empty_{part}'"}, built
    for part in ("text", "first", "second"):
        with pytest.raises(InputError) as raised:
            check_text("", part)
        input_codes.add(raised.value.code)
    checkpoint_codes = literals_only({"CheckpointError"}, ("model", "app"), position=1, keyword="code")
    return [{"kind": "error", "error": SimpleNamespace(code=c)} for c in sorted(input_codes)] + [
        {"kind": "checkpoint", "error": SimpleNamespace(code=c)} for c in sorted(checkpoint_codes)
    ]


def tasks_of_kind(kind: str) -> list[str]:
    return [name for name, task in TASKS.items() if task["kind"] == kind]


def finetune_runs() -> set[str]:
    """Every run a fine-tuning job can hold: a single start, or each run of a comparison."""
    from app.finetune.jobs import COMPARISONS, FROZEN, INITS

    return {*INITS, FROZEN, *itertools.chain(*COMPARISONS.values())}


def finetune_baselines() -> list[str]:
    """The baselines a sentence task scores (computed on two examples), a pair's and a choice's, and the span task's
    readers."""
    from app.finetune.jobs import sentence_baselines
    from model.training.baselines import pair_and_choice_baselines

    examples = [("a b", 0), ("a c", 1)]  # "a" in both: a unit the bag keeps
    sentence = sentence_baselines(("test_i18n_built_keys",), examples, examples, 2)
    # The span task's readers: the names of the dict a job scores them into (app.finetune.jobs, ``readers = {...}``).
    readers = next(
        node.value
        for node in ast.walk(parsed("app/finetune/jobs.py"))
        if isinstance(node, ast.Assign) and binds(node.targets[0], "readers")
    )
    pairs = pair_and_choice_baselines("pair", [("a b", "a c", 1)], [("a b", "a c", 1)], "en")
    choices = pair_and_choice_baselines("choice", [], [("a b", ("a c", "d", "e", "f"), 0)], "en")
    return (
        [name for name in sentence if name != "bag_of_characters"]
        + [*pairs, *choices]
        + [key.value for key in readers.keys]
    )


def encoder_parts() -> list[str]:
    """The parts ``layer_changes`` names besides the numbered layers, from a tiny model against itself."""
    from model.modeling import BertConfig, BertForPreTraining
    from model.training.finetune import layer_changes

    model = BertForPreTraining(
        BertConfig(vocab_size=10, hidden_size=4, num_hidden_layers=1, num_attention_heads=1, intermediate_size=4)
    )
    return [part for part in layer_changes(model, model) if not part.startswith("layer ")]


def corpus_languages() -> set[str]:
    """The languages a model's recorded corpus counts tokens in: those of the shipped model's runs."""
    from model.checkpoint import EMBEDDED_DIR
    from model.training.card import read_runs

    return {lang for run in read_runs(EMBEDDED_DIR) for lang in run.get("train_tokens", {})}


def search_tags() -> list[dict]:
    """The tags the layers lab's search pool carries per language: universal parts of speech for English (Brown),
    People's Daily's coarse tags for Chinese (jieba's, mapped onto them)."""
    from model.analysis.data import PD_TAGS, UNIVERSAL_TAGS
    from model.analysis.search_pool import LANGUAGES, TAGGED_TASK

    # The labels ``load_probe_data`` gives each tagged task (reading the data themselves would fetch the corpora).
    by_task = {"pos-en": UNIVERSAL_TAGS, "pos-zh": PD_TAGS}
    return [{"language": lang, "tag": tag} for lang in LANGUAGES for tag in by_task[TAGGED_TASK[lang]]]


def nsp_sources() -> set[str]:
    from app.nsp.samples import load_samples

    return {document["source"] for document in load_samples()["documents"]}


def lesson_steps():
    from app.lessons.data import lessons

    return [step for lesson in lessons().values() for step in lesson.steps]


def reveal_answers(site: Site) -> list[dict]:
    return each(answer=strings_assigned(site, "answer"))


def layers_inits() -> tuple:
    """The layers lab's models, as its page lists them (``INITS``)."""
    return importlib.import_module("app.layers.page").INITS


# Per site, the values of the names the code does not spell out where the site is. Each entry takes the site and
# returns bindings (name -> value); they replace any value the code gave a name.
BINDINGS = {
    ("app/attention/page.py", "f'attention.notable_{n.kind}'"): lambda site: each(
        # every statistic above 0: every kind of notable head is found
        n=attention_stats.notable_heads({name: np.ones((2, 2)) for name in attention_stats.STATISTICS})
    ),
    ("app/classroom/page.py", "f'classroom.notice_{message}'"): lambda site: each(
        message=literals_only({"notice", "_forget_room"}, ("app",))
    ),
    ("app/classroom/page.py", "f'classroom.guess_{problem}'"): lambda site: each(
        problem=literals_only({"GuessError"}, ("app",)) | state_literals("class_guess_error")
    ),
    ("app/classroom/session.py", "f'classroom.notice_{message}'"): lambda site: each(
        message=literals_only({"notice", "_forget_room"}, ("app",))
    ),
    ("app/core/errors.py", "key"): lambda site: error_codes(),
    ("app/core/model_facts.py", "f'model_facts.tokens_{code}'"): lambda site: each(code=corpus_languages()),
    ("app/finetune/jobs.py", "f'finetune.task_{self.task}'"): lambda site: each(
        self=[SimpleNamespace(task=name) for name in TASKS]
    ),
    ("app/finetune/jobs.py", "f'finetune.init_{init}'"): lambda site: each(init=finetune_runs()),
    ("app/core/ui.py", "f'common.head_{head}'"): lambda site: each(
        head=literals_only({"require_pretraining_head", "missing_head"}, ("app",), position=1)
    ),
    ("app/embeddings/page.py", "f'embeddings.caption_{name}'"): lambda site: each(name=site.module.logic.PARTS),
    # Every note a family's shape can give: no segments (DistilBERT), one (RoBERTa), positions, factorized.
    ("app/embeddings/page.py", "note"): lambda site: each(
        note={
            note
            for segments in (0, 1)
            for note in site.module.logic.family_notes(
                SimpleNamespace(
                    type_vocab_size=segments, positions_after_padding=True, embedding_width=16, hidden_size=32
                )
            )
        }
    ),
    ("app/fill_mask/page.py", "f'fill_mask.{key}'"): lambda site: each(
        key=itertools.chain(*literals_only({"_example_buttons"}, ("app/fill_mask",), position=1))
    ),
    ("app/fill_mask/replaced_view.py", "f'fill_mask.{key}'"): lambda site: each(key=site.module.EXAMPLES),
    # The three kinds of restoration causal tracing maps, each drawn by the section's draw(kind).
    ("app/fill_mask/page.py", "f'fill_mask.trace_{kind}_title'"): lambda site: each(kind=tracing.KINDS),
    ("app/heads/page.py", "f'heads.step{step}_title'"): lambda site: each(step=site.module.MLM_STEPS),
    # BERT's family (app.core.models.family_key): named in the sidebar, described in the model's facts.
    ("app/core/sidebar.py", "f'common.family_{family}'"): lambda site: each(family=FAMILY_KEYS),
    ("app/core/model_facts.py", "f'model_facts.family_{family}'"): lambda site: each(
        family=[key for key in FAMILY_KEYS if key != "bert"]
    ),
    ("app/finetune/page.py", "f'finetune.init_{init}'"): lambda site: each(init=finetune_runs()),
    ("app/finetune/page.py", "f'finetune.baseline_{key}'"): lambda site: each(key=finetune_baselines()),
    ("app/finetune/page.py", "f'finetune.layer_part_{part}'"): lambda site: each(part=encoder_parts()),
    ("app/finetune/page.py", "f\"finetune.baseline_bag_{TASKS[task_name]['language']}\""): lambda site: each(
        task_name=TASKS
    ),
    # A span task's reader asks for a question and a passage instead (app.finetune.qa_view), and the page stops there.
    ("app/finetune/page.py", "f'finetune.try_default_{snapshot.task}'"): lambda site: each(
        snapshot=[SimpleNamespace(task=name) for name, task in TASKS.items() if task["kind"] in ("sequence", "token")]
    ),
    ("app/finetune/page.py", "head_key"): lambda site: each(info=TASKS.values()),
    ("app/nsp/page.py", "FAMILY_NOTES[family]"): lambda site: each(family=site.module.FAMILY_NOTES),
    ("app/finetune/page.py", "HOW_MADE[info['kind']]"): lambda site: each(
        info=[task for task in TASKS.values() if task["kind"] in site.module.HOW_MADE]
    ),
    ("app/finetune/page.py", "BASELINES_NOTE.get(snapshot.kind, 'finetune.baselines_note')"): lambda site: each(
        snapshot=[SimpleNamespace(kind=task["kind"]) for task in TASKS.values()]
    ),
    ("app/finetune/page.py", "TRY_HEADER.get(snapshot.kind, 'finetune.try_header')"): lambda site: each(
        snapshot=[SimpleNamespace(kind=task["kind"]) for task in TASKS.values()]
    ),
    # A pair task asks for two sentences, a choice task for a context and its endings (app.finetune.pair_view).
    ("app/finetune/pair_view.py", "f'finetune.try_first_{task}'"): lambda site: each(task=tasks_of_kind("pair")),
    ("app/finetune/pair_view.py", "f'finetune.try_second_{task}'"): lambda site: each(task=tasks_of_kind("pair")),
    ("app/finetune/pair_view.py", "f'finetune.try_context_{task}'"): lambda site: each(task=tasks_of_kind("choice")),
    ("app/finetune/pair_view.py", "f'finetune.try_ending{n}_{task}'"): lambda site: each(
        task=tasks_of_kind("choice"), n=site.module.ENDINGS
    ),
    ("app/finetune/page.py", "f'finetune.licence_{task}'"): lambda site: each(task=TASKS),
    ("app/finetune/page.py", "f'finetune.about_{task}'"): lambda site: each(task=TASKS),
    ("app/heads/page.py", "f'heads.source_{sample_lang}'"): lambda site: each(sample_lang=site.module.heads.LANGUAGES),
    ("app/heads/page.py", "f'heads.step{step + 1}_title'"): lambda site: each(
        step=site.module.SETTINGS["heads_step"].options[:-1]  # the steps with a next one
    ),
    ("app/layers/page.py", "f'layers.task_note_{task}'"): lambda site: each(task=site.module.data.PROBE_TASKS),
    ("app/layers/page.py", "f'layers.model_{init}'"): lambda site: each(init=layers_inits()),
    ("app/layers/page.py", "f\"layers.corpus_{values.pop('language')}\""): lambda site: each(
        values=[{"language": lang} for lang in search_pool.LANGUAGES]
    ),
    ("app/layers/page.py", "f'layers.corpus_{contexts.language}'"): lambda site: each(
        contexts=[SimpleNamespace(language=lang) for lang in search_pool.LANGUAGES]
    ),
    ("app/layers/page.py", "f'layers.word_error_{error.code}'"): lambda site: each(
        error=[SimpleNamespace(code=c) for c in literals_only({"ContextError"}, ("model",), position=1)]
    ),
    ("app/layers/page.py", "f'layers.series_{key}'"): lambda site: each(
        key=[f"{measure}_{init}" for measure in ("anisotropy", "self_similarity") for init in layers_inits()]
    ),
    ("app/layers/search_section.py", "f'layers.tag_{language}_{tag}'"): lambda site: search_tags(),
    ("app/layers/search_section.py", "f'layers.search_corpus_{language}'"): lambda site: each(
        language=search_pool.LANGUAGES
    ),
    ("app/layers/search_section.py", "f'layers.search_error_{error.code}'"): lambda site: each(
        error=[SimpleNamespace(code=c) for c in literals_only({"SearchError"}, ("model",))]
    ),
    ("app/layers/search_section.py", "f'layers.metric_{metric}'"): lambda site: each(metric=site.module.METRICS),
    ("app/lessons/page.py", "f'{step.page}.nav'"): lambda site: each(step=lesson_steps()),
    ("app/lessons/reveals.py", "f'lessons.reveal_nsp_{answer}'"): reveal_answers,
    ("app/lessons/reveals.py", "f'lessons.reveal_albert_{answer}'"): reveal_answers,
    ("app/lessons/reveals.py", "f'lessons.reveal_embedding_{answer}'"): reveal_answers,
    ("app/lessons/reveals.py", "f'lessons.kind_{answer}'"): reveal_answers,
    ("app/lessons/reveals.py", "f'lessons.reveal_causal_{answer}'"): reveal_answers,
    ("app/lessons/reveals.py", "f'lessons.third_{answer}'"): reveal_answers,
    ("app/lessons/reveals.py", "f'lessons.reveal_entropy_{answer}'"): reveal_answers,
    ("app/lessons/reveals.py", "f'lessons.reveal_head_{name}'"): lambda site: each(
        name={step.reveal["statistic"] for step in lesson_steps() if step.reveal["kind"] == "head_layer"}
    ),
    ("app/masking/page.py", "f'masking.series_{name}'"): lambda site: each(name=site.module.lab.DrawStatistics.SERIES),
    ("app/nsp/page.py", "f'nsp.{what}_{source}'"): lambda site: each(source=nsp_sources()),
    # The guide lists every page but the overview, which it is on.
    ("app/overview/page.py", "f'{name}.guide'"): lambda site: each(
        name=[name for name in site.module.PAGE_FILES if name != "overview"]
    ),
    ("app/overview/page.py", "f'overview.row_{key}'"): lambda site: each(
        key=site.module.charts.size_table([site.module.bert_base()])
    ),
    ("app/pretrain_live/page.py", "f'pretrain_live.experiment_{name}'"): lambda site: each(
        name=APP_SETTINGS["pretrain_live_experiment"].options
    ),
    ("app/core/live_view.py", "f'live_run.run_{run}'"): lambda site: each(
        run=[run for runs in live_jobs.EXPERIMENTS.values() for run, _ in runs] + [live_jobs.DISTILLATION]
    ),
    ("app/family/page.py", "f'family.experiment_{name}'"): lambda site: each(
        name=APP_SETTINGS["family_experiment"].options
    ),
    ("app/family/page.py", "f'family.{variant}_text'"): lambda site: each(
        variant=APP_SETTINGS["family_experiment"].options
    ),
    ("app/family/page.py", "f'family.{variant}_finding'"): lambda site: each(variant=site.module.FINDINGS),
    ("app/family/page.py", "f'family.distilbert_{name}'"): lambda site: each(name=("agreement", "student")),
    ("app/family/page.py", "f'family.task_{task}'"): lambda site: each(task=DOWNSTREAM_TASKS.values()),
    ("app/pretrain_live/page.py", "f'pretrain_live.why_{lang}'"): lambda site: each(lang=TEXT_LANGUAGES),
    ("app/pretrain_live/page.py", "f'pretrain_live.corpus_{lang}'"): lambda site: each(lang=TEXT_LANGUAGES),
    ("app/sentence_vectors/page.py", "f'sentence_vectors.way_{way}'"): lambda site: each(way=site.module.WAYS),
}

# Sites whose key may have no string, by design, and what shows then.
OPTIONAL = {
    (
        "app/finetune/pair_view.py",
        "key",
    ): "a label's name where one is written (finetune.label_...), else the label itself",
    ("app/core/sidebar.py", "key"): "a script's name where one is written (common.script_...), else its Unicode name",
}


def built_keys(site: Site) -> set[str]:
    """Every key the site can build."""
    expr, ancestors = key_expression(site)
    if (choices := constant_keys(expr)) is not None:
        return set(choices)
    module = site.module
    given = BINDINGS[site.name](site) if site.name in BINDINGS else [{}]
    names = [name for name in names_in(expr) if not all(name in binding for binding in given)]
    own = {}
    for name in names:
        try:
            own[name] = values_of(name, ancestors, module)
        except Unresolved:
            raise Unresolved(f"{site.path}:{site.call.lineno}: {name!r} in {ast.unparse(expr)}") from None
    code = compile(ast.Expression(body=expr), site.path, "eval")
    keys = set()
    for binding in given:
        for combination in itertools.product(*own.values()):
            scope = dict(zip(own, combination)) | copy.deepcopy(binding)  # a key may consume its value (dict.pop)
            keys.add(eval(code, vars(module), scope))  # the app's own source, read back
    return keys


def checked_sites() -> list[Site]:
    return [site for site in sites() if site.name not in OPTIONAL]


def test_every_key_built_at_run_time_is_enumerated():
    """Each site's names resolve, from the code or from ``BINDINGS``; no entry outlives its site."""
    unresolved = []
    for site in checked_sites():
        try:
            assert built_keys(site), site.name
        except Unresolved as error:
            unresolved.append(str(error))
    assert not unresolved, "add these sites' values to BINDINGS:\n" + "\n".join(unresolved)
    present = {site.name for site in sites()}
    stale = (set(BINDINGS) | set(OPTIONAL)) - present
    assert not stale, stale


@pytest.mark.parametrize("site", checked_sites(), ids=lambda site: f"{site.path}:{site.call.lineno}:{site.name[1]}")
def test_every_key_built_at_run_time_has_a_string_in_every_language(site):
    # A plural string is its forms; a language has the forms it needs ("other" at least).
    missing = {
        key: [lang for lang in LANGUAGES if not any((STRINGS.get(k, {}).get(lang) or "").strip() for k in forms(key))]
        for key in built_keys(site)
    }
    assert not {key: langs for key, langs in missing.items() if langs}


def test_every_lookup_that_fills_a_string_gives_each_placeholder_a_value():
    """A lookup with values formats its string, and a placeholder left without one is a gap; a lookup without values
    hands a template to chart code, which fills it. Lookups passing ``**values`` on are left to the run."""
    lacking = []
    for site in lookups():
        given = {keyword.arg for keyword in site.call.keywords}
        if not given or None in given or site.name in OPTIONAL:
            continue
        keys = [site.key.value] if isinstance(site.key, ast.Constant) else built_keys(site)
        for key, lang in itertools.product([form for built in keys for form in forms(built)], LANGUAGES):
            if lang not in STRINGS[key]:
                continue  # a plural form this language does not have
            fields = {name for _, name, _, _ in string.Formatter().parse(STRINGS[key][lang]) if name is not None}
            if fields - given:
                lacking.append(f"{site.path}:{site.call.lineno} {key} ({lang}) lacks {sorted(fields - given)}")
    assert not lacking, "\n".join(lacking)


def test_the_keys_cover_every_page_and_the_guide_asks_for_each():
    """The overview's guide and the navigation over ``PAGE_FILES``: a new page without its strings fails above."""
    from app.core.navigation import PAGE_FILES

    by_site = {site.name: built_keys(site) for site in checked_sites()}
    assert by_site[("app/core/navigation.py", "f'{name}.nav'")] == {f"{name}.nav" for name in PAGE_FILES}
    guide = by_site[("app/overview/page.py", "f'{name}.guide'")]
    assert guide == {f"{name}.guide" for name in PAGE_FILES if name != "overview"}
    assert sum(len(keys) for keys in by_site.values()) > 300
