import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { formatDelivery } from '../../../src/chat/threads/delivery-format.js';
import {
  captureReplies,
  normalizeForMatch,
  type CaptureOptions,
  type CaptureResult,
} from '../../../src/chat/replies/reply-capture.js';
import {
  parseTranscriptLines,
  readTranscriptTail,
  type TranscriptEntry,
} from '../../../src/harnesses/claude/transcript.js';
import { transcriptFixture as fixture } from '../../helpers/transcripts.js';

const line = (o: unknown) => JSON.stringify(o);
const user = (content: unknown, extra: Record<string, unknown> = {}) =>
  line({ type: 'user', message: { role: 'user', content }, ...extra });
const text = (id: string, t: string) =>
  line({ type: 'assistant', message: { id, role: 'assistant', content: [{ type: 'text', text: t }] } });
const toolUse = (id: string, name: string, toolId = `t-${name}`) =>
  line({
    type: 'assistant',
    message: { id, role: 'assistant', content: [{ type: 'tool_use', id: toolId, name, input: {} }] },
  });
const toolResult = (toolId: string, isError = false) =>
  user([{ type: 'tool_result', tool_use_id: toolId, content: 'ok', ...(isError ? { is_error: true } : {}) }]);
const queued = (prompt: string, kind = 'human') =>
  line({ type: 'attachment', attachment: { type: 'queued_command', prompt, origin: { kind } } });
const system = (subtype: string) => line({ type: 'system', subtype });
const parse = (...lines: string[]) => parseTranscriptLines(lines);
/** One awaiting prompt alone. */
const captureReply = (
  entries: readonly TranscriptEntry[],
  prompt: string,
  opts: CaptureOptions & { since?: number } = {},
): CaptureResult =>
  captureReplies(entries, [{ prompt, ...(opts.since ? { since: opts.since } : {}) }], opts)[0]!.result;

describe('captureReplies over recorded transcripts', () => {
  const cases: [fixture: string, prompt: string, expected: CaptureResult][] = [
    ['plain.jsonl', '[Leo Chat] What is 2+2?', { kind: 'reply', text: '2 + 2 = 4.' }],
    ['bash-tool.jsonl', '[Leo Chat] run echo hi please', { kind: 'reply', text: 'It printed `hi`.' }],
    // Posted: the closing text comes along, the answer only if the daemon finds no post in the thread.
    ['mcp-post.jsonl', '[Leo Chat] post me a summary', { kind: 'posted', text: 'Posted the summary to your thread.' }],
    // The post failed (no such tool): the closing text is the only answer the person gets.
    [
      'mcp-post-missing-tool.jsonl',
      '[Leo Chat] post me a summary',
      { kind: 'reply', text: 'The post tool is not available.' },
    ],
    ['empty-reply.jsonl', '[Leo Chat] say nothing', { kind: 'none', reason: 'empty' }],
    // "Let me check.", a tool call, then a blank answer: the earlier text is not the answer.
    ['blank-after-tool.jsonl', '[Leo Chat] check it', { kind: 'none', reason: 'empty' }],
    // Claude nudged the model after an empty answer and it answered: that answer is the reply.
    ['empty-then-nudged.jsonl', '[Leo Chat] say nothing', { kind: 'reply', text: 'OK.' }],
    ['queued-prompt-midturn.jsonl', '[Leo Chat] first message', { kind: 'none', reason: 'taken_over' }],
    [
      'queued-prompt-midturn.jsonl',
      '[Leo Chat] second message',
      { kind: 'reply', text: 'Handled the second message.' },
    ],
    [
      'queued-prompt-next-turn.jsonl',
      '[Leo Chat] first message',
      { kind: 'reply', text: 'A slow answer to the first.' },
    ],
    ['task-notification-midturn.jsonl', '[Leo Chat] start a job and then wait', { kind: 'none', reason: 'taken_over' }],
    // The notification came after the turn had ended: it opened a turn of its own.
    [
      'task-notification-next-turn.jsonl',
      '[Leo Chat] start a background job',
      { kind: 'reply', text: 'Started it in the background.' },
    ],
    // Leo's paste landed while a typed prompt's tool ran: the turn's answer is the last word on Leo's message.
    [
      'leo-prompt-absorbed-midturn.jsonl',
      '[Leo Chat] are you there?',
      { kind: 'reply', text: 'Tests pass, and yes, I am here.' },
    ],
    ['sdk-two-prompts.jsonl', '[Leo Chat] first via sdk', { kind: 'reply', text: 'First sdk answer.' }],
    ['sdk-two-prompts.jsonl', '[Leo Chat] second via sdk', { kind: 'reply', text: 'Second sdk answer.' }],
    // Alone, a prompt sent twice is the first of them (the two together: below).
    ['same-text-twice.jsonl', '[Leo Chat] same text', { kind: 'reply', text: 'First answer.' }],
    // An interrupt ends the turn without a Stop; whatever it said before is not an answer.
    ['interrupted.jsonl', '[Leo Chat] do a long thing', { kind: 'none', reason: 'interrupted' }],
    ['interrupted-then-same-text.jsonl', '[Leo Chat] count the moons', { kind: 'none', reason: 'interrupted' }],
    [
      'unicode-crlf.jsonl',
      '[Leo Chat] Grüße 👋 — ¿qué tal?\nAttachments: /tmp/a b/ü.png',
      { kind: 'reply', text: 'Hallo! 👋 Ça va — 日本語も大丈夫。' },
    ],
    ['plain.jsonl', '[Leo Chat] something never sent', { kind: 'not_found' }],
  ];
  for (const [name, prompt, expected] of cases) {
    it(`${name}: ${prompt.split('\n')[0]} → ${expected.kind}${'reason' in expected ? `/${expected.reason}` : ''}`, async () => {
      assert.deepEqual(captureReply(await readTranscriptTail(fixture(name)), prompt), expected);
    });
  }

  it("Leo's own delivery format, with [Leo Chat] twice in it, matches the recorded paste", async () => {
    const delivered = formatDelivery('what about this?', ['/tmp/x.png'], {
      kind: 'task',
      task: 'daily-news',
      runId: '01JRUN',
      at: '2026-10-15T18:00:00Z',
      text: 'News [Leo Chat] digest',
    });
    const entries = await readTranscriptTail(fixture('paste-multiline.jsonl'));
    assert.deepEqual(captureReply(entries, delivered), { kind: 'reply', text: 'Looked at the card.' });
  });

  it('a long paste Claude wrapped in <pasted_content> and whose tabs it expanded still matches', async () => {
    const card = Array.from({ length: 30 }, (_, i) => `line ${i}\tcol  `).join('\n');
    const delivered = `[Leo Chat] summarize this card  \nIn reply to task daily-news run 01JRUN (2026-10-15T18:00:00Z): ${card}`;
    const entries = await readTranscriptTail(fixture('paste-long-wrapped.jsonl'));
    assert.deepEqual(captureReply(entries, delivered), { kind: 'reply', text: 'Read the whole card.' });
  });

  it('a prompt only queued (in queue-operation, not yet a user line) is not found', async () => {
    // Cut the recording just before the queued prompt's own user line: its text is only in the queue bookkeeping.
    const lines = fs.readFileSync(fixture('queued-prompt-next-turn.jsonl'), 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"promptSource":"queued"'));
    assert.ok(at > 0);
    const before = parseTranscriptLines(lines.slice(0, at));
    assert.deepEqual(captureReply(before, 'a typed follow-up'), { kind: 'not_found' });
    assert.deepEqual(captureReply(parseTranscriptLines(lines), 'a typed follow-up'), {
      kind: 'reply',
      text: 'Answer to the second.',
    });
  });

  it('since: a re-sent message does not match the earlier identical prompt', async () => {
    const entries = await readTranscriptTail(fixture('same-text-twice.jsonl'));
    const [first, second] = entries.filter((e) => e.kind === 'user_prompt');
    const after = (t: string) => Date.parse(t) + 1;
    // Delivered after the first was recorded and before the second: the second is the match.
    assert.deepEqual(captureReply(entries, '[Leo Chat] same text', { since: after(first!.timestamp!) }), {
      kind: 'reply',
      text: 'Second answer.',
    });
    // Delivered after both: neither is ours yet.
    assert.deepEqual(captureReply(entries, '[Leo Chat] same text', { since: after(second!.timestamp!) }), {
      kind: 'not_found',
    });
  });

  it('the same text sent twice: each message gets its own turn, in order', async () => {
    const entries = await readTranscriptTail(fixture('same-text-twice.jsonl'));
    const [first, second] = entries.filter((e) => e.kind === 'user_prompt');
    const prompt = { prompt: '[Leo Chat] same text' };
    assert.deepEqual(captureReplies(entries, [prompt, prompt]), [
      { result: { kind: 'reply', text: 'First answer.' }, at: { uuid: first!.uuid, timestamp: first!.timestamp } },
      { result: { kind: 'reply', text: 'Second answer.' }, at: { uuid: second!.uuid, timestamp: second!.timestamp } },
    ]);
  });

  it('re-sent after an interrupt: the first message has the interrupted turn, the second the answer', async () => {
    const entries = await readTranscriptTail(fixture('interrupted-then-same-text.jsonl'));
    const prompt = { prompt: '[Leo Chat] count the moons' };
    const [first, second] = entries.filter((e) => e.kind === 'user_prompt');
    // The Stop that comes names the second turn.
    const ended = { promptId: second!.promptId! };
    assert.deepEqual(
      captureReplies(entries, [prompt, prompt], { ended }).map((c) => c.result),
      [
        { kind: 'none', reason: 'interrupted' },
        { kind: 'reply', text: 'Two moons.' },
      ],
    );
    // Once the first is settled, the second alone is looked for after it, not matched to the first turn again.
    assert.deepEqual(captureReplies(entries, [prompt], { ended, after: { uuid: first!.uuid! } })[0]!.result, {
      kind: 'reply',
      text: 'Two moons.',
    });
    // The interrupt ends the turn without any Stop: even catching up, it is settled, not left pending.
    assert.deepEqual(captureReplies(entries.slice(0, entries.indexOf(second!)), [prompt], { ended: 'none' })[0], {
      result: { kind: 'none', reason: 'interrupted' },
      at: { uuid: first!.uuid, timestamp: first!.timestamp },
    });
  });

  it('after: a settled prompt is never matched again, by its line or, once it is gone, by its time', async () => {
    const entries = await readTranscriptTail(fixture('same-text-twice.jsonl'));
    const [first, second] = entries.filter((e) => e.kind === 'user_prompt');
    const prompt = '[Leo Chat] same text';
    assert.deepEqual(captureReply(entries, prompt, { after: { uuid: first!.uuid! } }), {
      kind: 'reply',
      text: 'Second answer.',
    });
    assert.deepEqual(captureReply(entries, prompt, { after: { uuid: second!.uuid! } }), { kind: 'not_found' });
    // The line cut from the tail (or another session's file): anything recorded by then is taken.
    assert.deepEqual(captureReply(entries, prompt, { after: { uuid: 'gone', timestamp: first!.timestamp! } }), {
      kind: 'reply',
      text: 'Second answer.',
    });
    assert.deepEqual(captureReply(entries, prompt, { after: { uuid: 'gone', timestamp: second!.timestamp! } }), {
      kind: 'not_found',
    });
  });

  it("catching up (ended: 'none'): turns whose end is recorded are settled, a running one is pending", async () => {
    // The Leo prompt's turn ended, then a prompt typed at the terminal ran its own turn: it answers nobody.
    const lines = fs.readFileSync(fixture('queued-prompt-next-turn.jsonl'), 'utf8').split('\n');
    const awaiting = [{ prompt: '[Leo Chat] first message' }];
    assert.deepEqual(captureReplies(parseTranscriptLines(lines), awaiting, { ended: 'none' })[0]!.result, {
      kind: 'reply',
      text: 'A slow answer to the first.',
    });
    // Cut while the Leo prompt's turn was still streaming: no end recorded yet.
    const midTurn = lines.slice(
      0,
      lines.findIndex((l) => l.includes('"promptSource":"queued"')),
    );
    const running = parseTranscriptLines(midTurn.filter((l) => !/stop_hook_summary|turn_duration/.test(l)));
    assert.deepEqual(captureReplies(running, awaiting, { ended: 'none' })[0]!.result, { kind: 'pending' });
  });

  it('ended: the turn that a Stop names has ended, a later one has not', async () => {
    const entries = await readTranscriptTail(fixture('sdk-two-prompts.jsonl'));
    const [first, second] = entries.filter((e) => e.kind === 'user_prompt');
    const prompt = '[Leo Chat] second via sdk';
    assert.deepEqual(captureReply(entries, prompt, { ended: { promptId: first!.promptId! } }), { kind: 'pending' });
    assert.deepEqual(captureReply(entries, prompt, { ended: { promptId: second!.promptId! } }), {
      kind: 'reply',
      text: 'Second sdk answer.',
    });
    // The first turn is bounded by the second prompt: ended whatever the Stop says.
    assert.deepEqual(captureReply(entries, '[Leo Chat] first via sdk', { ended: { promptId: 'someone-else' } }), {
      kind: 'reply',
      text: 'First sdk answer.',
    });
  });

  it('ended: an absorbed prompt belongs to the turn it joined', async () => {
    const entries = await readTranscriptTail(fixture('leo-prompt-absorbed-midturn.jsonl'));
    const opener = entries.find((e) => e.kind === 'user_prompt')!;
    assert.deepEqual(captureReply(entries, '[Leo Chat] are you there?', { ended: { promptId: opener.promptId! } }), {
      kind: 'reply',
      text: 'Tests pass, and yes, I am here.',
    });
  });
});

describe('captureReplies on synthetic turns', () => {
  it('matching survives CRLF, CR, trailing spaces, tabs, blank lines and decomposed accents', () => {
    const entries = parse(user('[Leo Chat] Café  au\tlait \r\n\r\nAttachments: /a.png   '), text('m', 'Oui.'));
    for (const delivered of [
      '[Leo Chat] Café au lait\nAttachments: /a.png',
      '[Leo Chat] Cafe\u0301 au lait\r\nAttachments: /a.png\r\n',
      '[Leo Chat] Café au lait\rAttachments: /a.png',
      '  [Leo Chat] Café    au lait\n\n\nAttachments: /a.png\n',
    ])
      assert.deepEqual(captureReply(entries, delivered), { kind: 'reply', text: 'Oui.' }, JSON.stringify(delivered));
    assert.equal(normalizeForMatch(' a \t b \r\n\r\n c\u00a0 '), 'a b\nc');
  });

  it('whole lines only: "[Leo Chat] yes" is not found in "[Leo Chat] yes please"', () => {
    const entries = parse(user('[Leo Chat] yes please'), text('m', 'Sure.'));
    assert.deepEqual(captureReply(entries, '[Leo Chat] yes'), { kind: 'not_found' });
    assert.deepEqual(captureReply(entries, '[Leo Chat] yes please'), { kind: 'reply', text: 'Sure.' });
  });

  it('[Leo Chat] twice: the delivered prompt quoting another one', () => {
    const quoted = '[Leo Chat] see this\nIn reply to task t run r (x): [Leo Chat] earlier text';
    const earlier = user('[Leo Chat] earlier text', { uuid: 'u1' });
    const entries = parse(earlier, text('m1', 'Earlier.'), user(quoted), text('m2', 'Quoted.'));
    assert.deepEqual(captureReply(entries, quoted), { kind: 'reply', text: 'Quoted.' });
    // A line of the later prompt holds the earlier message, but not as a whole line: it is not a second match.
    assert.deepEqual(captureReply(entries, '[Leo Chat] earlier text', { after: { uuid: 'u1' } }), {
      kind: 'not_found',
    });
    assert.deepEqual(
      captureReplies(entries, [{ prompt: '[Leo Chat] earlier text' }, { prompt: quoted }]).map((c) => c.result),
      [
        { kind: 'reply', text: 'Earlier.' },
        { kind: 'reply', text: 'Quoted.' },
      ],
    );
  });

  it('prompts merged into one message (older versions): followed by another → taken over, last → reply', () => {
    const entries = parse(user('[Leo Chat] first\n[Leo Chat] second'), text('m', 'Both.'));
    assert.deepEqual(captureReply(entries, '[Leo Chat] first'), { kind: 'none', reason: 'taken_over' });
    assert.deepEqual(captureReply(entries, '[Leo Chat] second'), { kind: 'reply', text: 'Both.' });
    // Both waiting: they share the one recorded prompt.
    assert.deepEqual(
      captureReplies(entries, [{ prompt: '[Leo Chat] first' }, { prompt: '[Leo Chat] second' }]).map((c) => c.result),
      [
        { kind: 'none', reason: 'taken_over' },
        { kind: 'reply', text: 'Both.' },
      ],
    );
  });

  it('a prompt not in the transcript does not hold up the ones after it', () => {
    const entries = parse(user('[Leo Chat] b'), text('m', 'B.'));
    assert.deepEqual(
      captureReplies(entries, [{ prompt: '[Leo Chat] a' }, { prompt: '[Leo Chat] b' }]).map((c) => c.result),
      [{ kind: 'not_found' }, { kind: 'reply', text: 'B.' }],
    );
  });

  it('taken over by a typed message, a task prompt or a task-notification absorbed mid-turn', () => {
    for (const [prompt, kind] of [
      ['what about the logs?', 'human'],
      ['[Leo Task] daily-news', 'task'],
      ['<task-notification>\n<status>completed</status>\n</task-notification>', 'task-notification'],
    ] as const) {
      const entries = parse(
        user('[Leo Chat] do it'),
        toolUse('m1', 'Bash', 't1'),
        toolResult('t1'),
        queued(prompt, kind),
        text('m2', 'Done, and the other thing too.'),
      );
      assert.deepEqual(captureReply(entries, '[Leo Chat] do it'), { kind: 'none', reason: 'taken_over' }, kind);
    }
  });

  it('a prompt that joined the turn after its Stop came (Codex holds it open for the hook) does not take it over', () => {
    const t0 = Date.parse('2026-12-06T09:00:00.000Z');
    const at = (s: number) => new Date(t0 + s * 1000).toISOString();
    const prompt = (text: string, s: number): TranscriptEntry => ({
      kind: 'user_prompt',
      text,
      promptId: 'turn-1',
      turnIndex: 0,
      timestamp: at(s),
    });
    const entries: TranscriptEntry[] = [
      prompt('[Leo Chat] allow it', 0),
      { kind: 'assistant_text', text: 'Allowed, done.', messageId: 'm1', timestamp: at(5) },
      prompt('[Leo Chat] deny the next', 6),
      { kind: 'assistant_text', text: 'Denied.', messageId: 'm2', timestamp: at(9) },
      { kind: 'other', detail: 'event_msg:task_complete', timestamp: at(9) },
    ];
    const stopped = (s: number) => ({ ended: { promptId: 'turn-1', stoppedAt: t0 + s * 1000 } });
    assert.deepEqual(captureReply(entries, '[Leo Chat] allow it', stopped(5.5)), {
      kind: 'reply',
      text: 'Allowed, done.',
    });
    // Typed before the Stop came: it did join the turn, whose answer is then shared.
    assert.deepEqual(captureReply(entries, '[Leo Chat] allow it', stopped(7)), { kind: 'none', reason: 'taken_over' });
    assert.deepEqual(captureReply(entries, '[Leo Chat] allow it', { ended: { promptId: 'turn-1' } }), {
      kind: 'none',
      reason: 'taken_over',
    });
  });

  it('a later user line of the same turn index is a takeover too', () => {
    const pos = (turnIndex: number) => ({ turnPosition: { promptIndex: 0, turnIndex } });
    const entries = parse(user('[Leo Chat] hi', pos(4)), user('another', pos(4)), text('m', 'x'));
    assert.deepEqual(captureReply(entries, '[Leo Chat] hi'), { kind: 'none', reason: 'taken_over' });
    const next = parse(user('[Leo Chat] hi', pos(4)), text('m0', 'mine'), user('another', pos(5)), text('m', 'x'));
    assert.deepEqual(captureReply(next, '[Leo Chat] hi'), { kind: 'reply', text: 'mine' });
  });

  it('posted: leo_chat_post under any server name; other tools and look-alikes do not count', () => {
    const turn = (name: string) =>
      parse(user('[Leo Chat] q'), toolUse('m1', name, 't1'), toolResult('t1'), text('m2', 'Posted.'));
    for (const name of ['mcp__leo__leo_chat_post', 'mcp__leo_dev__leo_chat_post', 'mcp__my-leo__leo_chat_post'])
      assert.deepEqual(captureReply(turn(name), '[Leo Chat] q'), { kind: 'posted', text: 'Posted.' }, name);
    for (const name of ['mcp__leo__leo_chat_ask', 'mcp__leo__leo_chat_post_draft', 'leo_chat_post', 'Bash'])
      assert.deepEqual(captureReply(turn(name), '[Leo Chat] q'), { kind: 'reply', text: 'Posted.' }, name);
  });

  it('posted wins over taken over; a post in an earlier turn does not count', () => {
    const entries = parse(
      user('[Leo Chat] old'),
      toolUse('m0', 'mcp__leo__leo_chat_post', 't0'),
      toolResult('t0'),
      text('m1', 'Posted it.'),
      user('[Leo Chat] new'),
      toolUse('m2', 'mcp__leo__leo_chat_post', 't2'),
      queued('meanwhile'),
      toolResult('t2'),
      text('m3', 'x'),
      user('[Leo Chat] newest'),
      text('m4', 'Plain answer.'),
    );
    // Taken over: its closing text answers the prompt that joined it, not this one.
    assert.deepEqual(captureReply(entries, '[Leo Chat] new'), { kind: 'posted', text: '' });
    assert.deepEqual(captureReply(entries, '[Leo Chat] newest'), { kind: 'reply', text: 'Plain answer.' });
  });

  it("the reply is the last message that has text, all of that message's text blocks", () => {
    const entries = parse(
      user('[Leo Chat] q'),
      text('m1', 'Let me look.'),
      toolUse('m1', 'Read', 't1'),
      toolResult('t1'),
      line({ type: 'assistant', message: { id: 'm2', content: [{ type: 'thinking', thinking: 'so…' }] } }),
      text('m2', '  First part.  '),
      toolUse('m2', 'Bash', 't2'),
      text('m2', 'Second part.'),
      toolResult('t2'),
      line({ type: 'assistant', message: { id: 'm3', content: [{ type: 'thinking', thinking: 'done' }] } }),
      system('stop_hook_summary'),
    );
    assert.deepEqual(captureReply(entries, '[Leo Chat] q'), { kind: 'reply', text: 'First part.\n\nSecond part.' });
  });

  it('empty: a blank last message, or no text at all', () => {
    const blank = parse(
      user('[Leo Chat] q'),
      text('m1', 'Thinking out loud.'),
      toolUse('m1', 'Bash', 't'),
      toolResult('t'),
      text('m2', ' \n\t '),
    );
    assert.deepEqual(captureReply(blank, '[Leo Chat] q'), { kind: 'none', reason: 'empty' });
    assert.deepEqual(captureReply(parse(user('[Leo Chat] q')), '[Leo Chat] q'), { kind: 'none', reason: 'empty' });
  });

  it('interrupted: the text before the interrupt is not posted, in any version of the marker', () => {
    for (const marker of [
      user([{ type: 'text', text: '[Request interrupted by user]' }], { interruptedMessageId: 'm1' }),
      user('[Request interrupted by user for tool use]'),
    ]) {
      const entries = parse(user('[Leo Chat] q'), text('m1', 'Let me'), marker, user('[Leo Chat] r'), text('m2', 'R.'));
      assert.deepEqual(captureReply(entries, '[Leo Chat] q'), { kind: 'none', reason: 'interrupted' });
      assert.deepEqual(captureReply(entries, '[Leo Chat] r'), { kind: 'reply', text: 'R.' });
    }
  });

  it('pending: a tail turn with no end marker, unless the Stop names it (or names none)', () => {
    const entries = parse(user('[Leo Chat] q', { promptId: 'p2' }), text('m', 'partial so far'));
    assert.deepEqual(captureReply(entries, '[Leo Chat] q', { ended: { promptId: 'p1' } }), { kind: 'pending' });
    assert.deepEqual(captureReply(entries, '[Leo Chat] q', { ended: 'none' }), { kind: 'pending' });
    assert.deepEqual(captureReply(entries, '[Leo Chat] q', { ended: { promptId: 'p2' } }), {
      kind: 'reply',
      text: 'partial so far',
    });
    assert.deepEqual(captureReply(entries, '[Leo Chat] q'), { kind: 'reply', text: 'partial so far' });
    const ended = parse(user('[Leo Chat] q', { promptId: 'p2' }), text('m', 'all of it'), system('turn_duration'));
    for (const e of [{ promptId: 'p1' }, 'none'] as const)
      assert.deepEqual(captureReply(ended, '[Leo Chat] q', { ended: e }), { kind: 'reply', text: 'all of it' });
  });

  it('unicode replies come back whole', () => {
    const reply = 'Ja 👍🏽 — 中文 · עברית · 🇩🇪\nzweite Zeile';
    const entries = parse(user('[Leo Chat] ¿Unicode? ✓'), text('m', reply));
    assert.deepEqual(captureReply(entries, '[Leo Chat] ¿Unicode? ✓'), { kind: 'reply', text: reply });
  });

  it('a blank delivered prompt matches nothing', () => {
    const entries = parse(user('[Leo Chat] q'), text('m', 'a'));
    assert.deepEqual(captureReply(entries, ' \r\n '), { kind: 'not_found' });
    assert.deepEqual(captureReply([] as TranscriptEntry[], '[Leo Chat] q'), { kind: 'not_found' });
  });
});
