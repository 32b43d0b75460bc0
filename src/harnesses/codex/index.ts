// Codex: everything Leo knows about it, as its row of the harness table.
import type { HarnessAdapter } from '../adapter.js';
import { codexChrome } from './chrome.js';
import { codexConversation } from './conversation.js';
import { CODEX_DECISIONS } from './decisions.js';
import { codexHeadless, codexHeadlessFailure } from './headless.js';
import { codexLogin } from './login.js';
import { planCodex } from './plan.js';
import { readCodexScreen } from './screen.js';
import { codexSessionExists, locateCodexSessions } from './sessions.js';

export const codex: HarnessAdapter = {
  plan: planCodex,
  headless: codexHeadless,
  headlessFailure: codexHeadlessFailure,
  program: { bin: 'codex', install: 'npm install -g @openai/codex' },
  login: codexLogin,
  // Without a rollout for it, `resume --last` (planCodex) finds the workspace's latest session or starts afresh.
  canResume: (home, id) => codexSessionExists(locateCodexSessions(home.env, home.baseEnv), id),
  conversation: codexConversation,
  screen: readCodexScreen,
  interruptKey: 'Escape',
  chrome: codexChrome,
  transcriptFormat: 'codex',
  usage: { turnField: 'turn_id' },
  decisions: CODEX_DECISIONS,
  reportsTurnEnd: false,
  repliesCaptured: true,
  defaultChatEngine: 'openai',
};
