"""The reliability suite: probes that try to freeze, crash, corrupt or leak graphctx (killed index
runs, concurrent record writers, an MCP fuzzer, an HTTP load run, hostile files, a CLI traceback
sweep), each returning a Tally of what it tried and what went wrong. `run.py` runs them at full
size; tests/test_reliability.py runs them small in CI."""
