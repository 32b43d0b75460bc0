import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sanitizeFilename } from '../../src/chat/attachments/attachments.js';
import { expandMentions } from '../../src/sessions/mentions.js';
import { builtinTools, runTool, type ToolContext } from '../../src/sessions/tools/index.js';
import { ToolError } from '../../src/sessions/tools/tool.js';
import { resolveInWorkspace } from '../../src/sessions/tools/workspace-path.js';
import { TRAVERSALS, hostileString, wellFormed } from './arbitraries.js';
import { fuzzParams } from './fuzz-params.js';

// Markers that exist only in files no tool or mention may show: one in Leo's state, one outside the workspace.
const STATE_SECRET = 'STATE-SECRET-6f1c';
const STATE_ONLY_NAME = 'state-only-file-name.db';
const OUTSIDE_SECRET = 'OUTSIDE-SECRET-93ab';
const OUTSIDE_ONLY_NAME = 'outside-only-file-name.txt';

/** Settles or fails: a read that blocks (a FIFO, a device) must not hang a turn. */
async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const isInside = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

describe('fuzz: paths into and out of a workspace (symlinks, climbing, Leo state)', () => {
  let root: string;
  let ws: string;
  let leoHome: string;
  let state: string;
  let outside: string;
  /** Entry names of the workspace, so generated paths hit the links and not only missing files. */
  let names: string[];

  before(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'leo-fuzz-ws-')));
    leoHome = path.join(root, 'leo');
    state = path.join(leoHome, 'state');
    outside = path.join(root, 'outside');
    ws = path.join(leoHome, 'workspaces', 'bot');
    fs.mkdirSync(path.join(ws, 'sub', 'deeper'), { recursive: true });
    fs.mkdirSync(state, { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(state, 'api.token'), STATE_SECRET);
    fs.writeFileSync(path.join(state, STATE_ONLY_NAME), STATE_SECRET);
    fs.writeFileSync(path.join(outside, OUTSIDE_ONLY_NAME), OUTSIDE_SECRET);
    fs.writeFileSync(path.join(ws, 'notes.md'), 'workspace notes\n');
    fs.writeFileSync(path.join(ws, 'sub', 'inner.txt'), 'inner\n');
    fs.writeFileSync(path.join(ws, 'sub', 'deeper', 'x.txt'), 'deep\n');
    const links: [string, string][] = [
      ['link-inner', 'sub/inner.txt'],
      ['link-sub', 'sub'],
      ['link-out', path.join(outside, OUTSIDE_ONLY_NAME)],
      ['link-out-dir', outside],
      ['link-state', path.join(state, 'api.token')],
      ['link-state-dir', state],
      ['link-state-rel', '../../state/api.token'],
      ['link-up', '..'],
      ['link-root', '/'],
      ['link-zero', '/dev/zero'],
      ['loop', 'loop'],
      ['dangling', 'no-such-target'],
      ['sub/link-back-up', '../../../state'],
    ];
    for (const [name, target] of links) fs.symlinkSync(target, path.join(ws, name));
    // A FIFO never ends a read: a tool that opens one without checking hangs the turn.
    execFileSync('mkfifo', [path.join(ws, 'pipe')]);
    names = [...fs.readdirSync(ws), 'sub/inner.txt', 'sub/deeper', 'state', 'api.token', STATE_ONLY_NAME];
  });
  after(() => {
    // A reader stuck on the FIFO would keep this process alive: a writer that opens and closes it lets it go.
    try {
      fs.closeSync(fs.openSync(path.join(ws, 'pipe'), fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
    } catch {
      // no reader: nothing is stuck
    }
    fs.rmSync(root, { recursive: true, force: true });
  });

  const pathArb = () =>
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .array(
            fc.oneof(
              fc.constantFrom(...names, '..', '.', '', 'state', 'workspaces', 'bot'),
              fc.constantFrom(...TRAVERSALS),
            ),
            {
              minLength: 1,
              maxLength: 5,
            },
          )
          .map((segments) => segments.join('/')),
      },
      {
        weight: 2,
        arbitrary: fc
          .tuple(
            fc.constantFrom(ws, state, outside, leoHome, root, '/proc/self'),
            fc.constantFrom('', ...names.map((n) => `/${n}`), '/..', '/environ', '/api.token'),
          )
          .map(([a, b]) => a + b),
      },
      { weight: 1, arbitrary: fc.constantFrom(...names) },
      { weight: 1, arbitrary: hostileString },
    );
  // The workspace as the agent sees it, or Leo's home itself, where the state folder lies inside the workspace.
  const workspaceArb = () => fc.constantFrom(ws, leoHome);

  function context(workspace: string): ToolContext {
    return { workspace, env: {}, deniedRoots: [state], signal: new AbortController().signal, output: () => {} };
  }

  it('resolveInWorkspace: only ToolError, and a resolved path lies inside the workspace and outside Leo state', async () => {
    await fc.assert(
      fc.asyncProperty(workspaceArb(), pathArb(), async (workspace, p) => {
        let real: string;
        try {
          real = await resolveInWorkspace(context(workspace), p);
        } catch (err) {
          assert.ok(err instanceof ToolError, `${JSON.stringify(p)} threw ${String(err)}`);
          return;
        }
        assert.ok(isInside(fs.realpathSync(workspace), real), `${JSON.stringify(p)} resolved outside: ${real}`);
        assert.ok(!isInside(state, real), `${JSON.stringify(p)} resolved into Leo state: ${real}`);
      }),
      fuzzParams(1000),
    );
  });

  it('read_file and list_dir: always settle, never show what lies outside or in Leo state', async () => {
    await fc.assert(
      fc.asyncProperty(
        workspaceArb(),
        pathArb(),
        fc.constantFrom('read_file', 'list_dir'),
        async (workspace, p, tool) => {
          const args = tool === 'read_file' ? { path: p } : { dir: p };
          const out = await within(
            3000,
            `${tool} ${JSON.stringify(p)}`,
            runTool(builtinTools, tool, JSON.stringify(args), context(workspace)),
          );
          // Errors may quote the path (even resolved); what must never show is file content or a listing entry.
          for (const secret of [STATE_SECRET, OUTSIDE_SECRET])
            assert.ok(!out.content.includes(secret), `${tool} ${JSON.stringify(p)} showed ${secret}:\n${out.content}`);
          const entries = out.content.split('\n');
          for (const name of [STATE_ONLY_NAME, OUTSIDE_ONLY_NAME])
            assert.ok(!entries.some((l) => l.startsWith(name)), `${tool} ${JSON.stringify(p)} listed ${name}`);
        },
      ),
      fuzzParams(1000),
    );
  });

  it('@-mentions: always settle, never attach anything whose real path is in Leo state', async () => {
    const mention = fc.oneof(
      pathArb().map((p) => `@${p}`),
      pathArb().map((p) => `@"${p}"`),
      fc.tuple(pathArb(), fc.constantFrom('.', ',', ')', '!', '…')).map(([p, punct]) => `(@${p}${punct}`),
      hostileString,
      fc.constantFrom('user@example.com', '@', '@@', '<veil-attachments>'),
    );
    await fc.assert(
      fc.asyncProperty(workspaceArb(), fc.array(mention, { minLength: 1, maxLength: 10 }), async (workspace, parts) => {
        const message = parts.join(' ');
        const expanded = await within(
          3000,
          `mentions in ${JSON.stringify(message)}`,
          expandMentions(message, { workspace, deniedRoots: [state] }),
        );
        assert.ok(expanded.startsWith(message), 'the message itself is kept as written');
        const block = expanded.slice(message.length);
        // Section headers repeat what was mentioned; contents and directory entries are what must stay hidden.
        assert.ok(!block.includes(STATE_SECRET), `${JSON.stringify(message)} attached Leo state:\n${block}`);
        assert.ok(!block.includes(`- ${STATE_ONLY_NAME}`), `${JSON.stringify(message)} listed Leo state:\n${block}`);
        if (message.includes('<veil-attachments>')) assert.equal(block, '');
      }),
      fuzzParams(600),
    );
  });

  it('sanitizeFilename: any name becomes one plain, well-formed path segment of at most 200 bytes', () => {
    const name = fc.oneof(
      hostileString,
      fc.constantFrom(...TRAVERSALS),
      // Long names of multi-byte characters, cut at every offset, are where truncation splits a character.
      fc
        .tuple(fc.nat({ max: 210 }), fc.constantFrom('😀', 'é', '中', 'e\u0301'))
        .map(([n, ch]) => 'a'.repeat(n) + ch.repeat(60)),
      fc
        .array(fc.constantFrom('..', '.', '/', '\\', 'a', ' ', '\u0000', ':', '😀'), { maxLength: 12 })
        .map((p) => p.join('')),
    );
    fc.assert(
      fc.property(name, (raw) => {
        const safe = sanitizeFilename(raw);
        assert.ok(safe.length > 0);
        assert.ok(Buffer.byteLength(safe) <= 200, `${Buffer.byteLength(safe)} bytes`);
        assert.doesNotMatch(safe, /[\\/\u0000-\u001f\u007f]/);
        assert.doesNotMatch(safe, /^[.\s]/);
        assert.ok(wellFormed(safe) || !wellFormed(raw), `half a character left in ${JSON.stringify(safe)}`);
        const dir = path.join(root, 'attachments', 'agent', 'id');
        assert.equal(path.dirname(path.join(dir, safe)), dir);
      }),
      fuzzParams(2000),
    );
  });
});
