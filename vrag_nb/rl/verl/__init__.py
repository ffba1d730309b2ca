"""verl integration: registered estimator and reward, tools, the agent loop, the SmolLM2 run. Needs verl (the `train` extra)."""
