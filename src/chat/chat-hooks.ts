import type { HookRouter } from '../agents/hook-router.js';
import type { HookBody } from '../agents/hook-routes.js';
import type { EventBus } from '../events/bus.js';
import type { PermissionPrompts } from './permissions/permission-prompts.js';
import type { ReplyWatch } from './replies/reply-watch.js';

export interface ChatHooksDeps {
  hooks: HookRouter;
  bus: EventBus;
  replies: ReplyWatch;
  prompts: PermissionPrompts;
  /** The fleet's failed-turn state: the agent's next prompt clears it. */
  turnErrors: { clear(agent: string): void };
  agentExists(agent: string): boolean;
  /** chat.enabled, read at each hook. */
  enabled(): boolean;
}

/**
 * What Leo Chat does on each harness hook: SessionStart names the transcript, a prompt closes the dialogs it
 * answered, a turn's end posts its reply, and a permission request becomes a card in the thread. A screen gone idle
 * (the sweep's agent_activity) may be a turn that ended without a Stop hook.
 */
export function followChatHooks(d: ChatHooksDeps): void {
  d.bus.subscribe({
    deliver: (event) => {
      if (!d.enabled() || event.type !== 'agent_activity') return;
      // A screen gone still may be a turn that ended without a Stop hook (reply-watch.ts, wentIdle).
      const data = event.data as { agent?: unknown; activity?: unknown };
      if (data.activity === 'idle' && typeof data.agent === 'string') d.replies.wentIdle(data.agent);
    },
  });
  d.hooks.on('session-start', ({ agent, payload }) => {
    d.replies.sessionStarted(agent, payload);
    return {};
  });
  d.hooks.on('user-prompt-submit', ({ agent }) => {
    d.prompts.dialogsClosed(agent);
    d.turnErrors.clear(agent);
    return {};
  });
  // A turn's end, or (Claude's StopFailure) a failed turn's: the reply watch posts its reply, or notes the failure once.
  const turnEnded = ({ agent, payload }: HookBody) => {
    d.prompts.dialogsClosed(agent);
    // With Leo Chat off no reply is posted (the turn's end still ends a persistent task's run: tasks follow Stop too).
    if (d.enabled()) void d.replies.onStop(agent, payload);
    return {};
  };
  // The reply is what the owner waits for: its capture goes to the pool before the turn's bookkeeping.
  d.hooks.on('stop', turnEnded, { first: true });
  d.hooks.on('stop-failure', turnEnded, { first: true });
  // With Leo Chat off the hook gives no decision: Claude's own dialog in the terminal asks, as without Leo.
  d.hooks.on('permission-request', ({ agent, payload }, gone) =>
    d.agentExists(agent) && d.enabled() ? d.prompts.request(agent, payload, gone) : {},
  );
}
