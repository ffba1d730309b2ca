"""What the update would save by starting from the frozen trunk's output instead of the tokens.

`learn_text.py` trains the top 6 of SmolLM2-135M's 30 layers, so the update's forward pass through the 24 frozen layers
below recomputes what the rollouts' prefill and decoding already computed for every token. This times one micro-batch's
forward and backward (bf16 autocast over float32 weights, as `after_bf16_update_only` in `learn_text.py --profile`) two
ways, interleaved, on one thread: from the token ids through all 30 layers, and from the 24th layer's output (kept
beforehand, as a sampler could keep it) through the top 6. The loss is a stand-in over the last 100 positions' logits
(what the update scores is the replies', a few hundred tokens); the backward goes as far as the update's does.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/probes/trunk_reuse.py     # about 2 min; results/trunk_reuse.json
"""
import argparse, json, statistics, time
from pathlib import Path
import torch
from vrag_nb.models import smollm2_dir
from vrag_nb.rl.update import load_policy, prepare_policy


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--rows', type=int, default=4, help='rollouts in the micro-batch (the trainer\'s micro_batch)')
    ap.add_argument('--tokens', type=int, default=450, help='tokens per rollout (the text game\'s are 300-900)')
    ap.add_argument('--trainable_layers', type=int, default=6)
    ap.add_argument('--repeats', type=int, default=5, help='timed passes each way, interleaved (the median is kept)')
    ap.add_argument('--out', default='benchmarks/results/trunk_reuse.json')
    a = ap.parse_args()
    torch.set_num_threads(1); torch.manual_seed(0)
    model = prepare_policy(load_policy(smollm2_dir(), device='cpu', dtype='float32')[0], None, True, False,
                           a.trainable_layers)
    lm = model.model
    k = next(i for i, layer in enumerate(lm.layers) if any(p.requires_grad for p in layer.parameters()))
    ids = torch.randint(100, 40000, (a.rows, a.tokens), device='cpu')
    att = torch.ones_like(ids)
    kept = []  # the trunk's output: the input of the first trained layer
    hook = lm.layers[k - 1].register_forward_hook(lambda m, i, o: kept.append(o[0] if isinstance(o, tuple) else o))
    with torch.no_grad(), torch.autocast('cpu', torch.bfloat16): lm(input_ids=ids, attention_mask=att)
    hook.remove()
    trunk = kept[0].detach().float()

    def step(from_trunk: bool) -> float:
        "One forward and backward; its seconds."
        t, layers = time.perf_counter(), lm.layers
        if from_trunk: lm.layers = layers[k:]
        try:
            with torch.autocast('cpu', torch.bfloat16):
                inp = dict(inputs_embeds=trunk) if from_trunk else dict(input_ids=ids)
                h = lm(**inp, attention_mask=att).last_hidden_state
                loss = model.lm_head(h[:, -100:]).float().logsumexp(-1).mean()
            loss.backward()
        finally: lm.layers = layers
        model.zero_grad(set_to_none=True)
        return time.perf_counter() - t

    step(False); step(True)  # warm-up
    times = {'from_tokens': [], 'from_trunk': []}
    for _ in range(a.repeats):
        times['from_tokens'].append(step(False)); times['from_trunk'].append(step(True))
    med = {n: round(statistics.median(v), 3) for n, v in times.items()}
    res = dict(command='.venv/bin/python benchmarks/probes/trunk_reuse.py', machine='2-core CPU, 1 thread',
               torch=torch.__version__, model='SmolLM2-135M-Instruct', rows=a.rows, tokens=a.tokens,
               frozen_layers=k, trained_layers=len(lm.layers) - k, median_seconds=med,
               saved_share=round(1 - med['from_trunk'] / med['from_tokens'], 3),
               seconds={n: [round(x, 3) for x in v] for n, v in times.items()})
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1))
    print(json.dumps(res))


if __name__ == '__main__': main()
