# %% [markdown]
# # Conversations, tools and structured output
#
# A chat session keeps the history for you, runs your Python functions when the
# model asks for them, and returns validated pydantic objects, with the cost of
# the whole conversation at hand.

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
# Pick a chat model that can call tools and follow a JSON schema. On the
# offline gateway the model is synthetic: it cannot answer questions, but it
# calls your tools, repeats their results and writes schema-valid JSON, so
# every step below runs without a key.

# %%
CHAT = client.models.pick("chat", ["tools", "json_schema"])
print(CHAT)

# %% [markdown]
# ## A conversation over several turns
#
# `client.chat.session(...)` gives a `ChatSession`. Calling it sends the whole
# history plus your new prompt, streams the answer live and returns the turn's
# `ChatCompletion`. `system=` sets the assistant's role for every turn.

# %% tags=["nbval-ignore-output"]
chat = client.chat.session(model=CHAT, system="You are a concise travel guide.")
first = chat("Suggest a weekend in Porto.")

# %%
assert first.choices[0].finish_reason == "stop"
print(len(chat.history), "messages so far")

# %% [markdown]
# The second turn is sent with the first one, so the model sees the context.

# %% tags=["nbval-ignore-output"]
second = chat("And what should I eat there?")

# %%
print([message["role"] for message in chat.history])
print(chat.requests, "requests,", chat.usage.total_tokens, "tokens")
print(f"cost of this conversation: ${chat.cost:.6f}")
assert len(chat.history) == 5 and chat.cost > 0

# %% [markdown]
# Every request of the session is in the client's ledger, tagged with the
# conversation (`chat.tag`), so `chat.cost` is the sum of those rows.

# %%
rows = [row for row in client.ledger.rows if chat.tag in row["tags"]]
assert len(rows) == chat.requests
assert abs(sum(row["total_cost"] for row in rows) - chat.cost) < 1e-12
len(rows)

# %% [markdown]
# ## Tools: plain Python functions
#
# A tool is a function with type hints and a docstring: gatewaykit builds its
# JSON schema, runs the calls the model asks for, sends the results back and
# asks again, until the model answers (or `max_steps` runs out). In a notebook
# each call and its result appear as a collapsible block above the answer.

# %%
CITIES = {
    "Lisbon": {"country": "Portugal", "population": 545_000, "elevation_m": 2},
    "Oslo": {"country": "Norway", "population": 709_000, "elevation_m": 23},
}


def city_facts(city: str) -> dict:
    """Look up facts about a city: its country, population and elevation."""
    return {"city": city, **CITIES.get(city, {"note": "not in the table"})}


def fahrenheit_to_celsius(fahrenheit: float) -> float:
    """Convert a temperature from Fahrenheit to Celsius."""
    return round((fahrenheit - 32) * 5 / 9, 1)


guide = client.chat.session(model=CHAT, tools=[city_facts, fahrenheit_to_celsius])

# %% tags=["nbval-ignore-output"]
reply = guide(
    "Look up the facts about Lisbon, and convert 77 degrees Fahrenheit to Celsius."
)

# %% [markdown]
# The answer uses what the tools returned. The history holds the tool calls and
# their results as plain message dicts:

# %%
answer = reply.choices[0].message.content
assert "Portugal" in answer and "25.0" in answer
for message in guide.history:
    if message["role"] == "assistant" and message.get("tool_calls"):
        for call in message["tool_calls"]:
            print("called", call["function"]["name"], call["function"]["arguments"])
    elif message["role"] == "tool":
        print("  result", message["content"])

# %% [markdown]
# A tool that raises does not stop the turn: the model reads the error as the
# tool's result. `approve=` can refuse calls (it gets the tool's name and
# arguments), and the model is told.

# %% [markdown]
# ## Structured output into a pydantic model
#
# `client.chat.completions.parse(...)` asks for JSON that follows a pydantic
# model's schema and validates the reply: `message.parsed` is the object. A
# reply that does not validate raises `gk.StructuredOutputError` with the raw
# text (`retries=` re-asks with the validation errors).

# %%
from pydantic import BaseModel, Field


class Trip(BaseModel):
    city: str
    country: str
    nights: int = Field(ge=1)
    budget_eur: float


extracted = client.chat.completions.parse(
    model=CHAT,
    messages=[{"role": "user",
               "content": "Extract the trip: 3 nights in Lisbon, Portugal, "
                          "with a budget of 600 euros."}],
    response_format=Trip,
)
trip = extracted.choices[0].message.parsed
assert isinstance(trip, Trip)
trip

# %% [markdown]
# Inside a conversation, `chat.parse(prompt, Model)` does the same and keeps
# the turn in the history.

# %%
plan = chat.parse("Now plan 2 nights in Oslo, Norway, for 450 euros.", Trip)
assert isinstance(plan, Trip) and len(chat.history) == 7
plan

# %% [markdown]
# ## Undo a turn
#
# `chat.undo()` drops the last turn (prompt and replies) from the history; what
# it cost stays counted. `chat.reset()` starts over.

# %%
dropped = chat.undo()
print("dropped:", dropped.messages[0]["content"])
assert len(chat.history) == 5

# %% [markdown]
# The session displays itself as the whole conversation, with the cost:

# %% tags=["nbval-ignore-output"]
chat

# %% [markdown]
# ## Export and restore
#
# `chat.export(path)` writes Markdown, HTML (sanitised like the live view) or
# JSON. The Markdown transcript reads well on its own and
# `gk.ChatSession.from_markdown` restores the conversation from it, ready for
# the next turn.

# %%
import tempfile
from pathlib import Path

folder = Path(tempfile.mkdtemp())
for suffix in (".md", ".html", ".json"):
    path = guide.export(folder / f"lisbon{suffix}")
    print(path.name, path.stat().st_size > 0)

# %%
restored = gk.ChatSession.from_markdown((folder / "lisbon.md").read_text(), client=client,
                                        tools=[city_facts, fahrenheit_to_celsius])
assert restored.history == guide.history
print(len(restored.history), "messages restored, model", restored.model)

# %% [markdown]
# The transcript without its machine-readable comments (they carry the tool
# calls' ids and arguments for the round-trip):

# %%
text = (folder / "lisbon.md").read_text()
print("\n".join(line for line in text.splitlines() if not line.startswith("<!--")))
