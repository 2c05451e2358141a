"""Parts of the HTTP API (``karaka.api`` assembles them): request models, limits, runs, views."""
