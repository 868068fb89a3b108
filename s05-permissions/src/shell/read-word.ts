/**
 * One shell word, as the program will receive it: quotes removed, escapes undone, `~/` expanded.
 * `r''m`, `"rm"`, `\rm` and `$'\x72m'` all read as `rm`. A word whose value is computed when the
 * line runs (`$VAR`, `$(cmd)`, `$((1+1))`) has no value here: the parser cannot know it.
 *
 * A word with unquoted `*`, `?`, `[` or `{a,b}` is also a glob the shell expands against the disk;
 * it keeps a pattern for that (quoted parts escaped), so `cat .e*` can be checked as `cat .env`.
 */
import { homedir } from "node:os";
import type { Node } from "web-tree-sitter";

/** A word of a shell command. */
export interface ShellWord {
  /** The word as the program receives it, or `null` when it is computed at run time. */
  value: string | null;
  /** A glob pattern when the shell would expand the word against the disk, else `null`. */
  glob: string | null;
  /** The word as written. */
  source: string;
}

/** A word that was never in a parse tree (a piece of `find -exec ... ;`, an `env -S` string). */
export function literalWord(value: string): ShellWord {
  return { value, glob: null, source: value };
}

/** Read a word node (word, string, raw_string, concatenation, expansion, ...). */
export function readWord(node: Node): ShellWord {
  const pieces: Piece[] = [];
  collect(node, pieces);
  const dynamic = pieces.some((piece) => piece.text === null);
  const unquoted = pieces
    .filter((piece) => !piece.quoted)
    .map((piece) => piece.text ?? "")
    .join("");
  let value = dynamic ? null : pieces.map((piece) => unescapePiece(piece)).join("");
  if (value !== null && !pieces[0]?.quoted && /^~(?=\/|$)/.test(value)) value = homedir() + value.slice(1);
  const globby = !dynamic && (hasGlobChar(pieces) || /\{[^{}]*(?:,|\.\.)[^{}]*\}/.test(unquoted));
  const glob = globby ? globPattern(pieces) : null;
  return { value, glob, source: node.text };
}

/** A stretch of a word: its text as written (null when computed), and whether quotes protect it. */
interface Piece {
  text: string | null;
  quoted: boolean;
  /** How escapes inside it are undone. */
  kind: "bare" | "single" | "double" | "ansi";
}

function collect(node: Node, pieces: Piece[]): void {
  switch (node.type) {
    case "word":
    case "number":
      pieces.push({ text: node.text, quoted: false, kind: "bare" });
      return;
    case "raw_string":
      pieces.push({ text: node.text.slice(1, -1), quoted: true, kind: "single" });
      return;
    case "ansi_c_string":
      pieces.push({ text: node.text.slice(2, -1), quoted: true, kind: "ansi" });
      return;
    case "string": {
      // a double-quoted string is literal only when nothing inside it expands
      const literal = node.namedChildren.every((child) => child.type === "string_content");
      pieces.push({ text: literal ? node.text.slice(1, -1) : null, quoted: true, kind: "double" });
      return;
    }
    case "translated_string": // $"..."
      for (const child of node.namedChildren) collect(child, pieces);
      return;
    case "concatenation":
      for (const child of node.namedChildren) collect(child, pieces);
      // `{` and `}` around a brace list are pieces of their own; the node's text keeps them
      if (node.namedChildren.length === 0) pieces.push({ text: node.text, quoted: false, kind: "bare" });
      return;
    default:
      // simple_expansion, expansion, command_substitution, process_substitution, arithmetic_expansion,
      // brace_expression ({1..3}): known only when the line runs
      pieces.push({ text: null, quoted: false, kind: "bare" });
  }
}

function unescapePiece(piece: Piece): string {
  const text = piece.text ?? "";
  switch (piece.kind) {
    case "bare":
      // outside quotes a backslash keeps the next character and a backslash-newline joins lines
      return text.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
    case "single":
      return text;
    case "double":
      return text.replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1");
    case "ansi":
      return decodeAnsiC(text);
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Bash's `$'...'`: \n, \xHH, \NNN (octal), \uHHHH, \UHHHHHHHH, \cX. */
function decodeAnsiC(text: string): string {
  return text.replace(
    /\\(?:([abeEfnrtv\\'"?])|x([0-9a-fA-F]{1,2})|([0-7]{1,3})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|c(.))/g,
    (_all, simple: string, hex: string, octal: string, u4: string, u8: string, control: string) => {
      if (simple) return SIMPLE_ESCAPES[simple];
      if (hex) return String.fromCharCode(Number.parseInt(hex, 16));
      if (octal) return String.fromCharCode(Number.parseInt(octal, 8) & 0xff);
      if (u4 || u8) return String.fromCodePoint(Math.min(Number.parseInt(u4 || u8, 16), 0x10ffff));
      return String.fromCharCode(control.charCodeAt(0) & 0x1f);
    },
  );
}

/** An unescaped `*`, `?` or `[` in a bare piece. */
function hasGlobChar(pieces: Piece[]): boolean {
  return pieces.some((piece) => piece.kind === "bare" && /(?:^|[^\\])(?:\\\\)*[*?[]/.test(piece.text ?? ""));
}

/** The word as a glob: bare pieces as written, quoted ones with their special characters escaped. */
function globPattern(pieces: Piece[]): string {
  return pieces
    .map((piece) =>
      piece.kind === "bare" ? (piece.text ?? "") : unescapePiece(piece).replace(/[*?[\]{}()!+@\\]/g, "\\$&"),
    )
    .join("");
}
