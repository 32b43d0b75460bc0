// The recorded Claude transcripts in test/fixtures/transcripts, found from dist/test/… or test/… alike, and copies of
// them made to look as if the agent had just written them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function transcriptFixture(name: string): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const up of ['../..', '../../..']) {
    const p = path.resolve(here, up, 'test', 'fixtures', 'transcripts', name);
    if (fs.existsSync(p)) return p;
  }
  throw new Error(`fixture ${name} not found`);
}

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

/**
 * The lines of recorded transcript `fixture` (`.jsonl` left off) as if just written by another session: timestamps
 * moved to now and every uuid (line, prompt and session ids) replaced by a new one, each `from` text swapped for
 * `to`. `ids` keeps the uuids of an earlier copy, so a longer copy continues the same transcript.
 */
export function freshTranscriptLines(
  fixture: string,
  opts: { swap?: [string, string]; ids?: Map<string, string> } = {},
): string[] {
  const now = new Date().toISOString();
  const ids = opts.ids ?? new Map<string, string>();
  const esc = (s: string) => JSON.stringify(s).slice(1, -1);
  return fs
    .readFileSync(transcriptFixture(`${fixture}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const o = JSON.parse(l);
      if (o.timestamp) o.timestamp = now;
      const line = JSON.stringify(o).replace(UUID, (u) => {
        if (!ids.has(u)) ids.set(u, crypto.randomUUID());
        return ids.get(u)!;
      });
      return opts.swap ? line.split(esc(opts.swap[0])).join(esc(opts.swap[1])) : line;
    });
}

/** Writes `lines` as transcript `file` (replacing it), as Claude appends to its own. */
export function writeTranscript(file: string, lines: readonly string[]): string {
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** The `promptId` of the user line that holds `text`: what Claude's Stop hook reports as `prompt_id` for its turn. */
export function promptIdOf(lines: readonly string[], text: string): string {
  for (const l of lines) {
    const o = JSON.parse(l);
    if (o.type === 'user' && o.promptId && l.includes(JSON.stringify(text).slice(1, -1))) return o.promptId;
  }
  throw new Error(`no user line holds ${text}`);
}

/**
 * Claude's failed turn (no key) for the delivered `[Leo Chat] <text>`: its recorded transcript, written under `dir`,
 * and the StopFailure hook's input claude 2.1.328 sent for it (test/fixtures/hooks), pointed at that copy.
 */
export function claudeStopFailure(dir: string, text: string): Record<string, unknown> {
  const lines = freshTranscriptLines('not-logged-in', { swap: ['[Leo Chat] hello there', `[Leo Chat] ${text}`] });
  const recorded = JSON.parse(
    fs.readFileSync(transcriptFixture('../hooks/claude-stop-failure-not-logged-in.json'), 'utf8'),
  );
  return {
    ...recorded,
    transcript_path: writeTranscript(path.join(dir, `failed-${crypto.randomUUID()}.jsonl`), lines),
    prompt_id: promptIdOf(lines, text),
  };
}
