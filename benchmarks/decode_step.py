"""Seconds per decode step of a batch: `65_rl.sampling`'s loop against `75_rl.static_decode`, eager and as a CUDA graph.

    .venv/bin/python benchmarks/decode_step.py --arch qwen2.5-vl-3b --out decode_step.json   # one GPU, random weights
    .venv/bin/python benchmarks/decode_step.py --tiny                                        # the same path on the CPU

One prefill of a batch of random prompts (--batch rows of --prompt tokens, a few left-padded), then --new tokens
decoded from a copy of its cache by each path, --repeats times each, in turn: `dynamic` (`sample_tokens`, the loop of
`TurnCache` today), `static` (`static_decode(graph=False)`: fixed-size buffers, stops checked every 8 steps) and
`graph` (`static_decode(graph=True)`: each step one CUDA graph, recorded again at every call, as each turn does). No
row stops (random weights; the stop set is empty), so every call decodes --new tokens. Reports, per path, the median
wall seconds of a call (the graph's recording included) and per decode step, and how many greedy tokens agree with
the dynamic path's (bf16 rounding may differ between the paths' attention kernels; random weights give near-even
logits, so one flipped argmax changes the rest of a row).
"""
import argparse, copy, json, statistics, sys, time, warnings
from pathlib import Path
import torch
from vrag_nb.rl.grpo import resolve_device
from vrag_nb.rl.sampling import grouped_attention, kv_cache, last_logits, mrope_index, sample_tokens, token_positions
from vrag_nb.rl.static_decode import static_decode
sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/arch.py, however this is run
from arch import ARCH, build_arch  # benchmarks/arch.py

ap = argparse.ArgumentParser()
ap.add_argument('--arch', choices=sorted(ARCH), default='qwen2.5-vl-3b')
ap.add_argument('--tiny', action='store_true', help='the tiny random Qwen2.5-VL on the CPU (a smoke run)')
ap.add_argument('--batch', type=int, default=16)
ap.add_argument('--prompt', type=int, default=512, help='prompt tokens a row')
ap.add_argument('--new', type=int, default=128, help='tokens decoded a call')
ap.add_argument('--repeats', type=int, default=3)
ap.add_argument('--paths', default='dynamic,static,graph')
ap.add_argument('--device', default='auto')
ap.add_argument('--dtype', choices=['bfloat16', 'float32'], help='the weights (default: bfloat16 on a GPU)')
ap.add_argument('--out')
a = ap.parse_args()
dev = torch.device('cpu') if a.tiny else resolve_device(a.device)
if a.tiny:
    from vrag_nb.retrieval.vlm_embed import tiny_qwen25vl
    model, tok, _ = tiny_qwen25vl()
    a.batch, a.prompt, a.new, a.repeats = min(a.batch, 4), min(a.prompt, 32), min(a.new, 16), 2
    dtype = torch.float32
else:
    dtype = getattr(torch, a.dtype) if a.dtype else torch.bfloat16 if dev.type == 'cuda' else torch.float32
    model, tok, _ = build_arch(a.arch, dev, dtype)
model.eval()
image_pad = tok.convert_tokens_to_ids('<|image_pad|>')
g = torch.Generator().manual_seed(0)
ids = torch.randint(100, min(len(tok), 40_000), (a.batch, a.prompt), generator=g)
att = torch.ones_like(ids)
for i in range(0, a.batch, 4): att[i, :8 * (i // 4 + 1)] = 0  # a few rows left-padded
ids, att = ids.masked_fill(att == 0, 0).to(dev), att.to(dev)
rope = mrope_index(model, image_pad)
xp = token_positions(rope, ids, att, None, image_pad)
with torch.no_grad(), grouped_attention(model):
    cache = kv_cache(); first = last_logits(model, cache, ids, att, xp, {})

def sync():
    if dev.type == 'cuda': torch.cuda.synchronize()

def call(path):
    "One decode of --new tokens from a copy of the prefilled cache: (seconds, tokens)."
    c = copy.deepcopy(cache); sync(); t0 = time.perf_counter()
    with torch.no_grad(), grouped_attention(model):
        if path == 'dynamic':
            new = sample_tokens(model, c, ids, att, xp, {}, rope, [], 0, a.new, 0.0, 1.0, first=first)[0]
        else: new = static_decode(model, c, first, att, xp, [], 0, a.new, 0.0, graph=path == 'graph')[0]
    sync()
    return time.perf_counter() - t0, new

paths = a.paths.split(',')
if dev.type != 'cuda': paths = [p for p in paths if p != 'graph']
times, tokens, warned = {p: [] for p in paths}, {}, {p: [] for p in paths}
for r in range(a.repeats):
    for p in paths:  # in turn, so that a slow phase of the machine touches every path alike
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter('always')
            s, new = call(p)
        times[p].append(s); tokens[p] = new.cpu()
        warned[p] += [str(w.message)[:300] for w in ws if str(w.message)[:300] not in warned[p]]
        print(json.dumps(dict(path=p, repeat=r, seconds=round(s, 3))), file=sys.stderr, flush=True)
res = dict(arch='tiny-qwen2.5-vl' if a.tiny else a.arch, device=str(dev),
           device_name=torch.cuda.get_device_name(0) if dev.type == 'cuda' else None, dtype=str(dtype),
           batch=a.batch, prompt=a.prompt, new=a.new, repeats=a.repeats, torch=torch.__version__,
           paths={p: dict(seconds=[round(s, 4) for s in ts], median_seconds=round(statistics.median(ts), 4),
                          ms_per_step=round(1000 * statistics.median(ts) / a.new, 2),
                          greedy_agree=round(float((tokens[p] == tokens['dynamic']).float().mean()), 4)
                          if 'dynamic' in tokens else None,
                          rows_identical=int((tokens[p] == tokens['dynamic']).all(1).sum()) if 'dynamic' in tokens
                          else None, warnings=warned[p])
                  for p, ts in times.items()})
print(' | '.join(f"{p}: {v['ms_per_step']} ms/step" for p, v in res['paths'].items()), file=sys.stderr)
if a.out: Path(a.out).write_text(json.dumps(res, indent=1) + '\n')
print(json.dumps(res))
