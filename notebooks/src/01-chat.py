# %% [markdown]
# # Chat
#
# Streaming answers, reasoning, tools, structured JSON and pictures as input.

# %%
import sys
# Colab: install gatewaykit (keeps Colab's own Jupyter packages)
if "google.colab" in sys.modules:
    # %pip install -q "gatewaykit[colab] @ git+https://github.com/gatewaykit/gatewaykit"
import os
import gatewaykit as gk
# a key: the real gateway (re-runs cached); none: offline
client = gk.Client(cache="SVC_API_KEY" in os.environ)

# %% [markdown]
# ### Which gateway?
#
# The first cell picks the gateway. With `SVC_API_KEY` and `SVC_BASE_URL` set
# (in Colab the key may be a secret named `SVC_API_KEY`) it talks to the real
# gateway and you pay for what you run; a re-run of the same request is answered
# from a local cache (`cache=True`), sends nothing and costs nothing. Without a key it starts the built-in
# **offline gateway**, a local server with synthetic models: free, fast, and
# clearly labelled as synthetic.

# %%
CHAT = client.models.pick("chat", ["tools", "json_schema"])
REASONER = client.models.pick("chat", ["reasoning"])
VISION = client.models.pick("chat", ["vision"])
print(CHAT, REASONER, VISION)

# %% [markdown]
# ## Ask, and watch it stream
#
# `ask()` sends one question and renders the answer live. `system=` sets the
# assistant's role.

# %% tags=["nbval-ignore-output"]
answer = client.chat.ask("Give me three tips for writing clear error messages.",
                         model=CHAT, system="You are a concise technical writer.")

# %%
assert answer.choices[0].finish_reason == "stop"
print(answer.usage.total_tokens, "tokens")

# %% [markdown]
# ## The stream itself
#
# `chat.completions.create(stream=True)` gives a `ChatStream`: iterate over its
# chunks yourself, then `.final()` assembles them into one `ChatCompletion`
# (with usage and cost, which arrive in the last chunk).

# %%
stream = client.chat.completions.create(
    model=CHAT,
    messages=[{"role": "user", "content": "Count from one to five in words."}],
    stream=True,
)
pieces = []
for chunk in stream:
    if chunk.choices and chunk.choices[0].delta.content:
        pieces.append(chunk.choices[0].delta.content)
completion = stream.final()
assert "".join(pieces) == completion.choices[0].message.content
print(len(pieces), "chunks")

# %% [markdown]
# ## Reasoning
#
# Reasoning models think before they answer. `reasoning_effort` (`low`, `medium`,
# `high`) sets how long; the trace is in `message.reasoning` and its tokens are
# billed as `reasoning_tokens`.

# %%
thought = client.chat.completions.create(
    model=REASONER, reasoning_effort="low",
    messages=[{"role": "user", "content": "Is 221 a prime number?"}],
)
details = thought.usage.completion_tokens_details
print("reasoning tokens:", details.reasoning_tokens if details else None)
thought

# %% [markdown]
# ## Tools
#
# Describe functions with a JSON schema; the model answers with `tool_calls`
# instead of text. Run the function yourself, send its result back as a `tool`
# message, and the model writes the final answer.

# %%
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

# %%
arguments = json.loads(call.function.arguments)
# our "weather service"
result = {"city": arguments.get("city"), "temperature_c": 21, "sky": "clear"}
messages += [first.choices[0].message.model_dump(exclude_none=True),
             {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}]
final = client.chat.completions.create(model=CHAT, messages=messages, tools=tools)
assert final.choices[0].message.content
final

# %% [markdown]
# ## Structured JSON
#
# `response_format={"type": "json_schema", ...}` asks for JSON that follows your
# schema. Parse it with `json.loads` (and validate it: model output is untrusted).

# %%
schema = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "country": {"type": "string"},
                   "population": {"type": "integer"}},
    "required": ["name", "country", "population"],
}
reply = client.chat.completions.create(
    model=CHAT,
    messages=[{"role": "user", "content": "Describe a large city as JSON."}],
    response_format={"type": "json_schema",
                     "json_schema": {"name": "city", "schema": schema}},
)
city = json.loads(reply.choices[0].message.content)
assert set(schema["required"]) <= set(city)
city

# %% [markdown]
# ## Vision: pictures as input
#
# Vision models accept images in the message content. `gk.image_part()` turns a
# path, bytes or a PIL image into a content part. Here the picture comes from an
# image model.

# %%
picture = client.images.generate(model=client.models.pick("image", ["width", "height"]),
                                  prompt="a red bicycle by a blue door",
                                 width=256, height=256)
picture

# %% tags=["nbval-ignore-output"]
seen = client.chat.ask(
    [{"type": "text", "text": "What is in this picture?"},
     gk.image_part(picture.images[0])],
    model=VISION,
)

# %%
assert seen.choices[0].message.content
print(seen.usage.prompt_tokens, "prompt tokens (the picture counts too)")
