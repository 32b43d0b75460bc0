// Claude Code: everything Leo knows about it, as its row of the harness table.
import type { HarnessAdapter } from '../adapter.js';
import { ClaudeCliEngine } from './chat-engine.js';
import { claudeChrome } from './chrome.js';
import { claudeConversation } from './conversation.js';
import { conversationExists } from './conversations.js';
import { CLAUDE_DECISIONS } from '../hook-decisions.js';
import { claudeHeadless } from './headless.js';
import { locateClaudeHome } from './home.js';
import { claudeLogin } from './login.js';
import { planClaude } from './plan.js';
import { readClaudeScreen } from './screen.js';
import { trustWorkspace } from './trust.js';

export const claude = {
  plan: planClaude,
  headless: claudeHeadless,
  program: { bin: 'claude', install: 'npm install -g @anthropic-ai/claude-code' },
  login: claudeLogin,
  beforeLaunch: (home, workspace) =>
    void trustWorkspace(locateClaudeHome(home.env, home.baseEnv).configFile, workspace),
  canResume: (home, id) => conversationExists(locateClaudeHome(home.env, home.baseEnv).projectsDir, id),
  conversation: claudeConversation,
  screen: readClaudeScreen,
  interruptKey: 'Escape',
  chrome: claudeChrome,
  transcriptFormat: 'claude',
  usage: { turnField: 'prompt_id' },
  decisions: CLAUDE_DECISIONS,
  reportsTurnEnd: true,
  repliesCaptured: true,
  defaultChatEngine: 'claude-cli',
  chatEngine: () => new ClaudeCliEngine(),
} satisfies HarnessAdapter;
