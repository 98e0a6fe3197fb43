# %% [markdown]
# # Video
#
# Video generation is asynchronous: create a job, follow its progress, play the
# result. Also: a picture as the first frame, and cancelling.

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
# ## Follow it live
#
# A job as the last line of a cell shows live progress: status, elapsed time and a
# progress bar, updated in place while you keep working in other cells, with a
# Cancel button. It turns into a player when the job completes. Showing `job`
# again later shows its state at that moment. (A notebook run headless, e.g. by
# nbconvert, keeps only this first view.)

# %% tags=["nbval-ignore-output"]
job

# %% [markdown]
# ## Wait for it
#
# `job.wait()` blocks until the job ends and returns it (it raises `JobFailedError`
# if the job fails). While it blocks, the Cancel button still works; the stop
# button stops *waiting*, not the job: the cell then says how to pick it up again
# with `client.videos.retrieve(id).wait()`.

# %% tags=["nbval-ignore-output"]
job.wait(timeout=120)

# %%
assert job.status == "completed"
print(job.size, job.seconds, "seconds")

# %% [markdown]
# ## Save it
#
# The player is inside the notebook, so it plays on GitHub-rendered HTML, Binder
# and Colab. `job.save()` writes the MP4.

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
moving = client.videos.create(model=VIDEO, prompt="waves roll in",
                              input_reference=still.images[0],
                              duration=4, resolution="480p", aspect_ratio="1:1").wait()

# %%
assert moving.status == "completed"
print(moving.size)

# %% [markdown]
# ## Cancel
#
# A job you no longer need can be cancelled while it runs; a cancelled job is never
# charged. `job.cancel()` works anywhere; in a notebook the Cancel button under a
# displayed or waited-for job does the same.

# %%
long_one = client.videos.create(model=client.models.pick("video", ["duration"]),
                                prompt="a slow sunset", duration=12)
long_one.cancel()
print(long_one.status)
assert long_one.status in ("cancelled", "canceled", "deleted")
