"""Attribute, event and metric names: OpenTelemetry's GenAI conventions where they exist.

Written out here (not imported from ``opentelemetry-semantic-conventions``) so that
``gatewaykit[otel]`` needs only ``opentelemetry-api``; ``tests/telemetry`` checks
each conventional name against the semantic-conventions package.

- ``gen_ai.*``, ``server.*``, ``error.type``: the GenAI semantic conventions.
- ``gen_ai.usage.cost.*``: the cost proposal under review (amount, currency,
  source = ``provider`` for a cost the gateway reported, ``local`` for an estimate).
- ``gatewaykit.*``: what no convention names yet (jobs, media, the cache).
"""

from __future__ import annotations

# --- GenAI semantic conventions -------------------------------------------------------------
OPERATION_NAME = "gen_ai.operation.name"
PROVIDER_NAME = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens"
REQUEST_TEMPERATURE = "gen_ai.request.temperature"
REQUEST_TOP_P = "gen_ai.request.top_p"
REQUEST_SEED = "gen_ai.request.seed"
REQUEST_CHOICE_COUNT = "gen_ai.request.choice.count"
RESPONSE_MODEL = "gen_ai.response.model"
RESPONSE_ID = "gen_ai.response.id"
RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons"
OUTPUT_TYPE = "gen_ai.output.type"
USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens"
USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
TOKEN_TYPE = "gen_ai.token.type"
AGENT_NAME = "gen_ai.agent.name"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
SERVER_ADDRESS = "server.address"
SERVER_PORT = "server.port"
ERROR_TYPE = "error.type"

# --- the cost proposal -----------------------------------------------------------------------
COST_AMOUNT = "gen_ai.usage.cost.amount"
COST_CURRENCY = "gen_ai.usage.cost.currency"
COST_SOURCE = "gen_ai.usage.cost.source"

# --- gatewaykit's own names ------------------------------------------------------------------
CALL = "gatewaykit.call"  # the ledger's kind of request: chat, chat.stream, image.generate, video, ...
STATUS = "gatewaykit.status"  # the ledger row's status: ok, error, interrupted, or a job's state
LEDGER_COST_SOURCE = "gatewaykit.cost.source"  # the ledger's source where COST_SOURCE has no word: cached, replayed ...
ATTEMPTS = "gatewaykit.attempts"  # only when the request was sent more than once
JOB_ID = "gatewaykit.job.id"
JOB_STATUS = "gatewaykit.job.status"
JOB_SECONDS = "gatewaykit.job.seconds"  # the clip or song length the job bills
RESOLUTION = "gatewaykit.request.resolution"
DURATION = "gatewaykit.request.duration"
IMAGE_COUNT = "gatewaykit.response.images"
OPERATION = "gatewaykit.operation"  # map, batch, compare, evaluate, chat_session
ITEMS = "gatewaykit.items"
MODELS = "gatewaykit.models"

# --- events ----------------------------------------------------------------------------------
JOB_CREATED = "gatewaykit.job.created"
JOB_POLL = "gatewaykit.job.poll"
JOB_CANCEL = "gatewaykit.job.cancel"

# --- metrics ---------------------------------------------------------------------------------
TOKEN_USAGE_METRIC = "gen_ai.client.token.usage"
DURATION_METRIC = "gen_ai.client.operation.duration"
COST_METRIC = "gatewaykit.client.cost"
METRICS_FEED = "gatewaykit.client.metrics.feed"  # an observable instrument that reports nothing (request_metrics.py)

# --- values ----------------------------------------------------------------------------------
PROVIDER = "svc"  # the spec's neutral name of the gateway's brand
CURRENCY = "USD"
