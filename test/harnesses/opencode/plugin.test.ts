// The pure parts of Leo's opencode plugin: opencode session messages to the transcript reply capture reads (and what
// capture then decides), the turn report of a stop, and the permission request and answer it exchanges with the daemon.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  OPENCODE_DECISIONS,
  permissionRequestPayload,
  readDecision,
} from '../../../src/harnesses/opencode/opencode-plugin/protocol.js';
import {
  transcriptEntries,
  transcriptLines,
  transcriptToolName,
  turnReport,
  type OcMessage,
} from '../../../src/harnesses/opencode/opencode-plugin/session-log.js';
import { summarizePermission } from '../../../src/wire/permission.js';
import { captureReplies } from '../../../src/chat/replies/reply-capture.js';
import { parseTranscriptLines } from '../../../src/harnesses/claude/transcript.js';

const T0 = 1_796_150_000_000;
let seq = 0;
const user = (text: string, at: number, extra: Partial<OcMessage['parts'][number]> = {}): OcMessage => ({
  info: { id: `msg_u${++seq}`, role: 'user', time: { created: T0 + at } },
  parts: [{ type: 'text', text, ...extra }],
});
const assistant = (
  parts: OcMessage['parts'],
  at: number,
  opts: { done?: number; finish?: string; error?: string; tokens?: OcMessage['info']['tokens']; cost?: number } = {},
): OcMessage => ({
  info: {
    id: `msg_a${++seq}`,
    role: 'assistant',
    time: { created: T0 + at, ...(opts.done !== undefined ? { completed: T0 + opts.done } : {}) },
    ...(opts.finish ? { finish: opts.finish } : {}),
    ...(opts.error ? { error: { name: opts.error } } : {}),
    ...(opts.tokens ? { tokens: opts.tokens } : {}),
    ...(opts.cost !== undefined ? { cost: opts.cost } : {}),
  },
  parts,
});
const text = (t: string) => ({ type: 'text', text: t });
const tool = (name: string, callID: string, status = 'completed') => ({
  type: 'tool',
  tool: name,
  callID,
  state: { status },
});

/** What Leo's reply capture decides for each prompt, reading the file the plugin would write. */
function capture(messages: OcMessage[], prompts: string[], promptId?: string) {
  const entries = parseTranscriptLines(transcriptLines(transcriptEntries(messages, 'leo')).split('\n'));
  return captureReplies(
    entries,
    prompts.map((prompt) => ({ prompt })),
    { ended: promptId ? { promptId } : 'last' },
  ).map((c) => c.result);
}

describe('opencode transcript', () => {
  it('Leo’s MCP tools are named as Claude names them; others stay', () => {
    assert.equal(transcriptToolName('leo_leo_chat_post', 'leo'), 'mcp__leo__leo_chat_post');
    assert.equal(transcriptToolName('bash', 'leo'), 'bash');
    assert.equal(transcriptToolName('github_leo_chat_post', 'leo'), 'github_leo_chat_post');
  });

  it('round-trips through the transcript reader unchanged, ending with a turn-end mark', () => {
    const messages = [user('[Leo Chat] hi', 0), assistant([text('Hello.')], 100, { done: 200, finish: 'stop' })];
    const entries = transcriptEntries(messages, 'leo');
    assert.deepEqual(parseTranscriptLines(transcriptLines(entries).split('\n')), entries);
    assert.deepEqual(entries.at(-1), { kind: 'other', detail: 'leo:turn_end' });
  });

  it('the file’s turn-end mark lets a catch-up without a stop (the daemon was down) settle the last turn', () => {
    const messages = [
      user('[Leo Chat] while away', 0),
      assistant([text('Answered.')], 100, { done: 200, finish: 'stop' }),
    ];
    const entries = parseTranscriptLines(transcriptLines(transcriptEntries(messages, 'leo')).split('\n'));
    assert.deepEqual(
      captureReplies(entries, [{ prompt: '[Leo Chat] while away' }], { ended: 'none' }).map((c) => c.result),
      [{ kind: 'reply', text: 'Answered.' }],
    );
  });

  it('a finished turn answers with its last assistant text; earlier steps’ text is not the answer', () => {
    const messages = [
      user('[Leo Chat] make it', 0),
      assistant([text('Let me check.'), tool('bash', 'c1')], 100, { done: 900, finish: 'tool-calls' }),
      assistant([{ type: 'step-start' }, text('Made it.'), { type: 'step-finish' }], 1000, {
        done: 1100,
        finish: 'stop',
      }),
    ];
    assert.deepEqual(capture(messages, ['[Leo Chat] make it']), [{ kind: 'reply', text: 'Made it.' }]);
  });

  it('a turn that posted with leo_chat_post gets no reply, unless the post failed', () => {
    const posted = [
      user('[Leo Chat] post it', 0),
      assistant([tool('leo_leo_chat_post', 'p1')], 100, { done: 300, finish: 'tool-calls' }),
      assistant([text('Posted.')], 400, { done: 500, finish: 'stop' }),
    ];
    assert.deepEqual(capture(posted, ['[Leo Chat] post it']), [{ kind: 'posted', text: 'Posted.' }]);
    const failed = [
      user('[Leo Chat] post it', 0),
      assistant([tool('leo_leo_chat_post', 'p1', 'error')], 100, { done: 300, finish: 'tool-calls' }),
      assistant([text('The post failed; here it is.')], 400, { done: 500, finish: 'stop' }),
    ];
    assert.deepEqual(capture(failed, ['[Leo Chat] post it']), [
      { kind: 'reply', text: 'The post failed; here it is.' },
    ]);
  });

  it('a prompt submitted while a step still ran took that turn over; one after a finished turn starts its own', () => {
    const a = user('[Leo Chat] first', 0);
    const messages = [
      a,
      assistant([text('Working.'), tool('bash', 'c1')], 100, { done: 5000, finish: 'tool-calls' }),
      user('typed meanwhile', 2000),
      assistant([text('Answering the typed one.')], 5100, { done: 5200, finish: 'stop' }),
      user('[Leo Chat] second', 9000),
      assistant([text('Second answer.')], 9100, { done: 9200, finish: 'stop' }),
    ];
    assert.deepEqual(capture(messages, ['[Leo Chat] first', '[Leo Chat] second']), [
      { kind: 'none', reason: 'taken_over' },
      { kind: 'reply', text: 'Second answer.' },
    ]);
    const entries = transcriptEntries(messages, 'leo').filter((e) => e.kind === 'user_prompt');
    assert.deepEqual(
      entries.map((e) => [e.text, e.midTurn ?? false, e.promptId === a.info.id]),
      [
        ['[Leo Chat] first', false, true],
        ['typed meanwhile', true, true],
        ['[Leo Chat] second', false, false],
      ],
    );
  });

  it('a turn ended by a rejected permission (its step still “tool-calls”) answers nothing, and the next is its own', () => {
    const messages = [
      user('[Leo Chat] touch it', 0),
      assistant([text('Running it.'), tool('bash', 'c1', 'error')], 100, { done: 3000, finish: 'tool-calls' }),
      user('[Leo Chat] next', 8000),
      assistant([text('Next answer.')], 8100, { done: 8200, finish: 'stop' }),
    ];
    assert.deepEqual(capture(messages, ['[Leo Chat] touch it', '[Leo Chat] next']), [
      { kind: 'none', reason: 'interrupted' },
      { kind: 'reply', text: 'Next answer.' },
    ]);
  });

  it('an interrupted turn answers nothing; synthetic and empty parts are not prompts or answers', () => {
    const messages = [
      user('[Leo Chat] long job', 0),
      assistant([text('Starting the long job.')], 100, { error: 'MessageAbortedError' }),
      {
        info: { id: 'msg_syn', role: 'user', time: { created: T0 + 500 } },
        parts: [{ type: 'text', text: 'x', synthetic: true }],
      },
    ];
    assert.deepEqual(capture(messages, ['[Leo Chat] long job']), [{ kind: 'none', reason: 'interrupted' }]);
    assert.equal(
      transcriptEntries(messages, 'leo').filter((e) => e.kind === 'user_prompt').length,
      1,
      'the synthetic user message is no prompt',
    );
  });
});

describe('opencode turn report', () => {
  it('the opening prompt, the last assistant text, and the usage of the steps since the last report', () => {
    const tokens = (input: number, output: number, reasoning = 0, read = 0, write = 0) => ({
      input,
      output,
      reasoning,
      cache: { read, write },
    });
    const first = user('[Leo Chat] old', 0);
    const opening = user('[Leo Chat] now', 5000);
    const messages = [
      first,
      assistant([text('Old answer.')], 100, { done: 200, finish: 'stop', tokens: tokens(1000, 10), cost: 0.5 }),
      opening,
      assistant([text('Thinking aloud.'), tool('bash', 'c1')], 5100, {
        done: 5500,
        finish: 'tool-calls',
        tokens: tokens(2000, 20, 5, 100, 50),
        cost: 0.01,
      }),
      assistant([text('Final part one.'), text('Final part two.')], 5600, {
        done: 5700,
        finish: 'stop',
        tokens: tokens(2100, 30, 0, 1900, 0),
        cost: 0.02,
      }),
    ];
    const entries = transcriptEntries(messages, 'leo');
    const report = turnReport(messages, entries, T0 + 5000);
    assert.equal(report.prompt_id, opening.info.id);
    assert.equal(report.last_assistant_message, 'Final part one.\n\nFinal part two.');
    assert.deepEqual(
      { ...report.usage, cost_usd: Number(report.usage.cost_usd?.toFixed(6)) },
      {
        input_tokens: 4100,
        output_tokens: 55,
        cache_read_tokens: 2000,
        cache_write_tokens: 50,
        cost_usd: 0.03,
      },
    );
  });

  it('a step without a cost makes the turn’s cost unknown; a turn with no text has no last message', () => {
    const messages = [user('[Leo Chat] q', 0), assistant([tool('bash', 'c1')], 100, { done: 200, finish: 'stop' })];
    const report = turnReport(messages, transcriptEntries(messages, 'leo'), T0);
    assert.equal(report.usage.cost_usd, null);
    assert.equal(report.last_assistant_message, undefined);
  });
});

describe('opencode permission exchange', () => {
  const asked = (permission: string, metadata: Record<string, unknown>, patterns = ['x']) => ({
    id: 'per_1',
    sessionID: 'ses_1',
    permission,
    patterns,
    metadata,
  });

  it('a request in the shape Leo’s prompts summarize: the command, the file, else the patterns', () => {
    const bash = permissionRequestPayload(asked('bash', { command: 'touch a.txt' }, ['touch a.txt']));
    assert.deepEqual(bash, {
      session_id: 'ses_1',
      permission_id: 'per_1',
      tool_name: 'bash',
      tool_input: { command: 'touch a.txt' },
    });
    assert.equal(summarizePermission('bash', bash.tool_input), 'touch a.txt');
    const edit = permissionRequestPayload(asked('edit', { filepath: '/w/a.ts', diff: '-a\n+b' }));
    assert.deepEqual(edit.tool_input, { file_path: '/w/a.ts' });
    assert.equal(summarizePermission('edit', edit.tool_input), '/w/a.ts');
    const other = permissionRequestPayload(asked('external_directory', {}, ['/etc/*']));
    assert.equal(summarizePermission('external_directory', other.tool_input), '{"patterns":["/etc/*"]}');
  });

  it('reads back only the daemon’s once/reject answer', () => {
    assert.deepEqual(readDecision(OPENCODE_DECISIONS.allow()), { response: 'once' });
    assert.deepEqual(readDecision(OPENCODE_DECISIONS.deny()), { response: 'reject' });
    for (const junk of [undefined, '', 'nope', '{"response":"always"}', '{"hookSpecificOutput":{}}', 42])
      assert.equal(readDecision(junk), undefined, String(junk));
  });
});
