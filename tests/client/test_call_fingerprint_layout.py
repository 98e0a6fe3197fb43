"""A checkpoint's call fingerprint does not depend on which layer package of client/ or notebook/ a module sits in.

The fingerprint names the function's module, and the module of each class and
object it visibly uses. When client/ was grouped into layer packages,
``client.map(client.chat.ask, ..., checkpoint=path)`` would have got another
fingerprint (the chat module moved into ``resources``) and re-run, and
re-paid, every item of a checkpoint made before. The same code in a
layer package and in the flat layout must fingerprint alike; elsewhere the module still counts.
"""

from __future__ import annotations

import functools
import types
from typing import Any

from gatewaykit.client.session_tools.call_fingerprint import call_fingerprint

SOURCE = """
import math

LIMIT = 3


class Resource:
    def ask(self, prompt):
        return prompt, LIMIT


RESOURCE = Resource()


def run(item):
    return math.floor(item) + LIMIT, RESOURCE.ask(item), Resource
"""


def module_named(name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(SOURCE, f"<{name}>", "exec"), module.__dict__)  # classes and functions get __module__ = name
    return module


def fingerprints(name: str) -> list[str]:
    module: Any = module_named(name)
    calls = [module.run, module.RESOURCE.ask, functools.partial(module.RESOURCE.ask, "x"), module.Resource]
    return [call_fingerprint(call) for call in calls]


def test_a_module_in_a_layer_package_fingerprints_as_in_the_flat_layout() -> None:
    flat = fingerprints("gatewaykit.client.chat_like")
    for layered in ("gatewaykit.client.resources.chat_like", "gatewaykit.client.core.chat_like",
                    "gatewaykit.client.session_tools.chat_like"):  # fmt: skip
        assert fingerprints(layered) == flat, layered
    assert fingerprints("gatewaykit.notebook.html_views.cards") == fingerprints("gatewaykit.notebook.cards")


def test_the_module_still_counts_outside_the_layer_packages() -> None:
    flat = fingerprints("gatewaykit.client.chat_like")
    assert fingerprints("gatewaykit.client.conversation.chat_like") != flat
    assert fingerprints("mypackage.resources.chat_like") != fingerprints("mypackage.chat_like")
