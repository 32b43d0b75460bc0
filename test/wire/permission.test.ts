import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  SUMMARY_MAX_CHARS,
  PermissionRequestPayload,
  summarizePermission,
  validatePermissionAnswer,
} from '../../src/wire/permission.js';
import { CLAUDE_DECISIONS, allowOutput, denyOutput, sessionPermissions } from '../../src/harnesses/hook-decisions.js';

describe('summarizePermission', () => {
  it('shows the command for Bash (with its description), the path, URL or query for the tools that have one', () => {
    assert.equal(summarizePermission('Bash', { command: 'rm -rf build' }), 'rm -rf build');
    assert.equal(summarizePermission('Bash', { command: 'touch x', description: 'Create x' }), 'touch x (Create x)');
    assert.equal(summarizePermission('Write', { file_path: '/w/a.ts', content: 'long' }), '/w/a.ts');
    assert.equal(summarizePermission('NotebookEdit', { notebook_path: '/w/n.ipynb' }), '/w/n.ipynb');
    assert.equal(summarizePermission('WebFetch', { url: 'https://example.com', prompt: 'p' }), 'https://example.com');
    assert.equal(summarizePermission('WebSearch', { query: 'leo daemon' }), 'leo daemon');
  });

  it('falls back to compact JSON, folds whitespace and cuts long input', () => {
    assert.equal(summarizePermission('mcp__x__y', { a: 1, b: 'two' }), '{"a":1,"b":"two"}');
    assert.equal(summarizePermission('Bash', { command: 'echo a\n\n   b' }), 'echo a b');
    assert.equal(summarizePermission('Odd', undefined), '');
    const long = summarizePermission('Bash', { command: 'x'.repeat(2000) });
    assert.equal([...long].length, SUMMARY_MAX_CHARS);
    assert.ok(long.endsWith('…'));
  });
});

describe('validatePermissionAnswer', () => {
  it('takes exactly one of allow or deny; text only with deny, trimmed', () => {
    assert.deepEqual(validatePermissionAnswer({ values: ['allow'] }), {
      ok: true,
      decision: 'allow',
      answer: { values: ['allow'], text: '' },
    });
    assert.deepEqual(validatePermissionAnswer({ values: ['deny'], text: '  not on main  ' }), {
      ok: true,
      decision: 'deny',
      answer: { values: ['deny'], text: 'not on main' },
    });
  });

  it('refuses everything else with a message naming the field', () => {
    const bad = (body: Parameters<typeof validatePermissionAnswer>[0], re: RegExp) => {
      const r = validatePermissionAnswer(body);
      assert.equal(r.ok, false);
      assert.match((r as { error: string }).error, re);
    };
    bad({}, /^values: exactly one/);
    bad({ values: ['allow', 'deny'] }, /^values: exactly one .* 2 values/);
    bad({ values: ['maybe'] }, /^values\[0\]: "maybe" is not/);
    bad({ values: ['terminal'] }, /is not "allow", "allow_session" or "deny"/);
    bad({ values: ['allow_session'], text: 'because' }, /^text: only a deny takes text/);
    bad({ values: ['allow'], text: 'because' }, /^text: only a deny takes text/);
    bad({ values: ['deny'], text: 'x'.repeat(4001) }, /^text: longer than 4000/);
    bad({ values: ['allow'], answers: {} }, /^answers: a permission prompt/);
  });
});

describe('decision output', () => {
  it('is the hookSpecificOutput Claude reads from a PermissionRequest hook', () => {
    assert.deepEqual(JSON.parse(allowOutput()), {
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
    assert.deepEqual(JSON.parse(allowOutput({ questions: [], answers: { Q: 'A' } })).hookSpecificOutput.decision, {
      behavior: 'allow',
      updatedInput: { questions: [], answers: { Q: 'A' } },
    });
    assert.deepEqual(JSON.parse(denyOutput('')).hookSpecificOutput.decision, {
      behavior: 'deny',
      message: 'Denied from Leo Chat',
    });
    assert.equal(
      JSON.parse(denyOutput('use a branch')).hookSpecificOutput.decision.message,
      'Denied from Leo Chat: use a branch',
    );
  });
});

describe('allow for this session (issue 27)', () => {
  it('hands Claude its suggestions back, each kept for the session only, as updatedPermissions', () => {
    const suggestion = {
      type: 'addRules',
      rules: [{ toolName: 'Bash', ruleContent: 'touch:*' }],
      behavior: 'allow',
      destination: 'localSettings',
    };
    assert.deepEqual(validatePermissionAnswer({ values: ['allow_session'] }), {
      ok: true,
      decision: 'allow_session',
      answer: { values: ['allow_session'], text: '' },
    });
    assert.deepEqual(JSON.parse(CLAUDE_DECISIONS.allowSession!(sessionPermissions([suggestion]))), {
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'allow', updatedPermissions: [{ ...suggestion, destination: 'session' }] },
      },
    });
  });

  it('suggestions of a shape Leo does not know drop the offer, not the prompt', () => {
    const parsed = PermissionRequestPayload.safeParse({ tool_name: 'Bash', permission_suggestions: 'always' });
    assert.deepEqual(parsed.success && parsed.data.permission_suggestions, undefined);
  });
});
