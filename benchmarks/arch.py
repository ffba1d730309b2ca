"""The Qwen2.5-VL architectures the GPU benchmarks build with random weights (no download): `vlm_grpo.py`,
`decode_step.py`."""
import torch
from vrag_nb.core import MIN_PIXELS, MAX_PIXELS

QWEN_VOCAB = 151_936  # Qwen2.5-VL's vocabulary (the released configs' vocab_size)
ARCH = {  # Qwen2.5-VL text and vision sizes (the released configs), built with random weights
    'qwen2.5-vl-3b': dict(
        text=dict(
            hidden_size=2048,
            intermediate_size=11008,
            num_hidden_layers=36,
            num_attention_heads=16,
            num_key_value_heads=2,
            tie_word_embeddings=True,
        ),
        vision_out=2048,
    ),
    'qwen2.5-vl-7b': dict(
        text=dict(
            hidden_size=3584,
            intermediate_size=18944,
            num_hidden_layers=28,
            num_attention_heads=28,
            num_key_value_heads=4,
            tie_word_embeddings=False,
        ),
        vision_out=3584,
    ),
}

def build_arch(name, device, dtype):
    """The architecture with random weights and Qwen's vocabulary size, made on the device; SmolLM2's tokenizer with
    Qwen's vision tokens."""
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration, Qwen2VLImageProcessorPil
    from vrag_nb.retrieval.vlm_embed import _tiny_tokenizer
    tok, ids = _tiny_tokenizer()
    a = ARCH[name]
    cfg = Qwen2_5_VLConfig(
        text_config=dict(
            vocab_size=QWEN_VOCAB,
            max_position_embeddings=32768,
            rope_scaling={'type': 'mrope', 'mrope_section': [16, 24, 24]},
            eos_token_id=tok.eos_token_id,
            pad_token_id=tok.pad_token_id,
            **a['text'],
        ),
        vision_config=dict(
            depth=32,
            hidden_size=1280,
            num_heads=16,
            intermediate_size=3420,
            out_hidden_size=a['vision_out'],
            patch_size=14,
            spatial_merge_size=2,
            temporal_patch_size=2,
            window_size=112,
            fullatt_block_indexes=[7, 15, 23, 31],
        ),
        tie_word_embeddings=a['text']['tie_word_embeddings'],
        image_token_id=ids['<|image_pad|>'],
        video_token_id=ids['<|video_pad|>'],
        vision_start_token_id=ids['<|vision_start|>'],
        vision_end_token_id=ids['<|vision_end|>'],
    )
    cfg._attn_implementation = 'sdpa'
    with torch.device(device): model = Qwen2_5_VLForConditionalGeneration._from_config(cfg, dtype=dtype)
    return model, tok, Qwen2VLImageProcessorPil(min_pixels=MIN_PIXELS, max_pixels=MAX_PIXELS)


if __name__ == '__main__':  # a checkpoint folder of the architecture with random weights, for `vrag_train --policy`
    import argparse
    ap = argparse.ArgumentParser(description='write a released architecture with random weights as a checkpoint folder '
                                             '(what `vrag_train --policy FOLDER` loads; nothing is downloaded)')
    ap.add_argument('--arch', choices=sorted(ARCH), required=True)
    ap.add_argument('--save', required=True, help='the folder to write: bf16 weights, tokenizer, image processor')
    a = ap.parse_args()
    model, tok, ip = build_arch(a.arch, 'cpu', torch.bfloat16)
    model.save_pretrained(a.save)
    tok.save_pretrained(a.save)
    ip.save_pretrained(a.save)
    print(f'{a.arch} with random weights in {a.save}')
