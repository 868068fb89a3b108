#!/usr/bin/env bash
# Stop hook: the agent may give its final answer only once the tests pass. Exit 2 sends the loop
# on, with the failures as the next user message. The harness does that once per prompt: if the
# tests still fail at the next answer (stop_hook_active is then true), the answer stands and the
# user is told, so a test that cannot pass does not trap the agent.
# The test command is the first argument (default: npm test).
test_command=${1:-npm test}
output=$(bash -c "$test_command" 2>&1)
status=$?
if [ "$status" -eq 0 ]; then
  exit 0
fi
{
  echo "The tests fail: \`$test_command\` exits with code $status. Fix them before you finish; the last lines of its output:"
  printf '%s\n' "$output" | tail -n 30
} >&2
exit 2
