"""The layers and seams stay as drawn: import-linter contracts, mypy over src/ and the public API, no names smuggled in strings."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import early_start
import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src"
BIN = Path(sys.executable).parent
# The core: what must work with only `pip install gatewaykit` and never reach up a layer.
CORE = ["client", "types", "costs", "errors.py", "presentation.py", "money.py"]
UPPER_LAYERS = re.compile(r"gatewaykit\.(notebook|emulator)|gatewaykit import (notebook|emulator)|import_module")


def tool(name: str) -> str:
    found = BIN / name
    if not found.exists():
        pytest.skip(f"{name} is not installed (it comes with gatewaykit[test])")
    return str(found)


def lint_imports(source: Path) -> subprocess.CompletedProcess[str]:
    environment = {**early_start.environment(), "PYTHONPATH": str(source)}
    return subprocess.run(
        [tool("lint-imports"), "--no-cache", "--config", str(ROOT / "pyproject.toml")],
        capture_output=True, text=True, timeout=240, cwd=ROOT, env=environment,
    )  # fmt: skip


def mypy(*targets: Path) -> subprocess.CompletedProcess[str]:
    # One cache per checkout: two checkouts sharing one cache made mypy crash on the other's stale entries.
    checkout = hashlib.sha256(str(ROOT).encode()).hexdigest()[:10]
    cache = Path(tempfile.gettempdir()) / f"gatewaykit-mypy-cache-{checkout}"
    return early_start.run(
        [tool("mypy"), "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache), *map(str, targets)],
        timeout=600, cwd=ROOT, env={**early_start.environment(), "MYPYPATH": str(SOURCE)},
    )  # fmt: skip


def test_import_contracts_are_kept() -> None:
    """lint-imports keeps every contract in pyproject.toml (layers; core and emulator independence)."""
    done = lint_imports(SOURCE)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_core_import_of_the_notebook_layer_breaks_the_contracts(tmp_path: Path) -> None:
    """The contracts are not vacuous: a copy of src/ whose client imports the notebook layer fails them."""
    copy = tmp_path / "src"
    shutil.copytree(SOURCE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    base = copy / "gatewaykit" / "client" / "core" / "base.py"
    base.write_text(base.read_text() + "\nfrom gatewaykit.notebook.html_views import rendering  # a layering bug\n")
    done = lint_imports(copy)
    assert done.returncode != 0 and "BROKEN" in done.stdout


def test_reaching_into_the_offline_gateway_from_the_classroom_or_serving_breaks_the_contracts(tmp_path: Path) -> None:
    """A copy of src/ whose classroom imports an emulator module, and whose serving/ imports the emulator, fails both contracts."""
    copy = tmp_path / "src"
    shutil.copytree(SOURCE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    report = copy / "gatewaykit" / "classroom" / "report.py"
    report.write_text(report.read_text() + "\nfrom gatewaykit.emulator.accounts import AccountBook  # past serving/\n")
    errors = copy / "gatewaykit" / "serving" / "errors.py"
    errors.write_text(errors.read_text() + "\nfrom gatewaykit.emulator import settings  # a shared part reaching up\n")
    done = lint_imports(copy)
    summary = " ".join(done.stdout.split())  # contract names wrap across lines

    def status(name: str) -> str:
        found = re.search(re.escape(name) + r".*?\b(KEPT|BROKEN)\b", summary)
        return found.group(1) if found else "missing"

    assert status("only to start a practice upstream") == "BROKEN", done.stdout
    assert status("parts import neither server") == "BROKEN", done.stdout


def test_the_core_names_no_upper_layer_even_in_strings() -> None:
    """client/, types/, costs/, errors.py, presentation.py and money.py never spell the notebook or emulator module (no importlib)."""
    offenders = []
    for entry in CORE:
        path = SOURCE / "gatewaykit" / entry
        for file in [path] if path.is_file() else sorted(path.rglob("*.py")):
            for number, line in enumerate(file.read_text().splitlines(), 1):
                if UPPER_LAYERS.search(line):
                    offenders.append(f"{file.relative_to(SOURCE)}:{number}: {line.strip()}")
    assert offenders == []


def type_check_src_and_the_public_api(_folder: Path) -> subprocess.CompletedProcess[str]:
    """mypy on src/ and tests/typing/: minutes on a fresh clone, so started early (``tests/early_start.py``)."""
    typing_checks = ROOT / "tests" / "typing"
    return mypy(SOURCE / "gatewaykit", typing_checks / "public_api.py", typing_checks / "async_surface.py")


@pytest.mark.start_early.with_args(type_check_src_and_the_public_api)  # (with_args: a lone function argument would be decorated)
def test_src_and_the_public_api_type_check(tmp_path: Path) -> None:
    """mypy finds no error in src/ nor in tests/typing/ (the public calls' declared types, every async keyword)."""
    done = early_start.result(type_check_src_and_the_public_api, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def import_cycles(source: Path) -> list[dict[str, list[str]]]:
    """The cycles in ``source``'s gatewaykit (see tests/import_graph.py), found in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "import_graph.py"), str(source)],
        capture_output=True, text=True, timeout=240, cwd=ROOT, env={**early_start.environment(), "PYTHONPATH": str(source)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_src_has_no_import_cycles() -> None:
    """No module of src/gatewaykit imports itself back, through any chain (imports inside functions included)."""
    cycles = import_cycles(SOURCE)
    assert cycles == [], "import cycles:\n" + "\n".join(" -> ".join(cycle["chain"]) for cycle in cycles)


def test_a_lazy_import_back_breaks_the_cycle_check(tmp_path: Path) -> None:
    """The check is not vacuous: a copy whose api_request imports the client back inside a function has a cycle."""
    copy = tmp_path / "src"
    shutil.copytree(SOURCE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    module = copy / "gatewaykit" / "client" / "api_request.py"
    module.write_text(module.read_text() + "\n\ndef _back() -> None:\n    from gatewaykit.client import clients  # a cycle\n")
    cycles = import_cycles(copy)
    assert any({"gatewaykit.client.api_request", "gatewaykit.client.clients"} <= set(cycle["modules"]) for cycle in cycles)


def test_the_typing_checks_call_every_async_method_with_every_keyword() -> None:
    """tests/typing/async_surface.py calls each public method of AsyncClient's resources with each of its keywords."""
    import ast
    import inspect

    import gatewaykit as gk

    tree = ast.parse((ROOT / "tests" / "typing" / "async_surface.py").read_text())
    called: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = ast.unparse(node.func)
            if target.startswith("client."):
                called.setdefault(target.removeprefix("client."), set()).update(k.arg for k in node.keywords if k.arg)
    client = gk.AsyncClient(api_key="k", base_url="http://127.0.0.1:9", display=False)
    missing = []
    for name, resource in [*vars(client).items(), ("chat.completions", client.chat.completions)]:
        if name.startswith("_") or not hasattr(resource, "_client"):
            continue
        for method_name, method in inspect.getmembers(resource, inspect.ismethod):
            if method_name.startswith("_"):
                continue
            keywords = {
                each.name for each in inspect.signature(method).parameters.values()
                if each.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                and each.default is not inspect.Parameter.empty
            }  # fmt: skip
            call = f"{name}.{method_name}"
            if call not in called:
                missing.append(f"{call}()")
            missing.extend(f"{call}({keyword}=)" for keyword in sorted(keywords - called.get(call, set())))
    assert missing == [], "tests/typing/async_surface.py does not call: " + ", ".join(missing)
