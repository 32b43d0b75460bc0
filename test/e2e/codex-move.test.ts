// A real Codex agent moved from a hub to a host mid-conversation (issue 32, "Done when" 1), each machine a real daemon
// in a network namespace of its own: the next message, sent to the old address, is answered from the host with the
// earlier turn in Codex's request; the hub shows the whole thread, and the workspace is as it was
// (test/helpers/harness-move.ts). It covers what the carrier alone must do too: `codex resume` of the rollout the
// carrier put into the host's CODEX_HOME takes input at once, for a workspace at another path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { moveMidConversation } from '../helpers/harness-move.js';

describe('a real Codex agent moved from a hub to a host', () => {
  it(
    'answers its old address from the host with its conversation, thread and workspace',
    { timeout: 180_000 },
    async (t) => {
      const moved = await moveMidConversation(t, 'codex', 'PAPAYA-7731');
      if (!moved) return;
      assert.ok(
        moved.resumed.request.includes(`<cwd>${moved.workspaces.box}</cwd>`),
        'Codex told the model of its new folder',
      );
    },
  );
});
