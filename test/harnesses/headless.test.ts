import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { HARNESSES, type Harness } from '../../src/config/schema.js';
import { headlessFailure, planHeadless, TASK_PROMPT_ENV, type HeadlessContext } from '../../src/harnesses/headless.js';
import { planLaunch } from '../../src/harnesses/launch.js';
import { AGENT_DIR, assertNoSecrets, fileAt, makeCtx, MCP_URL, TOKEN, WORKSPACE } from './fixture.js';

const SETTINGS = `${AGENT_DIR}/claude-settings.json`;
const MCP = `${AGENT_DIR}/mcp.json`;
const INSTRUCTIONS = `${AGENT_DIR}/leo-instructions.md`;
const OPENCODE_CONFIG = `${AGENT_DIR}/opencode.json`;
const PROMPT = 'Summarize the news';
const COMMAND = './report.sh --daily';

function runCtx(harness: Harness, over: Partial<HeadlessContext> = {}): HeadlessContext {
  return {
    ...makeCtx(harness === 'shell' ? { command: COMMAND } : {}),
    prompt: PROMPT,
    task: 'daily-news',
    runId: '01JRUN0000000000000000000A',
    ...over,
  };
}

/** The words after `--`: what the CLI reads as its prompt. */
function afterDashes(argv: string[]): string[] {
  const i = argv.indexOf('--');
  assert.ok(i >= 0, `no -- in ${argv.join(' ')}`);
  return argv.slice(i + 1);
}

/** The value after each `-c`, as key → raw TOML. */
function codexOverrides(argv: string[]): Map<string, string> {
  const out = new Map<string, string>();
  argv.forEach((arg, i) => {
    if (arg !== '-c') return;
    const kv = argv[i + 1] as string;
    out.set(kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1));
  });
  return out;
}

describe('headless claude', () => {
  it('print mode with the interactive options, the prompt after --', () => {
    assert.deepEqual(planHeadless('claude', runCtx('claude')).argv, [
      'claude',
      '-p',
      '--output-format',
      'text',
      '--settings',
      SETTINGS,
      '--mcp-config',
      MCP,
      '--permission-mode',
      'default',
      '--append-system-prompt-file',
      INSTRUCTIONS,
      '--',
      PROMPT,
    ]);
  });

  it('model and bypass_permissions; never resumes', () => {
    const argv = planHeadless(
      'claude',
      runCtx('claude', {
        model: 'opus',
        permissions: { bypass_permissions: true },
        resume: true,
        resumeSessionId: '8c8e8205-fe34-4a8c-a835-ebb20746ce4b',
      }),
    ).argv;
    assert.deepEqual(argv.slice(9), [
      'bypassPermissions',
      '--model',
      'opus',
      '--append-system-prompt-file',
      INSTRUCTIONS,
      '--',
      PROMPT,
    ]);
    assert.ok(!argv.includes('--resume') && !argv.includes('--continue'));
  });

  it('the MCP config names the run through headers Claude fills from its env', () => {
    const plan = planHeadless('claude', runCtx('claude'));
    assert.deepEqual(JSON.parse(fileAt(plan, MCP).content), {
      mcpServers: {
        leo: {
          type: 'http',
          url: MCP_URL,
          headers: {
            Authorization: 'Bearer ${LEO_AGENT_TOKEN}',
            'x-leo-task': '${LEO_TASK}',
            'x-leo-run-id': '${LEO_RUN_ID}',
          },
        },
      },
    });
  });

  it('settings allow Leo’s tools and the template’s rules, with none of the agent’s hooks: the run keeps its Stops', () => {
    const plan = planHeadless('claude', runCtx('claude', { permissions: { allow: ['Bash(git log:*)'] } }));
    assert.deepEqual(JSON.parse(fileAt(plan, SETTINGS).content), {
      hooks: { Stop: [{ hooks: [{ type: 'command', command: `{ cat; echo; } >> ${AGENT_DIR}/stops.jsonl` }] }] },
      permissions: { allow: ['mcp__leo', 'Bash(git log:*)'] },
    });
    assert.deepEqual(
      plan.files.map((f) => [f.path, f.mode]),
      [
        [SETTINGS, 0o600],
        [MCP, 0o600],
        [INSTRUCTIONS, 0o600],
      ],
    );
  });

  it('env: the interactive env plus the run’s identity', () => {
    const ctx = runCtx('claude');
    const env = planHeadless('claude', ctx).env;
    assert.equal(env.MCP_TOOL_TIMEOUT, '1980000');
    assert.equal(env[TASK_PROMPT_ENV], undefined);
    assert.deepEqual(env, { ...planLaunch('claude', ctx).env, LEO_RUN_ID: ctx.runId, LEO_TASK: 'daily-news' });
  });
});

describe('headless failures', () => {
  // The end of `codex exec` 0.171.0's output when the provider refused the request (400).
  const CODEX_TAIL = [
    'OpenAI Codex v0.171.0',
    '--------',
    'session id: 01a2331d-ab0b-7473-932e-e6d86f23cae5',
    '--------',
    'user',
    'say hi',
    'warning: Model metadata for `gpt-test` not found. Defaulting to fallback metadata; this can degrade performance.',
    'ERROR: {"error":{"message":"This model is not available.","type":"invalid_request_error","param":null,"code":null}}',
    'ERROR: {"error":{"message":"This model is not available.","type":"invalid_request_error","param":null,"code":null}}',
  ].join('\n');

  it('codex: the provider’s message from its last ERROR line, or the line as it is', () => {
    assert.equal(headlessFailure('codex', CODEX_TAIL), 'This model is not available.');
    assert.equal(
      headlessFailure('codex', 'x\nERROR: stream disconnected before completion'),
      'stream disconnected before completion',
    );
    assert.equal(headlessFailure('codex', 'OpenAI Codex v0.171.0\n--------'), null);
  });

  it('the other CLIs say nothing Leo reads', () => {
    for (const harness of ['claude', 'opencode', 'shell'] as const)
      assert.equal(headlessFailure(harness, CODEX_TAIL), null);
  });
});

describe('headless codex', () => {
  it('exec with the interactive overrides, the task headers, no daemon flag, the prompt after --', () => {
    const ctx = runCtx('codex');
    const argv = planHeadless('codex', ctx).argv;
    assert.deepEqual(argv.slice(0, 3), ['codex', 'exec', '--skip-git-repo-check']);
    assert.ok(!argv.includes('--no-daemon'));
    // Leo's hooks stay out of a run: they report as the owner agent.
    const interactive = new Map(
      [...codexOverrides(planLaunch('codex', ctx).argv)].filter(([key]) => !key.startsWith('hooks.')),
    );
    const overrides = codexOverrides(argv);
    for (const [key, value] of interactive) assert.equal(overrides.get(key), value, key);
    assert.ok(![...overrides.keys()].some((key) => key.startsWith('hooks.')));
    assert.equal(
      overrides.get('mcp_servers.leo.env_http_headers'),
      '{"x-leo-task"="LEO_TASK","x-leo-run-id"="LEO_RUN_ID"}',
    );
    assert.equal(overrides.size, interactive.size + 1);
    assert.deepEqual(afterDashes(argv), [PROMPT]);
  });

  it('model and bypass before --', () => {
    const argv = planHeadless(
      'codex',
      runCtx('codex', { model: 'gpt-5.1-codex', permissions: { bypass_permissions: true } }),
    ).argv;
    assert.deepEqual(argv.slice(-5), [
      '--model',
      'gpt-5.1-codex',
      '--dangerously-bypass-approvals-and-sandbox',
      '--',
      PROMPT,
    ]);
  });

  it('a lone "-" would mean "read stdin": refused', () => {
    assert.throws(() => planHeadless('codex', runCtx('codex', { prompt: '-' })), /invalid task prompt/);
  });

  it('a prompt naming an exec subcommand stays a prompt', () => {
    assert.deepEqual(afterDashes(planHeadless('codex', runCtx('codex', { prompt: 'review' })).argv), ['review']);
  });
});

describe('headless opencode', () => {
  it('run with the interactive options; the prompt split at spaces so opencode joins it back unquoted', () => {
    const argv = planHeadless(
      'opencode',
      runCtx('opencode', { model: 'anthropic/claude-sonnet-4-5', permissions: { bypass_permissions: true } }),
    ).argv;
    assert.deepEqual(argv, [
      'opencode',
      'run',
      '--model',
      'anthropic/claude-sonnet-4-5',
      '--auto',
      '--',
      'Summarize',
      'the',
      'news',
    ]);
  });

  it('the split loses nothing: double spaces, tabs, newlines and quotes survive the join', () => {
    const prompt = ' Two  spaces,\ttab\nnew line "quoted" ';
    const words = afterDashes(planHeadless('opencode', runCtx('opencode', { prompt })).argv);
    assert.ok(words.every((w) => !w.includes(' ')));
    assert.equal(words.join(' '), prompt);
  });

  it('its config file adds the task headers in opencode’s {env:VAR} form', () => {
    const ctx = runCtx('opencode');
    const plan = planHeadless('opencode', ctx);
    const config = JSON.parse(fileAt(plan, OPENCODE_CONFIG).content);
    assert.deepEqual(config.mcp.leo.headers, {
      Authorization: 'Bearer {env:LEO_AGENT_TOKEN}',
      'x-leo-task': '{env:LEO_TASK}',
      'x-leo-run-id': '{env:LEO_RUN_ID}',
    });
    assert.equal(plan.env.OPENCODE_CONFIG, OPENCODE_CONFIG);
  });

  it('leaves Leo’s plugin out: a run’s turn ends must not be reported as the owner agent’s', () => {
    const config = JSON.parse(fileAt(planHeadless('opencode', runCtx('opencode')), OPENCODE_CONFIG).content);
    assert.equal(config.plugin, undefined);
  });
});

describe('headless shell', () => {
  it('the command under sh, the prompt in LEO_TASK_PROMPT', () => {
    const plan = planHeadless('shell', runCtx('shell', { prompt: '-x "$(rm -rf /)"' }));
    assert.deepEqual(plan.argv, ['/bin/sh', '-c', COMMAND]);
    assert.equal(plan.env[TASK_PROMPT_ENV], '-x "$(rm -rf /)"');
    assert.deepEqual(
      plan.files.map((f) => f.path),
      [INSTRUCTIONS],
    );
  });

  it('still needs a command', () => {
    assert.throws(() => planHeadless('shell', { ...runCtx('shell'), command: undefined }), /needs a command/);
  });

  it('needs no prompt: the command is the whole task', () => {
    const plan = planHeadless('shell', { ...runCtx('shell'), prompt: undefined });
    assert.deepEqual(plan.argv, ['/bin/sh', '-c', COMMAND]);
    assert.equal(TASK_PROMPT_ENV in plan.env, false);
  });

  it('an agent CLI still does', () => {
    for (const harness of ['claude', 'codex', 'opencode'] as const)
      assert.throws(() => planHeadless(harness, { ...runCtx(harness), prompt: undefined }), /needs a prompt/);
  });
});

describe('planHeadless, every harness', () => {
  for (const harness of HARNESSES) {
    describe(harness, () => {
      it('LEO_TASK and LEO_RUN_ID are set and no named environment overrides them', () => {
        const ctx = runCtx(harness);
        ctx.env = { ...ctx.env, LEO_TASK: 'other', LEO_RUN_ID: 'forged', LEO_AGENT: 'someone', [TASK_PROMPT_ENV]: 'x' };
        const env = planHeadless(harness, ctx).env;
        assert.equal(env.LEO_TASK, 'daily-news');
        assert.equal(env.LEO_RUN_ID, '01JRUN0000000000000000000A');
        assert.equal(env.LEO_AGENT, 'den');
        assert.equal(env.LEO_AGENT_TOKEN, TOKEN);
        if (harness === 'shell') assert.equal(env[TASK_PROMPT_ENV], PROMPT);
        assert.deepEqual(Object.keys(env), Object.keys(env).sort());
      });

      it('a prompt that looks like an option is never read as one', () => {
        for (const prompt of ['--dangerously-skip-permissions', '-p', '--', '--help me']) {
          const plan = planHeadless(harness, runCtx(harness, { prompt }));
          if (harness === 'shell') {
            assert.ok(!plan.argv.includes(prompt));
            continue;
          }
          assert.equal(afterDashes(plan.argv).join(' '), prompt);
        }
      });

      it('refuses an empty prompt or one holding a NUL byte', () => {
        for (const prompt of ['', '  \n', 'a\0b']) {
          assert.throws(() => planHeadless(harness, runCtx(harness, { prompt })), /invalid task prompt/);
        }
      });

      it('never shows a secret in argv or files, and refuses a prompt holding the token', () => {
        const ctx = runCtx(harness, { model: 'm', permissions: { bypass_permissions: true } });
        assertNoSecrets(planHeadless(harness, ctx), ctx);
        if (harness !== 'shell') {
          assert.throws(
            () => planHeadless(harness, runCtx(harness, { prompt: `use ${TOKEN}` })),
            /agent token in argv/,
          );
        }
      });

      it('files go under the run’s dir, private; the workspace is untouched', () => {
        for (const file of planHeadless(harness, runCtx(harness)).files) {
          assert.equal(path.dirname(file.path), AGENT_DIR);
          assert.equal(file.mode, 0o600);
          assert.ok(!file.path.startsWith(WORKSPACE));
        }
      });

      it('deterministic, and does not modify its context', () => {
        const ctx = runCtx(harness, { permissions: { allow: ['Edit'] }, resume: true });
        const before = structuredClone(ctx);
        assert.equal(JSON.stringify(planHeadless(harness, ctx)), JSON.stringify(planHeadless(harness, ctx)));
        assert.deepEqual(ctx, before);
      });
    });
  }
});
