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
# ## 5. A course that runs for a term
#
# **AI off during an exam, on a schedule.** `room.schedule_pause(start, end,
# reason=)` closes the class from `start` to `end` with no one at the keyboard
# (times without a zone are the classroom's local time; the windows are kept in
# its database). Here the window began a minute ago, so it is closed now.

# %%
import datetime as dt

now = dt.datetime.now().astimezone()
room.schedule_pause(now - dt.timedelta(minutes=1), now + dt.timedelta(hours=2), reason="midterm exam")
try:
    students["ana"].chat.completions.create(
        model="chat-mini", messages=[{"role": "user", "content": "What is on the exam?"}])
except gk.ClassPausedError as exc:
    print(exc.message.split(" until ")[0], "until two hours from now")
room.schedules()[["reason", "state"]]

# %% [markdown]
# A `room.resume()` during a window overrides that window (until its end only;
# a later window closes the class again), and says which it overrode.

# %%
overrode = room.resume()["overrode"]
print(f"resumed, overriding the '{overrode['reason']}' window")

# %% [markdown]
# **A budget per assignment.** While an assignment is open, each request also
# counts against the student's cap on it (a 402 naming the assignment), and may
# be limited to its models. Assignments may not overlap.

# %%
room.add_assignment("lab 3", cap=0.0002, models=["chat-mini"],
                    end=now + dt.timedelta(days=7))
try:
    for n in range(20):
        students["cy"].chat.completions.create(
            model="chat-mini", messages=[{"role": "user", "content": f"Lab 3, question {n + 1}"}],
            max_tokens=60)
except gk.InsufficientQuotaError as exc:
    print(f"question {n + 1}: {exc.message.split('. ')[0]}.")

# %% tags=["nbval-ignore-output"]
room.report(by="assignment")

# %%
lab = room.report(by="assignment").set_index("student")
assert lab.spent_usd["cy"] <= 0.0002 and lab.refused["cy"] == 1
print(f"cy spent ${lab.spent_usd['cy']:.6f} of the lab's $0.0002; ana and bo nothing yet")

# %% [markdown]
# **The audit log.** Every admin action (pauses, resumes, caps, revocations,
# reissues, schedules, assignments) is kept in the database with its time and
# where it came from (`notebook`, `cli`, `hub hook`, `remote connect`).

# %%
room.audit()[["action", "student", "origin"]]

# %% [markdown]
# Also: `rpm=20` (requests per minute per student) and `class_rpm=600` (the
# whole class, under the gateway's own limit) answer **429** with `Retry-After`,
# which a student's client waits out; `set_cap("bo", 0.10, until=...)` is a raise
# that ends by itself; `window="monthly"` resets caps on the first of the month;
# `log_prompts=True` keeps prompts and answers under per-student pseudonyms for
# `retention_days` (by default nothing of a prompt is stored).

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
