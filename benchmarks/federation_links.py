"""The cost of federation links through HTTP routes: a generated Flask backend with R routes (each
GET and PUT of `/rN/<int:item_id>`) and a generated client project of F files with K `requests`
calls each, both indexed, then the CPU seconds of finding the client calls (tree-sitter parses of
the files that mention an HTTP client), of linking them to the routes, of the same links again
(kept for the index generations), of linking again after a new index generation with no file
changed (files are parsed again only when they changed), and of one handler's cross-project
dependents. CPU seconds of this process, so a loaded machine changes them less than wall time. Not a
test: a measurement to read and record.

    python benchmarks/federation_links.py                  # 100 routes, 200 files x 5 calls
    python benchmarks/federation_links.py --routes 400 --files 1000 --calls 10
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def write_projects(root: Path, routes: int, files: int, calls: int) -> tuple[Path, Path]:
    api, client = root / "api", root / "client"
    api.mkdir()
    client.mkdir()
    lines = ["from flask import Flask", "", "app = Flask(__name__)"]
    for i in range(routes):
        lines += ["", "", f'@app.route("/r{i}/<int:item_id>", methods=["GET", "PUT"])', f"def handle_{i}(item_id):",
                  "    return {}"]
    (api / "app.py").write_text("\n".join(lines) + "\n")
    for f in range(files):
        body = ["import requests", "", 'BASE = "http://api:8000"']
        for j in range(calls):
            body += ["", "", f"def call_{j}(x):", f'    return requests.get(f"{{BASE}}/r{(f * calls + j) % routes}/{{x}}")']
        (client / f"mod_{f}.py").write_text("\n".join(body) + "\n")
    for project in (api, client):
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        subprocess.run([sys.executable, "-m", "graphctx.cli.main", "index", "-q"], cwd=project, check=True,
                       capture_output=True)
    return api, client


def cpu(action):
    started = time.process_time()
    result = action()
    return round(time.process_time() - started, 4), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--routes", type=int, default=100)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--calls", type=int, default=5, help="client calls per file")
    options = parser.parse_args()
    from graphctx.project import Project

    with tempfile.TemporaryDirectory(prefix="graphctx-links-") as folder:
        api_root, client_root = write_projects(Path(folder), options.routes, options.files, options.calls)
        api, client = Project(api_root), Project(client_root)
        scan_s, calls = cpu(client.federation.links.client_calls)
        link_s, links = cpu(lambda: client.federation.links_to(api))
        kept_s, _ = cpu(lambda: client.federation.links_to(api))
        client.federation.links.forget()  # as after a new index generation with no file changed
        again_s, _ = cpu(lambda: client.federation.links_to(api))
        impact_s, found = cpu(lambda: api.federation.dependents(["app.py::handle_7"], {"client": client}))
    print(json.dumps({"routes": options.routes * 2, "client_files": options.files, "client_calls": len(calls),
                      "links": len(links), "cpu_s": {"find_calls": scan_s, "link": link_s, "link_kept": kept_s,
                                                     "link_new_generation": again_s, "dependents": impact_s},
                      "dependents_of_handle_7": len(found)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
