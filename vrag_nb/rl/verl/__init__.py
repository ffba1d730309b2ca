"""verl integration: the registered estimator and reward, the tools, the agent loop and the in-process rollout server.
Needs verl (the `train` extra)."""
