import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { HARNESSES } from '../../src/config/schema.js';
import {
  planClaude,
  planCodex,
  planLaunch,
  planOpencode,
  planShell,
  type LaunchContext,
} from '../../src/harnesses/launch.js';
import { AGENT_DIR, assertNoSecrets, LEO_KEYS, makeCtx, MCP_URL, TOKEN } from './fixture.js';

function ctxFor(harness: string, over: Partial<LaunchContext> = {}): LaunchContext {
  return makeCtx({ ...(harness === 'shell' ? { command: 'my-agent --serve' } : {}), ...over });
}

describe('planLaunch', () => {
  it('dispatches to each harness', () => {
    const planners = { claude: planClaude, codex: planCodex, opencode: planOpencode, shell: planShell };
    for (const harness of HARNESSES) {
      // planLaunch adds only the instructions file and LEO_INSTRUCTIONS (test/agents/harness/instructions.test.ts).
      const { env, files, ...plan } = planLaunch(harness, ctxFor(harness));
      const own = planners[harness](ctxFor(harness));
      assert.deepEqual(plan, { argv: own.argv }, harness);
      assert.deepEqual(env, { ...own.env, LEO_INSTRUCTIONS: `${ctxFor(harness).leo.agentDir}/leo-instructions.md` });
      assert.deepEqual(files.slice(0, -1), own.files, harness);
    }
  });

  for (const harness of HARNESSES) {
    describe(harness, () => {
      const variants: Partial<LaunchContext>[] = [
        {},
        { model: 'some-model', resume: true },
        { resume: true, resumeSessionId: 'sess-1' },
        { permissions: { bypass_permissions: true, allow: ['Bash(git *)'] } },
      ];

      it('every session gets the LEO_* variables with the right values', () => {
        const env = planLaunch(harness, ctxFor(harness)).env;
        for (const key of LEO_KEYS) assert.ok(key in env, key);
        assert.equal(env.LEO_AGENT, 'den');
        assert.equal(env.LEO_AGENT_TOKEN, TOKEN);
        assert.equal(env.LEO_MCP_URL, MCP_URL);
      });

      it('passes every named-environment value through unchanged', () => {
        const ctx = ctxFor(harness);
        const env = planLaunch(harness, ctx).env;
        for (const [key, value] of Object.entries(ctx.env)) assert.equal(env[key], value, key);
      });

      it('no secret in argv or files, in any variant', () => {
        for (const over of variants) {
          const ctx = ctxFor(harness, over);
          assertNoSecrets(planLaunch(harness, ctx), ctx);
        }
      });

      it('files are absolute, under the agent dir, and private', () => {
        for (const over of variants) {
          for (const file of planLaunch(harness, ctxFor(harness, over)).files) {
            assert.ok(path.isAbsolute(file.path));
            assert.equal(path.dirname(file.path), AGENT_DIR);
            assert.equal(file.mode, 0o600);
          }
        }
      });

      it('env keys are sorted and the plan is deterministic', () => {
        for (const over of variants) {
          const a = planLaunch(harness, ctxFor(harness, over));
          assert.deepEqual(Object.keys(a.env), Object.keys(a.env).sort());
          assert.equal(JSON.stringify(a), JSON.stringify(planLaunch(harness, ctxFor(harness, over))));
        }
      });

      it('does not modify its context', () => {
        const ctx = ctxFor(harness, { permissions: { allow: ['Edit'] } });
        const before = structuredClone(ctx);
        planLaunch(harness, ctx);
        assert.deepEqual(ctx, before);
      });
    });
  }
});

describe('the argv token guard', () => {
  it('ignores stand-in tokens too short to be real, which can occur inside ordinary arguments', () => {
    for (const harness of HARNESSES) {
      const ctx = ctxFor(harness);
      ctx.leo.agentToken = 'T';
      assert.doesNotThrow(() => planLaunch(harness, ctx), harness);
    }
  });
});
