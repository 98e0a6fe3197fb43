# %% [markdown]
# # Music
#
# Songs from a style prompt and lyrics. Like video, music is an asynchronous job.

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
SONG = client.models.pick("music", ["lyrics_prompt"])
client.models.get(SONG).parameters

# %% [markdown]
# ## Lyrics
#
# `lyrics_prompt` is required (10 to 3000 characters). Section tags such as
# `[Verse]`, `[Chorus]` and `[Bridge]` shape the song; `prompt` describes the style
# (at most 300 characters).

# %%
lyrics = """[Verse]
Packets in the morning light
Tokens streaming through the night
[Chorus]
One key, one balance, every song
The gateway hums along
"""
job = client.music.create(model=SONG, prompt="mellow acoustic folk, warm vocals",
                          lyrics_prompt=lyrics,
                          bitrate=32000)  # a low bitrate keeps this notebook small
print(job.status)

# %% [markdown]
# ## Wait and listen
#
# The progress display turns into an audio player when the song is ready. The
# stop button stops waiting, not the song: `client.music.retrieve(job.id).wait()`
# picks it up again.

# %% tags=["nbval-ignore-output"]
song = job.wait()

# %%
assert song.status == "completed"
print(song.seconds, "seconds")

# %% [markdown]
# ## Save it
#
# `job.save(folder)` writes `<job id>.mp3`; `job.content()` gives the bytes.

# %%
import tempfile

path = job.save(tempfile.mkdtemp())
data = job.content()
print(path.suffix, len(data) == path.stat().st_size)

# %% [markdown]
# ## Mistakes caught before sending
#
# The client checks requests against the catalog: a missing or too short
# `lyrics_prompt` fails at once, with nothing sent and nothing charged.

# %%
try:
    client.music.create(model=SONG, prompt="jazz", lyrics_prompt="la la")
except gk.BadRequestError as error:
    print(f"{type(error).__name__} ({error.param}): {error.message}")
