"""``serving/connection_guard.py`` subclasses uvicorn's internal ``H11Protocol``: pinned to the releases tested.

uvicorn offers no public hook for a deadline on a request's head or body (its keep-alive timer starts only
after a response), so the guard extends its h11 protocol. pyproject.toml bounds uvicorn above; raising the
bound means running tests/reliability (the slow-client tests) on the new release, then this test.
"""

from __future__ import annotations

import ast
import inspect
import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.requirements import Requirement
from uvicorn.protocols.http.h11_impl import H11Protocol

import gatewaykit.serving.connection_guard as guard

ROOT = Path(__file__).resolve().parents[2]


def _uvicorn_requirement() -> Requirement:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    (found,) = [Requirement(each) for each in extras["offline"] if Requirement(each).name == "uvicorn"]
    return found


def test_uvicorn_has_an_upper_bound_and_the_installed_release_is_inside_it() -> None:
    """The offline extra names a highest uvicorn release, and the one tested here is within the range."""
    requirement = _uvicorn_requirement()
    assert any(spec.operator in ("<", "<=", "==", "~=") for spec in requirement.specifier), requirement
    assert requirement.specifier.contains(version("uvicorn")), (requirement, version("uvicorn"))


def test_every_uvicorn_name_the_guard_uses_is_on_its_h11_protocol() -> None:
    """What the guard reads from H11Protocol (read from the guard's source) is a method of it or set by it."""
    guard_source = ast.parse(Path(guard.__file__).read_text(encoding="utf-8"))
    own = {node.name for node in ast.walk(guard_source) if isinstance(node, ast.FunctionDef)}
    own |= {node.attr for node in ast.walk(guard_source) if isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)} | {"head_seconds", "body_seconds"}  # fmt: skip
    read = {node.attr for node in ast.walk(guard_source) if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name) and node.value.id == "self"} - own  # fmt: skip
    uvicorn_source = ast.parse(Path(inspect.getsourcefile(H11Protocol) or "").read_text(encoding="utf-8"))
    set_by_uvicorn = {node.attr for node in ast.walk(uvicorn_source) if isinstance(node, ast.Attribute)
                      and isinstance(node.ctx, ast.Store)}  # fmt: skip
    assert read >= {"conn", "transport", "loop", "timeout_keep_alive_handler"}
    assert {name for name in read if not hasattr(H11Protocol, name) and name not in set_by_uvicorn} == set()
