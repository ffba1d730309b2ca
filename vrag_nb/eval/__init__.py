"""Scoring: retrieval metrics and QA sets, rewards, the LLM judge, and the evaluation of agents over a QA set. Needs no
torch."""
