/**
 * `node --import tsx bench/make-shell-corpus.ts` writes bench/data/shell-lines.json: 1,000 shell
 * lines of the kind a coding agent sends to its bash tool, for the permissions benchmark.
 *
 * How it is made: about 190 templates written by hand after the commands agents run in real
 * sessions (git, npm/pnpm/npx, docker, find/grep/sed/awk pipelines, test runners, curl and jq,
 * quoting of every kind, here-documents, subshells, loops, `$(...)`, redirections, `cd && ...`
 * chains), each filled in from small pools of file names, branches, packages and patterns by a
 * seeded generator, until there are 1,000 distinct lines. The seed is fixed: running this again
 * writes the same file. No line comes from a real user's history; no line is run.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The corpus, relative to this file. */
export const CORPUS_FILE = join(dirname(fileURLToPath(import.meta.url)), "data", "shell-lines.json");
/** How many lines it holds. */
export const CORPUS_SIZE = 1000;

const pools: Record<string, string[]> = {
  file: [
    "src/index.ts",
    "src/agent-loop.ts",
    "README.md",
    "package.json",
    "test/decide.test.ts",
    "lib/utils.js",
    "app/models/user.rb",
    "cmd/server/main.go",
    "docs/guide.md",
    "tsconfig.json",
    "Dockerfile",
    "pyproject.toml",
    "src/components/Button.tsx",
    "scripts/build.sh",
  ],
  dir: [
    "src",
    "test",
    "lib",
    "docs",
    "packages/core",
    "apps/web",
    "dist",
    "build",
    "node_modules/.cache",
    "tmp",
    "coverage",
  ],
  branch: ["main", "develop", "feature/permissions", "fix/flaky-test", "release/1.4", "HEAD~1", "origin/main"],
  pkg: ["zod", "vitest", "typescript", "@types/node", "lodash", "react", "eslint", "prettier", "tsx", "express"],
  pattern: [
    "TODO",
    "FIXME",
    "console.log",
    "import .* from",
    "export function",
    "describe\\(",
    "process.env",
    "async function",
    "throw new Error",
    "useState",
  ],
  ext: ["ts", "tsx", "js", "md", "json", "go", "py", "rb", "yaml"],
  image: ["node:20-alpine", "postgres:16", "redis:7", "nginx:stable", "python:3.12-slim"],
  msg: [
    "fix: handle empty input",
    "feat: add permission rules",
    "chore: bump deps",
    "docs: explain modes",
    "test: cover the parser",
    "refactor: one idea per file",
  ],
  script: ["build", "test", "lint", "typecheck", "dev", "format", "bench"],
  n: ["5", "10", "20", "50", "100", "200"],
};

const templates: string[] = [
  // git
  "git status",
  "git status --short",
  "git diff",
  "git diff --stat",
  "git diff {branch}",
  "git diff --cached -- {file}",
  "git log --oneline -{n}",
  "git log --oneline --graph --decorate -{n}",
  "git log -p -1 -- {file}",
  "git show {branch}:{file}",
  "git show --stat HEAD",
  "git branch -a",
  "git branch --show-current",
  "git checkout -b {branch}",
  "git switch {branch}",
  "git add {file}",
  'git add -A && git commit -m "{msg}"',
  "git commit -am '{msg}'",
  "git commit -m \"$(cat <<'EOF'\n{msg}\n\nCo-authored-by: Agent <agent@example.com>\nEOF\n)\"",
  "git stash && git pull --rebase && git stash pop",
  "git fetch origin && git rebase origin/main",
  "git push origin {branch}",
  "git push -u origin HEAD",
  "git blame -L 10,40 {file}",
  "git grep -n \"{pattern}\" -- '*.{ext}'",
  "git rev-parse --abbrev-ref HEAD",
  "git ls-files | grep -E '\\.{ext}$' | wc -l",
  "git log --since='2 weeks ago' --pretty=format:'%h %an %s' | head -{n}",
  "git diff --name-only {branch}...HEAD | xargs -r npx eslint",
  "git worktree list",
  "git remote -v",
  "git tag --sort=-creatordate | head -5",
  "git cherry-pick {branch}",
  "git reset --soft HEAD~1",
  "git clean -n -d",
  "git log --format='%an' | sort | uniq -c | sort -rn | head",
  // npm / pnpm / npx / node
  "npm install",
  "npm ci",
  "npm test",
  "npm run {script}",
  "npm run {script} -- --watch=false",
  "npm install --save-dev {pkg}",
  "npm ls {pkg}",
  "npm outdated",
  "npm view {pkg} version",
  "npx tsc --noEmit",
  "npx tsc -p . --noEmit",
  "npx vitest run {file}",
  "npx vitest run --reporter=verbose 2>&1 | tail -{n}",
  "npx eslint {dir} --ext .ts,.tsx",
  'npx prettier --check "{dir}/**/*.{ext}"',
  "pnpm install",
  "pnpm -r build",
  "pnpm --filter @app/core test",
  "pnpm add -D {pkg}",
  "pnpm test -- --run",
  "pnpm run {script} 2>&1 | tee /tmp/{script}.log",
  "pnpm why {pkg}",
  "node -e \"console.log(require('./package.json').version)\"",
  "node --version && npm --version",
  "node scripts/check.js --verbose",
  "NODE_ENV=production node dist/index.js",
  "DEBUG=app:* npm run dev",
  "CI=1 npm test -- --coverage",
  "yarn install --frozen-lockfile",
  "bun test",
  "deno test -A",
  // find / grep / sed / awk pipelines
  "find . -name '*.{ext}' -not -path './node_modules/*' | head -{n}",
  "find {dir} -type f -name '*.{ext}' | xargs wc -l | sort -n | tail",
  "find . -type d -name node_modules -prune -o -type f -name '*.{ext}' -print",
  "find . -name '*.log' -mtime +7 -print",
  'find {dir} -type f -exec grep -l "{pattern}" {} +',
  "find . -name '*.{ext}' -exec wc -l {} \\; | sort -n",
  'grep -rn "{pattern}" {dir}',
  "grep -rn '{pattern}' --include='*.{ext}' .",
  'grep -c "{pattern}" {file}',
  "grep -rl \"{pattern}\" {dir} | xargs sed -i 's/{pattern}/TODO/g'",
  "grep -v '^#' {file} | grep -v '^$' | wc -l",
  'rg "{pattern}" -t {ext}',
  "rg -n --hidden -g '!node_modules' \"{pattern}\"",
  "rg --files {dir} | head -{n}",
  "sed -n '1,{n}p' {file}",
  "sed -i.bak 's/foo/bar/g' {file}",
  "awk '{print $1}' {file} | sort | uniq -c",
  "awk -F: '{ print $1 }' /etc/passwd | head",
  "cut -d, -f2 data.csv | sort -u",
  "sort {file} | uniq -d",
  "wc -l {file}",
  "head -n {n} {file}",
  "tail -n {n} {file}",
  "cat {file}",
  "cat {file} | jq '.scripts'",
  "less -N {file}",
  "ls -la",
  "ls -la {dir}",
  "ls {dir} | wc -l",
  "tree -L 2 {dir}",
  "du -sh {dir}",
  "du -sh * | sort -h | tail",
  "df -h .",
  "stat {file}",
  "file {file}",
  "diff -u {file} {file}.orig",
  "cmp {file} dist/{file}",
  "realpath {file}",
  'basename "$(pwd)"',
  // docker
  "docker ps",
  "docker ps -a --format '{{.Names}}\\t{{.Status}}'",
  "docker images | grep {pkg}",
  "docker build -t app:dev .",
  "docker run --rm -it {image} sh",
  'docker run --rm -v "$PWD":/app -w /app {image} npm test',
  "docker compose up -d",
  "docker compose logs -f --tail={n} api",
  "docker exec -it db psql -U postgres -c 'select 1'",
  "docker logs $(docker ps -q | head -1)",
  "docker system df",
  "docker compose down -v && docker compose up -d --build",
  // python / go / rust / make
  "python3 -m pytest -x -q",
  "python3 -m pytest tests/ -k '{pattern}' -v",
  "python3 scripts/gen.py --out {dir}",
  "pip install -r requirements.txt",
  "python3 -c 'import sys; print(sys.version)'",
  "uv run pytest",
  "go test ./...",
  "go build -o bin/server ./cmd/server",
  "go vet ./... && golangci-lint run",
  "cargo build --release",
  "cargo test -- --nocapture",
  "cargo clippy -- -D warnings",
  "make",
  "make test",
  "make -j4 build 2>&1 | tail -{n}",
  // curl / jq / misc
  "curl -s https://api.github.com/repos/{pkg}/{pkg}/releases/latest | jq -r .tag_name",
  "curl -fsSL http://localhost:3000/health",
  "curl -X POST -H 'Content-Type: application/json' -d '{\"name\":\"x\"}' http://127.0.0.1:8080/api",
  "jq '.dependencies | keys' package.json",
  "echo $PATH | tr ':' '\\n'",
  "env | grep -i node",
  "which node npm pnpm",
  "command -v docker >/dev/null && echo yes",
  "uname -a",
  "whoami",
  "date -u +%Y-%m-%dT%H:%M:%SZ",
  "sleep 2 && curl -s localhost:3000",
  "ps aux | grep -v grep | grep node",
  "lsof -i :3000",
  "kill -9 $(lsof -t -i:3000)",
  "tar czf /tmp/{script}.tgz {dir}",
  "unzip -l archive.zip",
  "chmod +x scripts/build.sh && ./scripts/build.sh",
  "mkdir -p {dir}/tmp && touch {dir}/tmp/.keep",
  "cp {file} {file}.orig",
  "mv {file} {file}.old",
  "rm -rf {dir}",
  "rm -f /tmp/{script}.log",
  "ln -sf ../{file} {dir}/link",
  'echo "{msg}" >> CHANGELOG.md',
  "printf '%s\\n' a b c > /tmp/list.txt",
  'tee -a notes.md <<< "{msg}"',
  // compound shapes
  "cd {dir} && npm test",
  "cd {dir} && ls -la && cd -",
  "(cd {dir} && make) && echo built",
  "{ echo start; npm run {script}; echo end; } 2>&1 | tail -{n}",
  'for f in {dir}/*.{ext}; do echo "$f"; wc -l < "$f"; done',
  "for i in $(seq 1 {n}); do curl -s localhost:3000 >/dev/null; done",
  'while read -r line; do echo "$line"; done < {file}',
  "if [ -f {file} ]; then cat {file}; else echo missing; fi",
  "test -d {dir} || mkdir -p {dir}",
  '[[ -n "$CI" ]] && npm ci || npm install',
  "npm test || (echo 'tests failed' && exit 1)",
  'cat > /tmp/test.json <<EOF\n{\n  "name": "{pkg}",\n  "version": "1.0.0"\n}\nEOF',
  "cat <<'EOF' > {dir}/notes.md\n# Notes\n\n{msg}\nEOF",
  "python3 - <<'PY'\nimport json\nprint(json.load(open('package.json'))['name'])\nPY",
  "node <<'JS'\nconsole.log(process.versions)\nJS",
  "sh -c 'npm run {script} && npm test'",
  'bash -c "cd {dir} && make"',
  "timeout 60 npm test",
  "nohup npm run dev > /tmp/dev.log 2>&1 &",
  "export NODE_OPTIONS=--max-old-space-size=4096 && npm run {script}",
  "VERSION=$(node -p \"require('./package.json').version\") && echo $VERSION",
  "diff <(sort a.txt) <(sort b.txt)",
  "comm -12 <(sort a.txt) <(sort b.txt)",
  "xargs -n1 echo < /tmp/list.txt",
  "ls *.{ext} 2>/dev/null | head",
  "echo `git rev-parse --short HEAD`",
  "git diff --stat | tail -1 && npm test -- --silent",
  "npm run {script} && git add -A && git commit -m '{msg}' && git push",
  "find . -name '*.{ext}' -print0 | xargs -0 grep -l \"{pattern}\"",
  "watch -n 5 'docker ps'",
  "env -i PATH=/usr/bin:/bin sh -c 'echo clean'",
  "trap 'rm -f /tmp/lock' EXIT; touch /tmp/lock; npm test",
  "set -euo pipefail; npm ci; npm test",
  'function t() { npm test -- "$@"; }; t {file}',
  'case "$(uname)" in Darwin) echo mac;; Linux) echo linux;; esac',
  'eval "$(ssh-agent -s)"',
  "source .venv/bin/activate && pytest",
  "git log --oneline | awk '{print $1}' | xargs -I{} git show --stat {} | head -{n}",
  'cat {file} | grep -n "{pattern}" | cut -d: -f1 | head -1',
];

/** A small seeded generator, so the corpus is the same file every time. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The corpus: every template once as its first filling, then random fillings until CORPUS_SIZE distinct lines. */
export function makeShellCorpus(): string[] {
  const next = random(20_241_201);
  const pick = (pool: string[]) => pool[Math.floor(next() * pool.length)];
  const fill = (template: string) =>
    template.replace(/\{(file|dir|branch|pkg|pattern|ext|image|msg|script|n)\}/g, (_m, key: string) =>
      pick(pools[key]),
    );
  const lines = new Set<string>();
  for (const template of templates) lines.add(fill(template));
  for (let tries = 0; lines.size < CORPUS_SIZE && tries < 100_000; tries++) lines.add(fill(pick(templates)));
  return [...lines].slice(0, CORPUS_SIZE);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const lines = makeShellCorpus();
  mkdirSync(dirname(CORPUS_FILE), { recursive: true });
  writeFileSync(CORPUS_FILE, `${JSON.stringify(lines, null, 1)}\n`);
  process.stdout.write(`wrote ${lines.length} lines from ${templates.length} templates to ${CORPUS_FILE}\n`);
}
