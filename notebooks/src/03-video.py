# %% [markdown]
# # Video
#
# Video generation is asynchronous: create a job, follow its progress, play the
# result. Also: a picture as the first frame, and cancelling.

# %%
import sys
if "google.colab" in sys.modules:  # Colab: install gatewaykit (keeps Colab's own Jupyter packages)
    # %pip install -q "gatewaykit[colab] @ git+https://github.com/gatewaykit/gatewaykit"
import gatewaykit as gk
client = gk.Client()  # SVC_API_KEY (+ SVC_BASE_URL): the real gateway; no key: the offline one

# %% [markdown]
# ### Which gateway?
#
# The first cell picks the gateway. With `SVC_API_KEY` and `SVC_BASE_URL` set
# (in Colab the key may be a secret named `SVC_API_KEY`) it talks to the real
# gateway and you pay for what you run. Without a key it starts the built-in
# **offline gateway**, a local server with synthetic models: free, fast, and
# clearly labelled as synthetic.

# %%
VIDEO = client.models.pick("video", ["resolution", "image_to_video"])
client.models.get(VIDEO).parameters

# %% [markdown]
# ## Create a job
#
# `videos.create()` returns a `VideoJob` at once, usually `queued`. Nothing is
# charged yet: the gateway bills a video when it completes.

# %%
job = client.videos.create(model=VIDEO, prompt="a paper plane over a city", duration=4,
                           resolution="480p")
print(job.status)

# %% [markdown]
# ## Follow it without blocking
#
# `show_progress(job)` returns immediately: a background thread polls the job and
# updates the display (status, elapsed time, a progress bar once similar jobs have
# finished), which turns into a player when the job completes. You can keep working
# in other cells meanwhile. Several jobs share one dashboard.

# %% tags=["nbval-ignore-output"]
from gatewaykit.notebook import show_progress

progress = show_progress(job)

# %% [markdown]
# `progress.join()` waits for it (only needed when later code uses the result).
# `job.wait()` blocks until the job ends, showing the same display in a notebook;
# it raises `JobFailedError` if the job fails.

# %%
progress.join(timeout=120)
assert job.status == "completed"
print(job.size, job.seconds, "seconds")

# %% [markdown]
# ## Play it, save it
#
# A completed job displays as an embedded player (the video is inside the notebook,
# so it plays on GitHub-rendered HTML, Binder and Colab). `job.save()` writes the MP4.

# %%
job

# %%
import tempfile
from pathlib import Path

path = job.save(Path(tempfile.mkdtemp()) / "paper-plane.mp4")
print(path.name, path.stat().st_size > 0)

# %% [markdown]
# ## A picture as the first frame
#
# Image-to-video models take `input_reference`: a URL, a path, bytes or a PIL
# image. This time we block with `job.wait()`.

# %%
still = client.images.generate(model=client.models.pick("image", ["width", "height"]),
                               prompt="a calm sea", width=256, height=256)
still

# %% tags=["nbval-ignore-output"]
moving = client.videos.create(model=VIDEO, prompt="waves roll in", input_reference=still.images[0],
                              duration=4, resolution="480p", aspect_ratio="1:1").wait()

# %%
assert moving.status == "completed"
print(moving.size)

# %% [markdown]
# ## Cancel
#
# A job you no longer need can be cancelled while it runs; a cancelled job is never
# charged. (With ipywidgets installed, `show_progress` also shows a Cancel button.)

# %%
long_one = client.videos.create(model=client.models.pick("video", ["duration"]),
                                prompt="a slow sunset", duration=12)
long_one.cancel()
print(long_one.status)
assert long_one.status in ("cancelled", "canceled", "deleted")
