"""VimRAG: the memory graph, the tool-call agent over it, and its views."""
