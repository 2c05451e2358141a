"""Graph builders and the compiled graphs that langgraph.json exports."""
