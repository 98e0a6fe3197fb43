# %% [markdown]
# # Images
#
# Image models size their pictures in one of four ways, write PNG, JPEG or WebP,
# and edit pictures from several reference images.

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
# ## What a model accepts
#
# Each image model's catalog entry lists its `parameters` (with allowed values and
# defaults) and whether it can edit (`edit.max_reference_images`).

# %%
for model in client.models.list():
    if model.kind == "image":
        print(f"{model.id:<14} {', '.join(sorted(model.parameters or {}))}")

# %%
client.models.get(client.models.pick("image", ["aspect_ratio", "resolution"]))

# %% [markdown]
# ## Four ways to say how big
#
# 1. **pixels**: `width` and `height`;
# 2. **tiers**: `aspect_ratio` and a `resolution` tier (`1K`, `2K`, `4K`), priced per tier;
# 3. **aspect**: `aspect_ratio` only;
# 4. **presets**: a named `image_size` such as `landscape_4_3`.
#
# The client checks values against the catalog before sending, so a typo fails at
# once with the allowed values.

# %%
by_pixels = client.images.generate(model=client.models.pick("image", ["width", "height"]),
                                   prompt="a paper boat on a pond", width=384, height=256)
by_pixels

# %%
by_tier = client.images.generate(
    model=client.models.pick("image", ["aspect_ratio", "resolution"]),
    prompt="a mountain cabin in snow",
    aspect_ratio="16:9",
    resolution="1K",
    output_format="jpeg",
)
print(by_tier.images[0].size)
by_tier

# %%
by_aspect = client.images.generate(model=client.models.pick("image", ["aspect_ratio"]),
                                   prompt="a tall glass of lemonade", aspect_ratio="3:4",
                                   output_format="jpeg")
print(by_aspect.images[0].size)
by_aspect

# %%
by_preset = client.images.generate(model=client.models.pick("image", ["image_size"]),
                                   prompt="a city skyline at night",
                                   image_size="landscape_4_3", output_format="jpeg")
print(by_preset.images[0].size)
by_preset

# %% [markdown]
# ## Formats, several at once, and saving
#
# `output_format` picks PNG, JPEG or WebP; `n` asks for several pictures (shown as
# a grid); `.save(folder)` writes them with the right extension.

# %%
import tempfile

several = client.images.generate(model=client.models.pick("image", ["width", "height"]),
                                 prompt="a hot air balloon", width=256, height=256, n=2,
                                 output_format="webp")
folder = tempfile.mkdtemp()
saved = several.save(folder)
print([path.suffix for path in saved])
several

# %% [markdown]
# ## Edits with several reference images
#
# `images.edit(image=[...])` takes paths, bytes, file objects or PIL images. Models
# differ in how many references they accept (`edit.max_reference_images`).

# %%
editor = client.models.get(client.models.pick("image", ["aspect_ratio", "resolution"]))
print("up to", editor.edit.max_reference_images, "reference images")
edited = client.images.edit(
    model=editor.id,
    prompt="combine these into one poster",
    image=[by_pixels.images[0], several.images[0], several.images[1]],
    aspect_ratio="1:1",
    resolution="1K",
    output_format="jpeg",
)
edited
