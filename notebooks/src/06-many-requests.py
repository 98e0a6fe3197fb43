# %% [markdown]
# # Many requests at once
#
# Send many requests concurrently: `client.map` and `client.batch` with the normal
# client (threads, works in any cell), or `AsyncClient` with `await`.

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
CHAT = client.models.pick("chat")
topics = ["volcanoes", "octopuses", "lighthouses", "glaciers", "comets", "bees"]


def one_line(topic):
    reply = client.chat.completions.create(
        model=CHAT, messages=[{"role": "user", "content": f"One sentence about {topic}."}]
    )
    return reply.choices[0].message.content


# %% [markdown]
# ## `client.map`: a function over many items
#
# Results come back in input order. `concurrency` bounds how many run at once
# (respect your rate limit).

# %% tags=["nbval-ignore-output"]
import time

started = time.perf_counter()
sentences = client.map(one_line, topics, concurrency=6)
print(f"{len(sentences)} answers in {time.perf_counter() - started:.2f} s")

# %%
assert sentences.ok and len(sentences) == len(topics)
for topic, sentence in zip(topics, sentences):
    print(f"{topic:>11}: {sentence}")

# %% [markdown]
# ## Failures do not lose the rest
#
# An item that fails holds its exception; `.errors` lists them, `.values` the
# successes, `.raise_first()` raises the first error. Displayed, a `BatchResult`
# is a table: each item's status and a short preview of its result.

# %%
calls = [
    lambda: client.images.generate(model=client.models.pick("image", ["width", "height"]),
                                   prompt="a kite", width=256, height=256),
    lambda: client.images.generate(model="no-such-model", prompt="a kite"),
]
results = client.batch(calls)
results

# %%
for index, error in results.errors:
    print(index, type(error).__name__)

# %% [markdown]
# ## Async: `AsyncClient` and `asyncio.gather`
#
# Notebooks run an event loop, so you can `await` at the top level of a cell.
# `AsyncClient` has the same methods as `Client`, each awaitable.

# %%
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

# %% [markdown]
# `aclient.map` bounds the concurrency for you, like `client.map`.

# %%
bounded = await aclient.map(one_line_async, topics, concurrency=3)
for topic, sentence in zip(topics[:2], bounded):
    print(f"{topic:>11}: {sentence}")
await aclient.close()
