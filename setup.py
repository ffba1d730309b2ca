from configparser import ConfigParser
import setuptools, shlex

# note: all settings are in settings.ini; edit there, not here
config = ConfigParser(delimiters=['='])
config.read('settings.ini', encoding='utf-8')
cfg = config['DEFAULT']

cfg_keys = 'version description keywords author author_email'.split()
expected = cfg_keys + "lib_name user branch license status min_python audience language".split()
for o in expected: assert o in cfg, "missing expected setting: {}".format(o)
setup_cfg = {o:cfg[o] for o in cfg_keys}

# SPDX licence expressions: current setuptools deprecates the `License ::` classifiers
licenses = {'apache2': 'Apache-2.0', 'mit': 'MIT', 'gpl2': 'GPL-2.0-only', 'gpl3': 'GPL-3.0-only',
            'bsd3': 'BSD-3-Clause'}
statuses = [ '1 - Planning', '2 - Pre-Alpha', '3 - Alpha',
    '4 - Beta', '5 - Production/Stable', '6 - Mature', '7 - Inactive' ]
py_versions = '3.6 3.7 3.8 3.9 3.10 3.11 3.12'.split()

requirements = shlex.split(cfg.get('requirements', ''))
if cfg.get('pip_requirements'): requirements += shlex.split(cfg.get('pip_requirements', ''))
min_python = cfg['min_python']
lic = licenses.get(cfg['license'].lower(), cfg['license'])
dev_requirements = (cfg.get('dev_requirements') or '').split()
# vrag_nb extras beyond nbdev's `dev`: `llm` (local language models), `train` (verl), `gpu` (faiss-gpu), `e5` (the e5
# retrieval tier). `dev` includes `llm`, `train` and `e5` so that `pip install -e .[dev]` can run every notebook.
extras = {k: (cfg.get(f'{k}_requirements') or '').split() for k in ('llm', 'train', 'gpu', 'e5')}
extras['train'] = extras['llm'] + extras['train']  # verl trains the same models
extras['dev'] = dev_requirements + extras['train'] + extras['e5']

setuptools.setup(
    name = cfg['lib_name'],
    license = lic,
    classifiers = [
        'Development Status :: ' + statuses[int(cfg['status'])],
        'Intended Audience :: ' + cfg['audience'].title(),
        'Natural Language :: ' + cfg['language'].title(),
    ] + ['Programming Language :: Python :: '+o for o in py_versions[py_versions.index(min_python):]],
    url = cfg['git_url'],
    packages = setuptools.find_packages(),
    include_package_data = True,
    package_data = {'vrag_nb': ['retrieval/minilm_tokenizer.json', 'retrieval/ranker.json', 'retrieval/ranker.sha256']},
    install_requires = requirements,
    extras_require = extras,
    dependency_links = cfg.get('dep_links','').split(),
    python_requires  = '>=' + cfg['min_python'],
    long_description = open('README.md', encoding='utf-8').read(),
    long_description_content_type = 'text/markdown',
    zip_safe = False,
    entry_points = {
        'console_scripts': cfg.get('console_scripts','').split(),
        'nbdev': [f'{cfg.get("lib_path")}={cfg.get("lib_path")}._modidx:d']
    },
    **setup_cfg)
