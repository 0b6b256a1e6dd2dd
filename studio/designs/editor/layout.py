"""Turn the schema tree + the current form + the engine's errors into flat rows a template can
loop over (headings, fields, list controls), one list of rows per editor section."""

from collections.abc import Mapping

from studio.designs.editor.codec import MODE, ON, list_indices
from studio.designs.editor.schema_tree import (
    SECTIONS,
    Choice,
    Group,
    Leaf,
    ListOf,
    header_leaves,
    section,
)

# Leaf keys whose value is a catalog id, and the catalog kind they pick from.
CATALOG_PICKERS = {
    "gpu_sku": "gpus",
    "system_sku": "systems",
    "switch_sku": "switches",
    "spine_switch_sku": "switches",
    "core_switch_sku": "switches",
    "nvlink_switch_sku": "switches",
    "nic_sku": "nics",
    "cooling": "cooling",
    "sku": "storage",
    "catalog_region_id": "regions",
}


def dom_id(path: str) -> str:
    return "f-" + path.replace(".", "-").replace("_", "-")


def _bounds_text(bounds: dict) -> str:
    symbols = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
    return ", ".join(
        f"{symbols[k]} {v:g}" if isinstance(v, float) else f"{symbols[k]} {v}"
        for k, v in bounds.items()
        if k in symbols
    )


def _field_row(leaf: Leaf, path: str, form: Mapping[str, str], errors: dict, depth: int) -> dict:
    kind = leaf.kind.removeprefix("keyword-or-")
    widget = "select" if kind in ("enum", "boolean") else "text"
    choices = leaf.choices if kind == "enum" else ["true", "false"] if kind == "boolean" else []
    if widget == "select" and leaf.nullable:
        choices = ["", *choices]
    hint = []
    if leaf.keyword:
        hint.append(f"'{leaf.keyword}' or a value")
    if kind == "string-list":
        hint.append("comma-separated")
    if leaf.nullable:
        hint.append("empty = none")
    return {
        "type": "field",
        "depth": depth,
        "name": path,
        "id": dom_id(path),
        "label": leaf.title,
        "unit": leaf.unit if leaf.unit not in ("enum", "boolean", "text") else "",
        "description": leaf.description,
        "widget": widget,
        "choices": choices,
        "value": form.get(path, ""),
        "bounds": _bounds_text(leaf.bounds),
        "hint": "; ".join(hint),
        "errors": errors.get(path, []),
        "picker": CATALOG_PICKERS.get(leaf.key),
        "inputmode": "decimal" if kind in ("integer", "number") else "text",
    }


def _rows(node, path: str, form: Mapping[str, str], errors: dict, depth: int) -> list[dict]:
    if isinstance(node, Leaf):
        return [_field_row(node, path, form, errors, depth)]
    if isinstance(node, Group):
        rows = [
            {
                "type": "heading",
                "depth": depth,
                "title": node.title,
                "id": dom_id(path),
                "description": node.description,
                "errors": errors.get(path, []),
                "toggle": ON + path if node.optional else None,
                "enabled": bool(form.get(ON + path)) if node.optional else True,
            }
        ]
        for child in node.children:
            rows += _rows(child, f"{path}.{child.key}", form, errors, depth + 1)
        return rows
    if isinstance(node, Choice):
        mode = form.get(MODE + path, node.keyword)
        rows = [
            {
                "type": "choice",
                "depth": depth,
                "title": node.title,
                "name": MODE + path,
                "id": dom_id(MODE + path),
                "description": node.description,
                "keyword": node.keyword,
                "mode": mode,
                "errors": errors.get(path, []),
            }
        ]
        for child in node.group.children:
            rows += _rows(child, f"{path}.{child.key}", form, errors, depth + 1)
        return rows
    if isinstance(node, ListOf):
        rows = [
            {
                "type": "list",
                "depth": depth,
                "title": node.title,
                "path": path,
                "description": node.description,
                "errors": errors.get(path, []),
            }
        ]
        for index in list_indices(form, path):
            item_path = f"{path}.{index}"
            rows.append(
                {
                    "type": "item",
                    "depth": depth + 1,
                    "title": f"{node.title} #{index + 1}",
                    "remove": f"remove:{path}:{index}",
                    "errors": errors.get(item_path, []),
                }
            )
            for child in node.item.children:
                rows += _rows(child, f"{item_path}.{child.key}", form, errors, depth + 2)
        rows.append(
            {"type": "add", "depth": depth + 1, "action": f"add:{path}", "title": node.title}
        )
        return rows
    return []


def errors_by_path(errors: list[dict]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for error in errors:
        grouped.setdefault(error["path"], []).append(error["message"])
    return grouped


def editor_sections(form: Mapping[str, str], errors: list[dict]) -> list[dict]:
    by_path = errors_by_path(errors)
    sections = []
    for name in SECTIONS:
        node = section(name)
        rows = []
        for child in node.children:
            rows += _rows(child, f"{name}.{child.key}", form, by_path, 0)
        error_count = sum(
            1 for e in errors if e["path"] == name or e["path"].startswith(name + ".")
        )
        sections.append(
            {
                "name": name,
                "title": node.title,
                "description": node.description,
                "rows": rows,
                "errors": by_path.get(name, []),
                "error_count": error_count,
            }
        )
    return sections


def header_rows(form: Mapping[str, str], errors: list[dict]) -> list[dict]:
    by_path = errors_by_path(errors)
    return [_field_row(leaf, leaf.key, form, by_path, 0) for leaf in header_leaves()]


def all_field_paths(form: Mapping[str, str], errors: list[dict]) -> list[dict]:
    """Every rendered field with its errors (for out-of-band error updates while typing)."""
    fields = [r for r in header_rows(form, errors)]
    for sec in editor_sections(form, errors):
        fields += [r for r in sec["rows"] if r["type"] == "field"]
    return fields
