"""``client.models.pick()``: choose a catalog model by kind and by what it must accept.

A need is a key of the entry's ``parameters`` (``"width"``, ``"resolution"``...) or a capability
(``vision``, ``reasoning``, ``tools``, ``json_schema``, ``edit``, ``image_to_video``). Among the models
that fit, the one with the fewest parameters beyond the needs wins, then catalog order.
How capabilities are read from entries: ``docs/internals.md``.
"""

from __future__ import annotations

import re
from typing import Iterable, Optional

from gatewaykit.errors import ModelNotFoundError
from gatewaykit.types import Model, ModelList

__all__ = ["CAPABILITIES", "KINDS", "choose_model", "missing_kind_note"]

KINDS = ("chat", "image", "video", "music")
CAPABILITIES = ("vision", "reasoning", "tools", "json_schema", "edit", "image_to_video")
_FEATURE_NAMES = {"json_schema": ("json_schema", "json_mode", "structured_outputs")}
_REASONING_ID = re.compile(r"reason|think|(^|[-_/])(r1|o1|o3|o4)([-_]|$)", re.IGNORECASE)


def _feature(model: Model, name: str) -> Optional[bool]:
    """The entry's own ``features`` flag for a capability, or None when the entry does not say."""
    features = getattr(model, "features", None)
    if not isinstance(features, dict):
        return None
    for key in _FEATURE_NAMES.get(name, (name,)):
        if key in features:
            return bool(features[key])
    return None


def _has_capability(model: Model, name: str) -> bool:
    if name == "vision":
        return model.kind == "chat" and "image" in model.input_modalities
    if name == "edit":
        return model.kind == "image" and model.edit is not None and bool(model.edit.supported)
    if name == "image_to_video":
        return model.kind == "video" and ("input_reference" in (model.parameters or {})
                                          or "image" in model.input_modalities)
    if model.kind != "chat":
        return False
    stated = _feature(model, name)
    if stated is not None:
        return stated
    if name == "reasoning":
        return bool(_REASONING_ID.search(model.id))
    return True  # tools, json_schema: assumed where the entry does not say


def accepts(model: Model, need: str) -> bool:
    """Whether ``model`` takes the parameter or has the capability ``need``."""
    if need in CAPABILITIES:
        return _has_capability(model, need)
    return need in (model.parameters or {})


def choose_model(catalog: ModelList, kind: str, needs: Iterable[str] = ()) -> str:
    """The id of the best-fitting model of ``kind`` that accepts every need; ModelNotFoundError if none."""
    if isinstance(needs, str):
        needs = (needs,)
    needs = tuple(needs)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, KINDS))}, not {kind!r}")
    of_kind = [model for model in catalog if model.kind == kind]
    fitting = [model for model in of_kind if all(accepts(model, need) for need in needs)]
    if fitting:
        best = min(fitting, key=lambda model: len(set(model.parameters or {}) - set(needs)))
        return best.id
    raise ModelNotFoundError(_explain(catalog, kind, needs), param="model")


def _explain(catalog: ModelList, kind: str, needs: tuple[str, ...]) -> str:
    wanted = f" accepting {', '.join(needs)}" if needs else ""
    of_kind = [model for model in catalog if model.kind == kind]
    if not of_kind:
        kinds = sorted({model.kind for model in catalog})
        return (f"This key's catalog has no {kind} model; it has {', '.join(kinds) or 'no'} models "
                f"({', '.join(catalog.ids)}). See client.models.list().")
    lines = [f"No {kind} model{wanted} in this key's catalog. The {kind} models accept:"]
    for model in of_kind:
        offers = sorted(model.parameters or {}) + [name for name in CAPABILITIES if _has_capability(model, name)]
        lines.append(f"  {model.id}: {', '.join(offers) or '(nothing listed)'}")
    lines.append(f"Needs may be parameter names or capabilities ({', '.join(CAPABILITIES)}).")
    return "\n".join(lines)


def missing_kind_note(catalog: ModelList, kind: str, needs: Iterable[str] = (), *, in_class: bool = False) -> str:
    """What ``pick(kind, optional=True)`` prints when no model fits: the part that needs one is skipped."""
    needs = (needs,) if isinstance(needs, str) else tuple(needs)
    has_kind = any(model.kind == kind for model in catalog)
    wanted = f" accepting {', '.join(needs)}" if needs and has_kind else ""  # no model of the kind: the kind is missing
    allowed = ", ".join(catalog.ids) or "none"
    if in_class:
        return f"Your class does not allow {kind} models{wanted} (it allows: {allowed}), so this part is skipped."
    return f"This key's catalog has no {kind} model{wanted} (it has: {allowed}), so this part is skipped."
