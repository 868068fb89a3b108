#!/usr/bin/env bash
# Stop hook: the agent may give its final answer only once the tests pass. Exit 2 sends the loop
# on, with the failures as the next user message; the harness stops sending it on after a few
# rounds (MAX_STOP_HOOK_CONTINUATIONS), so a test that cannot pass does not trap the agent.
# The test command is the first argument (default: npm test).
test_command=${1:-npm test}
if output=$(bash -c "$test_command" 2>&1); then
  exit 0
fi
{
  echo "The tests fail ($test_command). Fix them before you finish; the last lines of the output:"
  printf '%s\n' "$output" | tail -n 30
} >&2
exit 2
