# %% [markdown]
# # Exploring: a chat box, side by side, a gallery, and re-runs that cost nothing
#
# Four tools for a whole session rather than a single call:
#
# 1. `gk.chat_ui()` — a chat box in a cell, over a conversation;
# 2. `client.compare(prompt, models=[...])` — one prompt on several models, side by side;
# 3. `gk.gallery()` — every image, video and song this session made;
# 4. `gk.Client(cache=True)` — an identical request answered from a cache, with nothing sent.

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

# %% [markdown]
# ## 1. A chat box
#
# Type below the transcript: **Enter** sends, **Shift+Enter** starts a new line.
# **Stop** ends an answer that is still arriving (what arrived stays, marked as
# stopped); **Undo** takes back the last turn, **Reset** starts over. The picker
# lists the catalog's chat models; vision models get an image button. Each turn
# shows its cost, and the top line the conversation's total.

# %% tags=["nbval-ignore-output"]
box = gk.chat_ui(client, model=client.models.pick("chat"),
                 system="You are a patient teacher.")
box

# %% [markdown]
# `box.send(text)` does exactly what the Send button does (handy in a script),
# and `box.session` is the `ChatSession` underneath: its history, cost and
# export work as in notebook 08.

# %%
reply = box.send("Explain what a prime number is, in two sentences.")
assert len(box.session.turns) == 1
print(box.session.history[-1]["content"][:120])

# %% [markdown]
# ## 2. Side by side
#
# `client.compare` sends one prompt to several models of one kind at once and
# shows a column per model: its output, how long it took, its tokens and cost.
# The grid appears at once and each column fills as its model answers (chat
# answers stream in); the cheapest and the fastest are marked at the end. A typo in a model id is caught before
# anything is sent ("did you mean ...?").

# %% tags=["nbval-ignore-output"]
chat_models = [model.id for model in client.models.list() if model.kind == "chat"][:3]
answers = client.compare("Explain server-sent events in one paragraph.", models=chat_models)
answers

# %%
frame = answers.to_pandas()
assert list(frame.model) == chat_models and frame.error.isna().all()
assert (frame.latency_s > 0).all()  # each model's seconds (they differ from run to run)
frame[["model", "tokens", "total_cost", "cost_source"]]

# %% [markdown]
# Images compare the same way; parameters go to every model (a model ignores a
# sizing field it does not use).

# %% tags=["nbval-ignore-output"]
image_models = [model.id for model in client.models.list() if model.kind == "image"][:3]
pictures = client.compare("a lighthouse on a cliff at dusk", models=image_models)
pictures

# %%
try:
    client.compare("hello", models=["chat-mni"])
except gk.ModelNotFoundError as error:
    print(error.message)

# %% [markdown]
# ## 3. A gallery of what this session made
#
# Every image, video and song made in this kernel, with its prompt, model,
# parameters, cost and time. Click a picture to enlarge it. `kind=` and `tag=`
# (a ledger tag) narrow it; `.save(folder)` writes the media and a CSV.

# %% tags=["nbval-ignore-output"]
song = client.music.create(model=client.models.pick("music"), prompt="calm piano, slow",
                           lyrics_prompt="[Verse]\nQuiet keys at night\n"
                                         "[Chorus]\nSlow and bright")
song.wait()
gk.gallery()

# %%
made = gk.gallery()
print(repr(made))
assert len(gk.gallery(kind="image")) >= 3 and len(gk.gallery(kind="music")) == 1
made.to_pandas().groupby("kind").size()

# %% [markdown]
# ## 4. Re-runs that cost nothing
#
# With `cache=True`, a request identical to one already answered (same body,
# same pictures, same key and gateway) is answered from a per-user cache and
# nothing is sent. The answer says **cached: not sent, not charged (saved \$…)**, and its ledger row is
# `cost_source="cached"` at \$0, keeping what it saved. `cache="refresh"` sends
# again and keeps the new answer. It is off unless you turn it on; here it uses
# a folder of its own, so the notebook starts cold every time it runs.

# %%
import tempfile

cached_client = gk.Client(cache=tempfile.mkdtemp(prefix="gk-cache-"))
question = [{"role": "user", "content": "Name three rivers in Africa."}]
first = cached_client.chat.completions.create(model=client.models.pick("chat"),
                                              messages=question)
again = cached_client.chat.completions.create(model=client.models.pick("chat"),
                                              messages=question)
assert again.choices[0].message.content == first.choices[0].message.content
assert again.model_extra["gatewaykit_cache"]["saved_cost"] == first.usage.cost.total_cost
again  # the same answer; its footer says it was not sent and not charged, and what it saved

# %%
row = gk.ledger.to_pandas().iloc[-1]
print(row.cost_source, row.total_cost)
