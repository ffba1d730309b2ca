"""Where a GRPO update of the 3B VLM's LoRA policy spends its time, and what each lever saves (67_rl.update).

    # one GPU; random weights, no download (the rollouts of one `vlm_grpo.py` step, scripted actions)
    .venv/bin/python benchmarks/update_step.py --arch qwen2.5-vl-3b --out benchmarks/results/update_step_h200.json
    # the same path on the CPU with the tiny random VLM (a smoke run of the script)
    .venv/bin/python benchmarks/update_step.py --tiny

It plays one step of `vlm_grpo.py` (4 questions x 4 rollouts, 4 turns of 128 tokens, VRAG-RL's pixel budget, the
static decode path), then runs `grpo_update` on that step's 16 rollouts once per lever, side by side, in one process:
`base` (what `vlm_grpo.py` times: 4 rows a micro-batch, gradient checkpointing), `split` (the same, with the time inside
the vision tower, the language model's forward, the head and the backward measured apart, each after a device sync),
`profile` (torch.profiler over one update: device time against host time, the top kernels and host ops), and each
lever named in --levers. (`vision_once` was the measured lever behind `67_rl.update`'s `_frozen_inputs` and
`_images_once`: since they landed, `base` runs the vision tower once per micro-batch, outside the backward pass.)
Every lever's update starts from the same weights and optimiser state (a copy taken before
the first), so the loss, KL and gradient norm of the levers can be compared: a lever that changes them is not a speed
lever. Prints one JSON line (and writes it to --out).
"""
import argparse, contextlib, copy, json, math, sys, tempfile, time
from pathlib import Path
import torch
from vrag_nb.core import MIN_PIXELS, MAX_PIXELS
from vrag_nb.rl.grpo import resolve_device
from vrag_nb.rl.toy_train import toy_corpus
import vrag_nb.rl.rollout as rollout, vrag_nb.rl.trainer as trainer, vrag_nb.rl.update as update
sys.path.insert(0, str(Path(__file__).resolve().parent))
from arch import ARCH, build_arch  # benchmarks/arch.py: the released sizes, random weights

ap = argparse.ArgumentParser()
src = ap.add_mutually_exclusive_group(required=True)
src.add_argument('--arch', choices=sorted(ARCH), help='that architecture with random weights')
src.add_argument('--tiny', action='store_true', help='the tiny random Qwen2.5-VL on the CPU')
ap.add_argument('--levers', default='vision_once,no_ckpt,no_ckpt+mt16k,vision_once+no_ckpt+mt16k',
                help='comma-separated: vision_once (the frozen vision tower run once per image per update), no_ckpt '
                     '(gradient checkpointing off), mtNk (micro_tokens N*1024), mbN (micro_batch N), joined with +')
ap.add_argument('--repeats', type=int, default=1, help='updates timed per lever')
ap.add_argument('--no_profile', action='store_true')
ap.add_argument('--levers_only', action='store_true', help='after the warm-up, only the levers (no base, split)')
ap.add_argument('--out')
a = ap.parse_args()
dev = torch.device('cpu') if a.tiny else resolve_device('auto')
dtype = torch.float32 if dev.type == 'cpu' else torch.bfloat16
pix = dict(min_pixels=4 * 784, max_pixels=16 * 784) if a.tiny else dict(min_pixels=MIN_PIXELS, max_pixels=MAX_PIXELS)
shape = dict(prompts=2, group=2, max_turns=4, turn_tokens=16) if a.tiny else dict(prompts=4, group=4, max_turns=4,
                                                                                turn_tokens=128)
sync = (lambda: torch.cuda.synchronize()) if dev.type == 'cuda' else (lambda: None)

def make():
    if a.tiny:
        from vrag_nb.retrieval.vlm_embed import tiny_qwen25vl
        from transformers import Qwen2VLImageProcessorPil
        m, t, _ = tiny_qwen25vl()
        return m, t, Qwen2VLImageProcessorPil(**pix)
    return build_arch(a.arch, dev, dtype)

SCRIPT = ['<search>acmart template style</search>', '<bbox>[0, 0, 200, 200]</bbox>',
          '<search>table of typical commands</search>', '<answer>acmsmall</answer>']

def scripted(generate):
    "Generate as the step does, then play a scripted valid action (random weights never write one)."
    def run(model, codec, rows, *args, **kw):
        outs, vocab = generate(model, codec, rows, *args, **kw), model.config.get_text_config().vocab_size
        reply = lambda r: codec.text(SCRIPT[min(len(r.images), len(SCRIPT) - 1)]) + [codec.im_end]
        return [(reply(r), [-math.log(vocab)] * len(reply(r))) for r in rows]
    return run
rollout.generate_replies = scripted(rollout.generate_replies)

@contextlib.contextmanager
def vision_once(model):
    "The frozen vision tower's output kept per pixel tensor: the policy's and the reference's passes share it."
    vm = (model.get_base_model() if hasattr(model, 'get_base_model') else model).model
    orig, kept = vm.get_image_features, []
    def cached(pixel_values, image_grid_thw, **kw):  # the tensor is held: its identity cannot pass to another batch's
        if not (kept and kept[0][0] is pixel_values):
            with torch.no_grad(): kept[:] = [(pixel_values, orig(pixel_values, image_grid_thw, **kw))]
        return kept[0][1]
    vm.get_image_features = cached
    try: yield
    finally: vm.get_image_features = orig

@contextlib.contextmanager
def split_timer(model, out):
    "Seconds inside the vision tower, the language model's forward, the head and the backward, each after a sync."
    base = model.get_base_model() if hasattr(model, 'get_base_model') else model
    vm = base.model
    def wrap(obj, name, key):
        orig = getattr(obj, name)
        def run(*args, **kw):
            sync()
            t0 = time.perf_counter()
            try: return orig(*args, **kw)
            finally:
                sync()
                out[key] = out.get(key, 0.0) + time.perf_counter() - t0
        setattr(obj, name, run)
        return lambda: setattr(obj, name, orig)
    undo = [wrap(vm, 'get_image_features', 'vision'), wrap(vm.language_model, 'forward', 'lm_forward'),
            wrap(update, 'policy_loss', 'loss'), wrap(update, 'token_logprobs', 'head'),
            wrap(rollout, 'token_logprobs', 'head')]
    orig_bwd = torch.Tensor.backward
    def bwd(self, *args, **kw):
        sync()
        t0 = time.perf_counter()
        try: return orig_bwd(self, *args, **kw)
        finally:
            sync()
            out['backward'] = out.get('backward', 0.0) + time.perf_counter() - t0
    torch.Tensor.backward = bwd
    try: yield
    finally:
        torch.Tensor.backward = orig_bwd
        for u in undo: u()

def lever_settings(name, kw):
    "The update's keywords and context for a lever name such as no_ckpt+mt16k."
    kw, ctx, ckpt = dict(kw), [], True
    for part in name.split('+'):
        if part == 'vision_once': ctx.append(vision_once)
        elif part == 'no_ckpt': ckpt = False
        elif part.startswith('mt') and part.endswith('k'): kw['micro_tokens'] = int(part[2:-1]) * 1024
        elif part.startswith('mb'): kw['micro_batch'] = int(part[2:])
        elif part != 'base': raise SystemExit(f'unknown lever {part!r}')
    return kw, ctx, ckpt

def set_checkpointing(model, on):
    base = model.get_base_model() if hasattr(model, 'get_base_model') else model
    if on: base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={'use_reentrant': False})
    else: base.gradient_checkpointing_disable()

RESULT = {}

def measure(model, rows, codec, opt, ref, *args, **kw):
    "Run in place of the trainer's update: every lever on the same rows, from the same weights and optimiser state."
    params = [p for p in model.parameters() if p.requires_grad]
    start = ([p.detach().clone() for p in params], copy.deepcopy(opt.state_dict()))
    def restore():
        with torch.no_grad():
            for p, w in zip(params, start[0]): p.copy_(w)
        opt.load_state_dict(copy.deepcopy(start[1]))
    base_kw = dict(zip(('kl_coef', 'clip_ratio', 'micro_batch', 'micro_tokens'), args), **kw)
    lengths = [len(r.ids) for r in rows]
    cfg = (model.get_base_model() if hasattr(model, 'get_base_model') else model).config
    RESULT['attention'] = dict(text=cfg.get_text_config()._attn_implementation,
                               vision=getattr(getattr(cfg, 'vision_config', None), '_attn_implementation', None))
    RESULT.update(rows=len(rows), sequence_tokens=sum(lengths), longest=max(lengths),
                  images=sum(len(r.images) for r in rows), base_settings={k: v for k, v in base_kw.items()
                                                                          if isinstance(v, (int, float, bool))})
    runs = RESULT['levers'] = {}
    def once(name, contexts=(), ckpt=True, **over):
        restore()
        set_checkpointing(model, ckpt)
        if dev.type == 'cuda': torch.cuda.reset_peak_memory_stats()
        with contextlib.ExitStack() as st:
            for c in contexts: st.enter_context(c(model))
            sync()
            t0 = time.perf_counter()
            m = update.grpo_update(model, rows, codec, opt, ref, **{**base_kw, **over})
            sync()
        rec = dict(seconds=round(time.perf_counter() - t0, 3), seconds_ref=m['seconds_ref'],
                   seconds_update=m['seconds_update'], loss=m['loss'], kl=m['kl'], grad_norm=m['grad_norm'],
                   peak_gib=round(torch.cuda.max_memory_allocated() / 2**30, 2) if dev.type == 'cuda' else None)
        runs.setdefault(name, []).append(rec)
        print(name, json.dumps(rec), file=sys.stderr, flush=True)
        if a.out: Path(a.out).write_text(json.dumps(dict(partial=True, **RESULT), indent=1))  # kept if the run is cut
        return m
    once('warmup')
    for _ in range(a.repeats if not a.levers_only else 0): once('base')
    split = {}
    if not a.levers_only:
        with split_timer(model, split): once('split')
    RESULT['split_seconds'] = {k: round(v, 3) for k, v in split.items()}
    print('split_seconds', json.dumps(RESULT['split_seconds']), file=sys.stderr, flush=True)
    if not a.no_profile:
        from torch.profiler import profile, ProfilerActivity
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev.type == 'cuda' else [])
        with profile(activities=acts) as prof: once('profile')
        ka = prof.key_averages()
        dev_key = 'self_device_time_total' if dev.type == 'cuda' else 'self_cpu_time_total'
        top = lambda key, n=25: [dict(name=e.key[:90], calls=e.count, self_ms=round(getattr(e, key) / 1e3, 2))
                                 for e in sorted(ka, key=lambda e: -getattr(e, key))[:n]]
        RESULT['profile'] = dict(device_ms=round(sum(getattr(e, dev_key) for e in ka) / 1e3, 1),
                                 host_ms=round(sum(e.self_cpu_time_total for e in ka) / 1e3, 1),
                                 kernels=sum(e.count for e in ka
                                             if dev.type == 'cuda' and e.device_type.name == 'CUDA'),
                                 top_device=top(dev_key), top_host=top('self_cpu_time_total'))
    for name in [n for n in a.levers.split(',') if n]:
        kw2, ctx, ckpt = lever_settings(name, {})
        for _ in range(a.repeats):
            try: once(name, ctx, ckpt, **kw2)
            except torch.OutOfMemoryError as e:  # a lever over the card's memory is recorded, the others still run
                runs.setdefault(name, []).append(dict(error=f'out of memory: {str(e)[:200]}'))
                print(name, json.dumps(runs[name][-1]), file=sys.stderr, flush=True)
                opt.zero_grad(set_to_none=True)
                torch.cuda.empty_cache()
    restore()
    set_checkpointing(model, True)
    return update.grpo_update(model, rows, codec, opt, ref, *args, **kw)

trainer.grpo_update = measure
idx, examples = toy_corpus()
model, tok, ip = make()
t0 = time.perf_counter()
trainer.train_policy(tempfile.mkdtemp(), idx, examples, model, tok, ip, steps=1, lr=1e-6, micro_batch=4,
                     lora={'r': 64, 'lora_alpha': 128}, gradient_checkpointing=True, response_length=2048,
                     ckpt_every=1, carry_cache=True, static_decode=dev.type == 'cuda', log=lambda r: None, **shape,
                     **pix)
res = dict(model=a.arch or 'tiny-qwen2.5-vl', device=str(dev), dtype=str(dtype),
           device_name=torch.cuda.get_device_name() if dev.type == 'cuda' else None, **shape, pixels=pix, **RESULT,
           seconds_total=round(time.perf_counter() - t0, 1))
if a.out: Path(a.out).write_text(json.dumps(res, indent=1))
print(json.dumps(res))
