"""Load single top-level functions or classes from a module's *source file*, without importing the module.

Some of the code under test lives in modules whose import is expensive or has side
effects the test process must not suffer:

- ``vllm/v1/utils.py`` (``CpuGpuBuffer``) imports uvloop, zmq, pydantic, transformers,
  openai... (about 15 extra distributions) for code unrelated to the buffer;
- ``vllm/v1/worker/cpu/shm.py`` (the CPU-worker ``async_tensor_h2d``) monkey-patches
  torch process-wide when imported (``torch.Tensor.pin_memory``, ``torch.cuda.Stream``,
  ``torch.cuda.current_stream``...), which would change what every other contract sees.

:func:`load_definitions` parses the file, takes only the named top-level ``def`` /
``class`` nodes, and executes them (compiled with the real file name and line numbers,
so tracebacks point into the installed package) in a namespace holding exactly the
globals they use. The globals are supplied by the caller from the real package where it
is cheap (e.g. ``PIN_MEMORY`` from ``vllm.utils.torch_utils``); a global the code uses
that the caller did not supply is an error naming it, never a silent stub.
"""

from __future__ import annotations
import __future__

import ast
import builtins
from pathlib import Path
from typing import Any

__all__ = ["free_globals", "load_definitions"]


def _top_level(tree: ast.Module, name: str) -> ast.stmt | None:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return node
    return None


def free_globals(nodes: list[ast.stmt]) -> set[str]:
    """Names the nodes read at definition or call time that are neither bound inside them nor builtins.

    Conservative (over-approximates): any loaded name not assigned, imported, defined or
    used as a parameter anywhere inside the nodes counts as a global.
    """
    loaded: set[str] = set()
    bound: set[str] = set()
    for top in nodes:
        bound.add(top.name)  # type: ignore[attr-defined]
        for node in ast.walk(top):
            if isinstance(node, ast.Name):
                (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
            elif isinstance(node, ast.arg):
                bound.add(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                bound.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                bound.add(node.name)
    return {n for n in loaded - bound if not hasattr(builtins, n)}


class _DropImports(ast.NodeTransformer):
    """Replaces ``from M import ...`` inside the definitions, for M in ``modules``, by ``pass`` (the names become globals)."""

    def __init__(self, modules: frozenset[str]) -> None:
        self.modules = modules

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.stmt:
        if node.module in self.modules:
            return ast.copy_location(ast.Pass(), node)
        return node


def load_definitions(
    path: str | Path,
    names: list[str],
    namespace: dict[str, Any],
    module_name: str,
    local_imports: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Execute the top-level definitions ``names`` of the file at ``path`` in a fresh namespace.

    Args:
        path: the source file (e.g. the installed ``vllm/v1/utils.py``).
        names: top-level function / class names to load.
        namespace: the globals they may use (name -> object).
        module_name: ``__name__`` for the loaded code (shows in reprs and ``__module__``).
        local_imports: modules whose ``from M import x`` statements *inside* the definitions
            are dropped, ``x`` then read from ``namespace`` like any global (vLLM's
            ``NonUvaBuffer`` imports ``current_platform`` from ``vllm.platforms`` when it runs,
            which would import vLLM's dependency tree). Nothing else of the code changes.

    Returns:
        name -> the loaded object.

    Raises:
        LookupError: a name is not a top-level def/class of the file.
        NameError: the definitions use a global that ``namespace`` does not supply.
    """
    path = Path(path)
    tree = ast.parse(path.read_text(), filename=str(path))
    nodes = []
    for name in names:
        node = _top_level(tree, name)
        if node is None:
            raise LookupError(f"{path}: no top-level def or class named {name!r}")
        nodes.append(node)
    if local_imports:
        dropper = _DropImports(local_imports)
        nodes = [dropper.visit(n) for n in nodes]
    missing = sorted(free_globals(nodes) - set(namespace))
    if missing:
        raise NameError(f"{path}: {', '.join(names)} use globals {missing} that the adapter does not supply")
    nodes.sort(key=lambda n: n.lineno)  # in the file's order, as importing it would define them
    module = ast.Module(body=nodes, type_ignores=[])
    env: dict[str, Any] = {"__name__": module_name, "__file__": str(path), "__builtins__": builtins, **namespace}
    # the file's `from __future__ import annotations` applies to its definitions (annotations stay strings)
    future = any(
        isinstance(n, ast.ImportFrom) and n.module == "__future__" and any(a.name == "annotations" for a in n.names)
        for n in tree.body
    )
    flags = __future__.annotations.compiler_flag if future else 0
    exec(compile(module, str(path), "exec", flags=flags, dont_inherit=True), env)  # noqa: S102 - our parse of an installed file, names listed by the adapter
    return {name: env[name] for name in names}
