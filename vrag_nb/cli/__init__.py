"""The console scripts: index commands (`cli.index`: vrag_index, vrag_docs, vrag_search, vrag_serve, and the entry
points of vrag_train and vrag_serve_llm) and agent commands (`cli.agent`: vrag_ask, vrag_eval, vrag_demo)."""
