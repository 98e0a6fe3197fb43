"""Scripted answers (--script / start(script=...)): match order, regex groups, tool calls, JSON, bad files."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
import pytest

from gatewaykit.emulator import start

SCRIPT = {"answers": [
    {"match": "capital of France", "content": "Paris."},
    {"match": "capital", "content": "A capital city."},
    {"match": "re:^weather in (\\w+)", "tool_call": {"name": "get_weather", "arguments": {"city": "$1"}}},
    {"match": "re:(\\d+) plus (\\d+)", "content": "You asked about $1 and $2."},
    {"match": "user record", "json": {"name": "Ada", "age": 36}},
]}


@pytest.fixture(scope="module")
def scripted():
    with start(time_scale=0, script=SCRIPT) as gateway:
        with httpx.Client(base_url=gateway.base_url, headers={"Authorization": f"Bearer {gateway.api_key}"},
                          timeout=30) as client:
            yield client


def ask(client, text, **fields):
    return client.post("/v1/chat/completions", json={"model": "chat-mini",
                                                     "messages": [{"role": "user", "content": text}], **fields})


def test_first_matching_entry_wins(scripted):
    """Of two matching entries, the first in the file answers, case-insensitively."""
    assert ask(scripted, "What is the CAPITAL OF FRANCE?").json()["choices"][0]["message"]["content"] == "Paris."
    assert ask(scripted, "Capital of Peru?").json()["choices"][0]["message"]["content"] == "A capital city."


def test_scripted_answers_are_labelled(scripted):
    """A scripted answer says so in the header and in extra_fields; a synthetic one says synthetic."""
    answer = ask(scripted, "capital of France")
    assert answer.headers["X-Gateway-Offline-Content"] == "scripted"
    assert answer.json()["extra_fields"]["offline_content"] == "scripted"
    other = ask(scripted, "Tell me a joke")
    assert other.headers["X-Gateway-Offline-Content"] == "synthetic"
    assert "offline" in other.json()["choices"][0]["message"]["content"]


def test_regex_groups_fill_a_tool_call(scripted):
    """A re: entry's groups fill $1 in the scripted tool call's arguments."""
    message = ask(scripted, "Weather in Lisbon please").json()["choices"][0]["message"]
    call = message["tool_calls"][0]["function"]
    assert call["name"] == "get_weather" and json.loads(call["arguments"]) == {"city": "Lisbon"}


def test_regex_groups_fill_content(scripted):
    """$1 and $2 in scripted content are the regex's groups."""
    assert ask(scripted, "what is 2 plus 40").json()["choices"][0]["message"]["content"] == \
        "You asked about 2 and 40."


def test_json_entry_is_the_message_content(scripted):
    """A json entry is sent as JSON content."""
    content = ask(scripted, "a user record").json()["choices"][0]["message"]["content"]
    assert json.loads(content) == {"name": "Ada", "age": 36}


def test_scripted_answers_are_priced_like_synthetic_ones(scripted):
    """A scripted answer has usage and a cost."""
    usage = ask(scripted, "capital of France").json()["usage"]
    assert usage["completion_tokens"] > 0 and usage["cost"]["total_cost"] > 0


def test_scripted_answers_stream(scripted):
    """A streamed scripted answer carries the scripted text and the label."""
    with scripted.stream("POST", "/v1/chat/completions", json={
            "model": "chat-mini", "stream": True,
            "messages": [{"role": "user", "content": "capital of France"}]}) as answer:
        assert answer.headers["X-Gateway-Offline-Content"] == "scripted"
        chunks = [json.loads(line[6:]) for line in answer.iter_lines()
                  if line.startswith("data: ") and line != "data: [DONE]"]
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == "Paris."
    assert chunks[0]["extra_fields"]["offline_content"] == "scripted"


def test_after_a_tool_result_the_answer_states_it(scripted):
    """Following a scripted tool call, the tool's result ends up in the answer."""
    messages = [{"role": "user", "content": "weather in Oslo"},
                {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
                    "name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "{\"temperature\": -3}"}]
    content = scripted.post("/v1/chat/completions", json={"model": "chat-mini", "messages": messages}).json()[
        "choices"][0]["message"]["content"]
    assert "-3" in content and "get_weather" in content


def test_script_from_a_file(tmp_path):
    """start(script=path) reads a JSON file."""
    path = tmp_path / "answers.json"
    path.write_text(json.dumps({"answers": [{"match": "hello", "content": "Hi from the script."}]}))
    with start(time_scale=0, script=str(path)) as gateway:
        answer = httpx.post(f"{gateway.base_url}/v1/chat/completions", headers={
            "Authorization": f"Bearer {gateway.api_key}"}, json={"model": "chat-mini", "messages": [
                {"role": "user", "content": "hello there"}]})
    assert answer.json()["choices"][0]["message"]["content"] == "Hi from the script."


@pytest.mark.parametrize("script, words", [
    ({"answers": [{"match": "x"}]}, "exactly one of"),
    ({"answers": [{"content": "y"}]}, "match"),
    ({"answers": [{"match": "re:(", "content": "y"}]}, "regular expression"),
    ({"answers": [{"match": "x", "tool_call": {"arguments": {}}}]}, "tool_call"),
    ({"replies": []}, "answers"),
])
def test_bad_script_is_a_clear_value_error(script, words):
    """start() with a malformed script raises ValueError saying what is wrong."""
    with pytest.raises(ValueError, match=words):
        start(time_scale=0, script=script)


@pytest.mark.parametrize("content, words", [("{not json", "not valid JSON"), (None, "cannot read")])
def test_bad_script_file_is_an_error_line_and_exit_code(tmp_path, content, words):
    """The CLI with an unreadable or invalid script prints an error: line and exits non-zero."""
    path = tmp_path / "script.json"
    if content is not None:
        path.write_text(content)
    result = subprocess.run([sys.executable, "-m", "gatewaykit.emulator", "--port", "0", "--script", str(path)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert result.stderr.startswith("error: ") and words in result.stderr and "Traceback" not in result.stderr


def test_a_script_file_that_is_not_utf8_is_named_in_the_error(tmp_path):
    """A --script file in another encoding is a ValueError naming the file, not a bare UnicodeDecodeError."""
    from gatewaykit.emulator.chat.script import load_script

    path = tmp_path / "answers.json"
    path.write_bytes('{"answers": [{"match": "caf\u00e9", "content": "ok"}]}'.encode("latin-1"))
    with pytest.raises(ValueError, match="answers.json.*UTF-8"):
        load_script(path)


@pytest.mark.parametrize("pattern", [r"re:^weather in (\w+)", r"re:(cat|dog)+", r"re:(?>\w+\s?)+\?$",
                                     r"re:(\w++\s?)+\?$", r"re:(?:x\d{2})*", r"re:(x\d*)*y"])
def test_ordinary_regexes_load(pattern):
    """Single quantifiers, alternations, fixed counts, atomic groups and possessive quantifiers are accepted."""
    with start(time_scale=0, script={"answers": [{"match": pattern, "content": "x"}]}) as gateway:
        assert httpx.get(f"{gateway.base_url}/v1/models", headers={"Authorization": f"Bearer {gateway.api_key}"},
                         timeout=60).status_code == 200
