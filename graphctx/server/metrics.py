"""The team server's metrics: calls, outcomes and latency per project and tool since the start, calls
in flight and uptime, as JSON (the default of /metrics) or in Prometheus' text exposition format
(what a Prometheus scrape asks for). Thread-safe: tool calls end on worker threads."""

from __future__ import annotations

import threading
import time
from collections import defaultdict

KEPT = 10_000  # latencies kept per (project, tool); the older half is dropped beyond
QUANTILES = (0.5, 0.95)


def _quantile(ordered: list[float], q: float) -> float:
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))], 1)


class Metrics:
    """Calls, outcomes and latency per (project, tool); `tools` sums the projects for each tool."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.started = time.time()
        self.calls: dict[tuple[str, str, str], int] = defaultdict(int)  # (project, tool, outcome) -> count
        self.ms: dict[tuple[str, str], list[float]] = defaultdict(list)  # (project, tool) -> latencies
        self.ms_sum: dict[tuple[str, str], float] = defaultdict(float)  # all of them, for Prometheus' _sum
        self.in_flight = 0
        self.draining = False  # stopping: no new calls, the ones in flight finish

    def begin(self) -> None:
        with self._lock:
            self.in_flight += 1

    def end(self, tool: str, outcome: str, ms: float, project: str = "-") -> None:
        with self._lock:
            self.in_flight -= 1
            self.calls[(project, tool, outcome)] += 1
            self.ms_sum[(project, tool)] += ms
            kept = self.ms[(project, tool)]
            kept.append(ms)
            if len(kept) > KEPT:
                del kept[:KEPT // 2]

    def snapshot(self) -> dict:
        """{uptime_s, in_flight, tools: {tool: figures}, projects: {project: {tool: figures}}}, where the
        figures are calls, outcomes (outcome -> count), ms_p50 and ms_p95."""
        with self._lock:
            calls, latencies = dict(self.calls), {key: list(values) for key, values in self.ms.items()}
            uptime, in_flight = round(time.time() - self.started, 1), self.in_flight
        projects: dict[str, dict[str, dict]] = {}
        tools: dict[str, dict] = {}
        for (project, tool, outcome), count in sorted(calls.items()):
            for figures in (projects.setdefault(project, {}).setdefault(tool, {"calls": 0, "outcomes": {}}),
                            tools.setdefault(tool, {"calls": 0, "outcomes": {}})):
                figures["calls"] += count
                figures["outcomes"][outcome] = figures["outcomes"].get(outcome, 0) + count
        every_tool: dict[str, list[float]] = defaultdict(list)
        for (project, tool), values in latencies.items():
            ordered = sorted(values)
            every_tool[tool] += values
            projects[project][tool].update(ms_p50=_quantile(ordered, 0.5), ms_p95=_quantile(ordered, 0.95))
        for tool, values in every_tool.items():
            ordered = sorted(values)
            tools[tool].update(ms_p50=_quantile(ordered, 0.5), ms_p95=_quantile(ordered, 0.95))
        return {"uptime_s": uptime, "in_flight": in_flight, "tools": tools, "projects": projects}

    def prometheus(self) -> str:
        """The metrics in Prometheus' text exposition format (version 0.0.4)."""
        with self._lock:
            calls, sums = dict(self.calls), dict(self.ms_sum)
            latencies = {key: sorted(values) for key, values in self.ms.items()}
            uptime, in_flight = time.time() - self.started, self.in_flight
        lines = ["# HELP graphctx_calls_total Tool calls answered, by project, tool and outcome.",
                 "# TYPE graphctx_calls_total counter"]
        lines += [f"graphctx_calls_total{{{_labels(project=p, tool=t, outcome=o)}}} {n}"
                  for (p, t, o), n in sorted(calls.items())]
        lines += ["# HELP graphctx_call_milliseconds Tool call latency in milliseconds, by project and tool "
                  "(quantiles over the latest calls).", "# TYPE graphctx_call_milliseconds summary"]
        for (project, tool), ordered in sorted(latencies.items()):
            count = sum(n for (p, t, _), n in calls.items() if (p, t) == (project, tool))
            labels = _labels(project=project, tool=tool)
            lines += [f"graphctx_call_milliseconds{{{labels},quantile=\"{q:g}\"}} {_quantile(ordered, q):g}"
                      for q in QUANTILES]
            lines += [f"graphctx_call_milliseconds_sum{{{labels}}} {sums[(project, tool)]:.1f}",
                      f"graphctx_call_milliseconds_count{{{labels}}} {count}"]
        lines += ["# HELP graphctx_calls_in_flight Tool calls being answered now.", "# TYPE graphctx_calls_in_flight gauge",
                  f"graphctx_calls_in_flight {in_flight}",
                  "# HELP graphctx_uptime_seconds Seconds since the server started.",
                  "# TYPE graphctx_uptime_seconds gauge", f"graphctx_uptime_seconds {uptime:.1f}"]
        return "\n".join(lines) + "\n"


def wants_prometheus(query: str, accept: str) -> bool:
    """Whether a /metrics request asks for the text format: `?format=prometheus`, or an Accept header
    preferring text/plain or OpenMetrics (what a Prometheus scrape sends) to JSON."""
    if "format=prometheus" in query.split("&"):
        return True
    if "format=json" in query.split("&"):
        return False
    accept = accept.lower()
    return ("text/plain" in accept or "openmetrics" in accept) and "application/json" not in accept


def _labels(**values: str) -> str:
    return ",".join(f'{name}="{_escape(value)}"' for name, value in values.items())


def _escape(value: str) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
