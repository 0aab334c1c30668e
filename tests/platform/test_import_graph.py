"""Imports inside the platform point one way: no circle among its apps, nor among its
files.

Every module under platform/arena is read (not imported): module-level imports and
those inside functions alike, relative ones resolved. A circle, even one hidden in a
function's import, means no layer can be read or tested without the others.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ARENA = Path(__file__).resolve().parents[2] / "platform" / "arena"


def module_name(path: Path) -> str:
    parts = ["arena", *path.relative_to(ARENA).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def platform_modules() -> dict[str, Path]:
    return {
        module_name(path): path
        for path in sorted(ARENA.rglob("*.py"))
        if "migrations" not in path.parts and "tests" not in path.parts
    }


def imported(path: Path, name: str, known: set[str]) -> Iterator[str]:
    """The platform modules ``path`` (module ``name``) imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            # `from package import module` imports the module; else the package itself.
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(f"{target}."):
                yield target


def graph() -> dict[str, set[str]]:
    modules = platform_modules()
    known = set(modules)
    return {name: set(imported(path, name, known)) for name, path in modules.items()}


def app_of(module: str) -> str:
    """The app a module belongs to; a module of the project's own (settings, urls,
    errors...) stands for itself."""
    parts = module.split(".")
    is_app = (ARENA / parts[1]).is_dir() if len(parts) > 1 else False
    return parts[1] if is_app else module


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            part: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def describe(found: list[list[str]], edges: dict[str, set[str]]) -> str:
    lines = []
    for part in found:
        members = set(part)
        ties = [f"{a} -> {b}" for a in part for b in sorted(edges[a] & members)]
        lines.append(f"circle of {len(part)}: " + "; ".join(ties))
    return "\n".join(lines)


def test_the_reader_finds_imports_inside_functions_and_relative_ones() -> None:
    edges = graph()
    # ladders/tasks.py imports its services relatively, at module level.
    assert "arena.ladders.services" in edges["arena.ladders.tasks"]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_circle_among_the_platforms_files() -> None:
    edges = graph()
    found = sorted(circles(edges))
    assert not found, "imports run in a circle:\n" + describe(found, edges)


def test_an_apps_tasks_are_queued_by_its_flows_never_by_its_services() -> None:
    """Tasks call services, so a service that queued its own app's tasks would close a
    circle: inside an app only flows.py (and the tasks module itself) imports tasks. An
    app above may queue them from its services (leagues queue the ladders' match runs)."""
    edges = graph()
    offenders = sorted(
        f"{module} -> {target}"
        for module, targets in edges.items()
        for target in targets
        if target.endswith(".tasks")
        and app_of(target) == app_of(module)
        and module.rpartition(".")[2] not in ("flows", "tasks")
    )
    assert offenders == []


def test_no_circle_among_the_platforms_apps() -> None:
    apps: dict[str, set[str]] = {}
    for module, targets in graph().items():
        apps.setdefault(app_of(module), set()).update(
            app_of(target) for target in targets if app_of(target) != app_of(module)
        )
    found = circles(apps)
    assert not found, "apps import each other in a circle:\n" + describe(found, apps)


def test_notifications_sit_low_importing_only_the_players() -> None:
    """Every app above may tell an author something; notifications know none of them."""
    reached = {
        app_of(target)
        for module, targets in graph().items()
        if app_of(module) == "notifications"
        for target in targets
        if (ARENA / target.split(".")[1]).is_dir() and app_of(target) != "notifications"
    }
    assert reached == {"players"}


@pytest.mark.parametrize("call", ["send_task", "import_string", "import_module"])
def test_no_task_or_module_is_reached_by_name(call: str) -> None:
    # A task queued by its name, or a module loaded by its dotted path, is an import
    # the reader (and this test) cannot see.
    users = [
        str(path.relative_to(ARENA))
        for path in platform_modules().values()
        if any(
            isinstance(node, ast.Attribute | ast.Name)
            and (node.attr if isinstance(node, ast.Attribute) else node.id) == call
            for node in ast.walk(ast.parse(path.read_text()))
        )
    ]
    assert users == [], f"{call} used in {users}"
