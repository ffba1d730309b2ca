"""GRPO on SmolLM2-135M-Instruct over the real VRAG agent loop, on CPU (07f_rl.verl.llm_grpo).

    .venv/bin/python benchmarks/smollm2_grpo.py --steps 30 --out benchmarks/results/smollm2_grpo

Writes metrics.jsonl (phase base / sft / grpo / eval: greedy, every question, every --eval_every steps), metrics.png and summary.json to --out; resumes from its checkpoint
(the checkpoint itself is removed at the end, it is 60 MB)."""
import argparse, json, time
from pathlib import Path
import numpy as np
from vrag_nb.rl.toy_train import toy_corpus
from vrag_nb.rl.verl.llm_grpo import train_llm, plot_llm_metrics

ap = argparse.ArgumentParser()
ap.add_argument('--steps', type=int, default=30)
ap.add_argument('--sft_steps', type=int, default=32)
ap.add_argument('--prompts', type=int, default=2)
ap.add_argument('--group', type=int, default=6)
ap.add_argument('--eval_every', type=int, default=5)
ap.add_argument('--seed', type=int, default=0)
ap.add_argument('--ggpo', action='store_true')
ap.add_argument('--out', default='benchmarks/results/smollm2_grpo')
a = ap.parse_args()
out = Path(a.out); t0 = time.time()
idx, examples = toy_corpus()
h = train_llm(out, idx, examples, steps=a.steps, sft_steps=a.sft_steps, prompts=a.prompts, group=a.group, eval_every=a.eval_every, seed=a.seed, ggpo=a.ggpo, log=lambda r: print(json.dumps(r), flush=True))
plot_llm_metrics(h, out/'metrics.png')
g = [r for r in h if r['phase'] == 'grpo']
mean = lambda rs, k: round(float(np.mean([r[k] for r in rs])), 3)
summary = dict(base={k: h[0][k] for k in ('reward_mean', 'r_pat', 'r_ret', 'r_ans')},
               first5={k: mean(g[:5], k) for k in ('reward_mean', 'r_pat', 'r_ret', 'r_ans')},
               last5={k: mean(g[-5:], k) for k in ('reward_mean', 'r_pat', 'r_ret', 'r_ans')},
               evals={r['step']: {k: round(r[k], 3) for k in ('reward_mean', 'r_pat', 'r_ret', 'r_ans', 'turns')} for r in h if r['phase'] == 'eval'},
               steps=len(g), seconds_per_step=mean(g, 'seconds'), seconds_total=round(time.time() - t0))
(out/'summary.json').write_text(json.dumps(summary, indent=1))
(out/'checkpoint.pt').unlink(missing_ok=True)
print(json.dumps(summary))
