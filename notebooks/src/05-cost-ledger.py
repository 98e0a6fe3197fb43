# %% [markdown]
# # The cost ledger
#
# Every request's cost lands in `gk.ledger`: a table you can summarise by model or
# tag, plot, export, and guard with a budget.

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
# ## Tags
#
# Requests made inside `with gk.ledger.tag(...)` carry that tag, so you can see
# what each experiment cost.

# %%
CHAT = client.models.pick("chat")
IMAGE = client.models.pick("image", ["width", "height"])

with gk.ledger.tag("haiku"):
    for topic in ["rain", "trains", "tea"]:
        client.chat.completions.create(
            model=CHAT,
            messages=[{"role": "user", "content": f"A haiku about {topic}"}],
        )
with gk.ledger.tag("posters"):
    client.images.generate(model=IMAGE, prompt="a retro travel poster",
                           width=256, height=256)
len(gk.ledger)

# %% [markdown]
# ## The ledger shows itself
#
# Displayed, the ledger is a table with totals and a per-model summary.

# %% tags=["nbval-ignore-output"]
gk.ledger

# %%
gk.ledger.summary()

# %%
gk.ledger.summary(by="tag")

# %% [markdown]
# ## As a DataFrame
#
# `to_pandas()` has one row per request: tokens, cost, status, latency, retries, tags.
# `cost_source` says where the amount came from (`reported` = the exact amount the
# gateway deducted; `estimated` = a video or song the gateway bills without reporting
# an amount, priced from your price table or the gateway's catalog, shown as "≈ $0.40 est.").

# %%
frame = gk.ledger.to_pandas()
frame[["kind", "model", "status", "total_tokens", "cost_source", "tags"]]

# %% [markdown]
# ## A plot of cumulative cost
#
# `plot()` returns a matplotlib Figure (shown once as a cell's last line); pass
# `ax=` to draw on axes of your own.

# %% tags=["nbval-ignore-output"]
gk.ledger.plot()

# %% [markdown]
# ## Export
#
# CSV for spreadsheets, Parquet for pandas and friends.

# %%
import tempfile
from pathlib import Path

import pandas as pd

folder = Path(tempfile.mkdtemp())
gk.ledger.to_csv(folder / "costs.csv")
gk.ledger.to_parquet(folder / "costs.parquet")
assert (len(pd.read_csv(folder / "costs.csv"))
        == len(pd.read_parquet(folder / "costs.parquet"))
        == len(gk.ledger))
sorted(path.name for path in folder.iterdir())

# %% [markdown]
# ## A budget
#
# A ledger with a `budget` (in USD) refuses a request **before anything is sent**
# (`BudgetExceededError`) once the recorded total reaches it. Video and music jobs
# carry no cost in the gateway's answers; with a price for them (your price table,
# else the gateway's catalog) it also refuses a request whose *estimated* cost would
# pass the budget. `gk.Client(ledger=...)` records into a ledger of your own.

# %%
VIDEO = client.models.pick("video", ["resolution"])
# your price list, USD
prices = {VIDEO: {"per_second": {"480p": 0.05, "720p": 0.10, "1080p": 0.25}}}
# in memory: a budget for this demo only
careful = gk.Ledger(budget=0.50, prices=prices, path=None)
careful_client = gk.Client(ledger=careful)
try:
    careful_client.videos.create(model=VIDEO, prompt="an expensive epic",
                                 duration=8, resolution="1080p")
except gk.BudgetExceededError as error:
    print("refused:", error)
assert len(careful) == 0

# %% [markdown]
# The process-wide ledger takes a budget the same way: `gk.ledger.budget = 5.00`.

# %% [markdown]
# ## A quote before spending
#
# `client.videos.quote(...)` (also `client.music.quote` and `client.images.quote`)
# takes the same arguments as `create`/`generate` and says what the request would
# cost, sending nothing: `.total_cost` (USD, or `None` when nothing can price it),
# `.source` (`"price table"`: your `Ledger(prices=...)`; `"catalog"`: the prices the
# gateway's catalog states) and the assumptions it made (the model's defaults for
# what you left out). A model or value the gateway does not offer is an error naming it.

# %%
quote = client.videos.quote(model=VIDEO, prompt="an expensive epic",
                            duration=8, resolution="1080p")
print(quote)
quote.total_cost, quote.source

# %% [markdown]
# ## Ask before an expensive request
#
# `gk.Client(confirm_over=0.10)` quotes every paid request and asks before sending
# one quoted above $0.10: in a notebook a card with the quote and **Confirm** /
# **Cancel** (Cancel sends nothing); in a script `gk.ConfirmationRequiredError`.
# `confirm=True` on the call sends it without asking (here, so the notebook runs
# unattended); `client.map`/`client.batch` ask once for the whole batch.
#
# Without `confirm=True`, the call stops at this card until you press a button
# (a picture here, as this notebook runs unattended; run
# `guarded.videos.create(model=VIDEO, prompt="an expensive epic", duration=8, resolution="1080p")`
# to see the real one):
#
# ![The confirmation card: the quote, over confirm_over, with Confirm and Cancel](media/confirm-card.png)
#
# Cancel sends nothing and ends the cell with one quiet line (so Run All stops there).

# %% tags=["nbval-ignore-output"]
guarded = gk.Client(confirm_over=0.10)
print(guarded.videos.quote(model=VIDEO, prompt="waves", duration=4, resolution="480p"))
clip = guarded.videos.create(model=VIDEO, prompt="waves", duration=4, resolution="480p",
                             confirm=True).wait()
gk.ledger.to_pandas()[["model", "status", "cost_source", "total_cost"]].tail(1)
