"""Graph nodes: plain functions returning partial state updates."""
