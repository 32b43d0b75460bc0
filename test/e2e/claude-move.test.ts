// A real Claude Code agent moved from a hub to a host mid-conversation (issue 32, "Done when" 1), each machine a real
// daemon in a network namespace of its own: the next message, sent to the old address, is answered from the host with
// the earlier turn in Claude's request; the hub shows the whole thread, and the workspace is as it was
// (test/helpers/harness-move.ts). It covers what a carrier alone must do too: Claude resumes the session the carrier
// put under the host's Claude config dir, for a workspace at another path.
import { describe, it } from 'node:test';
import { moveMidConversation } from '../helpers/harness-move.js';

describe('a real Claude agent moved from a hub to a host', () => {
  it(
    'answers its old address from the host with its conversation, thread and workspace',
    { timeout: 180_000 },
    async (t) => {
      await moveMidConversation(t, 'claude', 'QUINCE-4471');
    },
  );
});
