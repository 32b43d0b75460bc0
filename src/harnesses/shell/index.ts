// Any other program: the template's command line, with Leo's environment and nothing read back but its pane. Its
// transcript (a script may run Claude with its own hooks) is read as Claude's, and its permission hook answered so.
import { CLAUDE_DECISIONS } from '../hook-decisions.js';
import type { HarnessAdapter } from '../adapter.js';
import { planShell } from './plan.js';

export const shell: HarnessAdapter = {
  plan: planShell,
  headless: (_ctx, interactive) => interactive,
  runsCommandLine: true,
  interruptKey: 'C-c',
  transcriptFormat: 'claude',
  decisions: CLAUDE_DECISIONS,
  reportsTurnEnd: false,
  repliesCaptured: false,
  defaultChatEngine: 'openai',
};
