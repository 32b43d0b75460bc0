import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import {
  claudeOnboardingSeed,
  hookCommand,
  hookCommands,
  LEO_MCP_TOOL_CEILING_MS,
  planClaude,
  planLaunch,
} from '../../../src/harnesses/launch.js';
import { shellQuote } from '../../../src/harnesses/common.js';
import { AGENT_DIR, assertNoSecrets, fileAt, LEO_KEYS, makeCtx, MCP_URL, TOKEN, WORKSPACE } from '../fixture.js';

const SETTINGS = `${AGENT_DIR}/claude-settings.json`;
const MCP = `${AGENT_DIR}/mcp.json`;
const INSTRUCTIONS = ['--append-system-prompt-file', `${AGENT_DIR}/leo-instructions.md`];
const BASE_ARGV = [
  'claude',
  '--settings',
  SETTINGS,
  '--mcp-config',
  MCP,
  '--permission-mode',
  'default',
  ...INSTRUCTIONS,
];
const OPTIONS_ARGV = BASE_ARGV.slice(0, -2);

function hook(event: string, timeout: number) {
  return [{ hooks: [{ type: 'command', command: `/usr/local/bin/node /opt/leo/bin/leo.js hook ${event}`, timeout }] }];
}

describe('claude argv', () => {
  it('defaults: settings, MCP config and the default permission mode, no model', () => {
    assert.deepEqual(planClaude(makeCtx()).argv, BASE_ARGV);
  });

  it('resume without a known conversation starts fresh: never --continue, which exits 1 when there is none', () => {
    assert.deepEqual(planClaude(makeCtx({ model: 'opus', resume: true })).argv, [
      ...OPTIONS_ARGV,
      '--model',
      'opus',
      ...INSTRUCTIONS,
    ]);
  });

  it('resume with a known session id resumes exactly that one', () => {
    const id = '8c8e8205-fe34-4a8c-a835-ebb20746ce4b';
    const argv = planClaude(makeCtx({ resume: true, resumeSessionId: id })).argv;
    assert.deepEqual(argv.slice(OPTIONS_ARGV.length), ['--resume', id, ...INSTRUCTIONS]);
    assert.ok(!argv.includes('--continue'));
  });

  it('a session id without resume is ignored', () => {
    assert.deepEqual(planClaude(makeCtx({ resumeSessionId: 'abc' })).argv, BASE_ARGV);
  });

  it('bypass_permissions uses the bypassPermissions mode instead of default', () => {
    const argv = planClaude(makeCtx({ permissions: { bypass_permissions: true } })).argv;
    assert.deepEqual(argv, [
      'claude',
      '--settings',
      SETTINGS,
      '--mcp-config',
      MCP,
      '--permission-mode',
      'bypassPermissions',
      ...INSTRUCTIONS,
    ]);
  });

  it('bypass_permissions: false is the default mode', () => {
    assert.deepEqual(planClaude(makeCtx({ permissions: { bypass_permissions: false } })).argv, BASE_ARGV);
  });

  it('refuses option values that a CLI parser would read as flags', () => {
    assert.throws(() => planClaude(makeCtx({ model: '--dangerously-skip-permissions' })), /invalid model/);
    assert.throws(() => planClaude(makeCtx({ model: 'opus\n' })), /invalid model/);
    assert.throws(() => planClaude(makeCtx({ resume: true, resumeSessionId: '-x' })), /invalid session id/);
  });

  it('refuses a plan that would show the agent token in ps', () => {
    assert.throws(() => planClaude(makeCtx({ model: `m${TOKEN}` })), /agent token in argv/);
  });
});

describe('claude env', () => {
  it('ctx.env, the LEO_* variables and the harness settings, keys sorted', () => {
    const ctx = makeCtx();
    const env = planClaude(ctx).env;
    assert.deepEqual(env, {
      ANTHROPIC_API_KEY: ctx.env.ANTHROPIC_API_KEY,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      GITHUB_TOKEN: ctx.env.GITHUB_TOKEN,
      LEO_AGENT: 'den',
      LEO_AGENT_TOKEN: TOKEN,
      LEO_HOME: '/home/alice/.leo',
      LEO_MCP_URL: MCP_URL,
      LEO_SOCKET: '/home/alice/.leo/state/leo.sock',
      MCP_TOOL_TIMEOUT: '1980000',
    });
    assert.deepEqual(Object.keys(env), Object.keys(env).sort());
    for (const key of LEO_KEYS) assert.ok(key in env);
  });

  it('MCP_TOOL_TIMEOUT outlasts Leo’s tool ceiling', () => {
    assert.ok(Number(planClaude(makeCtx()).env.MCP_TOOL_TIMEOUT) > LEO_MCP_TOOL_CEILING_MS);
  });

  it('a named environment may override the defaults but not LEO_* nor MCP_TOOL_TIMEOUT', () => {
    const env = planClaude(
      makeCtx({
        env: { DISABLE_AUTOUPDATER: '0', LEO_AGENT: 'someone-else', LEO_AGENT_TOKEN: 'nope', MCP_TOOL_TIMEOUT: '1000' },
      }),
    ).env;
    assert.equal(env.DISABLE_AUTOUPDATER, '0');
    assert.equal(env.LEO_AGENT, 'den');
    assert.equal(env.LEO_AGENT_TOKEN, TOKEN);
    assert.equal(env.MCP_TOOL_TIMEOUT, '1980000');
  });
});

describe('claude files', () => {
  it('writes exactly the settings and MCP config, 0600, under the agent dir', () => {
    const plan = planClaude(makeCtx());
    assert.deepEqual(
      plan.files.map((f) => [f.path, f.mode]),
      [
        [SETTINGS, 0o600],
        [MCP, 0o600],
      ],
    );
  });

  it('settings install Leo’s hooks in Claude’s documented shape and allow Leo’s own tools', () => {
    const settings = JSON.parse(fileAt(planClaude(makeCtx()), SETTINGS).content);
    assert.deepEqual(settings, {
      hooks: {
        SessionStart: hook('session-start', 30),
        UserPromptSubmit: hook('user-prompt-submit', 30),
        PermissionRequest: hook('permission-request', 3660),
        Stop: hook('stop', 30),
        StopFailure: hook('stop-failure', 30),
      },
      permissions: { allow: ['mcp__leo'] },
    });
  });

  it('bypass_permissions: no PermissionRequest hook, and the bypass warning dialog is pre-accepted', () => {
    const settings = JSON.parse(
      fileAt(planClaude(makeCtx({ permissions: { bypass_permissions: true } })), SETTINGS).content,
    );
    assert.deepEqual(Object.keys(settings.hooks), ['SessionStart', 'UserPromptSubmit', 'Stop', 'StopFailure']);
    assert.equal(settings.skipDangerousModePermissionPrompt, true);
  });

  it('the template’s allow rules follow Leo’s, verbatim and without duplicates', () => {
    const allow = ['Bash(git commit:*)', 'Edit', 'mcp__leo', 'Bash(npm run test, lint)'];
    const settings = JSON.parse(fileAt(planClaude(makeCtx({ permissions: { allow } })), SETTINGS).content);
    assert.deepEqual(settings.permissions.allow, [
      'mcp__leo',
      'Bash(git commit:*)',
      'Edit',
      'Bash(npm run test, lint)',
    ]);
    assert.ok(!planClaude(makeCtx({ permissions: { allow } })).argv.includes('--allowedTools'));
  });

  it('the permission hook outlives the longest chat wait by a minute (timeout is in seconds)', () => {
    const twoHours = 2 * 60 * 60 * 1000;
    const settings = JSON.parse(fileAt(planClaude(makeCtx({ permissionWaitMs: twoHours })), SETTINGS).content);
    assert.equal(settings.hooks.PermissionRequest[0].hooks[0].timeout, 7200 + 60);
    assert.throws(() => planClaude(makeCtx({ permissionWaitMs: 0 })), /invalid permissionWaitMs/);
  });

  it('the MCP config points at Leo over HTTP and names the token variable instead of holding the token', () => {
    const file = fileAt(planClaude(makeCtx()), MCP);
    assert.deepEqual(JSON.parse(file.content), {
      mcpServers: { leo: { type: 'http', url: MCP_URL, headers: { Authorization: 'Bearer ${LEO_AGENT_TOKEN}' } } },
    });
    assert.ok(!file.content.includes(TOKEN));
  });

  it('no secret in argv or files', () => {
    for (const over of [{}, { model: 'opus', resume: true }, { permissions: { bypass_permissions: true } }]) {
      const ctx = makeCtx(over);
      assertNoSecrets(planClaude(ctx), ctx);
    }
  });

  it('deterministic: the same context gives byte-identical plans', () => {
    const a = planLaunch('claude', makeCtx({ model: 'opus' }));
    const b = planLaunch('claude', makeCtx({ model: 'opus' }));
    assert.deepEqual(a, b);
    assert.equal(JSON.stringify(a), JSON.stringify(b));
  });
});

describe('hook commands', () => {
  it('run node on leo.js directly, one per event', () => {
    assert.deepEqual(hookCommands(makeCtx()), {
      SessionStart: '/usr/local/bin/node /opt/leo/bin/leo.js hook session-start',
      UserPromptSubmit: '/usr/local/bin/node /opt/leo/bin/leo.js hook user-prompt-submit',
      PermissionRequest: '/usr/local/bin/node /opt/leo/bin/leo.js hook permission-request',
      Stop: '/usr/local/bin/node /opt/leo/bin/leo.js hook stop',
      StopFailure: '/usr/local/bin/node /opt/leo/bin/leo.js hook stop-failure',
    });
  });

  it('quote paths with spaces and quotes so the shell sees one word each', () => {
    const ctx = makeCtx();
    ctx.leo.nodeBin = '/Applications/My Node/bin/node';
    ctx.leo.leoBin = "/Users/o'brien/leo/bin/leo.js";
    const command = hookCommand(ctx, 'Stop');
    assert.equal(command, `'/Applications/My Node/bin/node' '/Users/o'\\''brien/leo/bin/leo.js' hook stop`);
    const r = spawnSync('/bin/sh', ['-c', `printf '%s\\n' ${command}`], { encoding: 'utf8' });
    assert.equal(r.stdout, `/Applications/My Node/bin/node\n/Users/o'brien/leo/bin/leo.js\nhook\nstop\n`);
  });

  it('shellQuote survives every awkward character', () => {
    const words = ['plain', '', 'a b', "it's", '$HOME', '`x`', 'a\\b', '"q"', 'new\nline', '*', 'ü'];
    const r = spawnSync('/bin/sh', ['-c', `printf '%s\\0' ${words.map(shellQuote).join(' ')}`], { encoding: 'utf8' });
    assert.deepEqual(r.stdout.split('\0').slice(0, -1), words);
  });
});

describe('claudeOnboardingSeed', () => {
  it('marks onboarding done, approves the key by its last 20 characters and trusts the workspace', () => {
    const key = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz';
    assert.equal(
      claudeOnboardingSeed(WORKSPACE, key),
      JSON.stringify(
        {
          hasCompletedOnboarding: true,
          theme: 'dark',
          customApiKeyResponses: { approved: ['ghijklmnopqrstuvwxyz'], rejected: [] },
          projects: { [WORKSPACE]: { hasTrustDialogAccepted: true } },
        },
        null,
        2,
      ) + '\n',
    );
  });

  it('a short key is approved whole; without a key there is nothing to approve', () => {
    assert.deepEqual(JSON.parse(claudeOnboardingSeed('/w', 'test')).customApiKeyResponses.approved, ['test']);
    assert.deepEqual(JSON.parse(claudeOnboardingSeed('/w')), {
      hasCompletedOnboarding: true,
      theme: 'dark',
      projects: { '/w': { hasTrustDialogAccepted: true } },
    });
  });
});
