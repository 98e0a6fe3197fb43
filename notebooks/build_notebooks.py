"""The single source of the demo notebooks: writes them, and with ``--execute`` runs them.

    .venv/bin/python notebooks/build_notebooks.py            # write the .ipynb files (no outputs)
    .venv/bin/python notebooks/build_notebooks.py --execute  # and store outputs from the offline gateway

Edit the cells here, never the .ipynb files by hand. Stored outputs come from
one run against the offline gateway (``GATEWAYKIT_OFFLINE_TIME_SCALE=0.05``),
so GitHub shows them and nbval (``pytest notebooks``) compares re-runs with
them through ``sanitize.cfg``. Cells whose first output changes while they run
(live streams, progress displays, timings) start with ``# NBVAL_IGNORE_OUTPUT``
and are followed by a cell that asserts on the result.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from textwrap import dedent

import nbformat

HERE = Path(__file__).resolve().parent
REPO = "https://github.com/gatewaykit/gatewaykit"  # the README's badge URL

IGNORE = "# NBVAL_IGNORE_OUTPUT\n"


def setup_cell() -> str:
    return dedent(
        f'''\
        import sys

        if "google.colab" in sys.modules:  # in Colab: install gatewaykit first
            %pip install -q "gatewaykit[notebook] @ git+{REPO}"

        import gatewaykit as gk

        client = gk.Client()  # SVC_API_KEY + SVC_BASE_URL: the real gateway; no key: the offline one
        print("This notebook uses", "the OFFLINE gateway: every result is synthetic" if client.offline
              else f"the real gateway at {{client.base_url}}: every request is billed")'''
    )


SETUP_MD = dedent(
    """\
    ### Which gateway?

    The first cell picks the gateway. With `SVC_API_KEY` and `SVC_BASE_URL` set
    (in Colab the key may be a secret named `SVC_API_KEY`) it talks to the real
    gateway and you pay for what you run. Without a key it starts the built-in
    **offline gateway**, a local server with synthetic models: free, fast, and
    clearly labelled as synthetic."""
)

PICK = dedent(
    '''\
    catalog = client.models.list()


    def pick(offline_id, kind, needs=()):
        """The offline gateway's model, or with a real key the first catalog model of that kind accepting `needs`."""
        if offline_id in catalog:
            return offline_id
        for model in catalog:
            if model.kind == kind and all(name in (model.parameters or {}) for name in needs):
                return model.id
        raise LookupError(f"no {kind} model accepting {needs} in this key's catalog")'''
)


def md(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(dedent(text).strip())


def code(text: str) -> nbformat.NotebookNode:
    marker = ""
    if text.startswith(IGNORE):  # IGNORE + an indented block: dedent the block alone
        marker, text = IGNORE, text[len(IGNORE):]
    return nbformat.v4.new_code_cell(marker + dedent(text).strip())


def intro(title: str, body: str) -> list:
    return [md(f"# {title}\n\n{dedent(body).strip()}"), code(setup_cell()), md(SETUP_MD)]


# --------------------------------------------------------------------------- notebooks


def quickstart() -> list:
    return [
        *intro(
            "gatewaykit quickstart",
            """
            A two-minute tour of the **Multi-modal Generation Gateway** from Python:
            one key and one prepaid balance give chat, image, video and music models.
            Every cell below runs as it is, with or without a key.
            """,
        ),
        md(
            """
            ## The catalog

            `client.models.list()` shows the models your key may call. Image, video and
            music entries list the parameters each model accepts.
            """
        ),
        code(
            """
            catalog = client.models.list()
            catalog
            """
        ),
        code(PICK),
        md(
            """
            ## Chat

            `client.chat.ask()` streams the answer: in a notebook it appears word by word
            and ends as a static Markdown answer. It returns a `ChatCompletion`.
            """
        ),
        code(
            IGNORE
            + """
            answer = client.chat.ask("Explain in three short sentences what server-sent events are.",
                                     model=pick("chat-mini", "chat"))
            """
        ),
        code(
            """
            print(answer.choices[0].message.content[:80], "...")
            print("tokens:", answer.usage.total_tokens, "| cost in USD:", answer.usage.cost.total_cost)
            assert answer.choices[0].message.content
            """
        ),
        md(
            """
            ## An image

            `client.images.generate()` returns an `ImageResult`: it shows the images inline,
            and `.images` gives them as PIL images.
            """
        ),
        code(
            """
            picture = client.images.generate(model=pick("image-pixels", "image", ["width", "height"]),
                                              prompt="a lighthouse at dusk", width=512, height=320)
            picture
            """
        ),
        code(
            """
            picture.images[0].size
            """
        ),
        md(
            """
            ## A video

            Video and music are **jobs**: `create()` returns at once, the gateway works,
            and you poll until it is done. In a notebook, `job.wait()` shows the status and
            elapsed time while it waits, then an embedded player.
            """
        ),
        code(
            IGNORE
            + """
            job = client.videos.create(model=pick("video-tiers", "video", ["resolution"]),
                                       prompt="waves at sunrise", duration=4, resolution="480p")
            video = job.wait()  # shows progress while it runs, then a player
            """
        ),
        code(
            """
            assert video.status == "completed"
            print(video.model, video.size, video.seconds, "seconds")
            """
        ),
        md(
            """
            ## A song

            Music models take a style `prompt` and lyrics with section tags such as
            `[Verse]` and `[Chorus]`.
            """
        ),
        code(
            IGNORE
            + """
            job = client.music.create(model=pick("music-song", "music"), prompt="upbeat synth pop",
                                      lyrics_prompt="[Verse]\\nHello gateway\\n[Chorus]\\nOne key for every model",
                                      bitrate=32000)  # a low bitrate keeps this notebook small
            song = job.wait()
            """
        ),
        code(
            """
            assert song.status == "completed"
            print(song.model, song.seconds, "seconds")
            """
        ),
        md(
            """
            ## What it cost

            Every request is recorded in the cost ledger, `gk.ledger`: one row per request
            or job, as a pandas DataFrame.
            """
        ),
        code(
            """
            gk.ledger.to_pandas()[["kind", "model", "status", "cost_source"]]
            """
        ),
        code(
            IGNORE
            + """
            print(f"spent so far: ${gk.ledger.total_cost:.4f}")
            """
        ),
        md(
            """
            ## Next

            Each topic has its own notebook: [chat](01-chat.ipynb), [images](02-images.ipynb),
            [video](03-video.ipynb), [music](04-music.ipynb), [the cost ledger](05-cost-ledger.ipynb),
            [many requests at once](06-many-requests.ipynb) and
            [errors and retries](07-errors-and-retries.ipynb).
            """
        ),
    ]


def chat() -> list:
    return [
        *intro(
            "Chat",
            """
            Streaming answers, reasoning, tools, structured JSON and pictures as input.
            """,
        ),
        code(
            PICK
            + "\n\n\n"
            + dedent(
                """
            CHAT = pick("chat-mini", "chat")
            REASONER = pick("chat-reasoner", "chat")
            VISION = pick("chat-vision", "chat")
            print(CHAT, REASONER, VISION)
            """
            ).strip()
        ),
        md(
            """
            ## Ask, and watch it stream

            `ask()` sends one question and renders the answer live. `system=` sets the
            assistant's role.
            """
        ),
        code(
            IGNORE
            + """
            answer = client.chat.ask("Give me three tips for writing clear error messages.",
                                     model=CHAT, system="You are a concise technical writer.")
            """
        ),
        code(
            """
            assert answer.choices[0].finish_reason == "stop"
            print(answer.usage.total_tokens, "tokens")
            """
        ),
        md(
            """
            ## The stream itself

            `chat.completions.create(stream=True)` gives a `ChatStream`: iterate over its
            chunks yourself, then `.final()` assembles them into one `ChatCompletion`
            (with usage and cost, which arrive in the last chunk).
            """
        ),
        code(
            """
            stream = client.chat.completions.create(
                model=CHAT, messages=[{"role": "user", "content": "Count from one to five in words."}], stream=True
            )
            pieces = []
            for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content:
                    pieces.append(chunk.choices[0].delta.content)
            completion = stream.final()
            assert "".join(pieces) == completion.choices[0].message.content
            print(len(pieces), "chunks")
            """
        ),
        md(
            """
            ## Reasoning

            Reasoning models think before they answer. `reasoning_effort` (`low`, `medium`,
            `high`) sets how long; the trace is in `message.reasoning` and its tokens are
            billed as `reasoning_tokens`.
            """
        ),
        code(
            """
            thought = client.chat.completions.create(
                model=REASONER, reasoning_effort="low",
                messages=[{"role": "user", "content": "Is 221 a prime number?"}],
            )
            details = thought.usage.completion_tokens_details
            print("reasoning tokens:", details.reasoning_tokens if details else None)
            thought
            """
        ),
        md(
            """
            ## Tools

            Describe functions with a JSON schema; the model answers with `tool_calls`
            instead of text. Run the function yourself, send its result back as a `tool`
            message, and the model writes the final answer.
            """
        ),
        code(
            """
            import json

            tools = [{
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Current weather in a city",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                   "required": ["city"]},
                },
            }]
            messages = [{"role": "user", "content": "What is the weather in Lisbon?"}]
            first = client.chat.completions.create(model=CHAT, messages=messages, tools=tools)
            call = first.choices[0].message.tool_calls[0]
            print(call.function.name, call.function.arguments)
            """
        ),
        code(
            """
            arguments = json.loads(call.function.arguments)
            result = {"city": arguments.get("city"), "temperature_c": 21, "sky": "clear"}  # our "weather service"
            messages += [first.choices[0].message.model_dump(exclude_none=True),
                         {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}]
            final = client.chat.completions.create(model=CHAT, messages=messages, tools=tools)
            assert final.choices[0].message.content
            final
            """
        ),
        md(
            """
            ## Structured JSON

            `response_format={"type": "json_schema", ...}` asks for JSON that follows your
            schema. Parse it with `json.loads` (and validate it: model output is untrusted).
            """
        ),
        code(
            """
            schema = {
                "type": "object",
                "properties": {"name": {"type": "string"}, "country": {"type": "string"},
                               "population": {"type": "integer"}},
                "required": ["name", "country", "population"],
            }
            reply = client.chat.completions.create(
                model=CHAT,
                messages=[{"role": "user", "content": "Describe a large city as JSON."}],
                response_format={"type": "json_schema", "json_schema": {"name": "city", "schema": schema}},
            )
            city = json.loads(reply.choices[0].message.content)
            assert set(schema["required"]) <= set(city)
            sorted(city)
            """
        ),
        md(
            """
            ## Vision: pictures as input

            Vision models accept images in the message content. `gk.image_part()` turns a
            path, bytes or a PIL image into a content part. Here the picture comes from an
            image model.
            """
        ),
        code(
            """
            picture = client.images.generate(model=pick("image-pixels", "image", ["width", "height"]),
                                              prompt="a red bicycle by a blue door", width=256, height=256)
            picture
            """
        ),
        code(
            IGNORE
            + """
            seen = client.chat.ask(
                [{"type": "text", "text": "What is in this picture?"}, gk.image_part(picture.images[0])],
                model=VISION,
            )
            """
        ),
        code(
            """
            assert seen.choices[0].message.content
            print(seen.usage.prompt_tokens, "prompt tokens (the picture counts too)")
            """
        ),
    ]


def images() -> list:
    return [
        *intro(
            "Images",
            """
            Image models size their pictures in one of four ways, write PNG, JPEG or WebP,
            and edit pictures from several reference images.
            """,
        ),
        code(PICK),
        md(
            """
            ## What a model accepts

            Each image model's catalog entry lists its `parameters` (with allowed values and
            defaults) and whether it can edit (`edit.max_reference_images`).
            """
        ),
        code(
            """
            for model in catalog:
                if model.kind == "image":
                    print(f"{model.id:<14} {', '.join(sorted(model.parameters or {}))}")
            """
        ),
        code(
            """
            client.models.get(pick("image-tiers", "image", ["aspect_ratio", "resolution"]))
            """
        ),
        md(
            """
            ## Four ways to say how big

            1. **pixels**: `width` and `height`;
            2. **tiers**: `aspect_ratio` and a `resolution` tier (`1K`, `2K`, `4K`), priced per tier;
            3. **aspect**: `aspect_ratio` only;
            4. **presets**: a named `image_size` such as `landscape_4_3`.

            The client checks values against the catalog before sending, so a typo fails at
            once with the allowed values.
            """
        ),
        code(
            """
            by_pixels = client.images.generate(model=pick("image-pixels", "image", ["width", "height"]),
                                               prompt="a paper boat on a pond", width=384, height=256)
            by_pixels
            """
        ),
        code(
            """
            by_tier = client.images.generate(model=pick("image-tiers", "image", ["aspect_ratio", "resolution"]),
                                             prompt="a mountain cabin in snow", aspect_ratio="16:9",
                                             resolution="1K", output_format="jpeg")
            print(by_tier.size)
            by_tier.images[0].size
            """
        ),
        code(
            """
            by_aspect = client.images.generate(model=pick("image-aspect", "image", ["aspect_ratio"]),
                                               prompt="a tall glass of lemonade", aspect_ratio="3:4",
                                               output_format="jpeg")
            by_aspect.images[0].size
            """
        ),
        code(
            """
            by_preset = client.images.generate(model=pick("image-preset", "image", ["image_size"]),
                                               prompt="a city skyline at night", image_size="landscape_4_3",
                                               output_format="jpeg")
            by_preset.images[0].size
            """
        ),
        md(
            """
            ## Formats, several at once, and saving

            `output_format` picks PNG, JPEG or WebP; `n` asks for several pictures (shown as
            a grid); `.save(folder)` writes them with the right extension.
            """
        ),
        code(
            """
            import tempfile

            several = client.images.generate(model=pick("image-pixels", "image", ["width", "height"]),
                                             prompt="a hot air balloon", width=256, height=256, n=2,
                                             output_format="webp")
            folder = tempfile.mkdtemp()
            saved = several.save(folder)
            print([path.suffix for path in saved])
            several
            """
        ),
        md(
            """
            ## Edits with several reference images

            `images.edit(image=[...])` takes paths, bytes, file objects or PIL images. Models
            differ in how many references they accept (`edit.max_reference_images`).
            """
        ),
        code(
            """
            editor = client.models.get(pick("image-tiers", "image", ["aspect_ratio", "resolution"]))
            print("up to", editor.edit.max_reference_images, "reference images")
            edited = client.images.edit(model=editor.id, prompt="combine these into one poster",
                                        image=[by_pixels.images[0], several.images[0], several.images[1]],
                                        aspect_ratio="1:1", resolution="1K", output_format="jpeg")
            edited
            """
        ),
    ]


def video() -> list:
    return [
        *intro(
            "Video",
            """
            Video generation is asynchronous: create a job, follow its progress, play the
            result. Also: a picture as the first frame, and cancelling.
            """,
        ),
        code(PICK),
        code(
            """
            VIDEO = pick("video-tiers", "video", ["resolution"])
            client.models.get(VIDEO).parameters
            """
        ),
        md(
            """
            ## Create a job

            `videos.create()` returns a `VideoJob` at once, usually `queued`. Nothing is
            charged yet: the gateway bills a video when it completes.
            """
        ),
        code(
            """
            job = client.videos.create(model=VIDEO, prompt="a paper plane over a city", duration=4,
                                       resolution="480p")
            print(job.status)
            """
        ),
        md(
            """
            ## Follow it without blocking

            `show_progress(job)` returns immediately: a background thread polls the job and
            updates the display (status, elapsed time, a progress bar once similar jobs have
            finished), which turns into a player when the job completes. You can keep working
            in other cells meanwhile. Several jobs share one dashboard.
            """
        ),
        code(
            IGNORE
            + """
            from gatewaykit.notebook import show_progress

            progress = show_progress(job)
            """
        ),
        md(
            """
            `progress.join()` waits for it (only needed when later code uses the result).
            `job.wait()` blocks until the job ends, showing the same display in a notebook;
            it raises `JobFailedError` if the job fails.
            """
        ),
        code(
            """
            progress.join(timeout=120)
            assert job.status == "completed"
            print(job.size, job.seconds, "seconds")
            """
        ),
        md(
            """
            ## Play it, save it

            A completed job displays as an embedded player (the video is inside the notebook,
            so it plays on GitHub-rendered HTML, Binder and Colab). `job.save()` writes the MP4.
            """
        ),
        code(
            """
            job
            """
        ),
        code(
            """
            import tempfile
            from pathlib import Path

            path = job.save(Path(tempfile.mkdtemp()) / "paper-plane.mp4")
            print(path.name, path.stat().st_size > 0)
            """
        ),
        md(
            """
            ## A picture as the first frame

            Image-to-video models take `input_reference`: a URL, a path, bytes or a PIL
            image. This time we block with `job.wait()`.
            """
        ),
        code(
            """
            still = client.images.generate(model=pick("image-pixels", "image", ["width", "height"]),
                                           prompt="a calm sea", width=256, height=256)
            still
            """
        ),
        code(
            IGNORE
            + """
            moving = client.videos.create(model=VIDEO, prompt="waves roll in", input_reference=still.images[0],
                                          duration=4, resolution="480p", aspect_ratio="1:1").wait()
            """
        ),
        code(
            """
            assert moving.status == "completed"
            print(moving.size)
            """
        ),
        md(
            """
            ## Cancel

            A job you no longer need can be cancelled while it runs; a cancelled job is never
            charged. (With ipywidgets installed, `show_progress` also shows a Cancel button.)
            """
        ),
        code(
            """
            long_one = client.videos.create(model=pick("video-range", "video", ["duration"]),
                                            prompt="a slow sunset", duration=12)
            long_one.cancel()
            print(long_one.status)
            assert long_one.status in ("cancelled", "canceled", "deleted")
            """
        ),
    ]


def music() -> list:
    return [
        *intro(
            "Music",
            """
            Songs from a style prompt and lyrics. Like video, music is an asynchronous job.
            """,
        ),
        code(PICK),
        code(
            """
            SONG = pick("music-song", "music")
            client.models.get(SONG).parameters
            """
        ),
        md(
            """
            ## Lyrics

            `lyrics_prompt` is required (10 to 3000 characters). Section tags such as
            `[Verse]`, `[Chorus]` and `[Bridge]` shape the song; `prompt` describes the style
            (at most 300 characters).
            """
        ),
        code(
            """
            lyrics = \"\"\"[Verse]
            Packets in the morning light
            Tokens streaming through the night
            [Chorus]
            One key, one balance, every song
            The gateway hums along
            \"\"\"
            job = client.music.create(model=SONG, prompt="mellow acoustic folk, warm vocals",
                                      lyrics_prompt=lyrics, bitrate=32000)  # a low bitrate keeps this notebook small
            print(job.status)
            """
        ),
        md(
            """
            ## Wait and listen

            The progress display turns into an audio player when the song is ready.
            """
        ),
        code(
            IGNORE
            + """
            song = job.wait()
            """
        ),
        code(
            """
            assert song.status == "completed"
            print(song.seconds, "seconds")
            """
        ),
        md(
            """
            ## Save it

            `job.save(folder)` writes `<job id>.mp3`; `job.content()` gives the bytes.
            """
        ),
        code(
            """
            import tempfile

            path = job.save(tempfile.mkdtemp())
            data = job.content()
            print(path.suffix, len(data) == path.stat().st_size)
            """
        ),
        md(
            """
            ## Mistakes caught before sending

            The client checks requests against the catalog: a missing or too short
            `lyrics_prompt` fails at once, with nothing sent and nothing charged.
            """
        ),
        code(
            """
            try:
                client.music.create(model=SONG, prompt="jazz", lyrics_prompt="la la")
            except gk.BadRequestError as error:
                print(type(error).__name__, "-", error.param)
            """
        ),
    ]


def ledger() -> list:
    return [
        *intro(
            "The cost ledger",
            """
            Every request's cost lands in `gk.ledger`: a table you can summarise by model or
            tag, plot, export, and guard with a budget.
            """,
        ),
        code(PICK),
        md(
            """
            ## Tags

            Requests made inside `with gk.ledger.tag(...)` carry that tag, so you can see
            what each experiment cost.
            """
        ),
        code(
            """
            CHAT = pick("chat-mini", "chat")
            IMAGE = pick("image-pixels", "image", ["width", "height"])

            with gk.ledger.tag("haiku"):
                for topic in ["rain", "trains", "tea"]:
                    client.chat.completions.create(model=CHAT, messages=[{"role": "user",
                                                                          "content": f"A haiku about {topic}"}])
            with gk.ledger.tag("posters"):
                client.images.generate(model=IMAGE, prompt="a retro travel poster", width=256, height=256)
            len(gk.ledger)
            """
        ),
        md(
            """
            ## The ledger shows itself

            Displayed, the ledger is a table with totals and a per-model summary.
            """
        ),
        code(
            IGNORE
            + """
            gk.ledger
            """
        ),
        code(
            """
            gk.ledger.summary()
            """
        ),
        code(
            """
            gk.ledger.summary(by="tag")
            """
        ),
        md(
            """
            ## As a DataFrame

            `to_pandas()` has one row per request: tokens, cost, status, latency, retries, tags.
            `cost_source` says where the amount came from (`reported` = the exact amount the
            gateway deducted).
            """
        ),
        code(
            """
            frame = gk.ledger.to_pandas()
            frame[["kind", "model", "status", "total_tokens", "cost_source", "tags"]]
            """
        ),
        md("## A plot of cumulative cost"),
        code(
            IGNORE
            + """
            ax = gk.ledger.plot()
            """
        ),
        md(
            """
            ## Export

            CSV for spreadsheets, Parquet for pandas and friends.
            """
        ),
        code(
            """
            import tempfile
            from pathlib import Path

            import pandas as pd

            folder = Path(tempfile.mkdtemp())
            gk.ledger.to_csv(folder / "costs.csv")
            gk.ledger.to_parquet(folder / "costs.parquet")
            assert len(pd.read_csv(folder / "costs.csv")) == len(pd.read_parquet(folder / "costs.parquet")) == len(gk.ledger)
            sorted(path.name for path in folder.iterdir())
            """
        ),
        md(
            """
            ## A budget

            A ledger with a `budget` (in USD) refuses a request **before anything is sent**
            (`BudgetExceededError`) once the recorded total reaches it. Video and music jobs
            carry no cost in the gateway's answers; give the ledger a price table and it also
            refuses a request whose *estimated* cost would pass the budget (and estimates
            those jobs' costs). `gk.Client(ledger=...)` records into a ledger of your own.
            """
        ),
        code(
            """
            VIDEO = pick("video-tiers", "video", ["resolution"])
            prices = {VIDEO: {"per_second": {"480p": 0.05, "720p": 0.10, "1080p": 0.25}}}  # your price list, USD
            careful = gk.Ledger(budget=0.50, prices=prices)
            careful_client = gk.Client(ledger=careful)
            try:
                careful_client.videos.create(model=VIDEO, prompt="an expensive epic", duration=8, resolution="1080p")
            except gk.BudgetExceededError as error:
                print("not sent:", error)
            assert len(careful) == 0
            """
        ),
        md(
            """
            The process-wide ledger takes a budget the same way: `gk.ledger.budget = 5.00`.
            """
        ),
    ]


def many_requests() -> list:
    return [
        *intro(
            "Many requests at once",
            """
            Send many requests concurrently: `client.map` and `client.batch` with the normal
            client (threads, works in any cell), or `AsyncClient` with `await`.
            """,
        ),
        code(PICK),
        code(
            """
            CHAT = pick("chat-mini", "chat")
            topics = ["volcanoes", "octopuses", "lighthouses", "glaciers", "comets", "bees"]


            def one_line(topic):
                reply = client.chat.completions.create(
                    model=CHAT, messages=[{"role": "user", "content": f"One sentence about {topic}."}]
                )
                return reply.choices[0].message.content
            """
        ),
        md(
            """
            ## `client.map`: a function over many items

            Results come back in input order. `concurrency` bounds how many run at once
            (respect your rate limit).
            """
        ),
        code(
            IGNORE
            + """
            import time

            started = time.perf_counter()
            sentences = client.map(one_line, topics, concurrency=6)
            print(f"{len(sentences)} answers in {time.perf_counter() - started:.2f} s")
            """
        ),
        code(
            """
            assert sentences.ok and len(sentences) == len(topics)
            sentences
            """
        ),
        md(
            """
            ## Failures do not lose the rest

            An item that fails holds its exception; `.errors` lists them, `.values` the
            successes, `.raise_first()` raises the first error.
            """
        ),
        code(
            """
            calls = [
                lambda: client.images.generate(model=pick("image-pixels", "image", ["width", "height"]),
                                               prompt="a kite", width=256, height=256),
                lambda: client.images.generate(model="no-such-model", prompt="a kite"),
            ]
            results = client.batch(calls)
            print(results)
            for index, error in results.errors:
                print(index, type(error).__name__)
            """
        ),
        md(
            """
            ## Async: `AsyncClient` and `asyncio.gather`

            Notebooks run an event loop, so you can `await` at the top level of a cell.
            `AsyncClient` has the same methods as `Client`, each awaitable.
            """
        ),
        code(
            """
            import asyncio

            aclient = gk.AsyncClient()


            async def one_line_async(topic):
                reply = await aclient.chat.completions.create(
                    model=CHAT, messages=[{"role": "user", "content": f"One sentence about {topic}."}]
                )
                return reply.choices[0].message.content


            answers = await asyncio.gather(*(one_line_async(topic) for topic in topics))
            assert answers == list(sentences)  # the offline gateway is deterministic
            len(answers)
            """
        ),
        md(
            """
            `aclient.map` bounds the concurrency for you, like `client.map`.
            """
        ),
        code(
            """
            bounded = await aclient.map(one_line_async, topics, concurrency=3)
            print(bounded)
            await aclient.close()
            """
        ),
    ]


def errors() -> list:
    return [
        *intro(
            "Errors and retries",
            """
            What each error looks like and how to handle it. Every error is a
            `gk.GatewayError` with `status`, `code`, `type`, `param` and `message`, and one
            subclass per case.
            """,
        ),
        code(PICK),
        md(
            """
            ## Caught before sending

            The client checks requests against the catalog: a prompt over the model's
            `prompt_max_length` raises `PromptTooLongError` with nothing sent. With
            `validate=False` the gateway itself answers with the same error class.
            """
        ),
        code(
            """
            IMAGE = pick("image-aspect", "image", ["aspect_ratio"])
            too_long = "a very long prompt " * 1000
            try:
                client.images.generate(model=IMAGE, prompt=too_long)
            except gk.PromptTooLongError as error:
                local = error
            print(type(local).__name__, local.status, local.code)
            """
        ),
        code(
            """
            try:
                client.images.generate(model=IMAGE, prompt=too_long, validate=False)
            except gk.PromptTooLongError as error:
                remote = error
            remote
            """
        ),
        md("## Unknown models, bad keys"),
        code(
            """
            try:
                client.chat.completions.create(model="no-such-model", messages=[{"role": "user", "content": "hi"}])
            except gk.ModelNotFoundError as error:
                print(type(error).__name__, error.status, error.code)
            """
        ),
        code(
            """
            wrong_key = gk.Client(api_key="sk-bf-this-key-is-wrong", base_url=client.base_url)
            try:
                wrong_key.models.list()
            except gk.AuthenticationError as error:
                print(type(error).__name__, error.status)
            """
        ),
        md(
            """
            ## Practising with faults

            The offline gateway can **inject faults** on request: the header
            `X-Emulator-Fault` takes `429`, `500`, `503`, `disconnect`, `slow` or `job-fail`.
            We start a private offline gateway for this (it works the same with a real key
            set, and costs nothing).
            """
        ),
        code(
            """
            lab = gk.emulator.start(time_scale=0)
            practice = gk.Client(api_key=lab.api_key, base_url=lab.base_url)
            hello = [{"role": "user", "content": "hello"}]


            def fault(kind):
                return {"X-Emulator-Fault": kind}
            """
        ),
        md(
            """
            ### 429: too many requests

            The client retries 429 and 5xx answers (exponential backoff with jitter,
            honouring `Retry-After`), `max_retries` times (default 2). When the gateway
            keeps refusing, the error is raised; `retry_after` says when to come back.
            """
        ),
        code(
            """
            impatient = gk.Client(api_key=lab.api_key, base_url=lab.base_url, max_retries=0)
            try:
                impatient.chat.completions.create(model="chat-mini", messages=hello, extra_headers=fault("429"))
            except gk.RateLimitError as error:
                print(type(error).__name__, error.status, "retry after", error.retry_after, "s")
            """
        ),
        code(
            """
            try:
                practice.chat.completions.create(model="chat-mini", messages=hello, extra_headers=fault("429"))
            except gk.RateLimitError:
                print("attempts:", gk.ledger.rows[-1]["attempts"])  # 1 + max_retries
            """
        ),
        md(
            """
            ### 500 and 503: the gateway had a problem

            `ServerError`. Usually temporary, so retried. Below, a gateway that fails
            40% of requests at random: with retries, every request still succeeds.
            """
        ),
        code(
            """
            try:
                impatient.chat.completions.create(model="chat-mini", messages=hello, extra_headers=fault("503"))
            except gk.ServerError as error:
                print(type(error).__name__, error.status)
            """
        ),
        code(
            """
            flaky_gateway = gk.emulator.start(time_scale=0, fault_rate=0.4, fault_kinds=("500", "503"), seed=7)
            flaky = gk.Client(api_key=flaky_gateway.api_key, base_url=flaky_gateway.base_url, max_retries=5)
            with gk.ledger.tag("flaky"):
                replies = [flaky.chat.completions.create(model="chat-mini", messages=hello) for _ in range(8)]
            attempts = [row["attempts"] for row in gk.ledger.rows if "flaky" in row["tags"]]
            print("all answered:", len(replies) == 8, "| attempts per request:", attempts)
            """
        ),
        md(
            """
            ### A dropped connection mid-stream

            `StreamInterruptedError` (an `APIConnectionError`) keeps what arrived in
            `partial`. A broken stream is not re-sent automatically: the gateway may have
            billed it.
            """
        ),
        code(
            """
            stream = practice.chat.completions.create(model="chat-mini", stream=True, extra_headers=fault("disconnect"),
                                                      messages=[{"role": "user", "content": "Tell me a long story."}])
            try:
                stream.final()
            except gk.StreamInterruptedError as error:
                print(type(error).__name__, "| partial answer kept:", error.partial is not None)
            """
        ),
        md(
            """
            ### A job that fails

            `job.wait()` raises `JobFailedError` with the gateway's message. Failed jobs
            are never charged.
            """
        ),
        code(
            IGNORE
            + """
            doomed = practice.videos.create(model="video-range", prompt="a storm", duration=2,
                                            extra_headers=fault("job-fail"))
            try:
                doomed.wait(timeout=60)
            except gk.JobFailedError as error:
                failure = error
            """
        ),
        code(
            """
            print(type(failure).__name__, "| status:", doomed.status, "|", failure.message)
            """
        ),
        md(
            """
            ### Out of money: 402

            A gateway account with almost no balance answers `InsufficientQuotaError`.
            (The ledger's own budget, `BudgetExceededError`, stops a request before it is
            sent; this is the gateway's balance.)
            """
        ),
        code(
            """
            student = {"accounts": [{"id": "student", "balance_usd": 0.01,
                                     "keys": [{"key": "sk-bf-student-0000000000000001", "status": "active", "models": "*"}]}]}
            broke_gateway = gk.emulator.start(accounts=student, time_scale=0)
            broke = gk.Client(api_key=broke_gateway.api_key, base_url=broke_gateway.base_url)
            try:
                broke.images.generate(model="image-tiers", prompt="a gold coin", resolution="4K")
            except gk.InsufficientQuotaError as error:
                print(type(error).__name__, error.status, error.code)
            """
        ),
        md(
            """
            ## Handling them

            Catch the specific classes you can act on, then `gk.GatewayError` for the rest.
            An error displays itself in a notebook, without the key.
            """
        ),
        code(
            """
            def describe(prompt, **options):
                try:
                    reply = practice.chat.completions.create(model="chat-mini",
                                                             messages=[{"role": "user", "content": prompt}], **options)
                    return reply.choices[0].message.content[:40]
                except gk.RateLimitError as error:
                    return f"busy: try again in {error.retry_after} s"
                except (gk.ServerError, gk.APIConnectionError):
                    return "the gateway is having trouble; try later"
                except gk.GatewayError as error:
                    return f"{type(error).__name__}: {error.message}"


            print(describe("hello", extra_headers=fault("500")))
            print(describe("hello", extra_headers=fault("429")))
            """
        ),
        code(
            """
            for gateway in (lab, flaky_gateway, broke_gateway):
                gateway.stop()
            """
        ),
    ]


NOTEBOOKS = {
    "00-quickstart.ipynb": quickstart,
    "01-chat.ipynb": chat,
    "02-images.ipynb": images,
    "03-video.ipynb": video,
    "04-music.ipynb": music,
    "05-cost-ledger.ipynb": ledger,
    "06-many-requests.ipynb": many_requests,
    "07-errors-and-retries.ipynb": errors,
}


def build(name: str) -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = NOTEBOOKS[name]()
    notebook.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"{Path(name).stem[:2]}-{index:02d}"  # stable ids: small diffs
    return notebook


def execute(notebook: nbformat.NotebookNode) -> None:
    from nbclient import NotebookClient

    NotebookClient(
        notebook, timeout=300, kernel_name="python3", record_timing=False,
        resources={"metadata": {"path": str(HERE)}},
    ).execute()  # fmt: skip
    notebook.metadata.pop("widgets", None)
    notebook.metadata["language_info"] = {"name": "python"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--execute", action="store_true", help="run each notebook and keep its outputs")
    parser.add_argument("names", nargs="*", help="notebooks to build (default: all)")
    args = parser.parse_args(argv)
    if args.execute:
        os.environ.pop("SVC_API_KEY", None)
        os.environ.pop("SVC_BASE_URL", None)
        os.environ.setdefault("GATEWAYKIT_OFFLINE_TIME_SCALE", "0.05")
    for name in args.names or NOTEBOOKS:
        notebook = build(name)
        if args.execute:
            execute(notebook)
        nbformat.validate(notebook)
        nbformat.write(notebook, HERE / name)
        print(f"wrote {name} ({(HERE / name).stat().st_size // 1024} KB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
