"""The package's imports run one way, down the data path: no cycle, no upward import.

Every module's imports (at module level and inside functions) are read with ``ast``; each module
belongs to a layer (``LAYERS``, lowest first) and may import only from its own layer or below.
Inside functions, imports of the package are allowed only where ``LAZY`` says why.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "spanagree"

#: Layers, lowest first: a module prefix per layer (the longest matching prefix decides).
LAYERS = [
    ("core", ["spanagree.errors", "spanagree.core"]),
    ("io", ["spanagree.io"]),
    ("engine", ["spanagree.engine"]),
    ("measures", ["spanagree.measures"]),
    ("diagnostics", ["spanagree.diagnostics"]),
    ("report", ["spanagree.report", "spanagree.request", "spanagree.catalogue", "spanagree.plans", "spanagree.notebook"]),
    ("outputs", ["spanagree.outputs"]),
    ("integrations", ["spanagree.integrations"]),
    ("app", ["spanagree.app", "spanagree", "spanagree.__main__"]),
]

#: Imports of the package inside functions that are allowed, ``(module, imported): why``. Each
#: one keeps a module off the path of ``import spanagree`` or of ``spanagree score`` when the
#: option or command that needs it is not used; the saving is measured in bench/RESULTS.md.
_COMMAND = "a CLI command's own modules, imported when it runs"
_SECTION = "an optional report section, imported when it is asked for"
LAZY: dict[tuple[str, str], str] = {
    ("spanagree.request", "spanagree.engine"): "the engines load multiprocessing and concurrent.futures",
    ("spanagree.engine", "spanagree.engine.driver"): "the driver loads the process pools; choosing the mode does not",
    ("spanagree.engine", "spanagree.engine.merge"): "the same: imported with the driver",
    ("spanagree.engine.mode", "spanagree.engine.plan"): "the planner and the readers' ranges, only for large input",
    ("spanagree.measures.alt_test.procedure", "spanagree.measures.chance.coefficients"): "Shah's S, only with candidate items",
    ("spanagree.report", "spanagree.diagnostics.raters"): _SECTION,
    ("spanagree.app.runs", "spanagree.diagnostics.annotators"): "the annotator models, only for a gate's rater-accuracy checks",
    ("spanagree.app.runs", "spanagree.diagnostics.consensus"): "the vote, only for a consensus",
    ("spanagree.app.api", "spanagree.app.runs"): "the gate's, compare's and the models' modules, only when those entry points are called",
    ("spanagree.app.runs", "spanagree.measures.annotators.decode"): "the same: the competence table of the fitted model",
    ("spanagree.app.runs", "spanagree.measures.psa.planning"): "plan's resampling, only for that command",
    ("spanagree.plans", "spanagree.measures.psa.planning"): "the same: the planning chart's resampling, only when drawn",
    ("spanagree.notebook.figures", "spanagree.plans"): "the same",
    ("spanagree.report", "spanagree.measures.psa.intervals"): _SECTION,
    ("spanagree.report", "spanagree.measures.chance.candidates"): _SECTION,
    ("spanagree.report", "spanagree.io.candidates"): _SECTION,
    ("spanagree.report", "spanagree.measures.chance.section"): _SECTION,
    ("spanagree.report", "spanagree.measures.unitizing.section"): _SECTION,
    ("spanagree.report", "spanagree.notebook.frames"): "tables load pandas, only when one is asked for",
    ("spanagree.report", "spanagree.notebook.figures"): "charts load matplotlib, only when one is asked for",
    ("spanagree.report", "spanagree.notebook.display"): "the notebook view loads jinja2, only in a notebook",
    ("spanagree.notebook.frames", "spanagree.diagnostics.disagreements"): _SECTION,
    ("spanagree.notebook.frames", "spanagree.diagnostics.raters"): _SECTION,
    ("spanagree.app.cli", "spanagree.notebook.frames"): _COMMAND,
    ("spanagree.report", "spanagree.measures.structure.section"): _SECTION,
    ("spanagree.diagnostics.disagreements", "spanagree.measures.structure.cases"): _SECTION,
    ("spanagree.report", "spanagree.measures.structure.attributes"): _SECTION,
    ("spanagree.measures.structure.relations", "spanagree.measures.psa.intervals"): "the bootstrap, only with --bootstrap",
    ("spanagree.measures.structure.attributes", "scipy.sparse"): "clusters of matched spans, only with attributes",
    ("spanagree.app.cli", "spanagree.request"): "reading and scoring load NumPy and the readers; --version and --help "
                                                "need neither",
    ("spanagree.app.config", "spanagree.request"): "the same: config.score reads and scores when it is called",
    ("spanagree.app.flags", "spanagree.io"): "--format's help names the formats (importing every reader) only when "
                                             "--help shows it",
    ("spanagree.io.labelstudio_server", "spanagree.io.labelstudio_targets"): "the labeling config's XML parser, only when a consensus is posted",
    **{("spanagree.app.cli", target): _COMMAND for target in (
        "spanagree.app.info", "spanagree.app.runs", "spanagree.outputs.convert", "spanagree.outputs.gate",
        "spanagree.outputs.html", "spanagree.outputs.compare", "spanagree.outputs.alt_test",
        "spanagree.diagnostics.consensus", "spanagree.diagnostics.disagreements", "spanagree.measures.alt_test.procedure",
        "spanagree.diagnostics.annotators", "spanagree.outputs.annotators_text", "spanagree.outputs.text",
        "spanagree.plans", "spanagree.io.labelstudio_server",
    )},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def layer_of(module: str) -> int:
    best, rank = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), i
    assert rank is not None, f"{module} is in no layer"
    return rank


def imports(module: str) -> list[tuple[str, int, bool]]:
    """``(imported module, line, inside a function)`` for every import of the package."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - child.level + 1]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                if target.split(".")[0] == "spanagree":
                    for alias in child.names:  # ``from pkg import module`` imports the module
                        sub = f"{target}.{alias.name}"
                        found.append((sub if sub in MODULES else target, child.lineno, inside))
            elif isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, inside) for a in child.names if a.name.split(".")[0] == "spanagree")
            visit(child, inside)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def test_every_module_is_in_a_layer():
    for module in MODULES:
        layer_of(module)


def test_no_upward_import():
    wrong = [
        f"{module} ({LAYERS[layer_of(module)][0]}) line {line} imports {target} ({LAYERS[layer_of(target)][0]})"
        for module in MODULES
        for target, line, _ in imports(module)
        if layer_of(target) > layer_of(module)
    ]
    assert not wrong, "upward imports:\n" + "\n".join(wrong)


def test_imports_inside_functions_only_for_heavy_dependencies():
    wrong = [
        f"{module} line {line} imports {target} inside a function"
        for module in MODULES
        for target, line, inside in imports(module)
        if inside and (module, target) not in LAZY
    ]
    assert not wrong, "\n".join(wrong)


def test_no_cycle():
    graph = {m: sorted({t for t, _, _ in imports(m) if t in MODULES and t != m}) for m in MODULES}
    # a package's __init__ importing its own submodules is how it re-exports them; a submodule
    # importing names from its package's __init__ back is the cycle to catch
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                walk(nxt)
        stack.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module)


def test_the_walk_sees_both_kinds_of_import():
    found = imports("spanagree.report")
    assert any(t == "spanagree.core.counts" and not inside for t, _, inside in found)


def test_no_private_name_is_imported_from_another_module():
    """A name one module shares with others is public (no leading underscore); a private helper
    that another module needs is renamed, not reached into."""
    wrong = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("spanagree")):
                wrong += [
                    f"{module} line {node.lineno} imports {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__")
                ]
    assert not wrong, "\n".join(wrong)


#: The measures layer's rooms, one subpackage per family (docs/design.md), and what is
#: shared between them.
MEASURE_FAMILIES = ("psa", "chance", "unitizing", "alt_test", "annotators", "structure")
MEASURE_SHARED = ("student_t",)
#: Lines a module may hold before its docstring must say why it is longer.
MAX_MODULE_LINES = 800


def test_measures_show_their_families():
    """Every module of the measures layer sits in its family's subpackage (or is shared), and each
    family's ``__init__`` says in its docstring what it computes from what."""
    measures = PACKAGE / "measures"
    stray = [
        p.name for p in measures.glob("*.py")
        if p.stem not in MEASURE_SHARED and p.stem != "__init__"
    ]
    assert not stray, f"modules of spanagree/measures outside a family: {stray}"
    rooms = sorted(p.name for p in measures.iterdir() if p.is_dir() and (p / "__init__.py").is_file())
    assert rooms == sorted(MEASURE_FAMILIES), rooms
    for family in MEASURE_FAMILIES:
        tree = ast.parse((measures / family / "__init__.py").read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree)
        assert doc and len(doc.split()) >= 10, f"measures/{family}/__init__.py needs a docstring saying what it computes"


def test_no_module_over_the_size_without_a_reason():
    long = []
    for module, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > MAX_MODULE_LINES:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if "longer than" not in doc:
                long.append(f"{module} ({text.count(chr(10))} lines)")
    assert not long, f"modules over {MAX_MODULE_LINES} lines with no reason in their docstring: {long}"


def test_the_lazy_names_of_the_package_are_those_a_type_checker_sees():
    """``spanagree/__init__.py`` loads its names on first use (``_HOME``) and lists them for type
    checkers under ``TYPE_CHECKING``: the two say the same names from the same modules."""
    import spanagree

    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    block = next(node for node in tree.body if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING")
    seen = {alias.name: node.module.lstrip(".") for node in block.body for alias in node.names}
    assert seen == spanagree._HOME
    for name in seen:  # and each loads
        assert getattr(spanagree, name) is not None
