import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { codexSessionExists, locateCodexSessions } from '../../../src/harnesses/codex/sessions.js';

const ID = '01a232f8-1bea-7573-8555-15c16b804cf5';

describe('codex sessions', () => {
  it('CODEX_HOME from the agent’s environment, then the daemon’s, then ~/.codex', () => {
    assert.equal(locateCodexSessions({ CODEX_HOME: '/a' }, { CODEX_HOME: '/b' }), '/a/sessions');
    assert.equal(locateCodexSessions({}, { CODEX_HOME: '/b', HOME: '/h' }), '/b/sessions');
    assert.equal(locateCodexSessions({ HOME: '/u' }, { HOME: '/h' }), '/u/.codex/sessions');
  });

  it('a session resumes only once its rollout is written', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-codex-sessions-'));
    try {
      assert.equal(codexSessionExists(path.join(dir, 'missing'), ID), false);
      const day = path.join(dir, '2026', '12', '01');
      fs.mkdirSync(day, { recursive: true });
      assert.equal(codexSessionExists(dir, ID), false);
      fs.writeFileSync(path.join(day, `rollout-2026-12-01T18-57-30-${ID}.jsonl`), '{}\n');
      assert.equal(codexSessionExists(dir, ID), true);
      assert.equal(codexSessionExists(dir, ID.slice(9)), false, 'only the whole id');
      assert.equal(codexSessionExists(dir, '../x'), false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
