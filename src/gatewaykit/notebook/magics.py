"""``%load_ext gatewaykit``: the ``%%chat`` and ``%%image`` cell magics.

``%%chat`` sends the cell as the next turn of the notebook's ``ChatSession`` (kept across cells;
``--new`` starts over) and streams the answer; ``%%image`` generates images from the cell's text. The
client is ``--client NAME``, the one given to :func:`use_client`, or a ``gatewaykit.Client()`` made on
first use. Their options: ``docs/internals.md``.
"""

from __future__ import annotations

from typing import Any, Optional

from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

__all__ = ["GatewayMagics", "load_ipython_extension", "use_client"]

_default_client: Optional[Any] = None


def use_client(client: Any) -> None:
    """Make ``client`` the one ``%%chat`` and ``%%image`` use when no ``--client`` is given."""
    global _default_client
    _default_client = client


def _first_model(client: Any, kind: str) -> Optional[str]:
    for model in client.models.list():
        if model.kind == kind:
            return model.id
    return None


@magics_class
class GatewayMagics(Magics):
    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self.session: Optional[Any] = None  # the notebook's ChatSession
        self.system: Optional[str] = None
        self.chat_model: Optional[str] = None

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The conversation so far, without the system message."""
        if self.session is None:
            return []
        return [message for message in self.session.history if message["role"] != "system"]

    def _namespace(self) -> dict[str, Any]:
        shell = self.shell
        assert shell is not None  # a magic always runs in a shell
        return shell.user_ns  # type: ignore[no-any-return]

    def _client(self, name: Optional[str]) -> Any:
        global _default_client
        if name:
            try:
                return self._namespace()[name]
            except KeyError:
                raise NameError(f"--client {name}: no variable {name!r} in the notebook") from None
        if _default_client is None:
            from gatewaykit.client import Client  # the client package, not the root (which imports this layer)

            _default_client = Client()
        return _default_client

    @magic_arguments()
    @argument("--model", "-m", help="chat model id (default: the previous one, else the catalog's first chat model)")
    @argument("--system", "-s", nargs="+", help="system prompt (changing it starts a new conversation)")
    @argument("--new", action="store_true", help="start a new conversation")
    @argument("--client", help="name of a gatewaykit.Client variable to use")
    @cell_magic
    def chat(self, line: str, cell: str) -> None:
        """Stream the cell's text as a prompt, keeping the conversation across cells."""
        args = parse_argstring(self.chat, line)
        system = " ".join(args.system) if args.system else None
        client = self._client(args.client)
        if args.new or (system is not None and system != self.system) or self.session is None or (
            self.session._client is not client
        ):
            self.system = system if system is not None or args.new else self.system
            self.session = None
        if args.model:
            self.chat_model = args.model
        if self.chat_model is None:
            self.chat_model = _first_model(client, "chat")
        if self.session is None:
            self.session = client.chat.session(model=self.chat_model, system=self.system)
        self.session.model = self.chat_model
        completion = self.session(cell.strip(), stream=True)
        namespace = self._namespace()
        namespace["_chat"] = completion
        namespace["_chat_session"] = self.session

    @magic_arguments()
    @argument("--model", "-m", help="image model id (default: the catalog's first image model)")
    @argument("--n", type=int, help="number of images (1 to 4)")
    @argument("--size", help="WIDTHxHEIGHT, for pixel-dimension models")
    @argument("--aspect-ratio", help="e.g. 16:9")
    @argument("--resolution", help="e.g. 1K, 2K, 4K")
    @argument("--quality", help="low, medium or high")
    @argument("--image-size", help="a named preset size, e.g. 1024x1024")
    @argument("--seed", type=int)
    @argument("--format", dest="output_format", help="png, jpeg or webp")
    @argument("--client", help="name of a gatewaykit.Client variable to use")
    @cell_magic
    def image(self, line: str, cell: str) -> Any:
        """Generate images from the cell's text; the result is the cell's output."""
        args = parse_argstring(self.image, line)
        client = self._client(args.client)
        fields: dict[str, Any] = {}
        for name in ("n", "aspect_ratio", "resolution", "quality", "image_size", "seed", "output_format"):
            value = getattr(args, name)
            if value is not None:
                fields[name] = value
        if args.size:
            width, _, height = args.size.lower().partition("x")
            fields["width"], fields["height"] = int(width), int(height)
        model = args.model or _first_model(client, "image")
        result = client.images.generate(model=model, prompt=cell.strip(), **fields)
        self._namespace()["_image"] = result
        return result


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics (``%load_ext gatewaykit`` calls this)."""
    ipython.register_magics(GatewayMagics)
