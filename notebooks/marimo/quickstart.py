# The gatewaykit quickstart as a marimo notebook (https://marimo.io).
#
#   marimo edit notebooks/marimo/quickstart.py     # the notebook; answers stream live in their cell
#   marimo run notebooks/marimo/quickstart.py      # the same as an app
#   python notebooks/marimo/quickstart.py          # a plain script: answers stream to the terminal
#
# Needs `pip install "gatewaykit[marimo]"` (marimo plus what renders answers and players).
# Without SVC_API_KEY it runs on the built-in offline gateway: synthetic results, no cost.

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo

    mo.md(
        """
        # gatewaykit quickstart

        A short tour of the **Multi-modal Generation Gateway** from Python: one key
        and one prepaid balance give chat, image, video and music models.
        """
    )
    return (mo,)


@app.cell
def _():
    import gatewaykit as gk

    client = gk.Client()  # SVC_API_KEY (+ SVC_BASE_URL): the real gateway; no key: the offline one
    return client, gk


@app.cell
def _(client):
    catalog = client.models.list()
    catalog
    return (catalog,)


@app.cell
def _(client):
    # ask() streams the answer into this cell as it arrives, then leaves it as a static panel.
    answer = client.chat.ask(
        "Explain in three short sentences what server-sent events are.", model=client.models.pick("chat")
    )
    return (answer,)


@app.cell
def _(client):
    picture = client.images.generate(
        model=client.models.pick("image", ["width", "height"]), prompt="a lighthouse at dusk", width=512, height=320
    )
    picture
    return (picture,)


@app.cell
def _(client):
    # A job: the card updates while the gateway works, then becomes a player.
    video = client.videos.create(
        model=client.models.pick("video", ["resolution"]), prompt="waves at sunrise", duration=4, resolution="480p"
    ).wait()
    return (video,)


@app.cell
def _(client):
    song = client.music.create(
        model=client.models.pick("music", ["lyrics_prompt"]),
        prompt="upbeat synth pop",
        lyrics_prompt="[Verse]\nHello gateway\n[Chorus]\nOne key for every model",
        bitrate=32000,
    ).wait()
    song
    return (song,)


@app.cell
def _(client):
    def fahrenheit_to_celsius(fahrenheit: float) -> float:
        """Convert a temperature from Fahrenheit to Celsius."""
        return round((fahrenheit - 32) * 5 / 9, 1)

    chat = client.chat.session(model=client.models.pick("chat"), tools=[fahrenheit_to_celsius])
    reply = chat("What is 77 F in Celsius?")
    chat
    return (chat,)


@app.cell
def _(client, gk):
    # Errors are short cards, not tracebacks, when you show them.
    try:
        client.chat.ask("Hello", model="no-such-model")
        problem = None
    except gk.GatewayError as error:
        problem = error
    problem
    return (problem,)


@app.cell
def _(gk):
    gk.ledger
    return


if __name__ == "__main__":
    app.run()
