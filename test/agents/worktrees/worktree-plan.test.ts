import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as plan from '../../../src/agents/worktrees/worktree-plan.js';
import { removedLine } from '../../../src/cli/agent-commands.js';

describe('worktree plan (pure)', () => {
  it('a worktree goes under the repository’s folder name, beside any tree that holds the place', () => {
    assert.equal(plan.agentBranch('den'), 'leo/den');
    const taken = new Set(['/h/worktrees/widget/den', '/h/worktrees/widget/den-2']);
    assert.equal(
      plan.worktreePlace('/h/worktrees', '/src/widget', 'den', (d) => taken.has(d)),
      '/h/worktrees/widget/den-3',
    );
    assert.equal(
      plan.worktreePlace('/h/worktrees', '/src/widget', 'fox', (d) => taken.has(d)),
      '/h/worktrees/widget/fox',
    );
  });

  it('only what lies below the worktrees folder is Leo’s to take away', () => {
    assert.ok(plan.inWorktreesFolder('/h/worktrees', '/h/worktrees/widget/den'));
    assert.ok(!plan.inWorktreesFolder('/h/worktrees', '/h/worktrees'));
    assert.ok(!plan.inWorktreesFolder('/h/worktrees', '/h/worktrees-other/den'));
    assert.ok(!plan.inWorktreesFolder('/h/worktrees', '/h/worktrees/../repo'));
  });

  it('reads git worktree list --porcelain -z, a detached tree with no branch', () => {
    const out =
      'worktree /src/widget\0HEAD 1111\0branch refs/heads/main\0\0' +
      'worktree /h/worktrees/widget/den\0HEAD 2222\0branch refs/heads/leo/den\0\0' +
      'worktree /tmp/detached\0HEAD 3333\0detached\0\0';
    assert.deepEqual(plan.parseWorktreeList(out), [
      { path: '/src/widget', branch: 'refs/heads/main' },
      { path: '/h/worktrees/widget/den', branch: 'refs/heads/leo/den' },
      { path: '/tmp/detached', branch: null },
    ]);
  });

  it('counts status entries, a rename’s original path not as a second one', () => {
    const status =
      '1 .M N... 100644 100644 100644 a b src/app.ts\0' +
      '2 R. N... 100644 100644 100644 a b R100 new.ts\0old.ts\0' +
      '? notes/x.md\0';
    assert.equal(plan.countStatusEntries(status), 3);
    assert.equal(plan.countStatusEntries(''), 0);
  });

  it('says what would be lost, or nothing', () => {
    assert.equal(plan.keepReason({ uncommitted: 0, unpushed: 0 }), null);
    assert.equal(plan.keepReason({ uncommitted: 1, unpushed: 0 }), '1 uncommitted file');
    assert.equal(
      plan.keepReason({ uncommitted: 2, unpushed: 3 }),
      '2 uncommitted files and 3 commits on no other branch (not pushed)',
    );
  });

  it('leo agent remove says what became of the worktree', () => {
    assert.equal(removedLine({ name: 'den', removed: true }), 'removed den');
    const w = { path: '/w/den', branch: 'leo/den' };
    assert.equal(
      removedLine({ name: 'den', removed: true, worktree: { ...w, removed: true, branch_removed: true } }),
      'removed den and its worktree /w/den and branch leo/den',
    );
    assert.equal(
      removedLine({
        name: 'den',
        removed: true,
        worktree: { ...w, removed: false, branch_removed: false, kept: '1 uncommitted file' },
      }),
      'removed den; kept its worktree /w/den (branch leo/den): 1 uncommitted file',
    );
    assert.equal(
      removedLine({
        name: 'den',
        removed: true,
        worktree: { ...w, removed: true, branch_removed: false, kept: 'the branch leo/den stays' },
      }),
      'removed den and its worktree /w/den; the branch leo/den stays',
    );
  });
});
