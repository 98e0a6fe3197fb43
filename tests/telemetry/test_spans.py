"""One span per request, for every endpoint, with the GenAI conventions' names and the gateway's cost."""

from __future__ import annotations

import io
import math
from typing import Any

import pytest
from PIL import Image

import gatewaykit as gk
from gateway_accounts import TIGHT_KEY

from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as conventions
from opentelemetry.semconv._incubating.attributes import server_attributes
from opentelemetry.semconv._incubating.metrics import gen_ai_metrics
from opentelemetry.trace import StatusCode

from gatewaykit.telemetry import names

CHAT = [{"role": "user", "content": "Name three rivers"}]


def test_conventional_names_are_the_semantic_conventions_own() -> None:
    """Every gen_ai.* / server.* / error.type name we write is the one opentelemetry-semantic-conventions defines."""
    ours = {
        names.OPERATION_NAME: conventions.GEN_AI_OPERATION_NAME,
        names.PROVIDER_NAME: conventions.GEN_AI_PROVIDER_NAME,
        names.REQUEST_MODEL: conventions.GEN_AI_REQUEST_MODEL,
        names.REQUEST_MAX_TOKENS: conventions.GEN_AI_REQUEST_MAX_TOKENS,
        names.REQUEST_TEMPERATURE: conventions.GEN_AI_REQUEST_TEMPERATURE,
        names.REQUEST_TOP_P: conventions.GEN_AI_REQUEST_TOP_P,
        names.REQUEST_SEED: conventions.GEN_AI_REQUEST_SEED,
        names.REQUEST_CHOICE_COUNT: conventions.GEN_AI_REQUEST_CHOICE_COUNT,
        names.RESPONSE_MODEL: conventions.GEN_AI_RESPONSE_MODEL,
        names.RESPONSE_ID: conventions.GEN_AI_RESPONSE_ID,
        names.RESPONSE_FINISH_REASONS: conventions.GEN_AI_RESPONSE_FINISH_REASONS,
        names.OUTPUT_TYPE: conventions.GEN_AI_OUTPUT_TYPE,
        names.USAGE_INPUT_TOKENS: conventions.GEN_AI_USAGE_INPUT_TOKENS,
        names.USAGE_OUTPUT_TOKENS: conventions.GEN_AI_USAGE_OUTPUT_TOKENS,
        names.TOKEN_TYPE: conventions.GEN_AI_TOKEN_TYPE,
        names.AGENT_NAME: conventions.GEN_AI_AGENT_NAME,
        names.TOOL_NAME: conventions.GEN_AI_TOOL_NAME,
        names.TOOL_CALL_ID: conventions.GEN_AI_TOOL_CALL_ID,
        names.TOOL_TYPE: conventions.GEN_AI_TOOL_TYPE,
        names.INPUT_MESSAGES: conventions.GEN_AI_INPUT_MESSAGES,
        names.OUTPUT_MESSAGES: conventions.GEN_AI_OUTPUT_MESSAGES,
        names.SERVER_ADDRESS: server_attributes.SERVER_ADDRESS,
        names.SERVER_PORT: server_attributes.SERVER_PORT,
        names.TOKEN_USAGE_METRIC: gen_ai_metrics.GEN_AI_CLIENT_TOKEN_USAGE,
        names.DURATION_METRIC: gen_ai_metrics.GEN_AI_CLIENT_OPERATION_DURATION,
    }
    for mine, theirs in ours.items():
        assert mine == theirs
    from opentelemetry.semconv.attributes import error_attributes

    assert names.ERROR_TYPE == error_attributes.ERROR_TYPE
    operations = {value.value for value in conventions.GenAiOperationNameValues}
    assert {"chat", "generate_content", "execute_tool", "invoke_agent", "invoke_workflow"} <= operations
    assert {"text", "json", "image"} <= {value.value for value in conventions.GenAiOutputTypeValues}


def test_a_buffered_chat_is_one_client_span_with_usage_and_the_reported_cost(traces: Any, client: gk.Client) -> None:
    """A chat's span: operation, provider, models, tokens, finish reasons, server, and usage.cost.total_cost."""
    completion = client.chat.completions.create(model="chat-mini", messages=CHAT, max_tokens=60, temperature=0.5)
    span = traces.one("chat chat-mini")
    attributes = span.attributes
    assert attributes["gen_ai.operation.name"] == "chat"
    assert attributes["gen_ai.provider.name"] == "svc"
    assert attributes["gen_ai.request.model"] == "chat-mini"
    assert attributes["gen_ai.response.model"] == completion.model
    assert attributes["gen_ai.response.id"] == completion.id
    assert attributes["gen_ai.request.max_tokens"] == 60
    assert attributes["gen_ai.request.temperature"] == 0.5
    assert attributes["gen_ai.output.type"] == "text"
    assert attributes["gen_ai.usage.input_tokens"] == completion.usage.prompt_tokens
    assert attributes["gen_ai.usage.output_tokens"] == completion.usage.completion_tokens
    assert list(attributes["gen_ai.response.finish_reasons"]) == [completion.choices[0].finish_reason]
    assert attributes["server.address"] == "127.0.0.1"
    assert attributes["gen_ai.usage.cost.amount"] == completion.usage.cost.total_cost
    assert attributes["gen_ai.usage.cost.currency"] == "USD"
    assert attributes["gen_ai.usage.cost.source"] == "provider"
    assert span.kind.name == "CLIENT"


def test_no_prompt_or_answer_text_unless_asked(traces: Any, client: gk.Client, emulator: Any) -> None:
    """Content capture is opt-in: off by default, on with capture_content=True."""
    client.chat.completions.create(model="chat-mini", messages=CHAT)
    span = traces.one("chat")
    assert "gen_ai.input.messages" not in span.attributes
    assert not any("Name three rivers" in str(value) for value in span.attributes.values())
    gk.instrument(tracer_provider=traces.tracer_provider, meter_provider=traces.meter_provider, capture_content=True)
    answer = client.chat.completions.create(model="chat-mini", messages=CHAT)
    captured = traces.spans("chat")[-1]
    assert "Name three rivers" in captured.attributes["gen_ai.input.messages"]
    assert answer.choices[0].message.content[:20] in captured.attributes["gen_ai.output.messages"]


def test_a_streamed_chat_span_lasts_until_the_stream_ends(traces: Any, client: gk.Client) -> None:
    """The stream's span ends with its last chunk and carries the final chunk's usage and cost."""
    stream = client.chat.completions.create(model="chat-mini", messages=CHAT, stream=True)
    chunks = iter(stream)
    next(chunks)
    assert traces.spans("chat") == []  # still open while chunks arrive
    for _ in chunks:
        pass
    completion = stream.final()
    span = traces.one("chat chat-mini")
    assert span.attributes["gatewaykit.call"] == "chat.stream"
    assert span.attributes["gen_ai.usage.output_tokens"] == completion.usage.completion_tokens
    assert span.attributes["gen_ai.usage.cost.amount"] == completion.usage.cost.total_cost


def test_a_stream_that_outlives_uninstrument_still_ends_its_span(traces: Any, client: gk.Client) -> None:
    """Telemetry switched off mid-stream: the span the stream opened is ended (with its cost), not left open."""
    stream = client.chat.completions.create(model="chat-mini", messages=CHAT, stream=True)
    chunks = iter(stream)
    next(chunks)
    gk.uninstrument()
    for _ in chunks:
        pass
    span = traces.one("chat chat-mini")
    assert span.end_time is not None
    assert span.attributes["gen_ai.usage.cost.amount"] == stream.final().usage.cost.total_cost


def test_a_json_schema_chat_is_json_output(traces: Any, client: gk.Client) -> None:
    """response_format json_schema makes gen_ai.output.type json."""
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    client.chat.completions.create(
        model="chat-mini", messages=CHAT, response_format={"type": "json_schema", "json_schema": {"name": "c", "schema": schema}}
    )
    assert traces.one("chat").attributes["gen_ai.output.type"] == "json"


def test_image_generation_and_edit_spans(traces: Any, client: gk.Client) -> None:
    """images.generate and images.edit: generate_content spans of output type image, with their cost."""
    result = client.images.generate(model=client.models.pick("image"), prompt="a lighthouse at dusk")
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), "navy").save(buffer, format="PNG")
    editor = next(entry.id for entry in client.models.list() if entry.edit is not None and entry.edit.supported)
    edited = client.images.edit(model=editor, prompt="add a moon", image=[buffer.getvalue()])
    generate, edit = traces.spans("generate_content")
    assert generate.attributes["gatewaykit.call"] == "image.generate"
    assert generate.attributes["gen_ai.output.type"] == "image"
    assert generate.attributes["gen_ai.usage.cost.amount"] == result.usage.cost.total_cost
    assert edit.attributes["gatewaykit.call"] == "image.edit"
    assert edit.attributes["gen_ai.usage.cost.amount"] == edited.usage.cost.total_cost
    assert edit.attributes["gatewaykit.response.images"] == len(edited.data)


def test_a_video_job_is_one_span_from_create_to_completion_with_polls_as_events(traces: Any, client: gk.Client) -> None:
    """The job's span starts at create, gets an event per poll, and ends completed with the ledger's estimate."""
    model = client.models.pick("video")
    job = client.videos.create(model=model, prompt="waves on rocks")
    assert traces.spans("generate_content") == []  # open while the job runs
    job.wait(timeout=60)
    span = traces.one("generate_content " + model)
    events = [event.name for event in span.events]
    assert events[0] == "gatewaykit.job.created"
    assert "gatewaykit.job.poll" in events or job.status == "completed"
    assert span.attributes["gatewaykit.job.id"] == job.id
    assert span.attributes["gatewaykit.job.status"] == "completed"
    assert span.attributes["gen_ai.output.type"] == "video"
    assert span.attributes["gatewaykit.job.seconds"] == float(job.seconds)
    row = client.ledger.to_pandas().iloc[-1]
    assert span.attributes["gen_ai.usage.cost.amount"] == pytest.approx(row["total_cost"], abs=1e-9)
    assert span.attributes["gen_ai.usage.cost.source"] == ("provider" if row["cost_source"] == "reported" else "local")


def test_a_cancelled_video_job_ends_its_span_with_a_cancel_event_and_no_cost(traces: Any, emulator: Any) -> None:
    """A cancel is an event; the span ends cancelled, with nothing charged."""
    from gateway_accounts import ACME_KEY

    slow = gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, display=False, ledger=gk.Ledger(path=None))
    model = slow.models.pick("video")
    job = slow.videos.create(model=model, prompt="a slow sunrise", extra_headers={"X-Emulator-Fault": "slow"})
    job.cancel()
    span = traces.one("generate_content " + model)
    assert "gatewaykit.job.cancel" in [event.name for event in span.events]
    assert span.attributes["gatewaykit.job.status"] in ("cancelled", "completed")
    if span.attributes["gatewaykit.job.status"] == "cancelled":
        assert "gen_ai.usage.cost.amount" not in span.attributes
    slow.close()


def test_a_music_job_span(traces: Any, client: gk.Client) -> None:
    """A song's job: a generate_content span of output type audio, ended at completion."""
    model = client.models.pick("music")
    job = client.music.create(model=model, prompt="calm piano", lyrics_prompt="[Verse]\nla la la la\n[Chorus]\nhey")
    job.wait(timeout=60)
    span = traces.one("generate_content " + model)
    assert span.attributes["gen_ai.output.type"] == "audio"
    assert span.attributes["gatewaykit.job.status"] == "completed"


def test_an_error_answer_is_an_error_span(traces: Any, emulator: Any) -> None:
    """A 402 sets error.type to the gateway's code and the span status to ERROR."""
    with gk.Client(api_key=TIGHT_KEY, base_url=emulator.base_url, display=False, ledger=gk.Ledger(path=None)) as poor:
        with pytest.raises(gk.InsufficientQuotaError):
            poor.images.generate(model=poor.models.pick("image"), prompt="an expensive picture")
    span = traces.one("generate_content")
    assert span.status.status_code == StatusCode.ERROR
    assert span.attributes["error.type"] == "insufficient_quota"
    assert span.attributes["http.response.status_code"] == 402
    assert "gen_ai.usage.cost.amount" not in span.attributes


def test_map_batch_and_compare_are_parent_spans(traces: Any, client: gk.Client) -> None:
    """Requests made inside map/batch/compare are children of one invoke_workflow span each."""
    ask = lambda prompt: client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": prompt}])  # noqa: E731
    client.map(ask, ["one", "two", "three"], concurrency=3)
    client.batch([lambda: ask("four"), lambda: ask("five")])
    client.compare("six", models=["chat-mini", "chat-pro"] if _has(client, "chat-pro") else ["chat-mini"])
    for name, children in (("map", 3), ("batch", 2)):
        parent = traces.one(f"invoke_workflow {name}")
        assert parent.attributes["gen_ai.operation.name"] == "invoke_workflow"
        assert parent.attributes["gatewaykit.items"] == children
        kids = [span for span in traces.spans("chat") if span.parent and span.parent.span_id == parent.context.span_id]
        assert len(kids) == children
        assert all(kid.context.trace_id == parent.context.trace_id for kid in kids)
    compare = traces.one("invoke_workflow compare")
    kids = [span for span in traces.spans("chat") if span.parent and span.parent.span_id == compare.context.span_id]
    assert len(kids) == len(compare.attributes["gatewaykit.models"])


def test_a_session_turn_is_a_parent_of_its_requests_and_tool_runs(traces: Any, client: gk.Client) -> None:
    """A turn with a tool: invoke_agent span > chat requests and an execute_tool span."""

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    chat = client.chat.session(model=client.models.pick("chat", needs=("tools",)), tools=[add])
    chat("Use the add tool to add 2 and 3", stream=False)
    turn = traces.one("invoke_agent chat_session")
    children = [span for span in traces.spans() if span.parent and span.parent.span_id == turn.context.span_id]
    requests = [span for span in children if span.name.startswith("chat ")]
    tools = [span for span in children if span.name == "execute_tool add"]
    assert len(requests) >= 2 and len(tools) == 1
    assert tools[0].attributes["gen_ai.tool.name"] == "add"
    assert tools[0].attributes["gen_ai.tool.call.id"]


def test_the_spans_of_two_hundred_mixed_requests_cost_what_the_ledger_says(traces: Any, client: gk.Client) -> None:
    """Over 200 chats, streams, images and jobs, the spans' cost adds up to ledger.total_cost to the micro-dollar."""
    image = client.models.pick("image")
    video = client.models.pick("video")
    music = client.models.pick("music")
    jobs = []
    for index in range(200):
        choice = index % 20
        if choice < 12:
            client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": f"q {index}"}])
        elif choice < 16:
            for _ in client.chat.completions.create(model="chat-mini", messages=CHAT, stream=True):
                pass
        elif choice < 19:
            client.images.generate(model=image, prompt=f"picture {index}")
        elif index % 40 == 19:
            jobs.append(client.videos.create(model=video, prompt=f"clip {index}"))
        else:
            jobs.append(client.music.create(model=music, prompt="jazz", lyrics_prompt="[Verse]\nhello there\n[Chorus]\nyes"))
    for job in jobs:
        job.wait(timeout=120)
    spans = traces.spans()
    assert len([span for span in spans if span.kind.name == "CLIENT"]) == 200
    total = math.fsum(span.attributes.get("gen_ai.usage.cost.amount", 0.0) for span in spans)
    assert client.ledger.total_cost > 0
    assert abs(total - client.ledger.total_cost) < 1e-6
    by_model = {point.attributes["gen_ai.request.model"]: point.value for point in traces.metric_points("gatewaykit.client.cost")}
    assert abs(math.fsum(by_model.values()) - client.ledger.total_cost) < 1e-6
    assert set(by_model) >= {"chat-mini", image}


def test_metrics_token_usage_and_duration(traces: Any, client: gk.Client) -> None:
    """gen_ai.client.token.usage (input and output) and gen_ai.client.operation.duration are recorded."""
    completion = client.chat.completions.create(model="chat-mini", messages=CHAT)
    tokens = {point.attributes["gen_ai.token.type"]: point.sum for point in traces.metric_points("gen_ai.client.token.usage")}
    assert tokens == {"input": completion.usage.prompt_tokens, "output": completion.usage.completion_tokens}
    (duration,) = traces.metric_points("gen_ai.client.operation.duration")
    assert duration.count == 1 and duration.sum > 0
    assert duration.attributes["gen_ai.operation.name"] == "chat"


def test_the_gateway_logs_the_trace_of_each_request(traces: Any, client: gk.Client, caplog: Any) -> None:
    """Each request carries traceparent; the offline gateway logs the same trace and span ids."""
    import logging

    with caplog.at_level(logging.INFO, logger="gatewaykit.emulator.trace"):
        client.chat.completions.create(model="chat-mini", messages=CHAT)
    span = traces.one("chat")
    trace_id = format(span.context.trace_id, "032x")
    span_id = format(span.context.span_id, "016x")
    logged = [record for record in caplog.records if record.name == "gatewaykit.emulator.trace"]
    assert any(record.trace_id == trace_id and record.span_id == span_id for record in logged), [r.getMessage() for r in logged]


def test_uninstrument_stops_the_spans(traces: Any, client: gk.Client) -> None:
    """After gk.uninstrument() a request makes no span and sends no traceparent."""
    from gatewaykit.telemetry import instrumented

    gk.uninstrument()
    assert not instrumented()
    client.chat.completions.create(model="chat-mini", messages=CHAT)
    assert traces.spans() == []


def _has(client: gk.Client, model: str) -> bool:
    return any(entry.id == model for entry in client.models.list())


def test_an_evaluation_is_a_parent_span_of_its_cells(traces: Any, client: gk.Client) -> None:
    """client.evaluate: one invoke_workflow span over every case x model request."""
    client.evaluate(["one", "two"], models=["chat-mini"], scorers=(lambda output, case: bool(output),))
    parent = traces.one("invoke_workflow evaluate")
    assert list(parent.attributes["gatewaykit.models"]) == ["chat-mini"]
    kids = [span for span in traces.spans("chat") if span.parent and span.parent.span_id == parent.context.span_id]
    assert len(kids) == 2
