"""A GRPO step of Qwen2.5-VL-3B on one H100, predicted from a step's decoding work and measured anchors.

    cd benchmarks/results
    ../../.venv/bin/python ../vlm_grpo.py --tiny --shape 3b --steps 4 --modes lora --out vlm_grpo_shape3b.json
    ../../.venv/bin/python ../cost_model.py vlm_grpo_shape3b.json --out vlm_grpo_cost_3b.json

The first command plays the 3B step's shape (4 questions x 4 rollouts, up to 4 turns of 128 tokens, VRAG-RL's pixel
budget, a page, a crop and a second page per rollout) with the tiny random VLM and counts its work, both ways: a fresh
`generate` each turn and the KV cache carried across turns. The counts do not depend on the model's size. This script
prices them:

- decoding: ANCHOR_DECODE seconds per decode step. On an H100, `generate` with the 3B architecture in bf16 took about
  12 s for 128 new tokens at any batch from 8 to 32 (per-step overhead, not arithmetic, bounds it), so a step costs the
  same at 16 rows, whatever the cache's length at these sizes;
- prefill and vision: their FLOPs (2 x parameters per token; for the vision tower per 14-pixel patch, four patches per
  image token) at ASSUMED_FLOPS, 40 % of the H100's dense bf16 peak. An assumption, not a measurement: attention's own
  FLOPs are left out (at 3,000 tokens they add about 10 %);
- update: a LoRA update of 16 sequences of 1,200 tokens took about 10 s on the same H100 (gradient checkpointing), so
  ANCHOR_UPDATE seconds per sequence token; the reference log-probs (the adapter off, a forward pass) a third of that;
- tools (search, crop, reward): as measured on this machine's CPU by the first command (they run on the CPU there too).
"""
import argparse, json
from pathlib import Path

ANCHOR_DECODE = 12.0 / 128  # s per decode step, 3B, bf16, H100, batch 8-32
ANCHOR_UPDATE = 10.0 / (16 * 1200)  # s per sequence token, LoRA update with gradient checkpointing
REF_SHARE = 1 / 3  # reference log-probs: a forward pass of the update's forward + backward
ASSUMED_FLOPS = 0.4 * 989e12  # FLOP/s for prefill and vision (40 % of dense bf16 peak)
TEXT_PARAMS, VISION_PARAMS = 3.09e9, 0.67e9  # Qwen2.5-VL-3B's language model and vision tower

def predict(run: dict, max_pixels: int) -> dict:
    "Seconds of each phase of one step, from its counts."
    patches = 4 * max_pixels // (28 * 28)  # at most, per image: its image tokens x the 2 x 2 merge
    tools = max(run['seconds_rollout'] - run['seconds_decoding'], 0.0)
    parts = dict(
        decode=run['decode_steps'] * ANCHOR_DECODE,
        prefill=run['prefill_tokens'] * 2 * TEXT_PARAMS / ASSUMED_FLOPS,
        vision=run['vision_images'] * patches * 2 * VISION_PARAMS / ASSUMED_FLOPS,
        tools=tools,
        reference=run['sequence_tokens'] * ANCHOR_UPDATE * REF_SHARE,
        update=run['sequence_tokens'] * ANCHOR_UPDATE,
    )
    parts = {k: round(v, 2) for k, v in parts.items()}
    return dict(parts, step=round(sum(parts.values()), 1))

ap = argparse.ArgumentParser()
ap.add_argument('counts', help="vlm_grpo.py's JSON at the 3B shape")
ap.add_argument('--out')
a = ap.parse_args()
res = json.loads(Path(a.counts).read_text())
work = ('prefill_tokens', 'decode_steps', 'vision_images', 'sequence_tokens')
out = dict(anchors=dict(decode_s_per_step=ANCHOR_DECODE, update_s_per_token=ANCHOR_UPDATE, reference_share=REF_SHARE,
                        assumed_flops=ASSUMED_FLOPS, text_params=TEXT_PARAMS, vision_params=VISION_PARAMS),
           shape=dict(prompts=res['prompts'], group=res['group'], max_turns=res['max_turns'],
                      turn_tokens=res['turn_tokens'], max_pixels=res['pixels']['max_pixels']),
           paths={k: dict(counts={w: v[w] for w in work}, predicted_seconds=predict(v, res['pixels']['max_pixels']))
                  for k, v in res['runs'].items()})
if a.out: Path(a.out).write_text(json.dumps(out, indent=1))
print(json.dumps(out, indent=1))
