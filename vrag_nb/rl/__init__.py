"""Reinforcement learning: GRPO and GGPO, the toy environment, rollouts and the in-process trainer. Needs torch (the
`train` extra)."""
