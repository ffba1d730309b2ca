"""GRPO on SmolLM2-135M-Instruct over the real VRAG agent loop, on CPU (07e_llm_grpo).

    .venv/bin/python benchmarks/smollm2_grpo.py --steps 24 --out benchmarks/results/smollm2_grpo

Writes metrics.jsonl (phase base / sft / grpo), metrics.png and summary.json to --out; resumes from its checkpoint
(the checkpoint itself is removed at the end, it is 60 MB)."""
import argparse, json, time
from pathlib import Path
import numpy as np
from vrag_nb.toy import toy_corpus
from vrag_nb.llm_grpo import train_llm, plot_llm_metrics

ap = argparse.ArgumentParser()
ap.add_argument('--steps', type=int, default=24)
ap.add_argument('--seed', type=int, default=0)
ap.add_argument('--ggpo', action='store_true')
ap.add_argument('--out', default='benchmarks/results/smollm2_grpo')
a = ap.parse_args()
out = Path(a.out); t0 = time.time()
idx, examples = toy_corpus()
h = train_llm(out, idx, examples, steps=a.steps, seed=a.seed, ggpo=a.ggpo, log=lambda r: print(json.dumps(r), flush=True))
plot_llm_metrics(h, out/'metrics.png')
g = [r for r in h if r['phase'] == 'grpo']
mean = lambda rs, k: round(float(np.mean([r[k] for r in rs])), 3)
summary = dict(base={k: h[0][k] for k in ('reward_mean', 'r_pat', 'r_ret', 'r_ans')},
               first5={k: mean(g[:5], k) for k in ('reward_mean', 'r_pat', 'r_ret', 'r_ans')},
               last5={k: mean(g[-5:], k) for k in ('reward_mean', 'r_pat', 'r_ret', 'r_ans')},
               steps=len(g), seconds_per_step=mean(g, 'seconds'), seconds_total=round(time.time() - t0))
(out/'summary.json').write_text(json.dumps(summary, indent=1))
(out/'checkpoint.pt').unlink(missing_ok=True)
print(json.dumps(summary))
