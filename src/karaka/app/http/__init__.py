"""Parts of the HTTP API (``karaka.app.api`` assembles them): request models, limits, runs, views."""
