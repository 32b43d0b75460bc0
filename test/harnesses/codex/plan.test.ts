import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  codexConfigOverrides,
  codexHookHash,
  codexHookOverrides,
  codexHookTrustKey,
  hookCommand,
  LEO_HOOK_EVENTS,
  LEO_MCP_TOOL_CEILING_MS,
  planCodex,
} from '../../../src/harnesses/launch.js';
import { tomlString } from '../../../src/harnesses/common.js';
import { leoInstructions } from '../../../src/harnesses/instructions.js';
import { assertNoSecrets, LEO_KEYS, makeCtx, MCP_URL, TOKEN, WORKSPACE } from '../fixture.js';

const OVERRIDES = [
  'check_for_update_on_startup=false',
  `mcp_servers.leo.url="${MCP_URL}"`,
  'mcp_servers.leo.bearer_token_env_var="LEO_AGENT_TOKEN"',
  'mcp_servers.leo.default_tools_approval_mode="approve"',
  'mcp_servers.leo.tool_timeout_sec=1980',
  `projects={"${WORKSPACE}"={trust_level="trusted"}}`,
  `developer_instructions=${tomlString(leoInstructions('codex', {}))}`,
];
const HOOK_OVERRIDES = codexHookOverrides(makeCtx());
const OVERRIDE_ARGS = [...OVERRIDES, ...HOOK_OVERRIDES].flatMap((o) => ['-c', o]);

/**
 * What `codex app-server` 0.171.0 reported (hooks/list) for makeCtx()'s hooks passed as these overrides: each one's
 * key and current hash, and `trustStatus: "trusted"` for all four.
 */
const MEASURED_TRUST = {
  SessionStart: 'sha256:54644dde635cfe717a2e2c677102ca1b6a76bfda64c785f12a53ffe80ce52aee',
  UserPromptSubmit: 'sha256:25d6f26be54dc623c96f1886e4e5103a833c7a1a93bd5dcb14c157461581cf76',
  PermissionRequest: 'sha256:0cdfcfcb4db6046647c764be8fcd889bdd00df4a24222a47bfbdc1480a3d10ee',
  Stop: 'sha256:35b9fb951e8660e73650897c6d182d5b9d7211ec903438985b6e0b6ffd272c60',
};

/** The `-c` values as a key → value map; TOML basic strings with the escapes tomlString emits are valid JSON. */
function overrideMap(argv: string[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  argv.forEach((arg, i) => {
    if (arg !== '-c') return;
    const kv = argv[i + 1] as string;
    const eq = kv.indexOf('=');
    const raw = kv.slice(eq + 1);
    out.set(kv.slice(0, eq), raw.startsWith('"') ? JSON.parse(raw) : raw);
  });
  return out;
}

describe('codex argv', () => {
  it('defaults: own server process, Leo’s MCP server through -c overrides, no model', () => {
    assert.deepEqual(planCodex(makeCtx()).argv, ['codex', '--no-daemon', ...OVERRIDE_ARGS]);
  });

  it('model', () => {
    assert.deepEqual(planCodex(makeCtx({ model: 'gpt-5.1-codex' })).argv, [
      'codex',
      '--no-daemon',
      ...OVERRIDE_ARGS,
      '--model',
      'gpt-5.1-codex',
    ]);
  });

  it('resume continues the most recent session in the workspace, or a known one', () => {
    assert.deepEqual(planCodex(makeCtx({ resume: true })).argv.slice(0, 4), [
      'codex',
      'resume',
      '--last',
      '--no-daemon',
    ]);
    const id = '0199a213-81c0-7800-8aa1-bbab2a035a53';
    assert.deepEqual(planCodex(makeCtx({ resume: true, resumeSessionId: id })).argv.slice(0, 4), [
      'codex',
      'resume',
      id,
      '--no-daemon',
    ]);
  });

  it('bypass_permissions adds the bypass flag; allow rules have no codex form', () => {
    const argv = planCodex(makeCtx({ permissions: { bypass_permissions: true, allow: ['Bash(git *)'] } })).argv;
    assert.equal(argv.at(-1), '--dangerously-bypass-approvals-and-sandbox');
    assert.ok(!argv.some((a) => a.includes('git *')));
    assert.ok(!planCodex(makeCtx()).argv.includes('--dangerously-bypass-approvals-and-sandbox'));
  });

  it('the overrides parse as the intended config', () => {
    const map = overrideMap(planCodex(makeCtx()).argv);
    assert.equal(map.get('mcp_servers.leo.url'), MCP_URL);
    assert.equal(map.get('mcp_servers.leo.bearer_token_env_var'), 'LEO_AGENT_TOKEN');
    assert.equal(map.get('mcp_servers.leo.default_tools_approval_mode'), 'approve');
    assert.ok(Number(map.get('mcp_servers.leo.tool_timeout_sec')) * 1000 > LEO_MCP_TOOL_CEILING_MS);
    assert.deepEqual(codexConfigOverrides(makeCtx()), OVERRIDES);
  });

  it('an awkward workspace path is escaped in the trust table', () => {
    const workspace = '/home/a "b"\\c\nd\tü\u0001';
    const projects = overrideMap(planCodex(makeCtx({ workspace })).argv).get('projects') as string;
    const m = /^\{("(?:[^"\\]|\\.)*")=\{trust_level="trusted"\}\}$/.exec(projects);
    assert.ok(m, projects);
    assert.equal(JSON.parse(m[1] as string), workspace);
  });

  it('never puts the token in argv', () => {
    const ctx = makeCtx({ model: 'm', resume: true, permissions: { bypass_permissions: true } });
    assertNoSecrets(planCodex(ctx), ctx);
    assert.throws(() => planCodex(makeCtx({ workspace: `/w/${TOKEN}` })), /agent token in argv/);
  });
});

describe('codex hooks', () => {
  it('each of Leo’s hooks runs `leo hook <event>`, the permission hook outliving Leo’s own wait', () => {
    const map = overrideMap(HOOK_OVERRIDES.flatMap((o) => ['-c', o]));
    for (const event of LEO_HOOK_EVENTS) {
      const timeout = event === 'PermissionRequest' ? 3660 : 30;
      const command = tomlString(hookCommand(makeCtx(), event));
      // Codex 0.171.0 has no StopFailure: a failed turn is found in the rollout instead.
      const expected =
        event === 'StopFailure' ? undefined : `[{hooks=[{type="command",command=${command},timeout=${timeout}}]}]`;
      assert.equal(map.get(`hooks.${event}`), expected, event);
    }
    assert.match(hookCommand(makeCtx(), 'Stop'), /^\/usr\/local\/bin\/node \/opt\/leo\/bin\/leo\.js hook stop$/);
  });

  it('trusts exactly its own hooks by the hash codex computes for them', () => {
    const map = overrideMap(HOOK_OVERRIDES.flatMap((o) => ['-c', o]));
    const state = map.get('hooks.state') as string;
    for (const [event, hash] of Object.entries(MEASURED_TRUST)) {
      const e = event as keyof typeof MEASURED_TRUST;
      const command = hookCommand(makeCtx(), e);
      assert.equal(codexHookHash(e, command, e === 'PermissionRequest' ? 3660 : 30), hash, event);
      assert.ok(state.includes(`${tomlString(codexHookTrustKey(e))}={trusted_hash="${hash}"}`), state);
    }
    assert.equal(codexHookTrustKey('UserPromptSubmit'), '/<session-flags>/config.toml:user_prompt_submit:0:0');
  });

  it('a longer permission wait changes that hook’s timeout and its trusted hash together', () => {
    const ctx = makeCtx({ permissionWaitMs: 2 * 60 * 60 * 1000 });
    const map = overrideMap(codexHookOverrides(ctx).flatMap((o) => ['-c', o]));
    assert.match(map.get('hooks.PermissionRequest') as string, /timeout=7260\}/);
    const hash = codexHookHash('PermissionRequest', hookCommand(ctx, 'PermissionRequest'), 7260);
    assert.notEqual(hash, MEASURED_TRUST.PermissionRequest);
    assert.ok((map.get('hooks.state') as string).includes(hash));
  });

  it('bypass_permissions installs no permission hook', () => {
    const map = overrideMap(planCodex(makeCtx({ permissions: { bypass_permissions: true } })).argv);
    assert.equal(map.get('hooks.PermissionRequest'), undefined);
    assert.ok(!(map.get('hooks.state') as string).includes('permission_request'));
    assert.ok(map.has('hooks.Stop'));
  });
});

describe('codex env and files', () => {
  it('no files and no CODEX_HOME of its own: the user’s login and provider stay in play', () => {
    const ctx = makeCtx();
    const plan = planCodex(ctx);
    assert.deepEqual(plan.files, []);
    assert.deepEqual(Object.keys(plan.env), [...Object.keys(ctx.env), ...LEO_KEYS].sort());
    assert.equal(plan.env.LEO_AGENT_TOKEN, TOKEN);
  });

  it('a named environment’s CODEX_HOME passes through', () => {
    assert.equal(
      planCodex(makeCtx({ env: { CODEX_HOME: '/home/alice/.codex-work' } })).env.CODEX_HOME,
      '/home/alice/.codex-work',
    );
  });
});

describe('tomlString', () => {
  it('escapes quotes, backslashes and control characters', () => {
    assert.equal(tomlString('plain'), '"plain"');
    assert.equal(tomlString('a"b\\c'), '"a\\"b\\\\c"');
    assert.equal(tomlString('\n\r\t\u0000\u001f\u007f'), '"\\n\\r\\t\\u0000\\u001f\\u007f"');
    assert.equal(tomlString('ü→😀'), '"ü→😀"');
  });
});
