# %% [markdown]
# # gatewaykit quickstart
#
# A two-minute tour of the **Multi-modal Generation Gateway** from Python:
# one key and one prepaid balance give chat, image, video and music models.
# Every cell below runs as it is, with or without a key.

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
# In a class, `SVC_BASE_URL` is the class's address and your key starts
# `sk-bf-class-`: the first cell then says which class you are in, under which
# name, and what is left of your budget (`gk.classroom.my_budget()` says it again).

# %% [markdown]
# ## The catalog
#
# `client.models.list()` shows the models your key may call. Image, video and
# music entries list the parameters each model accepts.

# %%
catalog = client.models.list()
catalog

# %% [markdown]
# Catalogs differ from key to key, so the notebooks never hard-code a model id:
# `client.models.pick(kind, needs)` gives a model of that kind that accepts every
# parameter (or capability, such as `"vision"`) in `needs`.

# %%
IMAGE = client.models.pick("image", ["width", "height"])
IMAGE

# %% [markdown]
# A model's `parameters` say what each one accepts:

# %%
catalog[IMAGE].parameters

# %% [markdown]
# ## Chat
#
# `client.chat.ask()` streams the answer: in a notebook it appears word by word
# and ends as a static Markdown answer. It returns a `ChatCompletion`.

# %% tags=["nbval-ignore-output"]
answer = client.chat.ask("Explain in three short sentences what server-sent events are.",
                         model=client.models.pick("chat"))

# %%
print(answer.choices[0].message.content[:80], "...")
print(f"tokens: {answer.usage.total_tokens} | cost: ${answer.usage.cost.total_cost:.6f}")
assert answer.choices[0].message.content

# %% [markdown]
# ## An image
#
# `client.images.generate()` returns an `ImageResult`: it shows the images inline,
# and `.images` gives them as PIL images.

# %%
picture = client.images.generate(model=client.models.pick("image", ["width", "height"]),
                                  prompt="a lighthouse at dusk", width=512, height=320)
picture

# %%
picture.images[0].size

# %% [markdown]
# ## A video
#
# Video and music are **jobs**: `create()` returns at once, the gateway works,
# and you poll until it is done. In a notebook, `job.wait()` shows a progress bar
# and a Cancel button while it waits, then an embedded player. (`job` as the last
# line of a cell shows the same live view without blocking.)
#
# A class may leave video or music out: `pick(..., optional=True)` then says the
# class does not allow it and gives `None`, and these cells skip that part.

# %% tags=["nbval-ignore-output"]
VIDEO = client.models.pick("video", ["resolution"], optional=True)
if VIDEO:
    job = client.videos.create(model=VIDEO, prompt="waves at sunrise", duration=4, resolution="480p")
    video = job.wait()  # shows progress while it runs, then a player

# %%
if VIDEO:
    assert video.status == "completed"
    print(video.model, video.size, video.seconds, "seconds")

# %% [markdown]
# ## A song
#
# Music models take a style `prompt` and lyrics with section tags such as
# `[Verse]` and `[Chorus]`.

# %% tags=["nbval-ignore-output"]
MUSIC = client.models.pick("music", ["lyrics_prompt"], optional=True)
if MUSIC:
    job = client.music.create(
        model=MUSIC,
        prompt="upbeat synth pop",
        lyrics_prompt="[Verse]\nHello gateway\n[Chorus]\nOne key for every model",
        bitrate=32000,  # a low bitrate keeps this notebook small
    )
    song = job.wait()

# %%
if MUSIC:
    assert song.status == "completed"
    print(song.model, song.seconds, "seconds")

# %% [markdown]
# ## What it cost
#
# Every request is recorded in the cost ledger, `gk.ledger`: one row per request
# or job, as a pandas DataFrame. The `cost` column (USD) adds up to the total below.

# %%
costs = gk.ledger.to_pandas()[["kind", "model", "status", "cost_source", "total_cost"]]
costs["cost"] = costs.pop("total_cost").map("${:.6f}".format, na_action="ignore")
costs

# %%
print(f"spent so far: ${gk.ledger.total_cost:.6f}")

# %% [markdown]
# ## Next
#
# Each topic has its own notebook: [chat](01-chat.ipynb), [images](02-images.ipynb),
# [video](03-video.ipynb), [music](04-music.ipynb), [the cost ledger](05-cost-ledger.ipynb),
# [many requests at once](06-many-requests.ipynb),
# [errors and retries](07-errors-and-retries.ipynb),
# [conversations with tools](08-conversations.ipynb),
# [the playground](09-playground.ipynb), a form to try any model without code,
# [exploring](10-exploring.ipynb) (a chat box, comparisons, the gallery, free re-runs),
# [a class on one key](11-classroom.ipynb) and
# [evaluating models on your own cases](12-evaluate.ipynb).
