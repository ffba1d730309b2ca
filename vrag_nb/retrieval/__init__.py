"""Retrieval: corpus preparation, embedders, BM25, FAISS index kinds, the page index and its search server. Needs no
torch (the VLM embedders import it when used)."""
