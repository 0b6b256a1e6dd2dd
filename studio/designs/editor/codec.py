"""Editor form data <-> spec documents.

The form is flat: one input per leaf, named by its dotted spec path with list indices
(`regions.sites.1.gpu_share`), exactly the paths the engine's validation errors use. Control
inputs: `__on__.<path>` (an optional object is present) and `__mode__.<path>` (an 'auto' |
object choice). Values that do not parse keep their raw text, so the engine's validator names
the field and the user's input is never lost.
"""

import math
import re
from collections.abc import Mapping
from typing import Any

from models_engine import SPEC_VERSION
from studio.designs.editor.schema_tree import Choice, Group, Leaf, ListOf, spec_tree

ON = "__on__."
MODE = "__mode__."
BOOL_TEXT = {"true": True, "false": False}


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix and key else prefix or key


# ---- spec -> form -------------------------------------------------------------------------


def spec_to_form(spec: Mapping[str, Any]) -> dict[str, str]:
    form: dict[str, str] = {}
    _group_to_form(spec_tree(), spec, "", form)
    return form


def _leaf_text(leaf: Leaf, value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return repr(value) if leaf.kind.endswith("integer") else f"{value:g}"
    return str(value)


def _node_to_form(node, value: Any, path: str, form: dict[str, str]) -> None:
    if isinstance(node, Leaf):
        form[path] = _leaf_text(node, value if value is not None else None)
    elif isinstance(node, Group):
        if node.optional:
            if value is None:
                return
            form[ON + path] = "on"
        _group_to_form(node, value or {}, path, form)
    elif isinstance(node, Choice):
        if value == node.keyword or value is None:
            form[MODE + path] = node.keyword
        else:
            form[MODE + path] = "explicit"
            _group_to_form(node.group, value, path, form)
    elif isinstance(node, ListOf):
        for index, item in enumerate(value or []):
            _group_to_form(node.item, item, f"{path}.{index}", form)


def _group_to_form(group: Group, value: Mapping, prefix: str, form: dict[str, str]) -> None:
    for child in group.children:
        child_value = value.get(child.key, _default_of(child))
        _node_to_form(child, child_value, _join(prefix, child.key), form)


def _default_of(node) -> Any:
    return getattr(node, "default", None)


# ---- form -> spec -------------------------------------------------------------------------


def form_to_spec(form: Mapping[str, str]) -> dict[str, Any]:
    spec = _group_from_form(spec_tree(), form, "", FormIndex(form))
    spec["spec_version"] = SPEC_VERSION  # the editor always writes the current version
    return spec


def _coerce(leaf: Leaf, text: str) -> Any:
    text = text.strip()
    if leaf.keyword is not None and text == leaf.keyword:
        return text
    kind = leaf.kind.removeprefix("keyword-or-")
    if kind == "boolean":
        return BOOL_TEXT.get(text.lower(), text)
    if kind == "integer":
        # ASCII digits of bounded length: `²` or 5,000 digits stay text for the validator.
        return int(text) if re.fullmatch(r"[+-]?[0-9]{1,30}", text) else text
    if kind == "number":
        if len(text) > 60 or not re.fullmatch(r"[0-9eE.+-]+", text):
            return text
        try:
            number = float(text) if any(c in text for c in ".eE") else int(text)
        except ValueError:
            return text
        return number if math.isfinite(number) else text
    if kind == "enum":
        return next((v for v in leaf.choice_values if str(v) == text), text)
    if kind == "string-list":
        return [part.strip() for part in text.split(",") if part.strip()]
    return text


def typed_value(node, text: str) -> Any:
    """A field's text as the typed value a spreadsheet cell holds (8192 a number, true a
    boolean); text that does not parse stays text."""
    return _coerce(node, text) if isinstance(node, Leaf) else text


def _leaf_from_form(leaf: Leaf, form: Mapping[str, str], path: str, out: dict) -> None:
    if path not in form:
        return
    text = form[path]
    if text.strip() == "":
        if leaf.nullable:
            out[leaf.key] = None
        return  # omitted: the schema's default applies, or "field required" names it
    out[leaf.key] = _coerce(leaf, text)


def _group_from_form(
    group: Group, form: Mapping[str, str], prefix: str, index: "FormIndex"
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for child in group.children:
        path = _join(prefix, child.key)
        if isinstance(child, Leaf):
            _leaf_from_form(child, form, path, out)
        elif isinstance(child, Group):
            if child.optional:
                out[child.key] = (
                    _group_from_form(child, form, path, index) if form.get(ON + path) else None
                )
            else:
                out[child.key] = _group_from_form(child, form, path, index)
        elif isinstance(child, Choice):
            if form.get(MODE + path, child.keyword) == child.keyword:
                out[child.key] = child.keyword
            else:
                out[child.key] = _group_from_form(child.group, form, path, index)
        elif isinstance(child, ListOf):
            out[child.key] = [
                _group_from_form(child.item, form, f"{path}.{i}", index)
                for i in index.list_indices(path)
            ]
    return out


class FormIndex:
    """The form's dotted paths indexed once (linear in the form's size): which paths have
    fields below them, and the item indices of each list. Looking these up per list item by
    scanning every key made imports quadratic (8,000 site rows: a minute)."""

    def __init__(self, form: Mapping[str, str]):
        self.prefixes: set[str] = set()
        self.indices: dict[str, set[int]] = {}
        for key in form:
            if key.startswith((ON, MODE)):
                continue
            parts = key.split(".")
            for end in range(1, len(parts)):
                prefix = ".".join(parts[:end])
                self.prefixes.add(prefix)
                part = parts[end]
                if end + 1 < len(parts) and part.isascii() and part.isdigit() and len(part) < 10:
                    self.indices.setdefault(prefix, set()).add(int(part))

    def has_fields_below(self, path: str) -> bool:
        return path in self.prefixes

    def list_indices(self, path: str) -> list[int]:
        return sorted(self.indices.get(path, ()))


def list_indices(form: Mapping[str, str], path: str) -> list[int]:
    pattern = re.compile(re.escape(path) + r"\.([0-9]{1,9})\.")
    return sorted({int(m.group(1)) for key in form if (m := pattern.match(key))})


# ---- structural edits ---------------------------------------------------------------------


def find_list(path: str) -> ListOf | None:
    node: Any = spec_tree()
    for part in path.split("."):
        if isinstance(node, Group):
            children = node.children
        elif isinstance(node, Choice):
            children = node.group.children
        else:  # a leaf or a list has no named children: no such list
            return None
        node = next((c for c in children if c.key == part), None)
        if node is None:
            return None
    return node if isinstance(node, ListOf) else None


def list_add(form: dict[str, str], path: str) -> dict[str, str]:
    node = find_list(path)
    if node is None:
        return form
    indices = list_indices(form, path)
    if node.max_items is not None and len(indices) >= node.max_items:
        return form
    index = (indices[-1] + 1) if indices else 0
    template = (node.default or [{}])[0] if node.default else {}
    item_form: dict[str, str] = {}
    _group_to_form(node.item, template, f"{path}.{index}", item_form)
    return {**form, **item_form}


def list_remove(form: dict[str, str], path: str, index: int) -> dict[str, str]:
    """Drop item `index` of the list at `path` and renumber the items after it."""
    pattern = re.compile(re.escape(path) + r"\.([0-9]{1,9})\.(.*)")
    kept: dict[str, str] = {}
    for key, value in form.items():
        m = pattern.match(key.removeprefix(ON).removeprefix(MODE))
        if not m:
            kept[key] = value
            continue
        item = int(m.group(1))
        if item == index:
            continue
        control = ON if key.startswith(ON) else MODE if key.startswith(MODE) else ""
        new_index = item - 1 if item > index else item
        kept[f"{control}{path}.{new_index}.{m.group(2)}"] = value
    return kept


# ---- flat (path, value) rows: CSV / XLSX import and export ---------------------------------


def form_to_rows(form: Mapping[str, str]) -> list[tuple[str, str]]:
    """The spec as (path, value) rows: what a spreadsheet holds."""
    return [(k, v) for k, v in form.items() if not k.startswith((ON, MODE))]


def rows_to_form(rows: list[tuple[str, str]]) -> dict[str, str]:
    """Rebuild editor form data from (path, value) rows: an optional object or an explicit
    choice is switched on when any of its fields is given."""
    form = {path.strip(): "" if value is None else str(value) for path, value in rows if path}
    switch_on_given(form, FormIndex(form))
    return form


def switch_on_given(form: dict[str, str], index: FormIndex) -> None:
    """Switch on every optional object and explicit choice that has a field given."""
    _switch_on(spec_tree(), "", form, index)


def _switch_on(group: Group, prefix: str, form: dict[str, str], index: FormIndex) -> None:
    for child in group.children:
        path = _join(prefix, child.key)
        given = index.has_fields_below(path)
        if isinstance(child, Group):
            if child.optional and given:
                form[ON + path] = "on"
            _switch_on(child, path, form, index)
        elif isinstance(child, Choice) and given:
            form[MODE + path] = "explicit"
        elif isinstance(child, ListOf):
            for i in index.list_indices(path):
                _switch_on(child.item, f"{path}.{i}", form, index)
