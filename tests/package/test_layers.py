"""The package's layers (docs/ARCHITECTURE.md): every import goes down the layers or stays in
its own, no two modules import each other (directly or in a ring), and no module reaches for
another module's underscore-prefixed names. Read from the source with ``ast``, so a violation
fails here before it becomes a habit."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import warehouse_ml
from warehouse_ml.models import kinds

PACKAGE = Path(warehouse_ml.__file__).resolve().parent

LAYERS = [
    ("errors", "progress", "synthetic", "version", "charts"),
    ("sqlgen",),
    ("engines",),
    ("store",),
    ("stats",),
    ("models",),
    ("evaluation",),
    ("api", "cli", "__init__"),
]
"""Lowest first: a module may import from its own layer and the layers below it."""


def _layer(module: str) -> int:
    first = module.split(".")[1] if "." in module else "__init__"
    for index, names in enumerate(LAYERS):
        if first in names:
            return index
    raise AssertionError(f"{module}: not in any layer of tests/package/test_layers.py")


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@dataclass
class Imports:
    """What one module imports from the package."""

    top_level: set[str] = field(default_factory=set)  # run when the module is imported
    anywhere: set[str] = field(default_factory=set)  # including imports inside functions
    type_level: set[str] = field(default_factory=set)  # under ``if TYPE_CHECKING:``
    private_names: list[str] = field(default_factory=list)  # "line: module._name"


def _resolve(module: str, name: str) -> str:
    """The package module that ``from module import name`` reads: the submodule when there is
    one of that name, else the module itself."""
    candidate = f"{module}.{name}"
    return candidate if candidate in MODULES else module


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _imports(module: str) -> Imports:
    tree = ast.parse(MODULES[module].read_text())
    found = Imports()
    aliases: dict[str, str] = {}  # local name -> package module

    def visit(node: ast.AST, top: bool) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in ast.walk(node):  # annotations only: a dependency of the types
                if isinstance(child, ast.ImportFrom) and child.module.startswith("warehouse_ml"):
                    found.type_level |= {_resolve(child.module, a.name) for a in child.names}
            return
        if isinstance(node, ast.Import):
            for item in node.names:
                if item.name.startswith("warehouse_ml"):
                    record(item.name, top)
                    aliases[item.asname or item.name] = item.name
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("warehouse_ml"):
            for item in node.names:
                target = _resolve(node.module, item.name)
                record(target, top)
                if target != node.module:
                    aliases[item.asname or item.name] = target
                elif item.name.startswith("_"):
                    found.private_names.append(f"{node.lineno}: {node.module}.{item.name}")
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.private_names.append(f"{node.lineno}: {aliases[node.value.id]}.{node.attr}")
        # a class body runs when the module loads; a function body only when called
        inner = top and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    def record(target: str, top: bool) -> None:
        if target != module:
            found.anywhere.add(target)
            if top:
                found.top_level.add(target)

    visit(tree, True)
    return found


IMPORTS = {module: _imports(module) for module in MODULES}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down_the_layers(module):
    own = _layer(module)
    upward = sorted(
        f"{target} (layer {_layer(target)})"
        for target in IMPORTS[module].anywhere
        if _layer(target) > own
    )
    assert upward == [], f"{module} (layer {own}) imports from above: {upward}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_uses_another_modules_private_names(module):
    assert IMPORTS[module].private_names == []


MODEL_ROLES = [
    (
        "capabilities",
        "kind_parameters",
        "kind_spec",
        "kinds",
        "state",
        "reading",
        "training",
        "members",
    ),
    ("scoring", "keyed_terms"),
    ("inspection",),
    ("living",),
    ("base",),
    ("learners",),
]
"""The roles inside ``models`` (docs/ARCHITECTURE.md), lowest first: the protocol's leaves
(capabilities, how a kind declares its parameters and the registry of kinds, a fitted model's
typed state and its reader by kind, what a learner learns from); scoring (queries,
predictions, views, export) and the keyed parameter planner (keyed_terms); inspection (explanations,
rankings); living models (updates, drift); the root classifier that gathers them; the learners. A
module imports at load time from its own role and the roles below it."""


def _model_role(module: str) -> int:
    first = module.split(".")[2]
    for index, names in enumerate(MODEL_ROLES):
        if first in names:
            return index
    raise AssertionError(f"{module}: not in any role of MODEL_ROLES (tests/package/test_layers.py)")


MODEL_MODULES = sorted(m for m in MODULES if m.startswith("warehouse_ml.models."))


@pytest.mark.parametrize("module", MODEL_MODULES)
def test_model_modules_import_down_the_roles(module):
    own = _model_role(module)
    upward = sorted(
        target
        for target in IMPORTS[module].top_level
        if target.startswith("warehouse_ml.models.") and _model_role(target) > own
    )
    assert not upward, f"{module} (role {MODEL_ROLES[own]}) imports from a higher role: {upward}"


MAX_LINES = 500
"""A module longer than this is split by purpose."""


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_is_over_the_line_limit(module):
    lines = MODULES[module].read_text().count("\n")
    assert lines <= MAX_LINES, f"{module}: {lines} lines, over {MAX_LINES}: split it by purpose"


def _first_cycle(graph: dict[str, set[str]]) -> list[str]:
    """The first import ring found in ``graph`` (module -> the modules it imports), as the
    modules around it back to the first; empty when there is none."""
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def walk(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (ring := walk(target)):
                return ring
        path.pop()
        state[node] = 2
        return []

    for module in sorted(graph):
        if module not in state and (ring := walk(module)):
            return ring
    return []


def test_no_import_cycles():
    """Among module-level imports (those that run when a module loads) and those of its
    annotations (under ``if TYPE_CHECKING:``): a ring of either kind ties its modules into one
    that cannot be read, tested or moved apart."""
    graph = {m: found.top_level | found.type_level for m, found in IMPORTS.items()}
    ring = _first_cycle(graph)
    assert ring == [], "import cycle: " + " -> ".join(ring)


def test_the_guard_sees_violations(tmp_path, monkeypatch):
    """The checks above can fail: a module importing upward and a private name are found."""
    fake = {
        "warehouse_ml.sqlgen.fake": tmp_path / "fake.py",
    }
    fake["warehouse_ml.sqlgen.fake"].write_text(
        "from warehouse_ml.models.scoring import query\n"
        "from warehouse_ml.engines.base import _something\n"
        "def f():\n    return query._private\n"
    )
    monkeypatch.setitem(MODULES, "warehouse_ml.sqlgen.fake", fake["warehouse_ml.sqlgen.fake"])
    found = _imports("warehouse_ml.sqlgen.fake")
    assert "warehouse_ml.models.scoring.query" in found.top_level
    assert _layer("warehouse_ml.models.scoring.query") > _layer("warehouse_ml.sqlgen.fake")
    assert [p.split(": ")[1] for p in found.private_names] == [
        "warehouse_ml.engines.base._something",
        "warehouse_ml.models.scoring.query._private",
    ]


def test_the_cycle_guard_sees_a_ring_of_annotations(tmp_path, monkeypatch):
    """A ring closed only by an import under ``if TYPE_CHECKING:`` is a cycle too."""
    sources = {
        "warehouse_ml.sqlgen.ring_a": "from warehouse_ml.sqlgen import ring_b\n",
        "warehouse_ml.sqlgen.ring_b": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from warehouse_ml.sqlgen.ring_a import Thing\n"
        ),
    }
    for name, text in sources.items():
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        monkeypatch.setitem(MODULES, name, path)
    found = {name: _imports(name) for name in sources}
    assert found["warehouse_ml.sqlgen.ring_b"].type_level == {"warehouse_ml.sqlgen.ring_a"}
    graph = {name: f.top_level | f.type_level for name, f in found.items()}
    assert _first_cycle(graph) == [
        "warehouse_ml.sqlgen.ring_a",
        "warehouse_ml.sqlgen.ring_b",
        "warehouse_ml.sqlgen.ring_a",
    ]


LEARNER_CLASSES = set(kinds.by_class_name())
LEARNER_KINDS = {spelling for spec in kinds.specs() for spelling in spec.spellings}
"""The registered learners' class names and kind spellings, which code outside the learners'
own package never names: it asks for a capability (models/capabilities.py) or the registry
(models/kinds.py)."""
LEARNERS = "warehouse_ml.models.learners"
MAY_NAME_LEARNERS = {
    "warehouse_ml",  # re-exports
    "warehouse_ml.models.kinds",  # the registry: dotted class paths as strings
} | {m for m in MODULES if m.startswith(f"{LEARNERS}.")}


@pytest.mark.parametrize("module", sorted(set(MODULES) - MAY_NAME_LEARNERS))
def test_nothing_outside_the_learners_imports_a_learner_module(module):
    """A family is reached through the registry and its capabilities only, so it can move,
    split or be replaced without an edit elsewhere (the package's public names excepted)."""
    imported = IMPORTS[module].anywhere | IMPORTS[module].type_level
    assert sorted(t for t in imported if t.startswith(f"{LEARNERS}.")) == []


def _names_of_learners(tree: ast.AST) -> list[str]:
    """Each import of a learner class, each use of its name (``isinstance(x, TAN)``,
    ``wml.NaiveBayes``) and each comparison with a kind's spelling, as "line: what"."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            found += [
                f"{node.lineno}: imports {a.name}" for a in node.names if a.name in LEARNER_CLASSES
            ]
        elif isinstance(node, ast.Name) and node.id in LEARNER_CLASSES:
            found.append(f"{node.lineno}: {node.id}")
        elif isinstance(node, ast.Attribute) and node.attr in LEARNER_CLASSES:
            found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            values = [
                e
                for s in sides
                for e in (s.elts if isinstance(s, (ast.Tuple, ast.List, ast.Set)) else [s])
            ]
            found += [
                f"{node.lineno}: compares with {v.value!r}"
                for v in values
                if isinstance(v, ast.Constant) and v.value in LEARNER_KINDS
            ]
    return found


@pytest.mark.parametrize("module", sorted(set(MODULES) - MAY_NAME_LEARNERS))
def test_only_the_learners_own_modules_name_a_learner(module):
    """Elsewhere a model is asked for a capability by protocol, never by class or kind."""
    assert _names_of_learners(ast.parse(MODULES[module].read_text())) == []


def test_the_learner_guard_sees_violations():
    source = (
        "from warehouse_ml.models.learners.bayes.naive_bayes import NaiveBayes, write_parameters\n"
        "import warehouse_ml as wml\n"
        "def f(model):\n"
        "    if isinstance(model, wml.TAN) or model.kind == 'naive_bayes':\n"
        "        return model.kind in ('tan', 'other')\n"
    )
    assert sorted(_names_of_learners(ast.parse(source))) == [
        "1: imports NaiveBayes",
        "4: .TAN",
        "4: compares with 'naive_bayes'",
        "5: compares with 'tan'",
    ]


TESTS = Path(__file__).resolve().parents[1]
TEST_FOLDERS = {"sqlgen", "engines", "stats", "learners", "scoring", "inspection", "living"}
TEST_FOLDERS |= {"evaluation", "cli", "contract", "package"}
"""The folders of tests/, one a layer or role of the package and the contract, the command and
the package as a whole (docs/ARCHITECTURE.md "Tests"); the helpers several folders share are
modules at tests/ itself, or the packages of :data:`HELPER_PACKAGES`."""
HELPER_PACKAGES = {"extra_families"}
"""Packages at tests/ that are shared helpers as a whole: the model families written outside
the library, each a folder of its own module, specs and SQL (tests/extra_families/)."""


def _misplaced_test_files(root: Path) -> list[str]:
    """Each module under ``root`` (a tests/ folder) that is neither a shared helper at its root
    (not named ``test_*``) nor a test module (``test_*.py``) in one of :data:`TEST_FOLDERS`."""
    found = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        helper = not path.name.startswith("test_") and (
            len(parts) == 1 or parts[0] in HELPER_PACKAGES
        )
        test = len(parts) == 2 and parts[0] in TEST_FOLDERS and path.name.startswith("test_")
        if not (helper or test):
            found.append("/".join(parts))
    return found


def _imported_test_modules(root: Path, path: Path) -> list[str]:
    """Each import in ``path`` (anywhere in it) of a module or folder under ``root`` other than
    a shared helper at its root, as "line: file": by its dotted name from ``root`` (on the path
    through pyproject.toml's ``pythonpath``) or from the repository (``tests.``), by its bare
    name from its own folder (where pytest imports a test module from), or relatively."""

    def under_root(name: str) -> Path | None:
        parts = name.removeprefix(f"{root.name}.").split(".")
        for base in (root, path.parent):
            for n in range(len(parts), 0, -1):
                candidate = base.joinpath(*parts[:n])
                if candidate.with_suffix(".py").is_file():
                    return candidate.with_suffix(".py")
                if candidate.is_dir():
                    return candidate
        return None

    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            found.append(
                (node.lineno, f"relative import from {'.' * node.level}{node.module or ''}")
            )
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            prefix = f"{node.module}." if isinstance(node, ast.ImportFrom) else ""
            targets = {under_root(prefix + item.name) for item in node.names} - {None}
            found += [
                (node.lineno, target.relative_to(root).as_posix())
                for target in sorted(targets)
                if (target.parent != root or target.is_dir())
                and target.relative_to(root).parts[0] not in HELPER_PACKAGES
            ]
    return [f"{line}: {what}" for line, what in sorted(found)]


def test_every_test_module_is_in_a_test_folder_and_imports_no_other():
    """A test module imports the package, other libraries and the shared helpers at tests/
    (conftest.py, reference.py, guest_checks.py, ...), never another test module: what two
    folders share is a helper at tests/."""
    assert _misplaced_test_files(TESTS) == []
    imports = {
        str(path.relative_to(TESTS)): _imported_test_modules(TESTS, path)
        for path in sorted(TESTS.rglob("*.py"))
    }
    assert {path: found for path, found in imports.items() if found} == {}


def _fixed_example_counts(tree: ast.AST) -> list[str]:
    """Each hypothesis ``settings(...)`` given a ``max_examples`` other than
    ``examples(n)`` (tests/hypothesis_profiles.py), as "line: max_examples=..."."""
    found = []
    for node in ast.walk(tree):
        callee = node.func if isinstance(node, ast.Call) else None
        if getattr(callee, "id", getattr(callee, "attr", None)) != "settings":
            continue
        for keyword in node.keywords:
            value = keyword.value
            scaled = isinstance(value, ast.Call) and getattr(value.func, "id", "") == "examples"
            if keyword.arg == "max_examples" and not scaled:
                found.append(f"{node.lineno}: max_examples={ast.unparse(value)}")
    return found


def test_property_tests_take_their_example_counts_from_the_profile():
    """Each property test runs the examples the loaded hypothesis profile gives it ($WML_HYPOTHESIS:
    all of them in CI, a tenth while developing), never a fixed count."""
    fixed = {
        str(path.relative_to(TESTS)): _fixed_example_counts(ast.parse(path.read_text()))
        for path in sorted(TESTS.rglob("*.py"))
    }
    assert {path: found for path, found in fixed.items() if found} == {}


def test_the_test_layout_guards_see_violations(tmp_path):
    """The checks above can fail: a test module at the root, in no test folder, a helper in a
    test folder, and test modules imported by bare, dotted and relative name are found."""
    root = tmp_path / "tests"
    files = {
        "conftest.py": "",
        "reference.py": "import numpy\n",
        "test_at_root.py": "",
        "misc/test_elsewhere.py": "",
        "learners/shared.py": "",
        "learners/test_b.py": "",
        "learners/test_a.py": (
            "import conftest\nfrom reference import numpy\nfrom test_b import x\n"
            "import learners.test_b\ndef f():\n    from tests.learners import test_b\n"
            "from . import shared\n"
            "from hypothesis import settings\nfrom hypothesis_profiles import examples\n"
            "@settings(max_examples=examples(5), deadline=None)\ndef g(): ...\n"
            "@settings(max_examples=5)\ndef h(): ...\n"
            "S = settings(deadline=None, max_examples=S0)\n"
        ),
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    assert _misplaced_test_files(root) == [
        "learners/shared.py",
        "misc/test_elsewhere.py",
        "test_at_root.py",
    ]
    assert _imported_test_modules(root, root / "learners/test_a.py") == [
        "3: learners/test_b.py",
        "4: learners/test_b.py",
        "6: learners/test_b.py",
        "7: relative import from .",
    ]
    assert _imported_test_modules(root, root / "reference.py") == []
    test_a = ast.parse((root / "learners/test_a.py").read_text())
    assert _fixed_example_counts(test_a) == ["12: max_examples=5", "14: max_examples=S0"]


STATE_MODULES = {
    m
    for m in MODULES
    if m == "warehouse_ml.models.state"
    or (m.startswith("warehouse_ml.models.learners.") and m.endswith("_state"))
}
"""The (de)serialisation of a model's catalog details (models/state.py and each family's
``<family>_state.py``): the only modules that read that JSON by key."""
REGISTRY_ROW_KEYS = {
    "warehouse_ml.models.scoring.views": {"source", "options"},
    "warehouse_ml.evaluation.result": {"target", "folds", "classes"},
}
"""Reads of the ``details`` of the object registry's rows (store/ownership.py: a registered
view's source and options, a kept evaluation's facts), not of a model's state: these modules
may read these keys."""


def _is_details(node: ast.AST) -> bool:
    """``x.details``, ``details`` or ``x["details"]``."""
    return (
        (isinstance(node, ast.Attribute) and node.attr == "details")
        or (isinstance(node, ast.Name) and node.id == "details")
        or (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Constant)
            and node.slice.value == "details"
        )
    )


def _details_reads(tree: ast.AST) -> list[tuple[int, object]]:
    """Each read of a ``details`` mapping by key, ``details[k]`` or ``details.get(k)``, as
    (line, key; None when the key is not a constant)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _is_details(node.value):
            key = node.slice.value if isinstance(node.slice, ast.Constant) else None
            found.append((node.lineno, key))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and _is_details(node.func.value)
        ):
            first = node.args[0] if node.args else None
            found.append((node.lineno, first.value if isinstance(first, ast.Constant) else None))
    return found


@pytest.mark.parametrize("module", sorted(set(MODULES) - STATE_MODULES))
def test_only_the_state_modules_read_a_models_details_by_key(module):
    """Elsewhere a model's state is read by its typed fields (models/state.py)."""
    allowed = REGISTRY_ROW_KEYS.get(module, set())
    reads = _details_reads(ast.parse(MODULES[module].read_text()))
    assert [f"{line}: details[{key!r}]" for line, key in reads if key not in allowed] == []


def test_the_details_guard_sees_violations():
    source = (
        "def f(record, row, details):\n"
        "    a = record.details['bins'] + record.details.get('lookup', [])\n"
        "    b = row['details'].get('demo') or details[name]\n"
        "    return a, b, record.state.learned.bins, row.details\n"
    )
    assert set(_details_reads(ast.parse(source))) == {
        (2, "bins"), (2, "lookup"), (3, None), (3, "demo")
    }  # fmt: skip


LEARNER_MODULES = sorted(m for m in MODULES if m.startswith("warehouse_ml.models.learners."))


def _only_raises(function: ast.FunctionDef) -> bool:
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return len(body) == 1 and isinstance(body[0], ast.Raise)


@pytest.mark.parametrize("module", LEARNER_MODULES)
def test_no_learner_method_only_raises(module):
    """A kind without a capability has none of its methods (models/capabilities.py), rather
    than a method that only refuses: the generic entry points refuse it by capability."""
    tree = ast.parse(MODULES[module].read_text())
    stubs = [
        f"{node.name}.{item.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, ast.FunctionDef) and _only_raises(item)
    ]
    assert stubs == []
