"""The sample assignment "media lab", written once: its questions, the teacher's solutions, a sample
student's answers (one of them wrong, so a grade is not trivially full marks) and the test cells.

``build.py`` writes the otter-grader master notebook and the nbgrader source notebook from it; the
grading tests fill the student's answers into the notebooks those tools release. The student's code is
plain gatewaykit code: nothing in it knows that it is being graded.
"""

from __future__ import annotations

NAME = "media-lab"

INTRO = """# Media lab

Ask a chat model, read its JSON, make an image, a video and a song with **gatewaykit**.
Run every cell in order. (Graders run this notebook offline: nothing you write here changes for that.)"""

SETUP = """import json

import gatewaykit as gk

client = gk.Client()"""

#: name, points, prompt (markdown), the solution, the sample student's answer, test cells (each one assert block)
QUESTIONS = [
    ("q1", 1, "**Q1.** Ask a chat model for three primary colours; keep the answer's text in `text`.",
     """answer = client.chat.ask("Name the three primary colours.", model=client.models.pick("chat"))
text = answer.choices[0].message.content""",
     """reply = client.chat.ask("Which are the three primary colours?", model=client.models.pick("chat"))
text = reply.choices[0].message.content""",
     ["assert isinstance(text, str) and len(text) > 20"]),
    ("q2", 2, "**Q2.** Ask for a pet as JSON with a `name` (string) and an `age` (integer); parse it into `pet`.",
     """schema = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
          "required": ["name", "age"]}
answer = client.chat.ask("Invent a pet.", model=client.models.pick("chat", ["json_schema"]),
                         response_format={"type": "json_schema", "json_schema": {"name": "pet", "schema": schema}})
pet = json.loads(answer.choices[0].message.content)""",
     """schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
answer = client.chat.ask("Invent a pet.", model=client.models.pick("chat", ["json_schema"]),
                         response_format={"type": "json_schema", "json_schema": {"name": "pet", "schema": schema}})
pet = json.loads(answer.choices[0].message.content)""",
     ["assert isinstance(pet, dict) and isinstance(pet.get(\"name\"), str)",
      "assert isinstance(pet.get(\"age\"), int)"]),
    ("q3", 1, "**Q3.** Make a 256 x 256 image of a lighthouse; keep its pixel size in `size`.",
     """picture = client.images.generate(model=client.models.pick("image", ["width", "height"]),
                                  prompt="a lighthouse at dusk", width=256, height=256)
size = picture.images[0].size""",
     """picture = client.images.generate(model=client.models.pick("image", ["width", "height"]),
                                  prompt="a red lighthouse", width=256, height=256)
size = picture.images[0].size""",
     ["assert size == (256, 256)"]),
    ("q4", 1, "**Q4.** Make a 4-second video of waves and wait for it; keep the finished job in `video`.",
     """job = client.videos.create(model=client.models.pick("video", ["resolution"]), prompt="waves at sunrise",
                           duration=4, resolution="480p")
video = job.wait()""",
     """video = client.videos.create(model=client.models.pick("video", ["resolution"]), prompt="waves",
                             duration=4, resolution="480p").wait()""",
     ["assert video.status == \"completed\" and len(video.content()) > 1000"]),
    ("q5", 1, "**Q5.** Make a short song with a `[Verse]` and a `[Chorus]`; keep the finished job in `song`.",
     """song = client.music.create(model=client.models.pick("music", ["lyrics_prompt"]), prompt="upbeat synth pop",
                           lyrics_prompt="[Verse]\\nHello gateway\\n[Chorus]\\nOne key for every model",
                           bitrate=32000).wait()""",
     """song = client.music.create(model=client.models.pick("music", ["lyrics_prompt"]), prompt="folk",
                           lyrics_prompt="[Verse]\\nGrading day\\n[Chorus]\\nNothing to pay", bitrate=32000).wait()""",
     ["assert song.status == \"completed\" and len(song.content()) > 1000"]),
]
