"""Bad and unusual input: each case gives a warning (or one clear error) and the run goes on;
what is skipped by default (binary, oversized, minified, generated, vendored) and what
`.graphctx/config.toml` changes; file discovery in and outside a git work tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

from conftest import index_tables
from graphctx import Project
from graphctx.errors import GraphctxError
from graphctx.index.discover import ConfigError
from graphctx.index.indexer import IndexRunError, index_repository
from graphctx.index.keeper import TableKeeper

GOOD = "def good():\n    return 1\n"


def indexed_paths(root) -> set[str]:
    return {row[0] for row in index_tables(root)["files"]}


def entity_ids(root) -> set[str]:
    return {row[0] for row in index_tables(root)["entities"]}


def warned(result, path: str) -> str:
    """The warning message given for path (fails when there is none)."""
    messages = [message for p, message in result.warnings if p == path]
    assert messages, f"no warning for {path}: {result.warnings}"
    return messages[0]


def skipped(result, path: str) -> str:
    """The reason and detail recorded for a skipped path (fails when it was not skipped)."""
    found = [f"{s.reason}: {s.detail}" for s in result.skipped if s.path == path]
    assert found, f"{path} was not skipped: {result.skipped}"
    return found[0]


# ---------------------------------------------------------------- unreadable and odd files


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_is_skipped_with_a_warning(tree):
    root = tree({"good.py": GOOD, "secret.py": "def hidden():\n    pass\n"})
    (root / "secret.py").chmod(0)
    try:
        result = index_repository(root, workers=1)
    finally:
        (root / "secret.py").chmod(0o644)
    assert "cannot read" in warned(result, "secret.py")
    assert indexed_paths(root) == {"good.py"}


def test_dangling_symlink_is_skipped_with_a_warning(tree):
    root = tree({"good.py": GOOD})
    (root / "gone.py").symlink_to(root / "missing.py")
    result = index_repository(root, workers=1)
    assert "broken symbolic link" in warned(result, "gone.py")
    assert indexed_paths(root) == {"good.py"}


def test_symlink_loops_are_skipped(tree):
    root = tree({"good.py": GOOD, "pkg/mod.py": GOOD})
    (root / "a.py").symlink_to("b.py")
    (root / "b.py").symlink_to("a.py")
    (root / "pkg" / "again").symlink_to("..", target_is_directory=True)  # a folder loop: not followed
    result = index_repository(root, workers=1)
    assert "symbolic links" in warned(result, "a.py")
    assert indexed_paths(root) == {"good.py", "pkg/mod.py"}


def test_folder_named_like_a_file_and_named_pipe(tree):
    root = tree({"good.py": GOOD, "looks_like.py/inner.py": GOOD})
    os.mkfifo(root / "pipe.py")  # reading it would block forever
    result = index_repository(root, workers=1)
    assert "not a regular file" in warned(result, "pipe.py")
    assert indexed_paths(root) == {"good.py", "looks_like.py/inner.py"}


def test_invalid_utf8_is_indexed_with_a_warning(tree):
    root = tree({"latin.py": b"def caf\xe9():\n    pass\n\ndef ok():\n    return '\xff\xfe'\n"})
    result = index_repository(root, workers=1)
    assert "invalid UTF-8" in warned(result, "latin.py")
    assert "latin.py::ok" in entity_ids(root)


def test_syntax_errors_keep_what_parses_and_count_error_nodes(tree):
    root = tree({
        "broken.py": "def ok():\n    pass\n\ndef broken(:\n    return\n\nclass Kept:\n    def method(self):\n        ok()\n",
        "good.py": GOOD,
    })
    result = index_repository(root, workers=1)
    assert result.parse_errors > 0
    ids = entity_ids(root)
    assert {"broken.py::ok", "broken.py::Kept", "broken.py::Kept.method", "good.py::good"} <= ids
    assert "syntax error" in warned(result, "broken.py")
    files = {row[0]: row for row in index_tables(root)["files"]}
    assert files["broken.py"][5] > 0 and files["good.py"][5] == 0  # error_count per file


def test_deeply_nested_file_does_not_crash(tree):
    depth = 5000
    root = tree({
        "parens.py": "x = " + "(\n" * depth + "1" + ")\n" * depth + "\ndef after():\n    pass\n",
        "brackets.py": "y = " + "[\n" * depth + "\ndef unclosed():\n    pass\n",
        "calls.py": "z = " + "f(\n" * depth + ")\n" * depth,
        "blocks.py": "def f():\n" + "".join("    " * (i + 1) + "if x:\n" for i in range(300)) + "    " * 301 + "g()\n",
        "good.py": GOOD,
    })
    result = index_repository(root, workers=1)
    assert "parens.py::after" in entity_ids(root)
    assert "good.py::good" in entity_ids(root)
    assert "blocks.py::f" in entity_ids(root)
    assert result.files == 5


def test_huge_file_of_many_definitions(tree):
    source = "".join(f"def f{i}(x):\n    return f{i - 1}(x) + {i}\n\n" for i in range(5000))
    root = tree({"huge.py": source})
    result = index_repository(root, workers=1)
    assert result.entities == 5001  # the file and its functions
    assert result.calls_resolved >= 4999


def test_binary_file_with_source_extension_is_skipped(tree):
    root = tree({"blob.py": b"\x00\x01\x02binary\x00" * 100, "good.py": GOOD})
    result = index_repository(root, workers=1)
    assert skipped(result, "blob.py").startswith("binary")
    assert indexed_paths(root) == {"good.py"}


def test_file_over_max_file_bytes_is_skipped(tree):
    big = "# filler\n" * (1 << 17)  # 1.1 MiB
    root = tree({"big.py": big + GOOD, "good.py": GOOD})
    result = index_repository(root, workers=1)
    assert skipped(result, "big.py").startswith("too large") and "max_file_bytes" in skipped(result, "big.py")
    assert indexed_paths(root) == {"good.py"}


def test_minified_and_generated_files_are_skipped(tree):
    minified = "var a=function(){return 1};" * 400  # one 10 KB line
    root = tree({
        "dist_like/bundle.js": minified,
        "lib.min.js": minified,  # excluded by name
        "api_pb.py": "# Code generated by protoc-gen-py. DO NOT EDIT.\n" + GOOD,
        "schema.js": "// @generated by a tool\nfunction f() { return 1; }\n",
        "app.js": "function main() { return 1; }\n",
        "good.py": GOOD,
    })
    result = index_repository(root, workers=1)
    assert skipped(result, "dist_like/bundle.js").startswith("minified")
    assert skipped(result, "api_pb.py").startswith("generated")
    assert skipped(result, "schema.js").startswith("generated")
    assert skipped(result, "lib.min.js").startswith("minified: by name")
    assert indexed_paths(root) == {"app.js", "good.py"}


def test_vendored_folders_are_skipped(tree):
    root = tree({
        "src/app.py": GOOD,
        "node_modules/lib/index.js": "function f() {}\n",
        "vendor/dep.py": GOOD,
        ".venv/lib/site.py": GOOD,
        "build/out.py": GOOD,
        "dist/pkg.js": "function g() {}\n",
        "pkg/__pycache__/x.py": GOOD,
        "third_party/t.py": GOOD,
    })
    result = index_repository(root, workers=1)
    assert indexed_paths(root) == {"src/app.py"}
    assert {s.path: s.reason for s in result.skipped} == {
        "node_modules/lib/index.js": "vendored", "vendor/dep.py": "vendored", ".venv/lib/site.py": "vendored",
        "third_party/t.py": "vendored", "build/out.py": "build output", "dist/pkg.js": "build output",
        "pkg/__pycache__/x.py": "build output",
    }


def test_skips_are_those_of_the_last_run(tree):
    minified = "var a=function(){return 1};" * 400
    root = tree({"app.py": GOOD, "tool.ex": "IO.puts 1\n", "bundle.js": minified})
    index_repository(root, workers=1)
    assert [path for path, _, _ in Project(root, find=False).stats().skipped_files] == ["bundle.js"]
    (root / "tool.ex").unlink()
    (root / "bundle.js").write_text("function f() { return 1; }\n")
    result = index_repository(root, workers=1)
    assert result.skipped == [] and Project(root, find=False).stats().skipped == {}
    assert indexed_paths(root) == {"app.py", "bundle.js"}


def test_files_excluded_by_the_configuration_are_counted(tree):
    root = tree({
        ".graphctx/config.toml": '[index]\nexclude = ["node_modules/"]\nextra_exclude = ["legacy/"]\n',
        "app.py": GOOD, "legacy/old.py": GOOD, "vendor/dep.py": GOOD, "node_modules/x.js": "function f() {}\n",
    })
    result = index_repository(root, workers=1)
    assert indexed_paths(root) == {"app.py", "vendor/dep.py"}  # `exclude` replaced the defaults
    assert {s.path: s.reason for s in result.skipped} == {"legacy/old.py": "excluded", "node_modules/x.js": "vendored"}


def test_progress_is_reported_by_phase(tree):
    root = tree({f"pkg/m{i}.py": f"def f{i}():\n    return f{i - 1}()\n" for i in range(1, 30)})
    calls: list[tuple[str, int, int]] = []
    index_repository(root, workers=1, progress=lambda phase, done, total: calls.append((phase, done, total)))
    phases = [phase for i, (phase, _, _) in enumerate(calls) if i == 0 or calls[i - 1][0] != phase]
    assert phases == ["discovering", "parsing", "writing", "resolving", "writing"]
    for phase, done, total in calls:
        assert 0 <= done <= total or total == 0, (phase, done, total)
    assert ("parsing", 29, 29) in calls
    assert max(done for phase, done, _ in calls if phase == "resolving") > 0


# ---------------------------------------------------------------- configuration


def test_config_overrides_extra_exclude_and_max_file_bytes(tree):
    root = tree({
        ".graphctx/config.toml": '[index]\nextra_exclude = ["generated/", "*_old.py"]\nmax_file_bytes = 200\n',
        "app.py": GOOD,
        "generated/models.py": GOOD,
        "legacy_old.py": GOOD,
        "medium.py": GOOD + "# padding\n" * 30,
    })
    result = index_repository(root, workers=1)
    assert indexed_paths(root) == {"app.py"}
    assert "max_file_bytes = 200" in skipped(result, "medium.py")
    assert skipped(result, "generated/models.py").startswith("excluded")
    assert skipped(result, "legacy_old.py").startswith("excluded")


def test_a_config_edited_between_runs_of_one_process_decides_the_next_run(tree):
    """What a path's name decides is kept between runs of one process (a server indexes on every
    edit), under the configuration it was decided with: an edited config decides afresh."""
    root = tree({"app.py": GOOD, "legacy/old.py": GOOD})
    index_repository(root, workers=1)
    assert indexed_paths(root) == {"app.py", "legacy/old.py"}
    (root / ".graphctx" / "config.toml").write_text('[index]\nextra_exclude = ["legacy/"]\n')
    index_repository(root, workers=1)
    assert indexed_paths(root) == {"app.py"}
    (root / ".graphctx" / "config.toml").unlink()
    index_repository(root, workers=1)
    assert indexed_paths(root) == {"app.py", "legacy/old.py"}


def test_config_can_index_generated_files_and_vendor(tree):
    root = tree({
        ".graphctx/config.toml": '[index]\nskip_generated = false\nexclude = ["node_modules/"]\n',
        "api_pb.py": "# Code generated by protoc. DO NOT EDIT.\n" + GOOD,
        "vendor/dep.py": GOOD,
    })
    index_repository(root, workers=1)
    assert indexed_paths(root) == {"api_pb.py", "vendor/dep.py"}


@pytest.mark.parametrize("text,expected", [
    ("[index\nmax_file_bytes = 1", "not valid TOML"),
    ("[index]\nmax_files = 3\n", "unknown [index] key 'max_files'; did you mean 'max_file_bytes'?"),
    ("[indx]\nworkers = 3\n", "unknown table [indx]; did you mean [index]?"),
    ("workers = 3\n", "unknown key 'workers' outside any table"),
    ("[index]\nembedding_model = ''\n", "embedding_model must name a model2vec model"),
    ('[index]\nmax_file_bytes = "big"\n', "max_file_bytes must be"),
    ("[index]\nextra_exclude = 3\n", "extra_exclude must be"),
    ("[index]\nskip_generated = 1\n", "skip_generated must be"),
    ("index = 3\n", "must be a table"),
    ('[index]\nextra_exclude = ["!"]\n', "no gitignore pattern"),
])
def test_invalid_config_is_a_clear_error(tree, text, expected):
    root = tree({".graphctx/config.toml": text, "app.py": GOOD})
    with pytest.raises(ConfigError) as info:
        index_repository(root, workers=1)
    assert expected in str(info.value) and "config.toml" in str(info.value)
    assert isinstance(info.value, GraphctxError)  # the CLI prints it as one line, exit 2


def test_path_that_is_not_a_directory_is_a_clear_error(tmp_path):
    file = tmp_path / "file.py"
    file.write_text(GOOD)
    for path in (file, tmp_path / "missing"):
        with pytest.raises(IndexRunError, match="is not a directory"):
            index_repository(path)


# ---------------------------------------------------------------- discovery


def git(root, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_work_tree_tracked_and_untracked_not_ignored(tree):
    root = tree({
        ".gitignore": "ignored.py\nlogs/\n",
        "tracked.py": GOOD,
        "pkg/tracked2.py": GOOD,
    })
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "start")
    (root / "untracked.py").write_text(GOOD)
    (root / "ignored.py").write_text(GOOD)
    (root / "logs").mkdir()
    (root / "logs" / "x.py").write_text(GOOD)
    (root / "pkg" / "tracked2.py").unlink()  # deleted in the work tree, still in git's index: no warning
    result = index_repository(root, workers=1)
    assert indexed_paths(root) == {".gitignore", "tracked.py", "untracked.py"}
    assert not [w for w in result.warnings if w[0] == "pkg/tracked2.py"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_subfolder_is_walked_with_gitignore(tree):
    """Indexing a folder below the top of a work tree walks it, honouring the .gitignore files."""
    root = tree({".gitignore": "skip_me.py\n", "sub/.gitignore": "*.gen.py\n", "sub/a.py": GOOD,
                 "sub/b.gen.py": GOOD, "sub/skip_me.py": GOOD})
    git(root, "init", "-q")
    index_repository(root / "sub", workers=1)
    assert indexed_paths(root / "sub") == {".gitignore", "a.py", "skip_me.py"}  # the parent's rules are git's business


def test_outside_git_gitignore_rules_are_honoured(tree):
    root = tree({
        ".gitignore": "*.gen.py\nscratch/\n!keep.gen.py\n!\n",  # git passes over the lone `!`
        "app.py": GOOD,
        "x.gen.py": GOOD,
        "keep.gen.py": GOOD,
        "scratch/tmp.py": GOOD,
        "pkg/.gitignore": "local.py\n/rooted.py\n",
        "pkg/local.py": GOOD,
        "pkg/rooted.py": GOOD,
        "pkg/deeper/rooted.py": GOOD,
        "pkg/mod.py": GOOD,
        "notes.txt": "not source",
    })
    index_repository(root, workers=1)
    assert indexed_paths(root) == {"app.py", "keep.gen.py", "pkg/mod.py", "pkg/deeper/rooted.py",
                                   ".gitignore", "pkg/.gitignore", "notes.txt"}  # text files: at file level

def test_outside_git_an_edited_gitignore_takes_effect_in_the_same_process(tree):
    """A process remembers each .gitignore's verdicts between runs: an edit to the file must not be
    answered with the old verdicts, nor the same content in another folder with this one's."""
    root = tree({".gitignore": "a.py\n", "a.py": GOOD, "b.py": GOOD, "sub/.gitignore": "b.py\n", "sub/b.py": GOOD,
                 "sub/a.py": GOOD})
    index_repository(root, workers=1)
    assert indexed_paths(root) == {".gitignore", "b.py", "sub/.gitignore"}
    (root / ".gitignore").write_text("b.py\n")
    index_repository(root, workers=1)
    assert indexed_paths(root) == {".gitignore", "a.py", "sub/.gitignore", "sub/a.py"}



def test_warnings_are_stored_and_survive_a_noop_run(tree):
    import sqlite3

    root = tree({"latin.py": b"def ok():\n    return '\xff'\n", "broken.py": "def f(:\n", "good.py": GOOD})
    (root / "gone.py").symlink_to(root / "missing.py")
    index_repository(root, workers=1)

    def stored() -> list[str]:
        conn = sqlite3.connect(root / ".graphctx" / "index.db")
        try:
            return sorted(path for path, _ in conn.execute("SELECT path, message FROM warnings"))
        finally:
            conn.close()

    assert stored() == ["broken.py", "gone.py", "latin.py"]
    assert index_repository(root, workers=1).parsed == 0
    assert stored() == ["broken.py", "gone.py", "latin.py"]  # each once: none written again
    (root / "good.py").write_text(GOOD + "\n\ndef more():\n    return 2\n")
    index_repository(root, workers=1)
    assert stored() == ["broken.py", "gone.py", "latin.py"]  # an edit elsewhere keeps them, once each
    (root / "broken.py").write_text(GOOD)
    (root / "gone.py").unlink()
    index_repository(root, workers=1)
    assert stored() == ["latin.py"]


@pytest.mark.parametrize("lines", [
    ["node_modules/", "build/", "*.min.js", "*_pb2.py", "package-lock.json", ".git/"],
    ["/rooted.py", "dir/*.txt", "**/x", "doc/**/*.md", "[abc]*.c", "a?c", "logs/", "# a comment", ""],
    ["*.py", "!keep.py", "/top/", "**/deep/**"],  # a negation: pathspec decides pattern by pattern
], ids=["defaults", "shapes", "negation"])
def test_joined_patterns_match_as_pathspec_does(lines):
    """Discovery joins gitignore patterns into one search when none negates; every path and folder
    gets the verdict pathspec gives pattern by pattern."""
    import pathspec

    from graphctx.index.discover import Patterns

    probes = ["a.py", "keep.py", "top/a.py", "sub/top/a.py", "rooted.py", "sub/rooted.py", "dir/a.txt", "dir/sub/a.txt",
              "x", "a/b/x", "x/y", "doc/a.md", "doc/b/c/d.md", "bc.c", "d.c", "abc", "aXc", "logs/", "logs/a.log",
              "a/logs/b", "node_modules/x.js", "a/node_modules/", "build", "build/", "x.min.js", "a/b_pb2.py",
              "package-lock.json", "a/package-lock.json", ".git/HEAD", "deep/a", "a/deep/b/c", "deep", "plain.txt"]
    ours, theirs = Patterns(lines), pathspec.GitIgnoreSpec.from_lines(lines)
    assert (ours.joined is None) == any(line.startswith("!") for line in lines)
    assert [p for p in probes if ours.match_file(p) != theirs.match_file(p)] == []
    assert any(ours.match_file(p) for p in probes) and not all(ours.match_file(p) for p in probes)


def test_outside_git_a_walk_reads_again_what_changed_since_the_last(tree):
    """One process walks a tree again and again (a server's watcher): a folder whose time has not
    moved for a while is not read again, so every change must move what the walk checks: a file
    added to or removed from a folder, a folder renamed, a .gitignore rewritten."""
    root = tree({".gitignore": "skip_*.py\n", "pkg/a.py": GOOD, "pkg/skip_b.py": GOOD, "pkg/deep/c.py": GOOD,
                 "other/d.py": GOOD})

    def age(seconds_ago: int = 60) -> None:  # past the racy window, as a tree edited a while ago is
        stamp = time.time_ns() - seconds_ago * 1_000_000_000
        for path in [root, *root.rglob("*")]:
            if ".graphctx" not in path.parts:
                os.utime(path, ns=(stamp, stamp))

    age()
    keeper = TableKeeper()  # what a Project keeps between its runs, the last walk's folders among it
    index_repository(root, workers=1, keeper=keeper)
    assert indexed_paths(root) == {".gitignore", "pkg/a.py", "pkg/deep/c.py", "other/d.py"}
    index_repository(root, workers=1, keeper=keeper)  # folders listed from the last walk
    (root / "pkg" / "deep" / "e.py").write_text(GOOD)
    (root / "other" / "d.py").unlink()
    age(30)
    index_repository(root, workers=1, keeper=keeper)
    assert indexed_paths(root) == {".gitignore", "pkg/a.py", "pkg/deep/c.py", "pkg/deep/e.py"}
    (root / "pkg" / "deep").rename(root / "pkg" / "deeper")
    (root / ".gitignore").write_text("skip_*.py\n*.md\n")  # (skip_b.py stays out, a.md too)
    (root / "pkg" / "a.md").write_text("# a\n")
    age(20)
    index_repository(root, workers=1, keeper=keeper)
    assert indexed_paths(root) == {".gitignore", "pkg/a.py", "pkg/deeper/c.py", "pkg/deeper/e.py"}
    index_repository(root, workers=1, keeper=keeper)  # every folder listed from the last walk again
    (root / ".gitignore").write_text("*.md\n")  # skip_b.py comes in: a rewrite in place moves no folder's time
    index_repository(root, workers=1, keeper=keeper)
    assert indexed_paths(root) == {".gitignore", "pkg/a.py", "pkg/skip_b.py", "pkg/deeper/c.py", "pkg/deeper/e.py"}


def test_a_file_skipped_for_its_content_is_read_again_only_when_it_or_the_settings_change(tree):
    """Like an indexed file, a file skipped for its bytes (minified, generated) is judged again only
    when its stat changes; its skip is still listed. A setting that judges content otherwise
    (skip_generated) has every such file read again."""
    minified = "var a=function(){return 1};" * 400
    generated = "# Code generated by protoc. DO NOT EDIT.\n" + GOOD
    root = tree({"app.py": GOOD, "bundle.js": minified, "api_pb.py": generated})
    an_hour_ago = time.time() - 3600  # out of the racy window, in which a run reads every file again
    for path in (root / "app.py", root / "bundle.js", root / "api_pb.py"):
        os.utime(path, (an_hour_ago, an_hour_ago))
    first = index_repository(root, workers=1)
    assert skipped(first, "bundle.js").startswith("minified") and skipped(first, "api_pb.py").startswith("generated")
    # New bytes of the same size under the same time: not read (the stat says unchanged), still skipped.
    code = "function f() { return 1; }\n"
    (root / "bundle.js").write_text(code + "\n" * (len(minified) - len(code)))
    os.utime(root / "bundle.js", (an_hour_ago, an_hour_ago))
    again = index_repository(root, workers=1)
    assert again.parsed == 0 and skipped(again, "bundle.js").startswith("minified")
    assert [path for path, _, _ in Project(root, find=False).stats().skipped_files] == ["api_pb.py", "bundle.js"]
    os.utime(root / "bundle.js", (an_hour_ago + 60, an_hour_ago + 60))  # touched: read and judged again
    touched = index_repository(root, workers=1)
    assert indexed_paths(root) == {"app.py", "bundle.js"} and touched.parsed == 1
    (root / ".graphctx" / "config.toml").write_text("[index]\nskip_generated = false\n")
    settings = index_repository(root, workers=1)
    assert indexed_paths(root) == {"app.py", "bundle.js", "api_pb.py"} and settings.skipped == []
