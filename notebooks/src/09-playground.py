# %% [markdown]
# # Playground
#
# Try every model in the catalog without writing code: pick a kind and a model,
# set its parameters, press **Run**. The form is built from the model's catalog
# entry (a dropdown per list of values, a checkbox per switch, a slider per
# range, a text box with a live character count per prompt), so it always offers
# exactly what the model accepts. Chat answers stream in, images show inline,
# video and music jobs show their progress and then a player, and the line above
# the result adds up what this playground has cost. A value the client would
# refuse (a prompt over the model's limit, lyrics that are too short) is shown
# next to the form, and nothing is sent.

# %%
# As an app, without the code cells: `voila notebooks/09-playground.ipynb` (an app shows
# the Markdown and the outputs only, so the notes for whoever runs it are these comments).
#
# Which gateway? With SVC_API_KEY and SVC_BASE_URL set (in Colab the key may be a secret
# named SVC_API_KEY) this talks to the real gateway and you pay for what you run; a re-run
# of the same request is answered from a local cache (cache=True). Without a key it starts
# the built-in offline gateway: synthetic models, free, fast, and labelled as synthetic.
import sys
# Colab: install gatewaykit (keeps Colab's own Jupyter packages)
if "google.colab" in sys.modules:
    # %pip install -q "gatewaykit[colab] @ git+https://github.com/gatewaykit/gatewaykit"
import os
import gatewaykit as gk
# a key: the real gateway (re-runs cached); none: offline
client = gk.Client(cache="SVC_API_KEY" in os.environ)

# %% tags=["nbval-ignore-output"]
gk.playground(client)

# %% [markdown]
# Each run is one client call, the same as in code: `client.images.generate(...)`
# ([02-images](02-images.ipynb)), `client.videos.create(...)` ([03-video](03-video.ipynb)),
# `client.music.create(...)` ([04-music](04-music.ipynb)) or a streamed chat
# ([01-chat](01-chat.ipynb)). The rows it adds to the ledger carry a tag of their
# own (`playground-1`), so [05-cost-ledger](05-cost-ledger.ipynb)'s summaries can
# tell them apart.
