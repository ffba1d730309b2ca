"""The trained text policy through the user's path: `vrag_serve_llm --model DIR`, then `vrag_eval --agent --base_url`.

    .venv/bin/python benchmarks/served_policy.py                   # after benchmarks/learn_text.py (a few minutes)

`benchmarks/learn_text.py` saves its first seed's GRPO policy as a plain transformers directory and evaluates it in
process, greedily, on the held-out set (data/qa_rdocs.json over data/pdfs_rdocs). This script plays the saved directory
both ways: in process (`rl.learn.evaluate_policy`, as learn_text.py evaluates), and served by `vrag_serve_llm`
through `vrag_eval --agent --modes crop`, with the settings the policy was trained and evaluated under (3 steps,
48-token replies, each view as the 600 characters of words inside it, the system turn of its training codec, the
offline stand-in judge); then sets the two side by side, question by question. Writes --out (JSON) and keeps
vrag_eval's folder beside it.
"""
import argparse, json, os, subprocess, sys, time
from pathlib import Path
import httpx

def cold_start_policy(run: str, dest: Path) -> Path:
    "SmolLM2 with a train_policy run's reference weights (its cold start; full fine-tuning of the top layers), saved."
    import torch
    from vrag_nb.models import smollm2_dir
    from vrag_nb.rl.update import load_policy
    from vrag_nb.rl.learn import save_policy
    ref = torch.load(Path(run)/'reference.pt', map_location='cpu', weights_only=False)
    if ref['stacked']: raise SystemExit(f'{run}: a LoRA cold start (stacked adapter): not handled here')
    model, tok, _ = load_policy(smollm2_dir(), device='cpu', dtype='float32')
    missing = set(ref['weights']) - set(model.state_dict())
    if missing: raise SystemExit(f'{run}/reference.pt names weights SmolLM2 lacks: {sorted(missing)[:3]}')
    model.load_state_dict(ref['weights'], strict=False)
    return save_policy(model, tok, dest)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--policy', default=str(Path.home()/'.cache'/'vrag_nb'/'learn_text'/'policy_grpo'))
    ap.add_argument('--index', default=str(Path.home()/'.cache'/'vrag_nb'/'learn_text'/'index_heldout'))
    ap.add_argument('--summary', default='benchmarks/results/learn_text/summary.json',
                    help="learn_text.py's results: its settings, and its own evaluation of the policy (if there)")
    ap.add_argument('--settings', help='the game the policy learned (JSON), when --summary is not there yet',
                    default='{"max_turns": 3, "turn_tokens": 48, "response_length": 768, "obs_chars": 600}')
    ap.add_argument('--out', default='benchmarks/results/served_policy.json')
    ap.add_argument('--port', type=int, default=8766, help="vrag_serve_llm's port")
    ap.add_argument('--limit', type=int, default=None, help='only the first N questions (a check of the path)')
    ap.add_argument('--cold_start', help="instead of --policy: a learn_text.py cold-start run dir (e.g. WORK/"
                    "cold_start_seed0); its reference.pt (the policy after the cold start) is saved as a plain "
                    "transformers dir (beside --index) and played both ways")
    a = ap.parse_args()
    if a.cold_start: a.policy = str(cold_start_policy(a.cold_start, Path(a.index).parent/'policy_cold_start'))
    s = json.loads(Path(a.summary).read_text()) if Path(a.summary).exists() else {}
    st = s.get('settings') or json.loads(a.settings)
    from vrag_nb.retrieval.index import PageIndex
    from vrag_nb.eval.retrieval import load_qa
    from vrag_nb.eval.rewards import ANLSJudge
    from vrag_nb.rl.update import load_policy
    from vrag_nb.rl.learn import evaluate_policy
    from vrag_nb.rl.rollout import RolloutConfig
    qa, t0 = load_qa('data/qa_rdocs.json')[:a.limit], time.time()
    model, tok, _ = load_policy(a.policy, device='cpu', dtype='float32')
    game = RolloutConfig(**{k: st[k] for k in ('max_turns', 'turn_tokens', 'response_length', 'obs_chars')})
    summ, rows_in = evaluate_policy(model, tok, None, PageIndex.load(a.index), qa, game, judge=ANLSJudge(contains=True))
    right_in = sorted(r.group for r in rows_in if r.parts['r_ans'] > 0)
    seconds_in = round(time.time() - t0)
    bin_ = Path(sys.executable).parent
    port = a.port  # fixed: vrag_eval names the endpoint in its cache key, so a run started again reuses what was done
    server = subprocess.Popen([str(bin_/'vrag_serve_llm'), '--model', a.policy, '--name', 'policy', '--port', str(port),
                               '--max_tokens', str(st['turn_tokens'])],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(600):
            try:
                if httpx.get(f'http://127.0.0.1:{port}/v1/models', timeout=1).status_code == 200: break
            except httpx.HTTPError: time.sleep(0.5)
        else: raise SystemExit('vrag_serve_llm did not start')
        folder = Path(a.out).with_suffix('')
        t1 = time.time()
        cmd = [str(bin_/'vrag_eval'), a.index, 'data/qa_rdocs.json', '--agent', '--modes', 'crop', '--base_url',
               f'http://127.0.0.1:{port}/v1', '--model', 'policy', '--max_steps', str(st['max_turns']),
               '--max_tokens', str(st['turn_tokens']), '--text_views', str(st['obs_chars']),
               '--system', 'You are a helpful assistant.', '--workers', '1', '--out', str(folder), '--json']
        if a.limit: cmd += ['--limit', str(a.limit)]
        r = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, 'TQDM_DISABLE': '1'})
        if r.returncode: raise SystemExit(f'vrag_eval failed:\n{r.stderr[-3000:]}')
        res = json.loads(r.stdout.strip().splitlines()[-1])
    finally: server.terminate(); server.wait(30)
    crop = res['modes']['crop']['all']
    rows = [json.loads(l) for l in (folder/'crop.jsonl').read_text().splitlines()]
    n, right_out = len(qa), sorted(r['uid'] for r in rows if r['correct'])
    # the two plays of each question, reply for reply
    replies = lambda msgs: [m['content'] for m in msgs if m['role'] == 'assistant']
    served_replies = {e['uid']: replies(json.loads((folder/'trajectories'/'crop'/f"{e['uid']}.json").read_text())[
        'messages']) for e in qa if (folder/'trajectories'/'crop'/f"{e['uid']}.json").exists()}
    same = [r.group for r in rows_in if served_replies.get(r.group) == replies(r.trajectory['messages'])]
    out = dict(
        served=dict(right=sum(r['correct'] for r in rows), scored=len(rows), failed=len(res['failed']),
                    accuracy_of_48=round(sum(r['correct'] for r in rows) / n, 4), mean_steps=crop.get('mean_steps'),
                    invalid_rate=crop.get('invalid_rate'), finish_rate=crop.get('finish_rate')),
        in_process=dict(summ, right=len(right_in), seconds=seconds_in),
        in_process_at_training=s['by_seed']['0']['grpo']['after']['heldout'] if s and not a.cold_start else None,
        right_in_process=right_in, right_served=right_out,
        right_both=sorted(set(right_in) & set(right_out)),
        same_replies=len(same), different_replies=sorted({r.group for r in rows_in} - set(same)),
        command=' '.join(['.venv/bin/python', 'benchmarks/served_policy.py', *sys.argv[1:]]).replace(str(Path.home()),
                                                                                                   '~'),
        vrag_eval=' '.join(c if c != str(bin_/'vrag_eval') else 'vrag_eval' for c in cmd).replace(str(port), 'PORT'),
        seconds_served=round(time.time() - t1),
    )
    Path(a.out).write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))


if __name__ == '__main__': main()
