# %% [markdown]
# # Evaluating: which model, over my cases, and at what cost?
#
# `client.compare` answers "which model, for this one prompt?". `client.evaluate`
# answers it over a list of cases: every case on every model, each output
# scored, its latency and cost beside it, in one grid that fills while the
# models run. Here: four image prompts on three image models, scored by a
# Python function and by an LLM judge.
#
# 1. the plan and its quote, with nothing sent (`dry_run=True`);
# 2. the run: the live grid, then the table (`to_pandas`, `summary`, `save`);
# 3. re-runs that pay nothing: `cache=True`, and `checkpoint=` for a run cut short;
# 4. a gate: repeats and their stability, a stored baseline, a comparison that
#    knows noise from change, `assert_no_regression`, and a report to share.

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
# With `SVC_API_KEY` and `SVC_BASE_URL` set (in Colab the key may be a secret
# named `SVC_API_KEY`) this talks to the real gateway and you pay for what you
# run. Without a key it starts the built-in **offline gateway**: synthetic
# models, free and fast. Its pictures are patterns, and its judge's verdicts are
# synthetic too: the numbers below show how the tool works, not which model is best.

# %% [markdown]
# ## The cases, the models, the scorers
#
# A case is a prompt, or a dict with a `prompt` and whatever else your scorers
# read (here an `id` and what the picture should show). The models must be of
# one kind; an id with a typo is refused before anything is sent.
#
# A scorer is a plain function `(output, case) -> bool | float | dict` (a dict
# gives one column per key). For an image model `output` is the `ImageResult`;
# for a chat model, the answer's text. A scorer that raises leaves its error in
# that cell only.
# `gk.judge(model=, rubric=)` asks a chat model that can see pictures to grade each
# output from 0 to 1; its model, temperature (0) and seed (0) are pinned, so the same
# output is judged by the same request.

# %%
cases = [
    {"id": "fox", "prompt": "a red fox sitting in fresh snow, morning light",
     "expected": "a red fox in snow"},
    {"id": "lighthouse", "prompt": "a lighthouse on a cliff at dusk",
     "expected": "a lighthouse at dusk"},
    {"id": "market", "prompt": "a busy fruit market, watercolour",
     "expected": "a market painted in watercolour"},
    {"id": "robot", "prompt": "a small robot reading a book, flat illustration",
     "expected": "a robot reading"},
]
image_models = [model.id for model in client.models.list() if model.kind == "image"][:3]


def is_square(output, case):
    """True when the first picture is as wide as it is tall."""
    width, height = output.image.size
    return width == height


def colourfulness(output, case):
    """How far the colours spread, from 0 (one flat colour) to about 1."""
    from PIL import ImageStat

    spread = ImageStat.Stat(output.image.convert("RGB")).stddev
    return round(sum(spread) / 3 / 128, 3)


grader = gk.judge(model=client.models.pick("chat", needs=["vision", "json_schema"]),
                  rubric="The picture clearly shows what the prompt asks for.")
print(grader)

# %% [markdown]
# ## 1. The plan and its quote, nothing sent
#
# `dry_run=True` checks everything (cases, model ids, scorers) and prices every
# request, the judge's included, without sending one. With
# `gk.Client(confirm_over=0.50)` a real run asks once, for the whole evaluation,
# when its quote passes 50 cents.

# %%
plan = client.evaluate(cases, models=image_models,
                       scorers=[is_square, colourfulness, grader], dry_run=True)
print(plan)
assert plan.dry_run and all(cell.result is None for cell in plan.cells)
# each cell, and the judge for each
assert plan.quote.requests == 2 * len(cases) * len(image_models)

# %% [markdown]
# ## 2. The run
#
# One row per case, one column per model. The grid shows at once and each cell
# fills as its model answers (a chat answer streams in; a video or a song shows
# its job card, then its player), with its scores, latency and cost. At the end,
# each row marks its best cell (the highest mean of its scores: each cell shows
# that mean), its cheapest and its fastest, and the last row sums up each model. What the saved notebook keeps is this static grid (GitHub and
# nbconvert show it). `checkpoint=` keeps each finished cell in a file: a run
# cut short (a crash, a restarted kernel) and run again pays each cell once.

# %% tags=["nbval-ignore-output"]
import tempfile
from pathlib import Path

work = Path(tempfile.mkdtemp(prefix="gk-evaluate-"))
ev = client.evaluate(cases, models=image_models,
                     scorers=[is_square, colourfulness, grader],
                     checkpoint=work / "images.sqlite")
ev

# %% [markdown]
# The same cells as a table: one row per case and model, one column per
# scorer (named after it), and where the cost came from.

# %%
frame = ev.to_pandas()
assert list(frame.columns) == ["case_id", "prompt", "model", "output",
                               "is_square", "colourfulness", "judge",
                               "latency_s", "total_cost", "cost_source", "error"]
assert (frame.error.isna().all() and frame.judge.between(0, 1).all()
        and frame.colourfulness.between(0, 2).all())
# the offline pictures (and scores) vary by run
frame[["case_id", "model", "output", "is_square", "cost_source"]]

# %% [markdown]
# `summary()` has one row per model: the mean of each score, what it cost in
# all, its median latency and how many cells failed. The judge's own requests are
# counted apart, in `ev.judge_cost`.

# %%
summary = ev.summary()
assert list(summary.model) == image_models and (summary.errors == 0).all()
summary[["model", "is_square", "errors"]]

# %% [markdown]
# `save(folder)` writes `evaluation.csv` (a cell that a spreadsheet would run as
# a formula, starting with `=`, `+`, `-` or `@`, is written with a leading `'`)
# and every picture under the name the `output` column gives it.

# %%
saved = ev.save(work / "results")
print(saved.name, sorted(path.suffix for path in saved.parent.iterdir())[-1])
assert all((saved.parent / name).exists() for name in frame.output)

# %% [markdown]
# ## 3. Re-runs that pay nothing
#
# Run the same evaluation with the same checkpoint and nothing is sent: every
# cell, and every verdict of the judge, comes back from the file (its cost this
# time is $0, `cost_source="checkpoint"`). `gk.Client(cache=True)` does the same
# for any identical request, judge included.

# %% tags=["nbval-ignore-output"]
again = client.evaluate(cases, models=image_models,
                        scorers=[is_square, colourfulness, grader],
                        checkpoint=work / "images.sqlite")

# %%
print(f"re-run: {len(again.cells)} cells restored, cost ${again.total_cost:.2f}")
assert all(cell.restored for cell in again.cells) and again.total_cost == 0
assert [cell.scores for cell in again.cells] == [cell.scores for cell in ev.cells]

# %% [markdown]
# In a terminal, `print(ev)` shows the same grid as text, a line per cell; in
# marimo the returned `Evaluation` is the cell's output, the grid.

# %% [markdown]
# ## 4. Is it stable, and is my change worse?
#
# At `temperature` above 0 a model's answers vary, so one run can be lucky.
# `repeats=` runs every case several times. With `seed=`, repeat *r* asks with
# `seed + r`: the repeats differ, yet a re-run (or `cache=True`) gets the same
# ones. The offline gateway samples too: at temperature 1 an answer sometimes
# drifts off the prompt, more often for a vague prompt or a smaller model.
#
# Scorers can be data: `gk.expect.contains(text)`, `.regex(pattern)`,
# `.json_schema(schema)`, `.max_cost(usd)` and `.max_latency(seconds)` each name
# their own column, beside plain functions and judges.

# %%
questions = [
    {"id": "volcano", "prompt": "In one sentence, tell me about volcanoes."},
    {"id": "tide", "prompt": "In one sentence, tell me about tides."},
    {"id": "bee", "prompt": "In one sentence, tell me about bees."},
]
chat_model = client.models.pick("chat")


def on_topic(output, case):
    """The answer names the case's subject."""
    return case["id"] in output.lower()


checks = [on_topic, gk.expect.max_cost(0.01)]

# %% [markdown]
# With repeats, the grid has one row per case. Each cell shows a **stability
# badge** per scorer (green: every repeat passed; amber: flaky, some did; red:
# none did) and, on click, the repeats behind it.

# %% tags=["nbval-ignore-output"]
baseline = client.evaluate(questions, models=[chat_model], scorers=checks,
                           repeats=10, temperature=1.0, seed=100)
baseline

# %% [markdown]
# `stability()` has the numbers: per case × model × scorer, the pass rate over
# the repeats, `pass_k` (all of them passed: pass^k), the spread of the scores
# and `flaky`.

# %%
stability = baseline.stability()
assert list(stability.columns) == ["case_id", "model", "scorer", "repeats", "passed", "pass_rate",
                                   "pass_k", "mean", "spread", "min", "max", "flaky"]
assert (stability.repeats == 10).all()
assert (stability.flaky == ((stability.passed > 0) & (stability.passed < 10))).all()
stability[["case_id", "scorer", "passed", "pass_rate", "pass_k", "flaky"]]

# %% [markdown]
# A baseline is kept with `save(folder)` (a CSV, a JSON file, the media; no
# pickle) and read back with `gk.Evaluation.load(folder)`, in another notebook
# or in CI.

# %%
baseline.save(work / "baseline")
stored = gk.Evaluation.load(work / "baseline")
assert stored.stability().equals(stability)

# %% [markdown]
# Now a change: shorter, vaguer prompts. `compare(baseline)` gives one row per
# case × model × scorer with a `change`: `better`, `worse` or `same`. It knows
# noise from change: a cell is `worse` only when Fisher's exact test on its pass
# counts says so at 5 % over all the cells compared (or when every repeat
# flipped), so a flaky cell that passed 8 times of 10 and now 6 stays `same`.
# In a notebook the comparison shows as a grid with the changes marked.

# %% tags=["nbval-ignore-output"]
vague = [{"id": "volcano", "prompt": "volcanoes?"},
         {"id": "tide", "prompt": "tides?"},
         {"id": "bee", "prompt": "bees?"}]
candidate = client.evaluate(vague, models=[chat_model], scorers=checks,
                            repeats=10, temperature=1.0, seed=100)
changes = candidate.compare(stored)
changes

# %%
assert set(changes.change) <= {"better", "worse", "same"}
assert (changes[changes.scorer == "max_cost($0.01)"].change == "same").all()
changes[["case_id", "scorer", "before_passed", "after_passed", "p_value", "change"]].round(4)

# %% [markdown]
# `assert_no_regression(baseline)` raises `gk.RegressionError` (an
# `AssertionError`) naming every worse cell, so a test in CI is one line.

# %%
try:
    candidate.assert_no_regression(stored)
    caught = None
except gk.RegressionError as regression:
    caught = regression
print(caught or "no regression")
assert (caught is not None) == ("worse" in set(changes.change))

# %% [markdown]
# `to_html(path)` writes one self-contained page to share: the grid (pictures
# inline), the stability, the comparison with `baseline=`, the costs. Opened,
# it fetches nothing.

# %%
report = candidate.to_html(work / "report.html", baseline=stored)
page = report.read_text(encoding="utf-8")
assert "<script" not in page and 'class="gk-changes-grid"' in page
print(report.name, f"{len(page) // 1024} KiB")
