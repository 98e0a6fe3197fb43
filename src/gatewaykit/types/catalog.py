"""The model catalog: ``GET /v1/models``."""

from __future__ import annotations

from typing import Annotated, Any, Iterator, List, Optional

from pydantic import AfterValidator, Field, model_validator

from gatewaykit.presentation import rich_bundle
from gatewaykit.types.catalog_price_text import price_text
from gatewaykit.types.common import GatewayModel
from gatewaykit.types.lenient import drop_nulls
from gatewaykit.types.text_views import model_list_repr, model_list_text, short_repr


class ParameterSpec(GatewayModel):
    """One entry of a model's ``parameters`` map: ``{type, values, default}``.

    ``type`` is e.g. ``enum``; ranges may carry ``min``/``max`` as extra fields.
    """

    type: str = "enum"
    values: Optional[List[Any]] = None
    default: Any = None


class ParameterMap(dict):  # type: ignore[type-arg]
    """A model's ``parameters``: a plain dict of name -> :class:`ParameterSpec` that displays as a table."""

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return rich_bundle(self)


class EditSupport(GatewayModel):
    """Image entries' ``edit`` block."""

    supported: bool = False
    max_reference_images: int = 0


class Model(GatewayModel):
    """One catalog entry; ``id`` is the value to pass as ``model``."""

    id: str
    object: str = "model"
    owned_by: Optional[str] = None
    input_modalities: List[str] = Field(default_factory=list)
    output_modalities: List[str] = Field(default_factory=list)
    parameters: Optional[Annotated[dict[str, ParameterSpec], AfterValidator(ParameterMap)]] = None
    edit: Optional[EditSupport] = None
    prompt_max_length: Optional[int] = None

    @model_validator(mode="before")
    @classmethod
    def _null_fields(cls, value: Any) -> Any:
        return drop_nulls(value, ("object", "input_modalities", "output_modalities"))

    @property
    def kind(self) -> str:
        """``chat``, ``image``, ``video`` or ``music``, from the output modalities."""
        outputs = set(self.output_modalities)
        if "video" in outputs:
            return "video"
        if "audio" in outputs or "music" in outputs:
            return "music"
        if "image" in outputs:
            return "image"
        return "chat"

    @property
    def price(self) -> str:
        """The catalog's price as read ("$0.15 / $0.60 per 1M tokens", "$0.03 per image"); "" when it states none."""
        return price_text((self.__pydantic_extra__ or {}).get("pricing"))

    def __repr__(self) -> str:
        return short_repr(f"Model(id={self.id!r}, kind={self.kind!r})")

    def __str__(self) -> str:
        return f"{self.id} ({self.kind})"


class ModelList(GatewayModel):
    """The list envelope ``{object: "list", data: [...]}``; iterable and indexable by id."""

    object: str = "list"
    data: List[Model] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _a_list_of_models(cls, value: Any) -> Any:
        """A bare list of models reads as the envelope; a body without ``data`` (a chat completion, an
        error page's JSON) is refused, naming what it is, rather than read as an empty catalog."""
        if isinstance(value, list):
            return {"object": "list", "data": value}
        if isinstance(value, dict) and value and "data" not in value:
            kind = value.get("object")
            what = f"a {kind!r} object" if isinstance(kind, str) and kind else "an object"
            keys = ", ".join(str(key) for key in list(value)[:8]) + (", ..." if len(value) > 8 else "")
            raise ValueError(f'it is not a list of models (no "data" list): {what} with keys {keys}')
        return value

    def __iter__(self) -> Iterator[Model]:  # type: ignore[override]
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def __getitem__(self, key: int | str) -> Model:
        if isinstance(key, str):
            for model in self.data:
                if model.id == key:
                    return model
            raise KeyError(key)
        return self.data[key]

    def __contains__(self, model_id: Any) -> bool:
        return any(model.id == model_id for model in self.data)

    def __str__(self) -> str:
        return model_list_text(self.data)

    def __repr__(self) -> str:
        return model_list_repr(self.data)

    @property
    def ids(self) -> list[str]:
        return [model.id for model in self.data]

    def to_pandas(self) -> Any:
        """One row per model (id, kind, owned_by, modalities, parameters, edit limits); imports pandas."""
        from gatewaykit.optional_packages import needs

        pd = needs("pandas", "ModelList.to_pandas()", "iterate the list, or read .ids")

        rows = []
        for model in self.data:
            rows.append(
                {
                    "id": model.id,
                    "kind": model.kind,
                    "price": model.price,
                    "owned_by": model.owned_by,
                    "input_modalities": ", ".join(model.input_modalities),
                    "output_modalities": ", ".join(model.output_modalities),
                    "parameters": ", ".join(sorted(model.parameters or {})),
                    "prompt_max_length": model.prompt_max_length,
                    "max_reference_images": model.edit.max_reference_images if model.edit else None,
                }
            )
        return pd.DataFrame(rows, columns=list(rows[0]) if rows else ["id", "kind"])

