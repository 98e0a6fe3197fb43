"""litellm's ``completion()`` through chat, streaming, a tool round trip and structured output.

Run as a script (``python litellm_scenarios.py BASE_URL KEY``) by ``test_litellm_client.py``:
litellm starts a process-wide logging worker and atexit hooks that attach event loops to
whatever later runs asyncio in the same process, so it gets a process of its own. Prints
one JSON object of results.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch the cost map
os.environ.setdefault("LITELLM_TELEMETRY", "False")

import litellm  # noqa: E402
from pydantic import BaseModel  # noqa: E402

MODEL = "openai/chat-mini"
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


class City(BaseModel):
    name: str
    population: int


def main(base_url: str, key: str) -> dict[str, Any]:
    def complete(**params: Any) -> Any:
        return litellm.completion(model=MODEL, api_base=base_url, api_key=key, num_retries=0, **params)

    out: dict[str, Any] = {}
    answer = complete(messages=[{"role": "user", "content": "Say hello"}])
    out["chat"] = {"content": answer.choices[0].message.content, "total_tokens": answer.usage.total_tokens}
    chunks = list(complete(messages=[{"role": "user", "content": "Explain streams"}], stream=True))
    out["stream"] = {"chunks": len(chunks),
                     "text": "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)}
    messages: list[Any] = [{"role": "user", "content": "What is the weather in Paris?"}]
    asked = complete(messages=messages, tools=[WEATHER_TOOL])
    call = asked.choices[0].message.tool_calls[0]
    arguments = json.loads(call.function.arguments)
    messages += [asked.choices[0].message.model_dump(),
                 {"role": "tool", "tool_call_id": call.id, "content": f"Sunny in {arguments.get('city')}"}]
    final = complete(messages=messages, tools=[WEATHER_TOOL])
    out["tools"] = {"name": call.function.name, "arguments": arguments, "answer": final.choices[0].message.content}
    structured = complete(messages=[{"role": "user", "content": "Paris"}], response_format=City)
    out["structured"] = json.loads(structured.choices[0].message.content)
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
