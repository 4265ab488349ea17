"""What this installed package knows and ships, asked through a Project without an index: the
digests of its trained models, and how it reads a file (its definitions, whether it parses the
language, whether it is a test). The benchmark adapters compare runs by these."""

from __future__ import annotations


class PackageFacts:
    """Static facts of the package, mixed into Project."""

    @staticmethod
    def ranker_id() -> str:
        """A short digest of the learned ranker this package ships (results of another are not comparable)."""
        from graphctx.context.ranker import shipped_id

        return shipped_id()

    @staticmethod
    def embedding_id() -> str:
        """A short digest of the code embedding this package ships (graphctx/semantic/)."""
        from graphctx.semantic.model import shipped

        return shipped().digest

    @staticmethod
    def definitions(path: str, source: bytes) -> list:
        """The definitions tree-sitter finds in one file's bytes (empty for a language with no parser)."""
        from graphctx.parse.extract import extract
        from graphctx.parse.languages import language_for_path

        spec = language_for_path(path)
        return [] if spec is None else extract(path, spec.name, source).definitions

    @staticmethod
    def is_source_file(path: str) -> bool:
        """Whether graphctx parses files of this path's language."""
        from graphctx.parse.languages import language_for_path

        return language_for_path(path) is not None

    @staticmethod
    def is_test_file(path: str) -> bool:
        from graphctx.index.naming import is_test_file

        return is_test_file(path)
