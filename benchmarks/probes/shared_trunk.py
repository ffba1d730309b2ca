"""What the shared trunk saves in a GRPO update with a KL term (`76_rl.trunk.shared_trunk`): the same update of one
group of SmolLM2 rollouts, the reference pass run whole and run from the policy's frozen bottom layers, side by side.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/probes/shared_trunk.py --out benchmarks/results/shared_trunk.json

The policy is the cold start (`cold_start.py`'s, else the untrained SmolLM2-135M-Instruct) with its top 6 of 30 layers
trained, as `learn_text.py` trains it; the reference is a frozen copy whose top layer is moved by 1 % (as after some
training, so the KL term is at work). One training question, 8 rollouts of up to 3 turns at temperature 0.7 with
1,000-character views, rewards 0 and 1 in turn; then --repeats updates each way, interleaved, on one thread. Writes the
median seconds of the reference pass and of the rest of the update each way, and checks that both ways give the same
loss and KL."""
import argparse, copy, json, statistics, sys
from pathlib import Path
import torch

sys.path.insert(0, str(Path(__file__).parent.parent))  # benchmarks/
from learn_text import questions  # noqa: E402 -- benchmarks/, beside this script
from cold_start import index_for  # noqa: E402
from vrag_nb.models import smollm2_dir  # noqa: E402
from vrag_nb.rl.trunk import shared_trunk  # noqa: E402
from vrag_nb.rl.update import load_policy, prepare_policy, grpo_update  # noqa: E402
from vrag_nb.rl.rollout import play_group  # noqa: E402
from vrag_nb.rl.codec import ChatCodec  # noqa: E402
from vrag_nb.agent.loop import VRAGAgent  # noqa: E402
from vrag_nb.eval.rewards import ANLSJudge  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument('--cold_start', default=str(Path.home() / '.cache' / 'vrag_nb' / 'cold_start' / 'policy'))
ap.add_argument('--work', default=str(Path.home() / '.cache' / 'vrag_nb' / 'rl_runs'), help='where the index is kept')
ap.add_argument('--repeats', type=int, default=3)
ap.add_argument('--out', default='benchmarks/results/shared_trunk.json')
a = ap.parse_args()
torch.set_num_threads(1)
policy = a.cold_start if (Path(a.cold_start) / 'config.json').exists() else str(smollm2_dir())
idx = index_for(Path(a.work), 'train', ['data/pdfs', 'data/pdfs_dev'])
train, _, _ = questions()
model, tok, _ = load_policy(policy, device='cpu', dtype='float32')
codec = ChatCodec(tok, None, system='You are a helpful assistant.', pages={(p.doc, p.page): p for p in idx.pages},
                  obs_chars=1000)
agent = VRAGAgent(idx, None, max_steps=3, preset='vrag_nb')
rows = play_group(model, codec, agent, train[:1], 8, judge=ANLSJudge(contains=True), seed=0, turn_tokens=48,
                  response_length=1024, temperature=0.7, top_p=1.0, preset='vrag_rl')
for i, r in enumerate(rows): r.reward = float(i % 2)
ref = prepare_policy(copy.deepcopy(model), trainable_layers=6).eval().requires_grad_(False)
with torch.no_grad():
    for p in ref.model.layers[-1].parameters(): p.mul_(1.01)
runs = {'whole': [], 'shared': []}
for _ in range(a.repeats):
    for way in runs:
        m = prepare_policy(copy.deepcopy(model), trainable_layers=6)
        opt = torch.optim.AdamW([q for q in m.parameters() if q.requires_grad], lr=5e-5)
        out = grpo_update(m, copy.deepcopy(rows), codec, opt, ref=ref, kl_coef=0.01, share_trunk=way == 'shared')
        runs[way].append({k: out[k] for k in ('loss', 'kl', 'seconds_ref', 'seconds_update')})
        print(way, runs[way][-1], flush=True)
med = lambda way, k: round(statistics.median(r[k] for r in runs[way]), 2)
res = dict(
    command=' '.join(['.venv/bin/python', *sys.argv]), policy=policy, rollouts=len(rows),
    sequence_tokens=sum(len(r.ids) for r in rows), trainable_layers=6, shared_layers=shared_trunk(m, ref),
    same_loss_and_kl=all(r['loss'] == runs['whole'][0]['loss'] and r['kl'] == runs['whole'][0]['kl']
                         for w in runs for r in runs[w]),
    median={w: {k: med(w, k) for k in ('seconds_ref', 'seconds_update')} for w in runs}, runs=runs,
    machine='2-core CPU, 1 thread; other work on the second core')
Path(a.out).write_text(json.dumps(res, indent=1) + '\n')
print(json.dumps(res['median']), res['same_loss_and_kl'])
