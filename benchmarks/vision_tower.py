"""Seconds of a Qwen2.5-VL vision tower's forward over a step's pages: SDPA's attention call per window against one call
per layer (`78_rl.vision_attention.packed_vision`).

    .venv/bin/python benchmarks/vision_tower.py --arch qwen2.5-vl-3b --out vision_tower.json  # one GPU, random weights
    .venv/bin/python benchmarks/vision_tower.py --tiny                                        # the same on the CPU

The bundled paper's pages at VRAG-RL's pixel budget, --pages of them (48: a 3B step's 16 rollouts × 3 images), through
the tower in one forward, --repeats times each way, in turn (so that a slow phase of the machine touches both alike),
after one warm-up forward each. Reports each way's seconds and median, the largest difference between the two
outputs (random weights; bf16 on a GPU), and each way's error against the same tower in float32 (split per window):
relative in the Frobenius norm, and the largest absolute one over the reference's largest value. Two ways whose
errors match differ by their dtype's rounding, not by what they compute.
"""
import argparse, copy, json, statistics, sys, time
from pathlib import Path
import torch
from vrag_nb.agent.views import page_view
from vrag_nb.rl.grpo import resolve_device
from vrag_nb.rl.toy_train import toy_corpus
from vrag_nb.rl.vision_attention import packed_vision
sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/arch.py, however this is run
from arch import ARCH, build_arch  # benchmarks/arch.py

ap = argparse.ArgumentParser()
ap.add_argument('--arch', choices=sorted(ARCH), default='qwen2.5-vl-3b')
ap.add_argument('--tiny', action='store_true', help='the tiny random Qwen2.5-VL on the CPU (a smoke run)')
ap.add_argument('--pages', type=int, default=48)
ap.add_argument('--repeats', type=int, default=3)
ap.add_argument('--device', default='auto')
ap.add_argument('--out')
a = ap.parse_args()
dev = torch.device('cpu') if a.tiny else resolve_device(a.device)
if a.tiny:
    from transformers import Qwen2VLImageProcessorPil
    from vrag_nb.retrieval.vlm_embed import tiny_qwen25vl
    model, ip = tiny_qwen25vl()[0], Qwen2VLImageProcessorPil(min_pixels=200_704, max_pixels=401_408)
    a.pages, a.repeats, dtype = min(a.pages, 4), 2, torch.float32
else:
    dtype = torch.bfloat16 if dev.type == 'cuda' else torch.float32
    model, _, ip = build_arch(a.arch, dev, dtype)
model.eval()
idx, _ = toy_corpus()
views = [page_view(idx.pages[i % len(idx.pages)]) for i in range(a.pages)]
x = ip(images=[v.render() for v in views], return_tensors='pt')
px, grid = x['pixel_values'].to(dev, dtype), x['image_grid_thw'].to(dev)
tower = model.model.visual

def sync():
    if dev.type == 'cuda': torch.cuda.synchronize()

def forward(way):
    "One forward of the tower over every page: (seconds, output)."
    packed_vision(model, on=way == 'packed')
    sync(); t0 = time.perf_counter()
    with torch.no_grad(): out = tower(px, grid_thw=grid).last_hidden_state
    sync()
    return time.perf_counter() - t0, out

ways = ['split', 'packed']
outs = {w: forward(w)[1] for w in ways}  # warm-up
times = {w: [] for w in ways}
for r in range(a.repeats):
    for w in ways:
        s, outs[w] = forward(w)
        times[w].append(s)
        print(json.dumps(dict(way=w, repeat=r, seconds=round(s, 4))), file=sys.stderr, flush=True)
ref_tower = copy.deepcopy(tower).float()
packed_vision(ref_tower, on=False)
with torch.no_grad(): ref = ref_tower(px.float(), grid_thw=grid).last_hidden_state
del ref_tower
error = {w: dict(relative=float((o.float() - ref).norm() / ref.norm()),
                 max_over_max=float((o.float() - ref).abs().max() / ref.abs().max())) for w, o in outs.items()}
res = dict(arch='tiny-qwen2.5-vl' if a.tiny else a.arch, device=str(dev),
           device_name=torch.cuda.get_device_name(0) if dev.type == 'cuda' else None, dtype=str(dtype),
           pages=a.pages, patches=int(grid.prod(-1).sum()), layers=len(tower.blocks), repeats=a.repeats,
           torch=torch.__version__, max_difference=float((outs['split'].float() - outs['packed'].float()).abs().max()),
           ways={w: dict(seconds=[round(s, 4) for s in ts], median_seconds=round(statistics.median(ts), 4),
                         error_vs_float32=error[w]) for w, ts in times.items()})
print(' | '.join(f"{w}: {v['median_seconds']} s" for w, v in res['ways'].items()), file=sys.stderr)
if a.out: Path(a.out).write_text(json.dumps(res, indent=1) + '\n')
print(json.dumps(res))
