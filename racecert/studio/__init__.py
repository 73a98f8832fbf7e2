"""racecert studio: a local web page to draw a track, analyse and certify it, and save it.

`racecert studio [TRACK]` serves the page (`static/`) and a small JSON API
(`app.py`) on 127.0.0.1. The page edits a `TrackDocument` (`document.py`), the
server turns it into the TOML track format (`toml_text.py`), validates it with
the project's own parser and places the validator's message on the cells it
names (`diagnostics.py`), and runs analyses and certificates in a child process
each (`jobs.py`, `worker.py`) whose progress streams to the page and which the
page can cancel. The picture the page draws comes from `payload.py`. A lattice or
cell-path track is viewed read only (`track_view.py`; its jobs' results from
`view_payload.py`, through the profile registries as on the command line).
"""
