import assert from 'node:assert/strict';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  INTERRUPTED,
  parseTranscriptLines,
  readTranscriptTail,
  type TranscriptEntry,
} from '../../../src/harnesses/claude/transcript.js';
import { DEFAULT_TAIL_BYTES } from '../../../src/harnesses/tail-lines.js';
import { transcriptFixture as fixture } from '../../helpers/transcripts.js';

/** The entries that matter to reply capture, compactly. */
function shape(entries: TranscriptEntry[]): unknown[] {
  return entries
    .filter((e) => e.kind !== 'other')
    .map((e) => {
      const s: Record<string, unknown> = { kind: e.kind };
      if (e.kind === 'tool_use') s.tool = e.toolName;
      else s.text = e.text;
      if (e.midTurn) s.midTurn = true;
      if (e.isError) s.isError = true;
      return s;
    });
}

const line = (o: unknown) => JSON.stringify(o);
const user = (content: unknown, extra: Record<string, unknown> = {}) =>
  line({ type: 'user', message: { role: 'user', content }, uuid: `u-${Math.random()}`, ...extra });
const assistant = (id: string, content: unknown[], extra: Record<string, unknown> = {}) =>
  line({ type: 'assistant', message: { id, role: 'assistant', content }, ...extra });

describe('parseTranscriptLines over recorded claude 2.1.328 transcripts', () => {
  const read = (name: string) => readTranscriptTail(fixture(name));

  it('a plain turn: the prompt and the answer, with every bookkeeping line as other', async () => {
    const entries = await read('plain.jsonl');
    assert.deepEqual(shape(entries), [
      { kind: 'user_prompt', text: '[Leo Chat] What is 2+2?' },
      { kind: 'assistant_text', text: '2 + 2 = 4.' },
    ]);
    const details = new Set(entries.filter((e) => e.kind === 'other').map((e) => e.detail));
    // These hold the prompt text too (the queue, the last-prompt marker, the request copy): never prompts.
    for (const d of ['queue-operation', 'last-prompt', 'api-request-blob', 'attachment:prompt_snapshot'])
      assert.ok(details.has(d), d);
    const prompt = entries.find((e) => e.kind === 'user_prompt')!;
    assert.equal(prompt.uuid, 'e0fe7c76-9cc0-4691-b277-529d0c4c042e');
    assert.equal(prompt.timestamp, '2026-11-29T22:11:45.140Z');
    assert.equal(prompt.turnIndex, 1);
    assert.equal(prompt.promptId, 'ce000f58-565a-4a77-8fa4-fff49af918f7');
  });

  it('a tool call: one line per block, the blocks of one API message sharing its id', async () => {
    const entries = await read('bash-tool.jsonl');
    assert.deepEqual(shape(entries), [
      { kind: 'user_prompt', text: '[Leo Chat] run echo hi please' },
      { kind: 'assistant_text', text: "I'll run it." },
      { kind: 'tool_use', tool: 'Bash' },
      { kind: 'tool_result', text: 'hi' },
      { kind: 'assistant_text', text: 'It printed `hi`.' },
    ]);
    const [first, call, result, last] = entries.filter((e) => e.kind !== 'other' && e.kind !== 'user_prompt');
    assert.equal(first!.messageId, call!.messageId);
    assert.notEqual(first!.messageId, last!.messageId);
    assert.equal(call!.toolUseId, result!.toolUseId);
  });

  it('an MCP leo_chat_post call keeps its full name; a missing tool shows as an error result', async () => {
    assert.deepEqual(shape(await read('mcp-post.jsonl')), [
      { kind: 'user_prompt', text: '[Leo Chat] post me a summary' },
      { kind: 'tool_use', tool: 'mcp__leo__leo_chat_post' },
      { kind: 'tool_result', text: '{"message_id":"01JTEST"}' },
      { kind: 'assistant_text', text: 'Posted the summary to your thread.' },
    ]);
    const missing = shape(await read('mcp-post-missing-tool.jsonl'));
    assert.deepEqual(missing[2], {
      kind: 'tool_result',
      text: '<tool_use_error>Error: No such tool available: mcp__leo__leo_chat_post</tool_use_error>',
      isError: true,
    });
  });

  it("an empty answer: Claude's nudge is an isMeta user line, not a prompt", async () => {
    const entries = await read('empty-reply.jsonl');
    assert.deepEqual(shape(entries), [
      { kind: 'user_prompt', text: '[Leo Chat] say nothing' },
      { kind: 'assistant_text', text: '' },
      { kind: 'assistant_text', text: '  ' },
    ]);
    assert.ok(entries.some((e) => e.detail === 'user:meta'));
  });

  it('a prompt typed while a tool runs is a mid-turn prompt of the running turn', async () => {
    const entries = await read('queued-prompt-midturn.jsonl');
    assert.deepEqual(shape(entries), [
      { kind: 'user_prompt', text: '[Leo Chat] first message' },
      { kind: 'tool_use', tool: 'Bash' },
      { kind: 'tool_result', text: '(Bash completed with no output)' },
      { kind: 'user_prompt', text: '[Leo Chat] second message', midTurn: true },
      { kind: 'assistant_text', text: 'Handled the second message.' },
    ]);
    const [first, second] = entries.filter((e) => e.kind === 'user_prompt');
    assert.equal(first!.origin, 'human');
    assert.equal(second!.origin, 'human');
    // The Stop hook names the turn by its opening prompt's id; the absorbed prompt carries the same.
    assert.equal(second!.promptId, first!.promptId);
    assert.ok(entries.some((e) => e.detail === 'system:stop_hook_summary'));
  });

  it('a prompt typed while text streams waits for the turn to end and opens the next one', async () => {
    const prompts = (await read('queued-prompt-next-turn.jsonl')).filter((e) => e.kind === 'user_prompt');
    assert.deepEqual(
      prompts.map((p) => [p.text, p.midTurn ?? false, p.turnIndex]),
      [
        ['[Leo Chat] first message', false, 1],
        ['a typed follow-up', false, 2],
      ],
    );
  });

  it('task notifications: a prompt of their own turn, or absorbed mid-turn', async () => {
    const next = (await read('task-notification-next-turn.jsonl')).filter((e) => e.kind === 'user_prompt');
    assert.equal(next.length, 2);
    assert.equal(next[1]!.origin, 'task-notification');
    assert.ok(next[1]!.text!.startsWith('<task-notification>'));
    assert.equal(next[1]!.midTurn, undefined);
    const mid = (await read('task-notification-midturn.jsonl')).filter((e) => e.kind === 'user_prompt');
    assert.equal(mid.length, 2);
    assert.equal(mid[1]!.origin, 'task-notification');
    assert.equal(mid[1]!.midTurn, true);
  });

  it('a long paste is unwrapped from its <pasted_content> tags (tabs already spaces)', async () => {
    const [prompt] = (await read('paste-long-wrapped.jsonl')).filter((e) => e.kind === 'user_prompt');
    assert.ok(prompt!.text!.startsWith('[Leo Chat] summarize this card  \nIn reply to task daily-news'), prompt!.text);
    assert.ok(prompt!.text!.endsWith('line 29    col'));
    assert.doesNotMatch(prompt!.text!, /pasted_content/);
  });

  it('an interrupt marker is not a prompt: it ends the turn', async () => {
    for (const [name, prompts] of [
      ['interrupted.jsonl', 1],
      ['interrupted-then-same-text.jsonl', 2],
    ] as const) {
      const entries = await read(name);
      assert.equal(entries.filter((e) => e.kind === 'user_prompt').length, prompts, name);
      assert.equal(entries.filter((e) => e.detail === INTERRUPTED).length, 1, name);
    }
    // Versions that did not tag the marker with interruptedMessageId.
    for (const text of ['[Request interrupted by user]', '[Request interrupted by user for tool use]'])
      assert.deepEqual(
        parseTranscriptLines([JSON.stringify({ type: 'user', message: { role: 'user', content: text } })]).map(
          (e) => e.detail,
        ),
        [INTERRUPTED],
      );
  });

  it('unicode and CRLF survive as recorded', async () => {
    const entries = await read('unicode-crlf.jsonl');
    assert.deepEqual(shape(entries), [
      { kind: 'user_prompt', text: '[Leo Chat] Grüße 👋 — ¿qué tal?\r\nAttachments: /tmp/a b/ü.png' },
      { kind: 'assistant_text', text: 'Hallo! 👋 Ça va — 日本語も大丈夫。' },
    ]);
  });

  it('every recorded fixture parses without a dropped user or assistant line', async () => {
    const dir = path.dirname(fixture('plain.jsonl'));
    const names = fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
    assert.ok(names.length >= 15);
    for (const name of names) {
      const lines = fs.readFileSync(path.join(dir, name), 'utf8').split('\n').filter(Boolean);
      const entries = parseTranscriptLines(lines);
      for (const l of lines) {
        const o = JSON.parse(l) as { type: string; uuid?: string };
        if ((o.type === 'user' || o.type === 'assistant') && o.uuid)
          assert.ok(
            entries.some((e) => e.uuid === o.uuid),
            `${name}: ${o.uuid}`,
          );
      }
    }
  });
});

describe('parseTranscriptLines on synthetic lines', () => {
  it('skips garbage and keeps the good lines around it, in order', () => {
    const entries = parseTranscriptLines([
      '',
      '   ',
      'not json at all',
      '{"type":"user","message":{"role":"user","content":"[Leo Chat] cut o', // torn write
      '[1,2,3]',
      '42',
      'null',
      '{"no":"type"}',
      '{"type":7}',
      user('[Leo Chat] one'),
      '\uFEFF' + user('[Leo Chat] with a BOM'),
      '}{',
      assistant('m1', [{ type: 'text', text: 'answer' }]),
      user('[Leo Chat] two') + '\r',
    ]);
    assert.deepEqual(shape(entries), [
      { kind: 'user_prompt', text: '[Leo Chat] one' },
      { kind: 'user_prompt', text: '[Leo Chat] with a BOM' },
      { kind: 'assistant_text', text: 'answer' },
      { kind: 'user_prompt', text: '[Leo Chat] two' },
    ]);
  });

  it('an unknown line type and unknown blocks are other, not errors', () => {
    const entries = parseTranscriptLines([
      line({ type: 'some-future-thing', uuid: 'x', payload: { deep: [1] } }),
      assistant('m1', [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'redacted_thinking', data: 'zzz' },
        { type: 'server_tool_use', id: 's1', name: 'web_search' },
        { type: 'text', text: 'done' },
        'a bare string block',
        { type: 'text', text: 42 },
      ]),
    ]);
    assert.deepEqual(
      entries.map((e) => e.detail ?? e.kind),
      [
        'some-future-thing',
        'assistant:thinking',
        'assistant:redacted_thinking',
        'assistant:server_tool_use',
        'assistant_text',
        'assistant:unknown',
        'assistant:text',
      ],
    );
  });

  it('a prompt is the typed text only: no system-reminder blocks, no images', () => {
    const entries = parseTranscriptLines([
      user([
        { type: 'text', text: '<system-reminder>\nAttribution for git commits…\n</system-reminder>\n' },
        { type: 'text', text: '[Leo Chat] look <system-reminder>inline context</system-reminder>at this' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        { type: 'text', text: '[Image #1]' },
      ]),
      user('<system-reminder>only context</system-reminder>'),
    ]);
    assert.deepEqual(shape(entries), [{ kind: 'user_prompt', text: '[Leo Chat] look at this\n[Image #1]' }]);
    assert.equal(entries[1]!.detail, 'user:empty');
  });

  it('user lines that are not prompts: system role, meta, compaction, sidechain, command output, interrupts', () => {
    const entries = parseTranscriptLines([
      line({ type: 'user', message: { role: 'system', content: 'context the harness added' } }),
      user('[Your previous response had no visible output.]', { isMeta: true }),
      user('This session is being continued from a previous conversation…', { isCompactSummary: true }),
      user('[Leo Chat] a subagent prompt', { isSidechain: true }),
      user('<local-command-stdout>Compacted</local-command-stdout>'),
      user('<local-command-caveat>Caveat: …</local-command-caveat>', {}),
      user('<bash-stdout>hi</bash-stdout><bash-stderr></bash-stderr>'),
      user([{ type: 'text', text: '[Request interrupted by user]' }]),
      user('[Request interrupted by user for tool use]'),
      user([{ type: 'text', text: 'anything' }], { interruptedMessageId: 'msg_1' }),
      line({ type: 'user' }),
      line({ type: 'user', message: { role: 'user' } }),
      line({ type: 'user', message: { role: 'user', content: 17 } }),
    ]);
    assert.deepEqual(shape(entries), []);
    assert.equal(entries.length, 13);
  });

  it('typed slash and shell commands are prompts: the person sent them', () => {
    const entries = parseTranscriptLines([
      user('<command-name>/compact</command-name>\n<command-message>compact</command-message>'),
      user('<bash-input>ls</bash-input>'),
    ]);
    assert.equal(entries.filter((e) => e.kind === 'user_prompt').length, 2);
  });

  it('text beside tool results is not taken for a prompt', () => {
    const entries = parseTranscriptLines([
      user([
        { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'out' }, { type: 'image' }] },
        { type: 'text', text: 'hook feedback' },
      ]),
    ]);
    assert.deepEqual(
      entries.map((e) => [e.kind, e.text ?? e.detail]),
      [
        ['tool_result', 'out'],
        ['other', 'user:beside-tool-result'],
      ],
    );
  });

  it('lenient fields: a wrongly typed flag reads as absent, the line survives', () => {
    const entries = parseTranscriptLines([
      line({
        type: 'user',
        uuid: 5,
        timestamp: {},
        isMeta: 'yes',
        message: { role: 'user', content: '[Leo Chat] hi' },
      }),
      line({ type: 'assistant', message: { content: 'plain string content', id: 9 }, uuid: 'a1' }),
    ]);
    assert.deepEqual(shape(entries), [
      { kind: 'user_prompt', text: '[Leo Chat] hi' },
      { kind: 'assistant_text', text: 'plain string content' },
    ]);
    assert.equal(entries[0]!.uuid, undefined);
    assert.equal(entries[1]!.messageId, 'a1'); // no usable message id: the line stands for its message
  });

  it('a queued_command attachment with content blocks, and one with no text', () => {
    const entries = parseTranscriptLines([
      user('[Leo Chat] start', { promptId: 'p1', turnPosition: { promptIndex: 1, turnIndex: 3 } }),
      line({
        type: 'attachment',
        attachment: { type: 'queued_command', prompt: [{ type: 'text', text: 'typed meanwhile' }, { type: 'image' }] },
      }),
      line({ type: 'attachment', attachment: { type: 'queued_command', prompt: [] } }),
      line({ type: 'attachment', attachment: { type: 'queued_command' } }),
    ]);
    assert.deepEqual(
      entries.map((e) => [e.kind, e.text ?? e.detail, e.midTurn, e.promptId, e.turnIndex]),
      [
        ['user_prompt', '[Leo Chat] start', undefined, 'p1', 3],
        ['user_prompt', 'typed meanwhile', true, 'p1', undefined],
        ['other', 'attachment:queued_command', undefined, undefined, undefined],
        ['other', 'attachment:queued_command', undefined, undefined, undefined],
      ],
    );
  });
});

describe('readTranscriptTail', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-transcript-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string | Buffer) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, text);
    return p;
  };

  it('a missing transcript reads as empty', async () => {
    assert.deepEqual(await readTranscriptTail(path.join(dir, 'nope.jsonl')), []);
  });

  it('reads a whole small file, CRLF endings and no final newline included', async () => {
    const p = write('small.jsonl', [user('[Leo Chat] a'), assistant('m', [{ type: 'text', text: 'b' }])].join('\r\n'));
    assert.deepEqual(shape(await readTranscriptTail(p)), [
      { kind: 'user_prompt', text: '[Leo Chat] a' },
      { kind: 'assistant_text', text: 'b' },
    ]);
  });

  it('a line split by the window start is dropped; one starting exactly there is kept', async () => {
    const a = user('[Leo Chat] first');
    const b = user('[Leo Chat] second');
    const c = user('[Leo Chat] third');
    const p = write('split.jsonl', `${a}\n${b}\n${c}\n`);
    const size = fs.statSync(p).size;
    const fromB = size - Buffer.byteLength(`${b}\n${c}\n`);
    const texts = async (maxBytes: number) => (await readTranscriptTail(p, { maxBytes })).map((e) => e.text);
    // The window starts exactly at b: b is whole.
    assert.deepEqual(await texts(size - fromB), ['[Leo Chat] second', '[Leo Chat] third']);
    // One byte less: b is cut, so only c.
    assert.deepEqual(await texts(size - fromB - 1), ['[Leo Chat] third']);
    // One byte more: the window starts on the newline ending a, which is dropped with it.
    assert.deepEqual(await texts(size - fromB + 1), ['[Leo Chat] second', '[Leo Chat] third']);
    assert.deepEqual(await texts(size), ['[Leo Chat] first', '[Leo Chat] second', '[Leo Chat] third']);
  });

  it('a window cutting into a multi-byte character loses only that line', async () => {
    const a = user('[Leo Chat] 👋👋👋 émoji');
    const b = user('[Leo Chat] 日本語');
    const p = write('utf8.jsonl', `${a}\n${b}\n`);
    const size = fs.statSync(p).size;
    const bBytes = Buffer.byteLength(`${b}\n`);
    for (let extra = 1; extra < 12; extra++) {
      const entries = await readTranscriptTail(p, { maxBytes: bBytes + extra });
      assert.deepEqual(
        entries.map((e) => e.text),
        ['[Leo Chat] 日本語'],
        `extra ${extra}`,
      );
    }
    assert.equal((await readTranscriptTail(p, { maxBytes: size })).length, 2);
  });

  it('a window inside one over-long line yields nothing', async () => {
    const p = write('long.jsonl', user('[Leo Chat] ' + 'x'.repeat(10_000)) + '\n');
    assert.deepEqual(await readTranscriptTail(p, { maxBytes: 1000 }), []);
  });

  it('a torn last line (Claude mid-write) is skipped', async () => {
    const whole = user('[Leo Chat] done');
    const torn = assistant('m', [{ type: 'text', text: 'half of it' }]).slice(0, 30);
    const p = write('torn.jsonl', `${whole}\n${torn}`);
    assert.deepEqual(
      (await readTranscriptTail(p)).map((e) => e.text),
      ['[Leo Chat] done'],
    );
  });

  it('a 50 MB transcript: only the last 8 MiB is read', async (t) => {
    const p = path.join(dir, 'huge.jsonl');
    const fd = fs.openSync(p, 'w');
    fs.writeSync(fd, user('[Leo Chat] ancient', { uuid: 'ancient' }) + '\n');
    const filler = (i: number) =>
      assistant(`msg_${i}`, [{ type: 'text', text: `chunk ${i} ` + 'lorem ipsum dolor '.repeat(100) }], {
        uuid: `filler-${i}`,
      }) + '\n';
    let size = 0;
    let i = 0;
    const batch: string[] = [];
    while (size < 50 * 1024 * 1024) {
      const l = filler(i++);
      batch.push(l);
      size += Buffer.byteLength(l);
      if (batch.length === 1000) fs.writeSync(fd, batch.splice(0).join(''));
    }
    fs.writeSync(fd, batch.join(''));
    fs.writeSync(fd, user('[Leo Chat] latest', { uuid: 'latest' }) + '\n');
    fs.writeSync(fd, assistant('msg_last', [{ type: 'text', text: 'the end' }], { uuid: 'last' }) + '\n');
    fs.closeSync(fd);
    const total = fs.statSync(p).size;
    assert.ok(total > 50 * 1024 * 1024);

    // Count what the reader asks the file for.
    let bytesRead = 0;
    const realOpen = fsp.open;
    fsp.open = (async (...args: Parameters<typeof fsp.open>) => {
      const h = await realOpen(...args);
      const realRead = h.read.bind(h) as (...a: unknown[]) => Promise<{ bytesRead: number }>;
      (h as { read: unknown }).read = async (...a: unknown[]) => {
        const r = await realRead(...a);
        bytesRead += r.bytesRead;
        return r;
      };
      return h;
    }) as typeof fsp.open;
    const heapBefore = process.memoryUsage();
    const t0 = performance.now();
    let entries: TranscriptEntry[];
    try {
      entries = await readTranscriptTail(p);
    } finally {
      fsp.open = realOpen;
    }
    const ms = performance.now() - t0;
    const heapAfter = process.memoryUsage();

    assert.ok(bytesRead <= DEFAULT_TAIL_BYTES + 1, `read ${bytesRead} bytes`);
    // Time is a benchmark's figure, not a test's verdict (a loaded CI machine took 2 s): printed only.
    t.diagnostic(`read in ${ms.toFixed(0)} ms`);
    // Whatever was read is garbage once parsed; what is kept is a few MB of entries, nowhere near the file's 50.
    const grown = heapAfter.heapUsed + heapAfter.external - (heapBefore.heapUsed + heapBefore.external);
    assert.ok(grown < 64 * 1024 * 1024, `grew ${(grown / 1048576).toFixed(1)} MB`);

    assert.equal(entries.at(-1)!.uuid, 'last');
    assert.equal(entries.at(-2)!.text, '[Leo Chat] latest');
    assert.ok(!entries.some((e) => e.uuid === 'ancient'));
    // The first entry is the first whole line inside the window.
    const first = Number(entries[0]!.uuid!.slice('filler-'.length));
    const tailStart = total - DEFAULT_TAIL_BYTES;
    let offset = Buffer.byteLength(user('[Leo Chat] ancient', { uuid: 'ancient' }) + '\n');
    for (let k = 0; k < first; k++) offset += Buffer.byteLength(filler(k));
    assert.ok(offset >= tailStart, 'the first entry starts inside the window');
    assert.ok(offset - Buffer.byteLength(filler(first - 1)) < tailStart, 'the line before it does not');
    console.log(
      `# 50 MB transcript: tail read in ${ms.toFixed(0)} ms, ${bytesRead} bytes, heap+external +${(grown / 1048576).toFixed(1)} MB, ${entries.length} entries`,
    );
  });
});

describe('parseTranscriptLines over Leo’s own lines (the opencode plugin’s transcript)', () => {
  it('a `leo` line is its entry as written; a wrong field reads as absent; a shapeless entry is other', () => {
    const lines = [
      { type: 'leo', entry: { kind: 'user_prompt', text: '[Leo Chat] hi', promptId: 'msg_1', uuid: 'msg_1' } },
      { type: 'leo', entry: { kind: 'assistant_text', text: 'Hello.', messageId: 'msg_2', midTurn: 'yes' } },
      { type: 'leo', entry: { kind: 'nonsense' } },
      { type: 'leo' },
    ].map((l) => JSON.stringify(l));
    assert.deepEqual(parseTranscriptLines(lines), [
      { kind: 'user_prompt', text: '[Leo Chat] hi', promptId: 'msg_1', uuid: 'msg_1' },
      { kind: 'assistant_text', text: 'Hello.', messageId: 'msg_2' },
      { kind: 'other', detail: 'leo:invalid' },
      { kind: 'other', detail: 'leo:invalid' },
    ]);
  });
});
