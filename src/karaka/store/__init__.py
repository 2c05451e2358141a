"""Storage: the strict knowledge graph, FAISS line vectors, the resolver, durable records."""
