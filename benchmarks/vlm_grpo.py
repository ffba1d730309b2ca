"""GRPO steps of a vision-language policy playing the VRAG game on the bundled corpus, timed (07h_rl.trainer).

    .venv/bin/python benchmarks/vlm_grpo.py --arch qwen2.5-vl-3b --steps 3      # one GPU; that architecture with random weights, no download
    .venv/bin/python benchmarks/vlm_grpo.py --model /path/to/Qwen2.5-VL-3B-Instruct   # a real checkpoint
    .venv/bin/python benchmarks/vlm_grpo.py --tiny                               # the same path on the CPU with the tiny random VLM (the tests run this)

Prints one JSON line: per fine-tuning mode (full, lora), the median seconds per step over the steps after the first
(all steps when there is one), split into rollout (batched generate, tools, reward), reference log-probs and update
(log-probs, backward, optimiser), generated tokens/s, peak GPU memory, trainable parameters, and every step's record.
Random weights write no valid action: every reply runs to --turn_tokens and no page is ever shown, so such a run
times decoding at its worst and the update without images; a real checkpoint plays the real game.
"""
import argparse, copy, json, statistics, sys, tempfile, time
from pathlib import Path
import torch
from vrag_nb.rl.toy_train import toy_corpus
from vrag_nb.core import MIN_PIXELS, MAX_PIXELS
from vrag_nb.rl.grpo import resolve_device
from vrag_nb.rl.trainer import train_policy, load_policy

ARCH = {  # Qwen2.5-VL text and vision sizes (the released configs), built with random weights
    'qwen2.5-vl-3b': dict(text=dict(hidden_size=2048, intermediate_size=11008, num_hidden_layers=36, num_attention_heads=16, num_key_value_heads=2),
                          vision_out=2048),
    'qwen2.5-vl-7b': dict(text=dict(hidden_size=3584, intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28, num_key_value_heads=4),
                          vision_out=3584),
}

def build_arch(name, device, dtype):
    "The architecture with random weights, made on the device; SmolLM2's tokenizer with Qwen's vision tokens (vocabulary: its size)."
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration, Qwen2VLImageProcessorPil
    from vrag_nb.retrieval.vlm_embed import _tiny_tokenizer
    tok, ids = _tiny_tokenizer()
    a = ARCH[name]
    cfg = Qwen2_5_VLConfig(
        text_config=dict(vocab_size=len(tok), max_position_embeddings=32768, rope_scaling={'type': 'mrope', 'mrope_section': [16, 24, 24]},
                         eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, **a['text']),
        vision_config=dict(depth=32, hidden_size=1280, num_heads=16, intermediate_size=3420, out_hidden_size=a['vision_out'], patch_size=14,
                           spatial_merge_size=2, temporal_patch_size=2, window_size=112, fullatt_block_indexes=[7, 15, 23, 31]),
        image_token_id=ids['<|image_pad|>'], video_token_id=ids['<|video_pad|>'],
        vision_start_token_id=ids['<|vision_start|>'], vision_end_token_id=ids['<|vision_end|>'])
    cfg._attn_implementation = 'sdpa'
    with torch.device(device): model = Qwen2_5_VLForConditionalGeneration._from_config(cfg, dtype=dtype)
    return model, tok, Qwen2VLImageProcessorPil(min_pixels=MIN_PIXELS, max_pixels=MAX_PIXELS)

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
ap.add_argument('--lora_r', type=int, default=64)
ap.add_argument('--modes', default='full,lora')
ap.add_argument('--device', default='auto')
ap.add_argument('--out', help='also write the JSON here')
a = ap.parse_args()
if a.tiny: a.prompts, a.group, a.max_turns, a.turn_tokens, a.micro_batch = min(a.prompts, 2), min(a.group, 2), min(a.max_turns, 3), min(a.turn_tokens, 16), 2
dev = torch.device('cpu') if a.tiny else resolve_device(a.device)
dtype = torch.float32 if dev.type == 'cpu' else torch.bfloat16
idx, examples = toy_corpus()
pix = dict(min_pixels=4 * 784, max_pixels=16 * 784) if a.tiny else dict(min_pixels=MIN_PIXELS, max_pixels=MAX_PIXELS)

def make():
    if a.tiny:
        from vrag_nb.retrieval.vlm_embed import tiny_qwen25vl
        from transformers import Qwen2VLImageProcessorPil
        m, t, _ = tiny_qwen25vl()
        return m, t, Qwen2VLImageProcessorPil(**pix)
    if a.arch: return build_arch(a.arch, dev, dtype)
    return load_policy(a.model, device=str(dev), dtype=str(dtype).split('.')[-1], **pix)

runs = {}
for mode in a.modes.split(','):
    model, tok, ip = make()
    if dev.type == 'cuda': torch.cuda.empty_cache(); torch.cuda.reset_peak_memory_stats()
    lora = {'r': a.lora_r, 'lora_alpha': 2 * a.lora_r} if mode == 'lora' else None
    h = train_policy(tempfile.mkdtemp(), idx, examples, model, tok, ip, steps=a.steps, prompts=a.prompts, group=a.group, lr=1e-6,
                     micro_batch=a.micro_batch, lora=lora, gradient_checkpointing=not a.tiny, max_turns=a.max_turns, turn_tokens=a.turn_tokens,
                     response_length=a.response_length, ckpt_every=a.steps, log=lambda r: print(json.dumps(r), file=sys.stderr, flush=True), **pix)
    g = [r for r in h if r['phase'] == 'grpo']
    timed = g[1:] or g  # the first step pays for warm-up
    med = lambda k: round(statistics.median(r[k] for r in timed), 3)
    runs[mode] = dict(seconds_per_step=med('seconds'), seconds_rollout=med('seconds_rollout'), seconds_ref=med('seconds_ref'), seconds_update=med('seconds_update'),
                      tokens_per_second=med('tokens_per_second'), generated_tokens=med('generated_tokens'),
                      peak_gib=round(torch.cuda.max_memory_allocated() / 2**30, 2) if dev.type == 'cuda' else None,
                      trainable_params=g[-1]['trainable_params'], verl_loaded='verl' in sys.modules, steps=g)
    del model
    if dev.type == "cuda": torch.cuda.empty_cache()
res = dict(model=a.model or a.arch or 'tiny-qwen2.5-vl', device=str(dev), dtype=str(dtype), prompts=a.prompts, group=a.group, max_turns=a.max_turns,
           turn_tokens=a.turn_tokens, lora_r=a.lora_r, runs=runs)
if a.out: Path(a.out).write_text(json.dumps(res, indent=1))
print(json.dumps(res))
