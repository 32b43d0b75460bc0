// A real opencode agent moved from a hub to a host mid-conversation (issue 32, "Done when" 1), each machine a real
// daemon in a network namespace of its own: the next message, sent to the old address, is answered from the host with
// the earlier turn in opencode's request; the hub shows the whole thread, and the workspace is as it was
// (test/helpers/harness-move.ts). It covers what the carrier alone must do too: the session exported on the hub and
// imported into the host's data home runs in the host's workspace.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { moveMidConversation } from '../helpers/harness-move.js';

describe('a real opencode agent moved from a hub to a host', () => {
  it(
    'answers its old address from the host with its conversation, thread and workspace',
    { timeout: 360_000 },
    async (t) => {
      const moved = await moveMidConversation(t, 'opencode', 'MARMALADE-7731');
      if (!moved) return;
      const system = JSON.stringify(
        JSON.parse(moved.resumed.request).messages.filter((m: { role: string }) => m.role === 'system'),
      );
      assert.ok(!system.includes(moved.workspaces.hub), "nothing of it runs in the hub's workspace");
    },
  );
});
