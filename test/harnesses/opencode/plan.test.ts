import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fs from 'node:fs';
import { LEO_MCP_TOOL_CEILING_MS, planOpencode } from '../../../src/harnesses/launch.js';
import { OPENCODE_PLUGIN_PATH } from '../../../src/harnesses/opencode/plan.js';
import { AGENT_DIR, assertNoSecrets, fileAt, LEO_KEYS, makeCtx, MCP_URL, TOKEN } from '../fixture.js';

const CONFIG = `${AGENT_DIR}/opencode.json`;

describe('opencode argv', () => {
  it('defaults: just the TUI', () => {
    assert.deepEqual(planOpencode(makeCtx()).argv, ['opencode']);
  });

  it('model, resume and bypass', () => {
    assert.deepEqual(
      planOpencode(
        makeCtx({ model: 'anthropic/claude-sonnet-4-5', resume: true, permissions: { bypass_permissions: true } }),
      ).argv,
      ['opencode', '--model', 'anthropic/claude-sonnet-4-5', '--continue', '--auto'],
    );
  });

  it('resume with a known session id', () => {
    assert.deepEqual(planOpencode(makeCtx({ resume: true, resumeSessionId: 'ses_abc123' })).argv, [
      'opencode',
      '--session',
      'ses_abc123',
    ]);
  });

  it('allow rules are not translated', () => {
    assert.deepEqual(planOpencode(makeCtx({ permissions: { allow: ['Bash(git *)'] } })).argv, ['opencode']);
    const config = JSON.parse(
      fileAt(planOpencode(makeCtx({ permissions: { allow: ['Bash(git *)'] } })), CONFIG).content,
    );
    assert.equal(config.permission, undefined);
  });
});

describe('opencode env', () => {
  it('points OPENCODE_CONFIG at the generated file and the plugin at its transcripts; the models fetch stays on', () => {
    const ctx = makeCtx();
    const env = planOpencode(ctx).env;
    assert.deepEqual(
      Object.keys(env),
      [
        ...Object.keys(ctx.env),
        ...LEO_KEYS,
        'LEO_OPENCODE_TRANSCRIPTS',
        'OPENCODE_CONFIG',
        'OPENCODE_DISABLE_AUTOUPDATE',
      ].sort(),
    );
    assert.equal(env.OPENCODE_CONFIG, CONFIG);
    assert.equal(env.LEO_OPENCODE_TRANSCRIPTS, `${AGENT_DIR}/opencode-sessions`);
    assert.equal(env.OPENCODE_DISABLE_AUTOUPDATE, '1');
    assert.ok(!('OPENCODE_DISABLE_MODELS_FETCH' in env));
  });

  it('a named environment cannot redirect OPENCODE_CONFIG, but may pass other opencode settings', () => {
    const env = planOpencode(
      makeCtx({ env: { OPENCODE_CONFIG: '/elsewhere.json', OPENCODE_DISABLE_MODELS_FETCH: '1' } }),
    ).env;
    assert.equal(env.OPENCODE_CONFIG, CONFIG);
    assert.equal(env.OPENCODE_DISABLE_MODELS_FETCH, '1');
  });
});

describe('opencode files', () => {
  it('one 0600 config with Leo’s plugin and Leo as a remote MCP server, the token by env reference', () => {
    const plan = planOpencode(makeCtx());
    assert.deepEqual(
      plan.files.map((f) => [f.path, f.mode]),
      [[CONFIG, 0o600]],
    );
    const file = fileAt(plan, CONFIG);
    assert.deepEqual(JSON.parse(file.content), {
      $schema: 'https://opencode.ai/config.json',
      instructions: [`${AGENT_DIR}/leo-instructions.md`],
      plugin: [OPENCODE_PLUGIN_PATH],
      mcp: {
        leo: {
          type: 'remote',
          url: MCP_URL,
          headers: { Authorization: 'Bearer {env:LEO_AGENT_TOKEN}' },
          oauth: false,
          enabled: true,
          timeout: 1980000,
        },
      },
    });
    assert.ok(!file.content.includes(TOKEN));
  });

  it('the plugin is the built leo-plugin.js, an absolute path opencode loads as it is', () => {
    assert.ok(OPENCODE_PLUGIN_PATH.startsWith('/'));
    assert.match(OPENCODE_PLUGIN_PATH, /\/opencode-plugin\/leo-plugin\.js$/);
    assert.ok(fs.existsSync(OPENCODE_PLUGIN_PATH), `${OPENCODE_PLUGIN_PATH} is built`);
  });

  it('the MCP timeout (ms) outlasts Leo’s tool ceiling', () => {
    const config = JSON.parse(fileAt(planOpencode(makeCtx()), CONFIG).content);
    assert.ok(config.mcp.leo.timeout > LEO_MCP_TOOL_CEILING_MS);
  });

  it('no secret in argv or files', () => {
    const ctx = makeCtx({ model: 'a/b', resume: true, permissions: { bypass_permissions: true } });
    assertNoSecrets(planOpencode(ctx), ctx);
  });
});
