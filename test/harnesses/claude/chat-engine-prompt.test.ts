// What the claude-cli engine hands Claude as its prompt (issue 29 item 11), read from the argv of a stand-in `claude`
// on PATH: the new message when resuming; no prompt at all for `continue: true`, even after a failed turn whose user
// message is last; and Leo's stored history replayed ahead of the message when there is no Claude session to resume.
// The real CLI's side of it is in claude-cli-session.test.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ClaudeCliEngine } from '../../../src/harnesses/claude/chat-engine.js';
import type { EngineMessage } from '../../../src/core/chat-engine.js';

const RESULT = { type: 'result', subtype: 'success', is_error: false, result: 'ok', session_id: 'sess-claude' };

describe('the claude-cli engine prompt', () => {
  let dir = '';
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-claude-prompt-'));
    const fake = path.join(dir, 'claude');
    fs.writeFileSync(
      fake,
      `#!${process.execPath}\nrequire('fs').writeFileSync(process.env.ARGV_FILE, JSON.stringify(process.argv.slice(2)));\n` +
        `console.log(${JSON.stringify(JSON.stringify(RESULT))});\n`,
      { mode: 0o755 },
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The argv after `--` (the prompt), or null when none was given, and whether `--resume` was. */
  async function sent(history: EngineMessage[], opts: { resumeId?: string; continued?: boolean } = {}) {
    const argvFile = path.join(dir, 'argv.json');
    const r = await new ClaudeCliEngine().runTurn({
      sessionId: 'sess_t',
      history,
      ...(opts.continued ? { continued: true } : {}),
      resumeId: opts.resumeId ?? null,
      workspace: dir,
      env: { PATH: `${dir}:${process.env.PATH}`, ARGV_FILE: argvFile },
      signal: new AbortController().signal,
      events: {
        chunk: () => undefined,
        tool: () => undefined,
        thinking: () => undefined,
        toolChunk: () => undefined,
        message: () => assert.fail('no messages from the stand-in'),
      },
      settings: { model: 'claude-test', maxIterations: 5, maxDurationMs: 30_000 },
    });
    assert.equal(r.failure, undefined, JSON.stringify(r.failure));
    const argv = JSON.parse(fs.readFileSync(argvFile, 'utf8')) as string[];
    const dashes = argv.indexOf('--');
    return { prompt: dashes < 0 ? null : argv.slice(dashes + 1).join(' '), resumed: argv.includes('--resume') };
  }

  const asked: EngineMessage = { role: 'user', content: 'My name is Alice.' };
  const answered: EngineMessage = { role: 'assistant', content: 'Nice to meet you, Alice.' };
  const next: EngineMessage = { role: 'user', content: 'What is my name?' };

  it('resuming: the new message alone; continue: nothing, even when the failed turn left a user message last', async () => {
    assert.deepEqual(await sent([asked, answered, next], { resumeId: 'r1' }), {
      prompt: 'What is my name?',
      resumed: true,
    });
    assert.deepEqual(await sent([asked, answered], { resumeId: 'r1', continued: true }), {
      prompt: null,
      resumed: true,
    });
    assert.deepEqual(await sent([asked, answered, next], { resumeId: 'r1', continued: true }), {
      prompt: null,
      resumed: true,
    });
  });

  it("no Claude session to resume: Leo's stored history goes ahead of the new message", async () => {
    assert.deepEqual(await sent([asked]), { prompt: 'My name is Alice.', resumed: false });
    const tool: EngineMessage[] = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } }],
      },
      { role: 'tool', content: 'notes.txt', tool_call_id: 'c1' },
    ];
    const replay = await sent([asked, answered, ...tool, next]);
    assert.equal(replay.resumed, false);
    assert.equal(
      replay.prompt,
      [
        '<conversation_history>',
        '<user>',
        'My name is Alice.',
        '</user>',
        '<assistant>',
        'Nice to meet you, Alice.',
        '</assistant>',
        '<assistant>',
        '<tool_call name="Bash">{"command":"ls"}</tool_call>',
        '</assistant>',
        '<tool_result>',
        'notes.txt',
        '</tool_result>',
        '</conversation_history>',
        '',
        'What is my name?',
      ].join('\n'),
    );
    const continued = await sent([asked, answered], { continued: true });
    assert.equal(continued.prompt?.startsWith('<conversation_history>\n<user>'), true);
    assert.equal(continued.prompt?.endsWith('</conversation_history>'), true);
  });
});
