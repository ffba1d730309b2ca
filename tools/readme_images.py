"""The README's example pictures, drawn from real runs on a bundled PDF (the AAS sample, `data/pdfs/sample631.pdf`):

- `nbs/images/crop_example.jpg`: the offline baseline's VRAG run on "How far away is M4?": the page its search
  returned with the box it cropped drawn on it (red), and the crop as zoomed for the model, scaled to 640 pixels wide;
- `nbs/images/memory_graph.png`: the memory graph of the scripted VimRAG run in `data/vimrag_m4.json` on the same
  question (a search that keeps the table, one that finds no page about M4, a third built on both that finds nothing
  new, then the answer under the search that kept the table), drawn by `vimrag.views.draw_graph`.

`make notebooks` runs it (`python tools/readme_images.py`); the files are committed so that the README shows them on
GitHub and PyPI. `nbs/images/dataflow.svg` is drawn by hand and not generated. A second run writes the same bytes.
"""
import json, tempfile
from pathlib import Path

root = Path(__file__).resolve().parent.parent
images = root/'nbs'/'images'
M4 = json.loads((root/'data'/'vimrag_m4.json').read_text())
QUESTION = M4['question']

def main():
    "Build a one-document index, run both agents, write the two pictures."
    from PIL import Image, ImageDraw
    import matplotlib.pyplot as plt
    from vrag_nb.retrieval.corpus import build_corpus
    from vrag_nb.retrieval.index import PageIndex
    from vrag_nb.agent.loop import VRAGAgent
    from vrag_nb.agent.offline import OfflinePolicy
    from vrag_nb.agent.views import View
    from vrag_nb.vimrag.agent import VimRAGAgent
    from vrag_nb.vimrag.views import draw_graph
    corpus = Path(tempfile.mkdtemp())
    build_corpus([root/'data'/'pdfs'/'sample631.pdf'], corpus, progress=False)
    index = PageIndex.build(corpus, progress=False)
    images.mkdir(parents=True, exist_ok=True)

    events = list(VRAGAgent(index, OfflinePolicy(index.pages, index.embedder, answerer=None)).run(QUESTION))
    shown = next(e for e in events if e['event'] == 'search_image')
    crop = next(e for e in events if e['event'] == 'crop')
    page = Image.open(shown['view']['image']).convert('RGB')
    ImageDraw.Draw(page).rectangle(crop['region'], outline=(220, 40, 40), width=8)
    page = page.resize((round(page.width * 520 / page.height), 520))
    zoom = View.from_dict(crop['view']).render().convert('RGB')
    zoom = zoom.resize((640, min(520, round(zoom.height * 640 / zoom.width))))
    pair = Image.new('RGB', (page.width + 24 + zoom.width, 520), 'white')
    pair.paste(page, (0, 0)); pair.paste(zoom, (page.width + 24, (520 - zoom.height) // 2))
    pair.save(images/'crop_example.jpg', quality=80)

    # the canonical scripted run (data/vimrag_m4.json), shared with 42_vimrag.agent and 44_vimrag.views
    replies = iter(f'<tool_call>{json.dumps(c)}</tool_call>' for c in M4['calls'])
    vim = VimRAGAgent(index, lambda messages: next(replies))
    list(vim.run(QUESTION))
    fig = draw_graph(vim.graph)
    fig.savefig(images/'memory_graph.png', dpi=80, bbox_inches='tight', metadata={'Software': None})
    plt.close(fig)
    print(f"wrote {images/'crop_example.jpg'} and {images/'memory_graph.png'}")

if __name__ == '__main__': main()
