"""The synthetic chat model is honest and follows the form a prompt asks for."""

from __future__ import annotations

import json
import re

import pytest


def ask(http, text, model="chat-mini", **fields):
    answer = http.post("/v1/chat/completions", json={"model": model, "messages": [{"role": "user", "content": text}],
                                                     **fields})
    assert answer.status_code == 200, answer.text
    return answer.json()


def content_of(body):
    return body["choices"][0]["message"]["content"]


def sentences_outside_quotes(text):
    bare = re.sub(r"“[^”]*”", "Q", text)
    return [s for s in re.split(r"(?<=[.!?])\s+", bare.strip()) if s]


@pytest.mark.parametrize("question, answer_word", [("What is the capital of France?", "Paris"),
                                                   ("Is 221 a prime number?", "13")])
def test_never_pretends_to_answer(http, question, answer_word):
    """The reply says it is the offline model, restates the question and asserts no answer."""
    text = content_of(ask(http, question))
    assert "offline" in text.lower() and question in text
    assert answer_word not in text.replace(question, "")


def test_one_sentence_prompt_gets_one_sentence(http):
    """'in one sentence' gives exactly one sentence."""
    for seed in range(6):
        text = content_of(ask(http, "Summarise the French revolution in one sentence", seed=seed))
        assert len(sentences_outside_quotes(text)) == 1 and "\n" not in text


def test_two_sentences_prompt_gets_two(http):
    """'in two sentences' gives exactly two sentences."""
    text = content_of(ask(http, "Explain recursion in two sentences", seed=3))
    assert len(sentences_outside_quotes(text)) == 2


@pytest.mark.parametrize("prompt, count", [("Give me three bullet points about SSE", 3),
                                           ("List five tips for writing tests", 5)])
def test_asked_number_of_points(http, prompt, count):
    """'three bullet points' gives exactly three list items."""
    text = content_of(ask(http, prompt))
    assert len([line for line in text.splitlines() if line.startswith("- ")]) == count


def test_length_follows_max_tokens(http):
    """With a modest max_tokens the reply picks a form that fits instead of being cut."""
    full = ask(http, "Explain how HTTP caching works")
    short = ask(http, "Explain how HTTP caching works", max_tokens=80)
    assert short["choices"][0]["finish_reason"] == "stop"
    assert short["usage"]["completion_tokens"] <= 80 < full["usage"]["completion_tokens"]
    assert "offline" in content_of(short).lower()


@pytest.mark.parametrize("prompt, fence", [("Write a Rust function that adds two numbers", "```rust"),
                                           ("Show me some JavaScript to sort an array", "```javascript"),
                                           ("Write a SQL query for the top customers", "```sql"),
                                           ("Write a function that reverses a string", "```python")])
def test_code_block_in_the_language_the_prompt_names(http, prompt, fence):
    """The code block uses the language the prompt mentions (Python when none is named)."""
    assert fence in content_of(ask(http, prompt))


def test_headings_are_not_built_from_prompt_words(http):
    """Headings are fixed phrases, never assembled from the prompt's words."""
    text = content_of(ask(http, "Explain quantum entanglement for beginners"))
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings and not any(w in h.lower() for h in headings for w in ("quantum", "entanglement", "beginners"))


def test_calculator_result_is_stated(http):
    """After a calculator tool returns 42, the answer states 42."""
    messages = [{"role": "user", "content": "What is 6 times 7?"},
                {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
                    "name": "calculator", "arguments": "{\"expression\": \"6*7\"}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "42"}]
    body = http.post("/v1/chat/completions", json={"model": "chat-mini", "messages": messages}).json()
    assert "the answer is **42**" in content_of(body) and "calculator" in content_of(body)


def test_several_tool_results_are_each_stated_without_one_answer(http):
    """After two tool results, each is stated and neither is called "the answer"."""
    messages = [{"role": "user", "content": "Convert 77 F to C and look up Oslo."},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "to_celsius", "arguments": "{}"}},
                    {"id": "c2", "type": "function", "function": {"name": "city_facts", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "25.0"},
                {"role": "tool", "tool_call_id": "c2", "content": "{\"country\": \"Norway\"}"}]
    text = content_of(http.post("/v1/chat/completions", json={"model": "chat-mini", "messages": messages}).json())
    assert "`to_celsius` tool returned **25.0**." in text and "**country**: Norway" in text
    assert "the answer is" not in text and "the tools' results" in text


def test_tool_arguments_take_the_numbers_in_the_prompt(http):
    """A number parameter of a called tool gets the number the user wrote (98.6 F gives 98.6)."""
    tool = {"type": "function", "function": {"name": "fahrenheit_to_celsius", "description": "Convert Fahrenheit to Celsius",
            "parameters": {"type": "object", "properties": {"fahrenheit": {"type": "number"}}, "required": ["fahrenheit"]}}}
    body = ask(http, "What is 98.6 Fahrenheit in Celsius?", tools=[tool])
    call = body["choices"][0]["message"]["tool_calls"][0]
    assert json.loads(call["function"]["arguments"]) == {"fahrenheit": 98.6}


def test_structured_output_takes_the_numbers_in_the_prompt(http):
    """A json_schema answer fills number fields with the prompt's numbers, in order, when they fit."""
    schema = {"type": "object", "properties": {"nights": {"type": "integer", "minimum": 1}, "budget": {"type": "number"}},
              "required": ["nights", "budget"]}
    body = ask(http, "3 nights, with a budget of 612.5 euros.",
               response_format={"type": "json_schema", "json_schema": {"name": "trip", "schema": schema}})
    assert json.loads(content_of(body)) == {"nights": 3, "budget": 612.5}


def test_reasoning_trace_is_honest(http):
    """A reasoning trace says it is synthetic and restates the question."""
    body = ask(http, "Is 221 a prime number?", model="chat-reasoner")
    trace = body["choices"][0]["message"]["reasoning"]
    assert "synthetic" in trace and "“Is 221 a prime number?”" in trace


def test_json_object_mode_is_marked_synthetic(http):
    """json_object mode returns a JSON object that says it is synthetic."""
    value = json.loads(content_of(ask(http, "Give me a fact about owls", response_format={"type": "json_object"})))
    assert value["synthetic"] is True and "owls" in value["question"]


def test_synthetic_answers_are_marked(http):
    """A synthetic answer carries X-Gateway-Offline-Content and extra_fields.offline_content."""
    answer = http.post("/v1/chat/completions", json={"model": "chat-mini",
                                                     "messages": [{"role": "user", "content": "hi"}]})
    assert answer.headers["X-Gateway-Offline-Content"] == "synthetic"
    assert answer.headers["X-Gateway-Offline"] == "1"
    assert answer.json()["extra_fields"]["offline_content"] == "synthetic"


def test_one_sentence_vision_answer(http):
    """A one-sentence question about one image gets one sentence: its size and colours, and the limit."""
    import base64
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 30, 30)).save(buffer, "PNG")
    uri = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
    content = [{"type": "text", "text": "What is in this picture? Answer in one sentence."},
               {"type": "image_url", "image_url": {"url": uri}}]
    text = content_of(http.post("/v1/chat/completions", json={
        "model": "chat-vision", "messages": [{"role": "user", "content": content}]}).json())
    assert "64×48" in text and "red" in text and "offline" in text
    assert len(re.findall(r"[.!?](\s|$)", text)) == 1


@pytest.mark.parametrize("prompt", ["Is 221 a prime number?", "Suggest a weekend in Porto.", "Explain closures",
                                    "Write a haiku about autumn"])
def test_no_code_block_unless_the_prompt_asks_for_code(http, prompt):
    """A question, a plan or a poem gets no code block."""
    for seed in range(3):
        assert "```" not in content_of(ask(http, prompt, seed=seed))


def test_answers_vary_with_the_kind_of_prompt(http):
    """A yes-or-no question and a request for suggestions get different points, not the same bullets."""
    def points(text):
        return {line for line in text.splitlines() if line.startswith("- ")}

    prime, porto = content_of(ask(http, "Is 221 a prime number?")), content_of(ask(http, "Suggest a weekend in Porto."))
    assert points(prime) and points(porto) and not points(prime) & points(porto)
    assert "yes or no" in prime.lower() and "options" in porto.lower()


def test_one_sentence_about_a_topic_names_the_topic(http):
    """Six 'One sentence about X.' prompts give six different sentences, each naming its topic."""
    topics = ["volcanoes", "octopuses", "lighthouses", "glaciers", "comets", "bees"]
    texts = [content_of(ask(http, f"One sentence about {topic}.")) for topic in topics]
    assert all(topic in text and f"“One sentence" not in text for topic, text in zip(topics, texts))
    assert len({text.replace(topic, "X") for topic, text in zip(topics, texts)}) >= 3


def test_vision_answer_has_no_code_block_and_says_what_a_vision_model_would_add(http):
    """A picture question gets the image's facts and what a real vision model would add, without code."""
    import base64
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), (30, 30, 200)).save(buffer, "PNG")
    uri = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
    content = [{"type": "text", "text": "What is in this picture?"}, {"type": "image_url", "image_url": {"url": uri}}]
    text = content_of(http.post("/v1/chat/completions", json={
        "model": "chat-vision", "messages": [{"role": "user", "content": content}]}).json())
    assert "64×48" in text and "vision model" in text and "```" not in text


def test_an_asked_list_names_what_it_stands_for(http):
    """'three tips' gives three items that say they stand for tips, not the same notes about the offline model."""
    text = content_of(ask(http, "Give me three tips for writing clear error messages."))
    items = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(items) == 3 and all(item.startswith(f"- Tip {n} of 3") for n, item in enumerate(items, 1))
