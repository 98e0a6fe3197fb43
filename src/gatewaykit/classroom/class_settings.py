"""The settings every process of a shared class runs with (cap, window, models): the class's, kept in its store.

The first start on a database makes its cap, window and models the class's (the
``meta`` entry ``class_settings``). A later start with other ones while another
process of the class is running is refused, the message naming each difference:
two processes with two class caps would make neither cap hard. A start when no
other process is running (every one stopped, or gone silent) makes its settings
the class's, and says what changed (a warning): that is how a teacher changes them.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from gatewaykit.classroom.setting_names import SettingNames
from gatewaykit.money import usd_to_nanos

__all__ = ["META", "agree"]

META = "class_settings"


def _described(name: str, value: Any) -> str:
    if name == "models":
        return "all" if value is None else ",".join(value)
    return str(value)


def agree(store: Any, cap_usd: float, window: str, models: Optional[frozenset[str]], names: SettingNames
          ) -> Optional[str]:
    """Check this start's settings against the class's (``store``: shared, its start lock held). Returns a warning
    when they replaced the class's (no other process running), None when they are the class's; ValueError naming
    the differences when another process of the class runs with others."""
    mine = {"cap": usd_to_nanos(cap_usd), "window": window, "models": None if models is None else sorted(models)}
    kept = store.get_meta(META)
    theirs = json.loads(kept) if kept else None
    if theirs == mine:
        return None
    if theirs is None:
        store.set_meta(META, json.dumps(mine))
        return None
    spelled = {"cap": names.cap, "window": names.window, "models": names.models}

    def shown(setting: dict[str, Any], name: str) -> str:
        value = setting.get(name)
        return _described(name, f"{value / 1e9:g}" if name == "cap" and value is not None else value)

    differences = [(spelled[n], shown(theirs, n), shown(mine, n)) for n in mine if theirs.get(n) != mine[n]]
    running = store.others_running()
    if running:
        listed = "; ".join(f"{name} {ours} (this start has {this})" for name, ours, this in differences)
        wanted = " ".join(f"{name} {ours}" for name, ours, _ in differences)
        raise ValueError(f"The class in {store.url} runs with {listed}, and {running} other classroom process(es) of "
                         f"it are running: start this one with the class's settings ({wanted}), or stop them all "
                         "first to change the class's settings.")
    store.set_meta(META, json.dumps(mine))
    changed = ", ".join(f"{name} {ours} -> {this}" for name, ours, this in differences)
    return f"The class's settings in {store.url} changed ({changed}): no other classroom process of it was running."
