// opencode: everything Leo knows about it, as its row of the harness table. Its hooks are Leo's plugin
// (opencode-plugin/), whose transcripts are written in the normalized entries Claude's reader also reads.
import type { HarnessAdapter } from '../adapter.js';
import { opencodeChrome } from './chrome.js';
import { opencodeConversation } from './conversation.js';
import { opencodeStartNote } from './first-start.js';
import { opencodeHeadless } from './headless.js';
import { opencodeLogin } from './login.js';
import { OPENCODE_DECISIONS } from './opencode-plugin/protocol.js';
import { planOpencode } from './plan.js';
import { readOpencodeScreen } from './screen.js';
import { opencodeTurnUsage } from './usage.js';

export const opencode: HarnessAdapter = {
  plan: planOpencode,
  headless: opencodeHeadless,
  program: { bin: 'opencode', install: 'npm install -g opencode-ai' },
  login: opencodeLogin,
  conversation: opencodeConversation,
  startNote: opencodeStartNote,
  screen: readOpencodeScreen,
  interruptKey: 'Escape',
  chrome: opencodeChrome,
  transcriptFormat: 'claude',
  usage: { fromStop: opencodeTurnUsage },
  decisions: OPENCODE_DECISIONS,
  reportsTurnEnd: false,
  repliesCaptured: true,
  defaultChatEngine: 'openai',
};
