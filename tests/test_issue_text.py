"""Free text is read without a tracker's markup: HTML tags, link addresses and listings of installed
versions are dropped, a link to a repository's file becomes its path (and line, at a commit);
vendored scripts and documents (a changelog, a README) are asides."""

from __future__ import annotations

import time

import pytest

from conftest import indexed_tree
from graphctx import Project
from graphctx.context import templates
from graphctx.context.issuetext import read, readable
from test_cli import graphctx

COMMIT = "92d6a0500b9f528a9adcd6bbcda46ebf9b6baf03"


@pytest.mark.parametrize("text,expected", [
    ('It fails.\n<img width="528" alt="screen shot" src="https://user-images.example.com/1/a.png">\nBye',
     "It fails.\n \nBye"),
    ("<details><summary>Output of <tt>xr.show_versions()</tt></summary>", "  Output of  xr.show_versions()  "),
    (f"see https://github.com/o/r/blob/{COMMIT}/src/pkg/mod.py#L129-L149.", "see  src/pkg/mod.py:129."),
    ("see https://github.com/o/r/blob/main/src/pkg/mod.py#L12, then", "see  src/pkg/mod.py, then"),
    ("(https://gitlab.com/o/r/-/blob/v1.2/lib/a.py)", "( lib/a.py)"),
    ("Read http://example.com/blog/2018/minimal-bug-reports first", "Read   first"),
    ("![a broken plot](https://example.com/plot.png) below", "a broken plot below"),
    ("a < b and c > d, x<y", "a < b and c > d, x<y"),  # comparisons are not tags
    ("no markup at all", "no markup at all"),
    ("Fails:\n```julia\nIn [1]: x\n```\n~~~ shell\n$ ls\n~~~", "Fails:\n```\nIn [1]: x\n```\n~~~\n$ ls\n~~~"),
    ("``` f(x) ``` on one line", "``` f(x) ``` on one line"),
    ("<!-- Please include a minimal example -->\nwhere drops attrs<!-- unclosed", "\nwhere drops attrs<!-- unclosed"),
    ("Stack fails.\n\nINSTALLED VERSIONS\n------\ncommit: None\npython: 3.10.8 (main, Oct 13 2022)\nOS: Darwin\n\n"
     "xarray: 2022.10.0\npandas: 1.5.1\nnumpy: 1.23.4\nh5netcdf: None\nzarr: None\nEnd.",
     "Stack fails.\n\nINSTALLED VERSIONS\nEnd."),  # a listing of installed versions names every wrapped package
    ("attrs==19.3.0\npluggy==0.13.1\npy==1.8.1\npytest==5.4.1\nsix==1.14.0\nwcwidth==0.1.9\n", ""),
    ("With numpy: 1.23 and pandas: 1.5\nthe sum: 3 is wrong", "With numpy: 1.23 and pandas: 1.5\nthe sum: 3 is wrong"),
])
def test_readable_drops_markup_and_link_addresses(text, expected):
    assert readable(text) == expected


def test_readable_is_linear_in_hostile_text():
    for hostile in ("![" * 200_000, "<a " * 200_000, "http://" * 200_000, "[" + "x" * 400_000, "a: 1\n" * 200_000, "<!--" * 200_000):
        started = time.process_time()
        readable(hostile)
        assert time.process_time() - started < 5  # quadratic would be hours, not a noisy second


PROJECT = {
    "app/render.py": '''def copy_image_files(images):
    """Copy each image file, its width and height, to the output."""
    return [(image.width, image.height) for image in images]


def index_entry(name, is_property):
    """The index entry of a method: no parens for a property."""
    return name if is_property else name + "()"
''',
    "app/loader.py": "def load_settings(path):\n    with open(path) as f:\n        return f.read()\n\n\n"
                     "def merge_settings(a, b):\n    return {**a, **b}\n",
    "app/static/jquery-3.5.1.js": "function entry(name) { return name; }\nfunction property(x) { return x; }\n",
    # A changelog speaks of what changed in the words an issue uses, one section a release.
    "HISTORY.md": "# Release history\n\n" + "".join(f"## 1.{n}.0\n\n- {change}\n\n" for n, change in enumerate([
        "Settings are merged key by key when merging settings.", "Loading a settings file keeps comments.",
        "Image files are copied with their width.", "Index entries of properties have no parens.",
        "Merging settings no longer drops nested settings.", "Faster loading.", "Docs.", "Python 3.12."])),
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return indexed_tree(tmp_path_factory, "issuetext", PROJECT)


def test_a_screenshot_tag_does_not_seed_code_about_images(repo):
    text = ('The index entry of a property method has parens.\n'
            '<img width="528" height="120" alt="image" src="https://user-images.example.com/7/1.png">')
    ranked = [entity for entity, _ in Project(repo, find=False).rank_text(text, limit=5)]
    assert ranked[0] == "app/render.py::index_entry"
    assert "app/render.py::copy_image_files" not in ranked[:2]


def test_a_link_to_a_file_at_a_commit_seeds_the_function_at_its_line(repo):
    text = f"This line is wrong: https://github.com/o/r/blob/{COMMIT}/app/loader.py#L6"
    ranked = [entity for entity, _ in Project(repo, find=False).rank_text(text, limit=3)]
    assert ranked[:2] == ["app/loader.py", "app/loader.py::merge_settings"]  # the file and the line's function
    out = graphctx("intent", "debug", text, cwd=repo).stdout
    assert "def merge_settings" in out


def test_a_vendored_script_is_an_aside_unless_named(repo):
    project = Project(repo, find=False)
    ranked = [entity for entity, _ in project.rank_text("the entry is wrong", limit=10)]
    assert ranked.index("app/render.py::index_entry") < ranked.index("app/static/jquery-3.5.1.js::entry")
    named = [entity for entity, _ in project.rank_text("entry in jquery-3.5.1.js breaks", limit=3)]
    assert named[:2] == ["app/static/jquery-3.5.1.js", "app/static/jquery-3.5.1.js::entry"]


def test_a_changelog_is_an_aside_unless_named(repo):
    """The changelog's sections repeat the issue's words release after release; the code they speak of
    comes first, unless the text names the changelog itself."""
    project = Project(repo, find=False)
    text = "Merging settings drops the loaded settings"
    ranked = [entity for entity, _ in project.rank_text(text, limit=3)]
    assert ranked == ["app/loader.py::merge_settings", "app/loader.py::load_settings", "app/loader.py"]
    named = [entity for entity, _ in project.rank_text(text + "; see HISTORY.md", limit=3)]
    assert any(e.startswith("HISTORY.md") for e in named)


SHELL_PROJECT = {
    "tools/release.py": "def git(*args):\n    return run(['git', *args])\n\n\n"
                        "def clone(url):\n    return git('clone', url)\n\n\ndef make(target):\n    return run(['make', target])\n",
    "app/glossary.py": '''def make_glossary_term(term, seen):
    """Register a glossary term; a term seen before, compared case-insensitively, is a duplicate."""
    if term.lower() in seen:
        raise ValueError("duplicate term description of " + term)
    seen.add(term.lower())
''',
    "app/printers.py": "class JuliaPrinter:\n    def print_julia(self, expr):\n        return 'julia: ' + str(expr)\n",
    "app/unparsing.py": "def unparse(node):\n    result = [str(part) for part in node]\n    result.pop()\n    return result\n\n\n"
                        "def parse(text):\n    return text.split()\n",
}


@pytest.fixture(scope="module")
def shell_repo(tmp_path_factory):
    return indexed_tree(tmp_path_factory, "shell", SHELL_PROJECT)


def test_a_shell_session_in_a_code_block_names_no_function(shell_repo):
    """`$ git clone` reproduces the bug; it does not name the functions git and clone (its words still
    count as text)."""
    text = ("Glossary: a duplicate term that differs only in case\n```\nWarning: duplicate term description of mysql\n"
            "$ git clone --depth 1 https://example.com/project.git\n$ make html\n```\nMySQL is not mysql.")
    ranked = [entity for entity, _ in Project(shell_repo, find=False).rank_text(text, limit=3)]
    assert ranked[0] == "app/glossary.py::make_glossary_term"  # not git or clone, as a call would make them


def test_a_fences_language_names_no_code(shell_repo):
    """```julia says what the block is written in (an IPython session, here): not the Julia printer."""
    text = "The last part is dropped\n```julia\nIn [1]: unparse(node)\nOut[1]: ['a']\n```"
    ranked = [entity for entity, _ in Project(shell_repo, find=False).rank_text(text, limit=5)]
    assert ranked[0] == "app/unparsing.py::unparse" and not any("printers" in entity for entity in ranked)


def test_a_call_an_import_or_a_frame_in_a_code_block_names_code(shell_repo):
    """A plain word in a code block names code when it is called, imported or a traceback frame's."""
    project = Project(shell_repo, find=False)
    frame = 'It breaks:\n```\n  File "lib/unparsing.py", line 3, in unparse\nIndexError: pop from empty list\n```'
    assert project.rank_text(frame, limit=1)[0][0] == "app/unparsing.py::unparse"
    for code in ("```\nparse(text)\n```", "```\nfrom app.unparsing import parse\n```"):
        assert project.rank_text("It is wrong:\n" + code, limit=1)[0][0] == "app/unparsing.py::parse"


OWN_CODE_PROJECT = {
    "app/tables.py": "class Cell:\n    @property\n    def width(self):\n        return self.right - self.left\n",
    "app/plugins.py": "def setup(registry):\n    registry.add('plugins')\n",
    "app/annotations.py": 'def resolve_annotation(annotation, env):\n'
                          '    """Resolve the type annotation of a property to a cross-reference."""\n'
                          "    return env.lookup(annotation)\n",
}


def test_the_reporters_own_code_names_nothing_it_defines(tmp_path_factory):
    """A block defining what the repository lacks (`Square`) is the reporter's code: its `setup`, its
    bound `width` and its `self.width` name the reporter's objects, not the repository's `setup` and
    `Cell.width`. A block whose every definition the repository has quotes it, and names them."""
    project = Project(indexed_tree(tmp_path_factory, "own-code", OWN_CODE_PROJECT), find=False)
    text = ("The type annotation of a property is not a cross-reference\n```python\nclass Square:\n    width: int\n\n"
            "    @property\n    def end(self) -> int:\n        return self.width\n\n\ndef setup(registry):\n"
            "    registry.add(Square)\n```")
    assert project.rank_text(text, limit=1)[0][0] == "app/annotations.py::resolve_annotation"  # not Cell.width
    quoted = "It breaks:\n```\n    def setup(registry):\n>       registry.add('plugins')\nE   KeyError\n```"
    assert project.rank_text(quoted, limit=1)[0][0] == "app/plugins.py::setup"


TEMPLATE_PROJECT = {
    ".github/ISSUE_TEMPLATE/bug_report.md": "---\nname: Bug report\nabout: Report a bug\n---\n\n**Describe the bug**\n"
                                            "A clear and concise description of what the bug is.\n\n**Environment info**\n"
                                            "- OS: [e.g. Unix]\n\n```python\nimport app\n```\n\n"
                                            "<details><summary>Output of <tt>app.show_versions()</tt></summary>\n",
    ".github/ISSUE_TEMPLATE/bug_form.yml": "name: Bug\nbody:\n  - type: textarea\n    attributes:\n"
                                          "      label: Your project\n      description: A link to it\n",
    "app/environment.py": 'def describe_environment(project):\n    """Describe the build environment of a project."""\n'
                          "    return project\n",
    "app/glossary.py": 'def make_glossary_term(term, seen):\n    """A glossary term: terms that differ in case are duplicates."""\n'
                       "    return term.lower() in seen\n",
}


@pytest.fixture(scope="module")
def template_repo(tmp_path_factory):
    return indexed_tree(tmp_path_factory, "templates", TEMPLATE_PROJECT)


def test_the_lines_of_the_repositorys_issue_templates(template_repo):
    lines = templates.template_lines(template_repo)
    assert {"describe the bug", "environment info", "your project", "no response",
            "a clear and concise description of what the bug is."} <= lines
    assert "import app" not in lines  # the template's code is the reporter's to fill in
    text = "**Describe the bug**\r\nTerms clash\n### Your project\n- OS: Linux\nimport app\n_No response_"
    assert templates.without_template(text, lines) == "Terms clash\n- OS: Linux\nimport app"


def test_template_lines_are_read_as_the_issue_is(template_repo):
    """An older issue wrote the template's `<summary>` line as a heading: without markup, they are one line."""
    graph = Project(template_repo, find=False).graph
    text = "Terms clash\n#### Output of ``app.show_versions()``\n<details><summary>Output of <tt>app.show_versions()</tt></summary>"
    assert read(graph, text).split() == ["Terms", "clash"]


def test_an_issue_is_ranked_without_its_template_headings(template_repo):
    """"Describe", "environment" and "project" are the template's words, not the reporter's."""
    text = ("**Describe the bug**\nA clear and concise description of what the bug is.\nA glossary term that differs "
            "only in case is a duplicate.\n\n### Your project\nmydocs\n\n**Environment info**\n- OS: Linux\n")
    ranked = [entity for entity, _ in Project(template_repo, find=False).rank_text(text, limit=3)]
    assert ranked[0] == "app/glossary.py::make_glossary_term" and "app/environment.py::describe_environment" not in ranked
    assert "def make_glossary_term" in graphctx("intent", "debug", text, cwd=template_repo).stdout
