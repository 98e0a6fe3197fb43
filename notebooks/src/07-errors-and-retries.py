# %% [markdown]
# # Errors and retries
#
# What each error looks like and how to handle it. Every error is a
# `gk.GatewayError` with `status`, `code`, `type`, `param` and `message`, and one
# subclass per case.

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
# ## Caught before sending
#
# The client checks requests against the catalog: a prompt over the model's
# `prompt_max_length` raises `PromptTooLongError` with nothing sent. With
# `validate=False` the gateway itself answers with the same error class.

# %%
IMAGE = client.models.pick("image", ["aspect_ratio"])
too_long = "a very long prompt " * 1000
try:
    client.images.generate(model=IMAGE, prompt=too_long)
except gk.PromptTooLongError as error:
    local = error
print(type(local).__name__, local.status, local.code)

# %%
try:
    client.images.generate(model=IMAGE, prompt=too_long, validate=False)
except gk.PromptTooLongError as error:
    remote = error
remote

# %% [markdown]
# ## Unknown models, bad keys

# %%
try:
    client.chat.completions.create(model="no-such-model",
                                   messages=[{"role": "user", "content": "hi"}])
except gk.ModelNotFoundError as error:
    print(type(error).__name__, error.status, error.code)

# %%
wrong_key = gk.Client(api_key="sk-bf-this-key-is-wrong", base_url=client.base_url)
try:
    wrong_key.models.list()
except gk.AuthenticationError as error:
    print(type(error).__name__, error.status)

# %% [markdown]
# ## Practising with faults
#
# The offline gateway can **inject faults** on request: the header
# `X-Emulator-Fault` takes `429`, `500`, `503`, `disconnect`, `slow` or `job-fail`.
# We start a private offline gateway for this (it works the same with a real key
# set, and costs nothing).

# %%
lab = gk.emulator.start(time_scale=0)
practice = gk.Client(api_key=lab.api_key, base_url=lab.base_url)
hello = [{"role": "user", "content": "hello"}]


def fault(kind):
    return {"X-Emulator-Fault": kind}


# %% [markdown]
# ### 429: too many requests
#
# The client retries 429 and 5xx answers (exponential backoff with jitter,
# honouring `Retry-After`), `max_retries` times (default 2). When the gateway
# keeps refusing, the error is raised; `retry_after` says when to come back.

# %%
impatient = gk.Client(api_key=lab.api_key, base_url=lab.base_url, max_retries=0)
try:
    impatient.chat.completions.create(model="chat-mini", messages=hello,
                                      extra_headers=fault("429"))
except gk.RateLimitError as error:
    print(type(error).__name__, error.status, "retry after", error.retry_after, "s")

# %%
try:
    practice.chat.completions.create(model="chat-mini", messages=hello,
                                     extra_headers=fault("429"))
except gk.RateLimitError:
    print("attempts:", gk.ledger.rows[-1]["attempts"])  # 1 + max_retries

# %% [markdown]
# ### 500 and 503: the gateway had a problem
#
# `ServerError`. Usually temporary, so retried. Below, a gateway that fails
# 40% of requests at random: with retries, every request still succeeds.

# %%
try:
    impatient.chat.completions.create(model="chat-mini", messages=hello,
                                      extra_headers=fault("503"))
except gk.ServerError as error:
    print(type(error).__name__, error.status)

# %%
flaky_gateway = gk.emulator.start(time_scale=0, fault_rate=0.4,
                                  fault_kinds=("500", "503"), seed=7)
flaky = gk.Client(api_key=flaky_gateway.api_key, base_url=flaky_gateway.base_url,
                  max_retries=5)
with gk.ledger.tag("flaky"):
    replies = [flaky.chat.completions.create(model="chat-mini", messages=hello)
               for _ in range(8)]
attempts = [row["attempts"] for row in gk.ledger.rows if "flaky" in row["tags"]]
print("all answered:", len(replies) == 8, "| attempts per request:", attempts)

# %% [markdown]
# ### A dropped connection mid-stream
#
# `StreamInterruptedError` (an `APIConnectionError`) keeps what arrived in
# `partial`. A broken stream is not re-sent automatically: the gateway may have
# billed it.

# %%
stream = practice.chat.completions.create(
    model="chat-mini",
    stream=True,
    extra_headers=fault("disconnect"),
    messages=[{"role": "user", "content": "Tell me a long story."}],
)
try:
    stream.final()
except gk.StreamInterruptedError as error:
    print(type(error).__name__, "| partial answer kept:", error.partial is not None)

# %% [markdown]
# ### A job that fails
#
# `job.wait()` raises `JobFailedError` with the gateway's message. Failed jobs
# are never charged.

# %% tags=["nbval-ignore-output"]
doomed = practice.videos.create(model="video-range", prompt="a storm", duration=2,
                                extra_headers=fault("job-fail"))
try:
    doomed.wait(timeout=60)
except gk.JobFailedError as error:
    failure = error

# %%
print(type(failure).__name__, "| status:", doomed.status, "|", failure.message)

# %% [markdown]
# ### Out of money: 402
#
# A gateway account with almost no balance answers `InsufficientQuotaError`.
# (The ledger's own budget, `BudgetExceededError`, stops a request before it is
# sent; this is the gateway's balance.)

# %%
student = {"accounts": [{"id": "student", "balance_usd": 0.01,
                         "keys": [{"key": "sk-bf-student-0000000000000001",
                                   "status": "active", "models": "*"}]}]}
broke_gateway = gk.emulator.start(accounts=student, time_scale=0)
broke = gk.Client(api_key=broke_gateway.api_key, base_url=broke_gateway.base_url)
try:
    broke.images.generate(model="image-tiers", prompt="a gold coin", resolution="4K")
except gk.InsufficientQuotaError as error:
    print(type(error).__name__, error.status, error.code)


# %% [markdown]
# ## Handling them
#
# Catch the specific classes you can act on, then `gk.GatewayError` for the rest.
# An error displays itself in a notebook, without the key.

# %%
def describe(prompt, **options):
    try:
        reply = practice.chat.completions.create(
            model="chat-mini",
            messages=[{"role": "user", "content": prompt}],
            **options,
        )
        return reply.choices[0].message.content[:40]
    except gk.RateLimitError as error:
        return f"busy: try again in {error.retry_after} s"
    except (gk.ServerError, gk.APIConnectionError):
        return "the gateway is having trouble; try later"
    except gk.GatewayError as error:
        return f"{type(error).__name__}: {error.message}"


print(describe("hello", extra_headers=fault("500")))
print(describe("hello", extra_headers=fault("429")))

# %%
for gateway in (lab, flaky_gateway, broke_gateway):
    gateway.stop()
