"""gatewaykit where pandas, Pillow and numpy are not installed (as in a JupyterLite site built offline).

A subprocess blocks their imports with a meta path hook, then uses a client against a real offline gateway
(served from this process, which has them): the client, the notebook displays and the ledger work; what
needs pandas or Pillow says so, naming the package and what works without it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Iterator

import pytest

import gatewaykit as gk

SCRIPT = r'''
import importlib.abc, json, sys

class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {"pandas", "PIL", "numpy"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, Missing())
import gatewaykit as gk

client = gk.Client(base_url=sys.argv[1], api_key=sys.argv[2], display=False)
found = {}
chat = client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
picture = client.images.generate(model="image-aspect", prompt="a fox")
found["chat"] = chat.choices[0].message.content
found["bundles"] = {name: sorted(thing._repr_mimebundle_()) for name, thing in
                    [("chat", chat), ("image", picture), ("ledger", gk.ledger)]}
found["image_html"] = picture._repr_mimebundle_()["text/html"]
found["ledger_html"] = gk.ledger._repr_mimebundle_()["text/html"]
found["ledger_rows"], found["ledger_total"] = len(gk.ledger.rows), gk.ledger.total_cost
for name, ask in [("to_pandas", gk.ledger.to_pandas), ("summary", gk.ledger.summary),
                  ("models", lambda: client.models.list().to_pandas()), ("images", lambda: picture.images)]:
    try:
        ask()
        found[name] = None
    except Exception as error:
        found[name] = [type(error).__name__, isinstance(error, ModuleNotFoundError), str(error)]
found["loaded"] = sorted(m for m in ("pandas", "PIL", "numpy") if m in sys.modules)
print(json.dumps(found))
'''


@pytest.fixture(scope="module")
def found() -> Iterator[dict[str, Any]]:
    with gk.emulator.start(time_scale=0) as gateway:
        run = subprocess.run([sys.executable, "-c", SCRIPT, gateway.base_url, gateway.api_key],
                             capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    yield json.loads(run.stdout.splitlines()[-1])


def test_the_client_works_without_them(found: dict[str, Any]) -> None:
    """A chat and an image come back, and none of pandas, PIL or numpy was imported."""
    assert found["chat"] and found["loaded"] == []


def test_results_and_the_ledger_display_without_them(found: dict[str, Any]) -> None:
    """The chat, the image and the ledger display as HTML; the image is inline and the ledger has its rows."""
    assert all(bundle == ["text/html", "text/plain"] for bundle in found["bundles"].values())
    assert "<img" in found["image_html"] and "data:image/" in found["image_html"]
    assert found["ledger_rows"] == 2 and found["ledger_total"] > 0 and "image-aspect" in found["ledger_html"]


@pytest.mark.parametrize("asked", ["to_pandas", "summary", "models"])
def test_what_needs_pandas_says_so(found: dict[str, Any], asked: str) -> None:
    """to_pandas() and summary() raise gk.MissingPackageError naming pandas and what works without it."""
    name, is_module_error, message = found[asked]
    assert name == "MissingPackageError" and is_module_error
    assert "needs pandas" in message and "pip install pandas" in message and "Without it:" in message


def test_pil_images_say_they_need_pillow(found: dict[str, Any]) -> None:
    """ImageResult.images raises gk.MissingPackageError naming Pillow and the bytes that work without it."""
    name, _, message = found["images"]
    assert name == "MissingPackageError" and "pip install pillow" in message and ".content" in message
