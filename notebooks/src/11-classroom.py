# %% [markdown]
# # A class on one paid key
#
# A teacher has one paid key and a class. Handing the key out means anyone can
# copy it and one student (or the night before a deadline) can drain it. The
# **classroom** is a small server in front of the gateway: each student gets their
# own key, every request is forwarded with the teacher's key (which never leaves
# the server), each student has a hard cap, and one call pauses the whole class.
#
# This notebook runs a class of three simulated students on the offline gateway
# (free, synthetic answers). With a real gateway it is the same code with
# `upstream="https://..."` and the teacher's key in `SVC_API_KEY`; from a terminal,
# `python -m gatewaykit.classroom --upstream URL --roster roster.csv` (see
# `docs/classroom.md`).

# %%
import sys
# Colab: install gatewaykit (keeps Colab's own Jupyter packages)
if "google.colab" in sys.modules:
    # %pip install -q "gatewaykit[colab] @ git+https://github.com/gatewaykit/gatewaykit"
import gatewaykit as gk

# %% [markdown]
# ## 1. Start a class
#
# A roster is a CSV file, a DataFrame or a list of names (with an optional
# `cap_usd` per student). Here every student may spend **$0.05**, on three models.

# %%
room = gk.classroom.start(upstream="offline", roster=["ana", "bo", "cy"], cap=0.05,
                          models=["chat-mini", "image-gpt", "image-aspect"])
print(f"{len(room.keys)} students; they set SVC_BASE_URL={room.base_url}")

# %% [markdown]
# `room.keys` has each student's key. It is shown only now: the classroom keeps
# only a digest of each key, so hand them out from here (or from `--keys-out`
# when it runs from the command line). A student sets `SVC_BASE_URL` to the
# classroom and `SVC_API_KEY` to their key; nothing else changes.

# %% tags=["nbval-ignore-output"]
# the start of each key, to show its shape
room.keys.assign(key=room.keys.key.str[:16] + "…")

# %% [markdown]
# ## 2. The students work
#
# Three clients stand in for three students' notebooks. (`max_retries=0` so a
# refusal shows at once; a student's client would wait and retry a paused class.)

# %%
students = {row.student: gk.Client(api_key=row.key, base_url=room.base_url, max_retries=0)
            for row in room.keys.itertuples()}
answer = students["ana"].chat.completions.create(
    model="chat-mini",
    messages=[{"role": "user", "content": "Explain photosynthesis in one sentence."}])
picture = students["cy"].images.generate(model="image-gpt", prompt="a lighthouse at dusk",
                                         quality="low")
print(f"ana's answer cost ${answer.usage.cost.total_cost:.6f}; "
      f"cy's picture ${picture.usage.cost.total_cost:.3f}")

# %% [markdown]
# bo draws pictures at 3 cents each. Before a request is forwarded, the classroom
# holds its worst-case price; the second picture does not fit what is left of
# bo's 5-cent budget, so it is refused with **402**, in words meant for a student,
# and nothing is sent to the gateway.

# %%
try:
    for n in range(3):
        students["bo"].images.generate(model="image-aspect",
                                       prompt=f"a red fox, take {n + 1}")
except gk.InsufficientQuotaError as exc:
    print(f"picture {n + 1}: {exc.message}")

# %% [markdown]
# A model the class may not use is a **403** naming the allowed ones.

# %%
try:
    students["cy"].chat.completions.create(model="chat-reasoner",
                                           messages=[{"role": "user", "content": "Hi"}])
except gk.PermissionDeniedError as exc:
    print(exc.message)

# %% [markdown]
# ## 3. The dashboard and the report
#
# `room.dashboard()` is a live view: spend per student against the cap (a pale
# part is still held by requests running), refreshed every two seconds, with
# **Pause** (and a reason the students will read) and **Resume**.

# %% tags=["nbval-ignore-output"]
room.dashboard()

# %% [markdown]
# `room.report()` is the same as a DataFrame (`room.report(by="model")` splits it
# per model). What the gateway charged the teacher equals its total.

# %% tags=["nbval-ignore-output"]
report = room.report()
report

# %%
spent = report.set_index("student").spent_usd
assert spent["bo"] == 0.03 and spent.max() <= 0.05
print(f"the class spent ${spent.sum():.4f}; bo has ${0.05 - spent['bo']:.2f} left")
room.report(by="model")[["student", "model", "spent_usd", "requests", "refused"]]

# %% [markdown]
# ## 4. The kill switch
#
# `room.pause(reason)` (or the dashboard's button, or
# `python -m gatewaykit.classroom pause --url ... --admin-token ...`) stops every
# new request at once: the students get **503** with your reason.
# `room.pause(..., cancel_jobs=True)` also cancels running video jobs.

# %%
room.pause("Break until 10:15")
try:
    students["ana"].chat.completions.create(
        model="chat-mini", messages=[{"role": "user", "content": "Hello?"}])
except gk.ClassPausedError as exc:  # a 503, so also a gk.ServerError
    print(exc.message)

# %%
room.resume()
again = students["ana"].chat.completions.create(
    model="chat-mini", messages=[{"role": "user", "content": "Hello?"}])
print(f"after resume: answered ({again.usage.completion_tokens} tokens)")

# %% [markdown]
# More for the teacher: `room.set_cap("bo", 0.10)`, `room.revoke("cy")`,
# `room.reissue("cy")` (a new key), `room.add_student("dee")`, caps that reset
# every day or week (`window="daily"`), a per-request limit
# (`max_request_cost=0.25`). A class on a real gateway is kept in your per-user
# `classroom.db` (keys, spend and jobs survive a kernel restart; `db="class.db"`
# names another file); a practice class like this one stays in memory, as its
# first line says. `room.stop()` ends the class.

# %%
for client in students.values():
    client.close()
room.stop()
