"""GRPO steps of a vision-language policy playing the VRAG game on the bundled corpus, timed (68_rl.trainer).

    # one GPU; that architecture with random weights, no download
    .venv/bin/python benchmarks/vlm_grpo.py --arch qwen2.5-vl-3b --steps 3
    .venv/bin/python benchmarks/vlm_grpo.py --model /path/to/Qwen2.5-VL-3B-Instruct   # a real checkpoint
    # the same path on the CPU with the tiny random VLM (the tests run a step of it)
    .venv/bin/python benchmarks/vlm_grpo.py --tiny --steps 4 --out benchmarks/results/vlm_grpo_tiny.json
    # the tiny VLM at the 3B step's shape (4 x 4 rollouts, 4 turns of 128 tokens, VRAG-RL's pixel budget): the counts
    # that benchmarks/cost_model.py turns into a predicted H100 step
    .venv/bin/python benchmarks/vlm_grpo.py --tiny --shape 3b --steps 4 --modes lora \
        --out benchmarks/results/vlm_grpo_shape3b.json

Each fine-tuning mode (full, lora) runs once a path, side by side: `fresh`, a `generate` over each rollout's whole
history at every turn (every earlier turn prefilled and every image encoded again), `carried`, the KV cache carried
from turn to turn (`turn_cache.TurnCache`: a turn prefills what is new, each image is encoded once), and `static`,
carried with each decode step over fixed-size buffers, one CUDA graph on a GPU (`rl.static_decode`). Prints one JSON
line: per mode and path, the median seconds per step over the steps after the first (all steps when there is one), split
into rollout (decoding, tools, reward), of which decoding alone, reference log-probs and update (log-probs, backward,
optimiser); the decoding work (decoding calls, prefill tokens, decode steps, images through the vision tower);
generated tokens/s, peak GPU memory, trainable parameters, and every step's record. The same seeds give both paths the
same rollouts. With random weights (--arch, --tiny) the model still generates every turn, timed in full (--turn_tokens
tokens: random weights never stop early), but the episode plays a scripted valid action in its place: search, crop the
page's top-left corner, search again, answer. So the timed step carries a page, a crop and a second page per rollout
into decoding and the update, as a real one does. (With the cache carried, the scripted reply differs from the tokens
just decoded: the cache drops them and prefills the scripted reply, a few tokens more per turn than a real rollout
prefills.) The scripted reply's tokens are the model tokens of the update; their sampling log-probs are set to
log(1/vocabulary), what a random model's near-uniform distribution gives them. --arch builds the released
configuration with Qwen's 151,936-token vocabulary (the LM head, sampling and log-prob projections cost what they cost
in the real model); the tokenizer is SmolLM2's with Qwen's vision tokens, whose ids all lie inside it.
A real checkpoint (--model) plays the real game. The carried path prefills each question's first prompt once for its
whole group (`TurnCache(share_prefix=True)`, `shared_prefix_tokens` counts what that saved); --no_share_prefix
prefills it for every rollout, as before. --split adds each step's seconds by part to its record (`split`), the device
synchronised around each part: the vision tower in the rollout and in the update, the prefill, M-RoPE positions,
decoding (static or dynamic), the CUDA graph's recording, the adapters' merge, encoding the episodes' turns.

This script is a caller of the library: it builds a `TrainConfig` and calls `train_policy`, and observes through the
trainer's callbacks (`rl.callbacks`), never by replacing library functions. What it adds: the random-weight
architectures (benchmarks/arch.py), the scripted actions (a callback's `after_replies`), the per-part timings with the
device synchronised, the vision tower's seconds (forward hooks on the model), and the side-by-side table.
"""
import argparse, json, math, statistics, sys, tempfile, time
from pathlib import Path
import torch
from vrag_nb.rl.toy_train import toy_corpus
from vrag_nb.core import MIN_PIXELS, MAX_PIXELS
from vrag_nb.rl.grpo import resolve_device
from vrag_nb.rl.codec import ChatCodec
from vrag_nb.rl.callbacks import Callback
from vrag_nb.rl.trainer import TrainConfig, train_policy
from vrag_nb.rl.update import load_policy
sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/arch.py, however this is run
from arch import ARCH, build_arch  # benchmarks/arch.py: the released sizes, random weights

ap = argparse.ArgumentParser()
src = ap.add_mutually_exclusive_group(required=True)
src.add_argument('--model', help='a transformers checkpoint (Qwen2.5-VL / Qwen3-VL, or a text LM)')
src.add_argument('--arch', choices=sorted(ARCH), help='that architecture with random weights')
src.add_argument('--tiny', action='store_true', help='the tiny random Qwen2.5-VL on the CPU')
ap.add_argument('--steps', type=int, default=3)
ap.add_argument('--prompts', type=int, default=4)
ap.add_argument('--group', type=int, default=4)
ap.add_argument('--max_turns', type=int, default=4)
ap.add_argument('--turn_tokens', type=int, default=128)
ap.add_argument('--response_length', type=int, default=2048)
ap.add_argument('--micro_batch', type=int, default=4)
ap.add_argument('--micro_tokens', type=int, help='padded tokens per forward/backward instead of --micro_batch rows')
ap.add_argument('--lora_r', type=int, default=64)
ap.add_argument('--no_checkpointing', action='store_true',
                help='keep every activation for the backward pass (faster, more memory); default: checkpointing on GPU')
ap.add_argument('--modes', default='full,lora')
ap.add_argument('--paths', default='fresh,carried',
                help='fresh: a generate a turn; carried: the KV cache kept; static: carried, each decode step over '
                     'fixed-size buffers, one CUDA graph on a GPU (rl.static_decode); static_split: static with the '
                     "vision tower's attention one call per window and every message's images processed anew (without "
                     'rl.vision_attention.packed_vision and the codec\'s image cache)')
ap.add_argument('--no_share_prefix', action='store_true',
                help="carried: prefill every rollout's first prompt (no prefix sharing within a group)")
ap.add_argument('--shape', choices=['3b'], help="with --tiny: the 3B step's shape and pixel budget (for the counts)")
ap.add_argument('--split', action='store_true',
                help="each step's seconds by part (`split` in its record), the device synchronised around each part: "
                     'the vision tower in the rollout and in the update, prefill, M-RoPE positions, decoding, the CUDA '
                     "graph's recording, the adapters' merge, encoding the episodes' turns")
ap.add_argument('--device', default='auto')
ap.add_argument('--out', help='also write the JSON here')
a = ap.parse_args()
if a.tiny and a.shape:  # the step of the README's 3B anchor: 4 x 4 rollouts, 4 turns of 128 tokens
    a.prompts, a.group, a.max_turns, a.turn_tokens = 4, 4, 4, 128
elif a.tiny:
    a.prompts, a.group, a.max_turns, a.turn_tokens, a.micro_batch = (
        min(a.prompts, 2),
        min(a.group, 2),
        min(a.max_turns, 4),
        min(a.turn_tokens, 16),
        2,
    )
dev = torch.device('cpu') if a.tiny else resolve_device(a.device)
dtype = torch.float32 if dev.type == 'cpu' else torch.bfloat16
idx, examples = toy_corpus()
small = a.tiny and not a.shape
pix = dict(min_pixels=4 * 784, max_pixels=16 * 784) if small else dict(min_pixels=MIN_PIXELS, max_pixels=MAX_PIXELS)

def make():
    if a.tiny:
        from vrag_nb.retrieval.vlm_embed import tiny_qwen25vl
        from transformers import Qwen2VLImageProcessorPil
        m, t, _ = tiny_qwen25vl()
        return m, t, Qwen2VLImageProcessorPil(**pix)
    if a.arch: return build_arch(a.arch, dev, dtype)
    return load_policy(a.model, device=str(dev), dtype=str(dtype).split('.')[-1], **pix)

GENERATED = [0]  # tokens the model generated (not the scripted ones the episode played)
SCRIPT = [
    '<search>acmart template style</search>',
    '<bbox>[0, 0, 200, 200]</bbox>',
    '<search>table of typical commands</search>',
    '<answer>acmsmall</answer>',
]

def sync():
    if dev.type == 'cuda': torch.cuda.synchronize()


class Watch(Callback):
    """What this benchmark observes, through the trainer's callbacks (`rl.callbacks`): seconds inside `generate`
    (decoding, prefill and vision), with --split each part's seconds, the device synchronised around it, and with random
    weights the tokens generated before a scripted valid action is played in their place."""
    def __init__(self, model, vocab):
        self.vocab, self.decoding, self.split, self.starts, self.in_generate = vocab, 0.0, {}, {}, False
        if a.split: self._hook_vision(model)

    def _hook_vision(self, model):
        "The vision tower's forward timed: `rollout_vision` inside `generate`, else `update_vision`."
        tower = next(m for n, m in model.named_modules() if n.split('.')[-1] == 'visual')
        t0 = [0.0]
        def pre(*_): sync(); t0[0] = time.perf_counter()
        def post(*_):
            sync(); k = 'rollout_vision' if self.in_generate else 'update_vision'
            self.split[k] = self.split.get(k, 0.0) + time.perf_counter() - t0[0]
        tower.register_forward_pre_hook(pre); tower.register_forward_hook(post)

    def before_part(self, name):
        if name == 'generate': self.in_generate = True
        if a.split and name in SPLIT_PARTS: sync(); self.starts[name] = time.perf_counter()

    def after_part(self, name, seconds):
        if name == 'generate': self.decoding, self.in_generate = self.decoding + seconds, False
        if a.split and name in SPLIT_PARTS:
            sync(); self.split[name] = self.split.get(name, 0.0) + time.perf_counter() - self.starts.pop(name)

    def after_replies(self, rows, replies):
        "Random weights: the turn generated in full (timed, counted), then a scripted valid action played instead."
        if a.model: return None
        GENERATED[0] += sum(len(t) for t, _ in replies)
        reply = lambda r: codec_of[0].text(SCRIPT[min(len(r.images), len(SCRIPT) - 1)]) + [codec_of[0].im_end]
        return [(reply(r), [-math.log(self.vocab)] * len(reply(r))) for r in rows]

    def after_record(self, r):
        "Each step's record gets the seconds and counts observed since the last one, printed to stderr."
        if r['phase'] == 'grpo':
            r['seconds_decoding'], self.decoding = round(self.decoding, 3), 0.0
            if a.split: r['split'] = {k: round(v, 3) for k, v in sorted(self.split.items())}
            if not a.model:  # with scripted actions, the tokens generated are counted here, not in the rollouts
                r['generated_tokens'], GENERATED[0] = GENERATED[0], 0
                r['tokens_per_second'] = round(r['generated_tokens'] / max(r['seconds_rollout'], 1e-9), 1)
        self.split.clear()
        print(json.dumps(r), file=sys.stderr, flush=True)


# the parts --split times (`rl.callbacks.span` names in the library): generate holds prefill, positions and decoding
SPLIT_PARTS = ('generate', 'prefill', 'positions', 'static_decode', 'graph_record', 'fixed_from', 'dynamic_decode',
               'encode_turns', 'merge')
codec_of = [None]  # the run's codec, for the scripted replies: the tokenizer's, built as the trainer builds it

runs = {}
for mode, path in [(m, p) for m in a.modes.split(',') for p in a.paths.split(',')]:
    model, tok, ip = make()
    if dev.type == 'cuda': torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats()
    c = TrainConfig(
        steps=a.steps, prompts=a.prompts, group=a.group, lr=1e-6, micro_batch=a.micro_batch,
        micro_tokens=a.micro_tokens,
        lora_r=a.lora_r if mode == 'lora' else 0,
        gradient_checkpointing=not a.tiny and not a.no_checkpointing, max_turns=a.max_turns, turn_tokens=a.turn_tokens,
        response_length=a.response_length, ckpt_every=a.steps,
        carry_cache=path in ('carried', 'static', 'static_split'),
        static_decode=path in ('static', 'static_split'), packed_vision=path != 'static_split',
        image_cache=0 if path == 'static_split' else TrainConfig.image_cache, share_prefix=not a.no_share_prefix, **pix)
    codec_of[0] = ChatCodec(tok, ip)
    GENERATED[0] = 0
    watch = Watch(model, model.config.get_text_config().vocab_size)
    h = train_policy(tempfile.mkdtemp(), idx, examples, model, tok, ip, c, log=None, callbacks=[watch])
    g = [r for r in h if r['phase'] == 'grpo']
    timed = g[1:] or g  # the first step pays for warm-up
    med = lambda k: round(statistics.median(r[k] for r in timed), 3)
    runs[f'{mode}/{path}'] = dict(
        seconds_per_step=med('seconds'),
        seconds_rollout=med('seconds_rollout'),
        seconds_decoding=med('seconds_decoding'),
        seconds_ref=med('seconds_ref'),
        seconds_update=med('seconds_update'),
        tokens_per_second=med('tokens_per_second'),
        generated_tokens=med('generated_tokens'),
        peak_gib=round(torch.cuda.max_memory_allocated() / 2**30, 2) if dev.type == 'cuda' else None,
        trainable_params=g[-1]['trainable_params'],
        images_per_rollout=med('images'),
        # the decoding work of a step (`play_group(counts=)`)
        generate_calls=med('generate_calls'),
        prefill_tokens=med('prefill_tokens'),
        shared_prefix_tokens=round(statistics.median(r.get('shared_prefix_tokens', 0) for r in timed), 3),
        decode_steps=med('decode_steps'),
        vision_images=med('vision_images'),
        sequence_tokens=med('sequence_tokens'),
        verl_loaded='verl' in sys.modules,
        steps=g,
    )
    del model
    if dev.type == "cuda": torch.cuda.empty_cache()
res = dict(
    model=a.model or a.arch or 'tiny-qwen2.5-vl',
    scripted_actions=not a.model,
    device=str(dev),
    dtype=str(dtype),
    prompts=a.prompts,
    group=a.group,
    max_turns=a.max_turns,
    turn_tokens=a.turn_tokens,
    lora_r=a.lora_r,
    micro_batch=a.micro_batch,
    micro_tokens=a.micro_tokens,
    checkpointing=not a.tiny and not a.no_checkpointing,
    share_prefix=not a.no_share_prefix,
    pixels=pix,
    runs=runs,
)
keys = ('seconds_per_step', 'seconds_rollout', 'seconds_decoding', 'seconds_update', 'prefill_tokens', 'decode_steps',
        'vision_images')
for mode in a.modes.split(','):  # before and after, side by side, on stderr
    print(f'{mode:>5}: ' + ', '.join(f"{k} {' -> '.join(str(runs[f'{mode}/{p}'][k]) for p in a.paths.split(','))}"
                                      for k in keys), file=sys.stderr)
if a.out: Path(a.out).write_text(json.dumps(res, indent=1))
print(json.dumps(res))
