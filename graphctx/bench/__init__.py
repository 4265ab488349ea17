"""The retrieval benchmark: graphctx against BM25 and repo-map baselines on issue sets and on
history sets derived from any git repository, with the same candidate files, tokenizer and budget.
`graphctx bench run|history|report` drives it; see benchmarks/retrieval/README.md."""
