"""Where a GRPO update of the 3B VLM's LoRA policy spends its time, and what each lever saves (67_rl.update).

    # one GPU; random weights, no download (the rollouts of one `vlm_grpo.py` step, scripted actions)
    .venv/bin/python benchmarks/update_step.py --arch qwen2.5-vl-3b --out benchmarks/results/update_step_h200.json
    # the same path on the CPU with the tiny random VLM (a smoke run of the script)
    .venv/bin/python benchmarks/update_step.py --tiny

It plays one step of `vlm_grpo.py` (4 questions x 4 rollouts, 4 turns of 128 tokens, VRAG-RL's pixel budget, the
static decode path), then runs `grpo_update` on that step's 16 rollouts once per lever, side by side, in one process:
`base` (what `vlm_grpo.py` times: 4 rows a micro-batch, gradient checkpointing), `split` (the same, with the time inside
the vision tower, the language model's forward, the LM head's projections and the backward measured apart, each after a
device sync), `profile` (torch.profiler over one update: device time against host time, the top kernels and host ops),
and each lever named in --levers. Every lever's update starts from the same weights and optimiser state (a copy taken
before the first), so the loss, KL and gradient norm of the levers can be compared: a lever that changes them is not a
speed lever. Prints one JSON line (and writes it to --out).

A caller of the library, as `vlm_grpo.py` is: the step is the trainer's own pieces called in its order
(`TrainConfig`, `update.prepare_policy`, `rollout.game`, `rollout.play_group` with step 1's questions and seed,
`update.grpo_update`), and nothing of the library is replaced. What it adds: the random-weight architectures
(benchmarks/arch.py), the scripted actions (a callback's `after_replies`, `rl.callbacks`), the same update run once per
lever from one saved state, the split timings (forward hooks on the model's modules; the backward from the first
gradient at the LM head's output to the end of the backward pass, an autograd engine callback), and torch.profiler's
tables. Since issue 78 `head` is the LM head's projections alone (before, all of `token_logprobs`: log-softmax and
entropy too) and the policy loss is no longer timed apart (`loss`; under a millisecond). The `vision_once` lever is
gone: it was the measured lever behind `67_rl.update`'s `_frozen_inputs` and `_images_once`, which `base` runs since
they landed (the frozen vision tower once per micro-batch, outside the backward pass); results/update_step_h200.json
keeps what it measured.
"""
import argparse, contextlib, copy, json, math, random, sys, time
from pathlib import Path
import torch
from torch.autograd import Variable
from vrag_nb.core import MIN_PIXELS, MAX_PIXELS
from vrag_nb.rl.grpo import resolve_device
from vrag_nb.rl.toy_train import toy_corpus
from vrag_nb.rl.callbacks import Callback, running
from vrag_nb.rl.rollout import game, play_group
from vrag_nb.rl.trainer import TrainConfig
from vrag_nb.rl.update import grpo_update, prepare_policy
sys.path.insert(0, str(Path(__file__).resolve().parent))
from arch import ARCH, build_arch  # benchmarks/arch.py: the released sizes, random weights

ap = argparse.ArgumentParser()
src = ap.add_mutually_exclusive_group(required=True)
src.add_argument('--arch', choices=sorted(ARCH), help='that architecture with random weights')
src.add_argument('--tiny', action='store_true', help='the tiny random Qwen2.5-VL on the CPU')
ap.add_argument('--levers', default='no_ckpt,no_ckpt+mt16k',
                help='comma-separated: no_ckpt (gradient checkpointing off), mtNk (micro_tokens N*1024), mbN '
                     '(micro_batch N), joined with +')
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

class Scripted(Callback):
    """Random weights never write a valid action: each turn is generated as the step generates it, then a scripted valid
    action is played in its place, its sampling log-probs log(1/vocabulary) (a random model's near-uniform ones)."""
    def __init__(self, codec, vocab): self.codec, self.vocab = codec, vocab
    def after_replies(self, rows, replies):
        reply = lambda r: self.codec.text(SCRIPT[min(len(r.images), len(SCRIPT) - 1)]) + [self.codec.im_end]
        return [(reply(r), [-math.log(self.vocab)] * len(reply(r))) for r in rows]

@contextlib.contextmanager
def split_timer(model, out):
    """Seconds inside the vision tower, the language model's forward, the LM head's projections (forward hooks on those
    modules) and the backward pass (from the first gradient reaching the head's output to the end of the backward, an
    autograd engine callback), each after a device sync, summed into `out`."""
    base = model.get_base_model() if hasattr(model, 'get_base_model') else model
    handles, t0 = [], {}
    def timed(module, key):
        def pre(*_): sync(); t0[key] = time.perf_counter()
        def post(*_): sync(); out[key] = out.get(key, 0.0) + time.perf_counter() - t0.pop(key)
        handles.extend([module.register_forward_pre_hook(pre), module.register_forward_hook(post)])
    timed(base.model.visual, 'vision')
    timed(base.model.language_model, 'lm_forward')
    timed(base.lm_head, 'head')
    def backward_end():
        sync(); out['backward'] = out.get('backward', 0.0) + time.perf_counter() - t0.pop('backward')
    def backward_start(grad):
        if 'backward' in t0: return  # this backward pass is being timed already (the head runs in chunks)
        sync(); t0['backward'] = time.perf_counter()
        Variable._execution_engine.queue_callback(backward_end)  # runs when the whole backward pass has finished
    def head_output(module, args, output):
        if output.requires_grad: output.register_hook(backward_start)
    handles.append(base.lm_head.register_forward_hook(head_output))
    try: yield
    finally:
        for h in handles: h.remove()

def lever_settings(name):
    "The update's settings (`UpdateConfig` fields) and gradient checkpointing for a lever name such as no_ckpt+mt16k."
    kw, ckpt = {}, True
    for part in name.split('+'):
        if part == 'no_ckpt': ckpt = False
        elif part.startswith('mt') and part.endswith('k'): kw['micro_tokens'] = int(part[2:-1]) * 1024
        elif part.startswith('mb'): kw['micro_batch'] = int(part[2:])
        elif part == 'vision_once':
            raise SystemExit("vision_once is the library's update now (67_rl.update's _images_once): `base` runs it")
        elif part != 'base': raise SystemExit(f'unknown lever {part!r}')
    return kw, ckpt

def set_checkpointing(model, on):
    base = model.get_base_model() if hasattr(model, 'get_base_model') else model
    if on: base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={'use_reentrant': False})
    else: base.gradient_checkpointing_disable()

def one_step(model, tok, ip, idx, examples, c):
    """Step 1 of `train_policy(c)` up to its update, from the library's pieces in the trainer's order: the policy
    prepared (seeded as the trainer seeds it), the game, step 1's questions and seed, the rollouts (scripted actions),
    the optimiser; LoRA's reference is its adapter off (no frozen copy). Returns (model, rows, codec, optimiser)."""
    torch.manual_seed(c.seed)
    model = prepare_policy(model, c.lora, c.freeze_vision, c.gradient_checkpointing, c.trainable_layers,
                           c.packed_vision)
    codec, agent = game(idx, tok, ip, c.rollout)
    chosen = random.Random(f'{c.seed}:1').sample(examples, min(c.prompts, len(examples)))  # as the trainer draws step 1
    with running([Scripted(codec, model.config.get_text_config().vocab_size)]):
        rows = play_group(model, codec, agent, chosen, c.group, c.rollout, seed=c.seed * 1_000_003 + 1)
    return model, rows, codec, torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=c.lr)

RESULT = {}

def measure(model, rows, codec, opt, ref, c):
    "Every lever's update on the same rows, from the same weights and optimiser state."
    params = [p for p in model.parameters() if p.requires_grad]
    start = ([p.detach().clone() for p in params], copy.deepcopy(opt.state_dict()))
    def restore():
        with torch.no_grad():
            for p, w in zip(params, start[0]): p.copy_(w)
        opt.load_state_dict(copy.deepcopy(start[1]))
    lengths = [len(r.ids) for r in rows]
    cfg = (model.get_base_model() if hasattr(model, 'get_base_model') else model).config
    RESULT['attention'] = dict(text=cfg.get_text_config()._attn_implementation,
                               vision=getattr(getattr(cfg, 'vision_config', None), '_attn_implementation', None))
    RESULT.update(rows=len(rows), sequence_tokens=sum(lengths), longest=max(lengths),
                  images=sum(len(r.images) for r in rows),
                  base_settings={k: v for k, v in vars(c.update).items() if isinstance(v, (int, float, bool))})
    runs = RESULT['levers'] = {}
    def once(name, ckpt=True, **over):
        restore()
        set_checkpointing(model, ckpt)
        if dev.type == 'cuda': torch.cuda.reset_peak_memory_stats()
        sync()
        t0 = time.perf_counter()
        m = grpo_update(model, rows, codec, opt, ref, c.update, **over)
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
        over, ckpt = lever_settings(name)
        for _ in range(a.repeats):
            try: once(name, ckpt, **over)
            except torch.OutOfMemoryError as e:  # a lever over the card's memory is recorded, the others still run
                runs.setdefault(name, []).append(dict(error=f'out of memory: {str(e)[:200]}'))
                print(name, json.dumps(runs[name][-1]), file=sys.stderr, flush=True)
                opt.zero_grad(set_to_none=True)
                torch.cuda.empty_cache()
    restore()
    set_checkpointing(model, c.gradient_checkpointing)

for name in [n for n in a.levers.split(',') if n]: lever_settings(name)  # a bad lever name fails before the step
idx, examples = toy_corpus()
model, tok, ip = make()
t0 = time.perf_counter()
c = TrainConfig(steps=1, lr=1e-6, micro_batch=4, lora_r=64, gradient_checkpointing=True, response_length=2048,
                carry_cache=True, static_decode=dev.type == 'cuda', **shape, **pix).resolved(model)
model, rows, codec, opt = one_step(model, tok, ip, idx, examples, c)
measure(model, rows, codec, opt, None, c)
res = dict(model=a.arch or 'tiny-qwen2.5-vl', device=str(dev), dtype=str(dtype),
           device_name=torch.cuda.get_device_name() if dev.type == 'cuda' else None, **shape, pixels=pix, **RESULT,
           seconds_total=round(time.perf_counter() - t0, 1))
if a.out: Path(a.out).write_text(json.dumps(res, indent=1))
print(json.dumps(res))
