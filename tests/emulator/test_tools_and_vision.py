"""Tool calls from JSON Schemas, tool_choice, tool results, and the vision model."""

from __future__ import annotations

import base64
import io
import json

from PIL import Image

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "required": ["city", "unit", "days", "options"], "properties": {
        "city": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
        "options": {"type": "object", "required": ["hourly"], "properties": {"hourly": {"type": "boolean"}}},
        "places": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}}}}}
SEARCH = {"type": "function", "function": {"name": "search_docs", "description": "Search documentation",
                                           "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}


def ask(http, content, **fields):
    body = {"model": "chat-mini", "messages": [{"role": "user", "content": content}], **fields}
    return http.post("/v1/chat/completions", json=body).json()


def test_tool_call_arguments_follow_the_schema(http):
    """Arguments are a JSON string conforming to the tool's schema."""
    choice = ask(http, "What is the weather in Lisbon this week?", tools=[WEATHER])["choices"][0]
    assert choice["finish_reason"] == "tool_calls" and choice["message"]["content"] is None
    call = choice["message"]["tool_calls"][0]
    arguments = json.loads(call["function"]["arguments"])
    assert arguments["city"] == "Lisbon" and arguments["unit"] in ("celsius", "fahrenheit")
    assert 1 <= arguments["days"] <= 7 and isinstance(arguments["options"]["hourly"], bool)


def test_tool_choice_none_answers_in_text(http):
    """tool_choice none never calls a tool."""
    choice = ask(http, "Weather in Rome?", tools=[WEATHER], tool_choice="none")["choices"][0]
    assert choice["finish_reason"] == "stop" and "tool_calls" not in choice["message"]


def test_tool_choice_auto_skips_unrelated_tools(http):
    """tool_choice auto answers in text when no tool fits the prompt."""
    choice = ask(http, "Tell me a poem about spring", tools=[WEATHER])["choices"][0]
    assert choice["finish_reason"] == "stop"


def test_tool_choice_required_always_calls(http):
    """tool_choice required calls a tool even for an unrelated prompt."""
    choice = ask(http, "Tell me a poem", tools=[WEATHER], tool_choice="required")["choices"][0]
    assert choice["finish_reason"] == "tool_calls"


def test_specific_tool_choice_calls_that_tool(http):
    """A tool_choice object selects that tool."""
    choice = ask(http, "Weather in Oslo", tools=[WEATHER, SEARCH],
                 tool_choice={"type": "function", "function": {"name": "search_docs"}})["choices"][0]
    assert [c["function"]["name"] for c in choice["message"]["tool_calls"]] == ["search_docs"]


def test_tool_choice_naming_a_missing_tool_is_400(http):
    """A tool_choice naming no listed tool is a 400 on tool_choice."""
    answer = http.post("/v1/chat/completions", json={
        "model": "chat-mini", "messages": [{"role": "user", "content": "x"}], "tools": [WEATHER],
        "tool_choice": {"type": "function", "function": {"name": "nope"}}})
    assert answer.status_code == 400 and answer.json()["error"]["param"] == "tool_choice"


def test_tool_results_are_used_in_the_answer(http):
    """A tool message's content shows up in the final answer."""
    messages = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {
            "name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "{\"temperature\": 21, \"sky\": \"sunny\"}"},
    ]
    body = http.post("/v1/chat/completions", json={"model": "chat-mini", "messages": messages,
                                                     "tools": [WEATHER]}).json()
    content = body["choices"][0]["message"]["content"]
    assert "get_weather" in content and "21" in content and "sunny" in content


def _data_uri(colour: str, size: tuple[int, int]) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def test_vision_model_states_size_and_dominant_colour(http):
    """chat-vision says the image's real size and dominant colour."""
    content = [{"type": "text", "text": "What is in this image?"},
               {"type": "image_url", "image_url": {"url": _data_uri("#ff0000", (320, 200))}}]
    body = ask(http, content, model="chat-vision")
    text = body["choices"][0]["message"]["content"]
    assert "320×200" in text and "red" in text.lower()
    assert body["usage"]["prompt_tokens_details"]["image_tokens"] > 0


def test_vision_model_explains_it_cannot_fetch_urls(http):
    """An http(s) image URL gets a polite explanation instead of a failure."""
    content = [{"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]
    text = ask(http, content, model="chat-vision")["choices"][0]["message"]["content"]
    assert "data: URI" in text


def test_undecodable_data_uri_is_400_naming_the_part(http):
    """A data: URI that is not an image gives 400 naming the part."""
    content = [{"type": "image_url", "image_url": {"url": "data:image/png;base64,aGVsbG8="}}]
    answer = http.post("/v1/chat/completions", json={"model": "chat-vision", "messages": [
        {"role": "user", "content": content}]})
    assert answer.status_code == 400
    assert answer.json()["error"]["param"] == "messages[0].content[0].image_url.url"


def test_text_model_refuses_image_input(http):
    """Image parts sent to a text-only model give 400 on messages."""
    content = [{"type": "image_url", "image_url": {"url": _data_uri("blue", (8, 8))}}]
    answer = http.post("/v1/chat/completions", json={"model": "chat-mini", "messages": [
        {"role": "user", "content": content}]})
    assert answer.status_code == 400 and answer.json()["error"]["param"] == "messages"
