"""What a student's notebook does, as a script the grading tests run in a fresh process (the switches are
process-wide): every call kind, with ``api_key=``/``base_url=`` given as a student would. Prints one line of
JSON: everything a grader could see (text, JSON, tool calls, ids, timestamps, digests of the media, costs).

``python student_calls.py URL`` passes ``URL`` as ``base_url=`` (and a key) to every client.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys

import gatewaykit as gk


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def main(url: str) -> None:
    seen: dict = {}
    client = gk.Client(api_key="sk-student", base_url=url)
    seen["offline"] = client.offline
    chat = client.models.pick("chat")
    answer = client.chat.ask("Name a colour.", model=chat)
    seen["chat"] = [answer.id, answer.created, answer.choices[0].message.content, answer.usage.cost.total_cost]
    pet = client.chat.ask("A pet as JSON", model=client.models.pick("chat", ["json_schema"]),
                          response_format={"type": "json_schema", "json_schema": {"name": "pet", "schema": {
                              "type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                              "required": ["name", "age"]}}})
    seen["json"] = json.loads(pet.choices[0].message.content)
    weather = {"type": "function", "function": {"name": "weather", "description": "The weather in a city.",
               "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
    tools = client.chat.completions.create(model=client.models.pick("chat", ["tools"]), tools=[weather], tool_choice="required",
                               messages=[{"role": "user", "content": "What is the weather in Paris?"}])
    seen["tool_calls"] = [[call.function.name, call.function.arguments]
                          for call in (tools.choices[0].message.tool_calls or [])]
    picture = client.images.generate(model=client.models.pick("image", ["width", "height"]), prompt="a lighthouse",
                                     width=256, height=256)
    seen["image"] = [picture.created, digest(picture.data[0].b64_json.encode()), picture.usage.cost.total_cost]
    video = client.videos.create(model=client.models.pick("video", ["resolution"]), prompt="waves", duration=4,
                                 resolution="480p").wait()
    seen["video"] = [video.id, video.created_at, video.completed_at, digest(video.content())]
    song = client.music.create(model=client.models.pick("music", ["lyrics_prompt"]), prompt="pop",
                               lyrics_prompt="[Verse]\nHello there\n[Chorus]\nOne key", bitrate=32000).wait()
    seen["song"] = [song.id, song.created_at, song.completed_at, digest(song.content())]
    seen["map"] = [r.choices[0].message.content[:40] for r in
                   client.map(lambda word: client.chat.completions.create(model=chat, messages=[{"role": "user", "content": word}]),
                              ["one", "two", "three"])]
    comparison = client.compare("Say hi", models=[m.id for m in client.models.list() if m.kind == "chat"][:2])
    seen["compare"] = [str(result)[:60] for result in comparison.results]

    async def asynchronous() -> str:
        async with gk.AsyncClient(api_key="sk-student", base_url=url) as aclient:
            reply = await aclient.chat.completions.create(model=chat, messages=[{"role": "user", "content": "async"}])
            return f"{aclient.offline} {reply.id} {reply.choices[0].message.content[:40]}"

    seen["async"] = asyncio.run(asynchronous())
    seen["ledger_costs"] = sorted(float(cost) for cost in gk.ledger.to_pandas()["total_cost"].fillna(-1))  # map: rows in finishing order
    print(json.dumps(seen, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1])
