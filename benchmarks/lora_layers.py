"""Which layers a SmolLM2 run trains by default on a CPU: one GRPO step of SmolLM2-135M-Instruct under LoRA on its
top 6 layers, LoRA on all 30, and full fine-tuning of the top 6, side by side (`TrainConfig.trainable_layers`,
`CPU_LAYERS`).

    .venv/bin/python benchmarks/lora_layers.py --out benchmarks/results/lora_layers.json

Each trial starts each way from the same weights (a LoRA adapter starts as the identity, full fine-tuning from the
checkpoint), so the first step's rollouts are the same tokens for all three and only the update differs. The ways are
interleaved trial by trial (a change in the machine's load falls on each alike), on one thread, after a warm-up step.
The timings come from the trainer's step records (`seconds_rollout`, `seconds_update`, `seconds`); the checkpoint's
size from `checkpoint.pt`. A caller of the library: it builds `TrainConfig`s and calls `train_policy`.
"""
import argparse, json, statistics, tempfile, time
from pathlib import Path
import torch
from vrag_nb.models import smollm2_dir
from vrag_nb.rl.toy_train import toy_corpus
from vrag_nb.rl.trainer import TrainConfig, train_policy
from vrag_nb.rl.update import load_policy

WAYS = {'lora_top6': dict(lora_r=16, trainable_layers=6), 'lora_all30': dict(lora_r=16, trainable_layers=30),
        'full_top6': dict(lora_r=0, trainable_layers=6)}

ap = argparse.ArgumentParser()
ap.add_argument('--trials', type=int, default=3)
ap.add_argument('--threads', type=int, default=1)
ap.add_argument('--out')
a = ap.parse_args()
torch.set_num_threads(a.threads)
idx, exs = toy_corpus()
# untrained SmolLM2 earns 0 on every rollout: every row is updated anyway (no row skipped for its advantage of 0), so
# that the update's passes are timed as a run with signal pays for them
game = dict(steps=1, prompts=2, group=4, max_turns=2, turn_tokens=48, response_length=768, obs_chars=600, kl_coef=0.0,
            skip_zero_advantage=False)

def step(way, seed):
    "One GRPO step of a fresh SmolLM2 trained `way`: its step record and checkpoint size."
    model, tok, _ = load_policy(smollm2_dir(), device='cpu', dtype='float32')
    out = Path(tempfile.mkdtemp())
    h = train_policy(out, idx, exs, model, tok, None, TrainConfig(**game, **WAYS[way], seed=seed), log=None)
    g = next(r for r in h if r['phase'] == 'grpo')
    return dict(seconds=g['seconds'], seconds_rollout=g['seconds_rollout'], seconds_update=g['seconds_update'],
                trainable_params=g['trainable_params'], sequence_tokens=g['sequence_tokens'],
                checkpoint_mb=round((out/'checkpoint.pt').stat().st_size / 2**20, 2))

step('lora_top6', 99)  # warm-up: the index's first searches, the first passes
rows = {w: [] for w in WAYS}
for t in range(a.trials):
    for w in WAYS:
        rows[w].append(step(w, t))
        print(w, t, json.dumps(rows[w][-1]), flush=True)
med = {w: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for w, rs in rows.items()}
base = med['lora_top6']
res = dict(command='.venv/bin/python benchmarks/lora_layers.py ' + ' '.join(f'--{k} {v}' for k, v in vars(a).items()
                                                                          if v is not None),
           machine=f'CPU, {a.threads} thread(s)', torch=torch.__version__, settings=game, median=med,
           dearer_than_lora_top6={w: round(m['seconds'] / base['seconds'] - 1, 3) for w, m in med.items()},
           update_dearer_than_lora_top6={w: round(m['seconds_update'] / base['seconds_update'] - 1, 3)
                                         for w, m in med.items()},
           trials=rows, date=time.strftime('%Y-%m-%d'))
print(json.dumps({k: res[k] for k in ('median', 'dearer_than_lora_top6', 'update_dearer_than_lora_top6')}, indent=1))
if a.out: Path(a.out).write_text(json.dumps(res, indent=1) + '\n')
