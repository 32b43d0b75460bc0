import type { HookBody, HookEvent } from './hook-routes.js';

/**
 * What a hook handler answers: `output` is printed by `leo hook` for the harness to read (a PermissionRequest
 * decision); absent means print nothing, which every hook event reads as "no opinion".
 */
export interface HookAnswer {
  output?: string;
}

/** `gone` aborts when the hook process hangs up before it has its answer (the harness ended it). */
export type HookHandler = (body: HookBody, gone: AbortSignal) => Promise<HookAnswer> | HookAnswer;

/**
 * The harness hooks' fan-out: each domain subscribes to the events it cares about when it is built (the agents
 * domain to SessionStart, chat to all four, tasks to Stop), so no domain reaches into another's handler table.
 * Handlers run in the order they subscribed (`first` ones ahead); the first that has an output gives the hook its answer.
 */
export class HookRouter {
  private readonly handlers = new Map<HookEvent, HookHandler[]>();

  /**
   * `currentName` maps the agent a hook names (its LEO_AGENT) to the agent it is now: a live rename leaves the
   * harness running under its old name.
   */
  constructor(private readonly deps: { currentName(agent: string): string }) {}

  /**
   * `first`: ahead of the handlers already there. For what a person waits on: the Stop's reply capture starts its
   * pool task before the turn's bookkeeping (usage, change summaries) takes the pool's threads.
   */
  on(event: HookEvent, handler: HookHandler, opts: { first?: boolean } = {}): void {
    const others = this.handlers.get(event) ?? [];
    this.handlers.set(event, opts.first ? [handler, ...others] : [...others, handler]);
  }

  async dispatch(event: HookEvent, input: HookBody, gone: AbortSignal): Promise<HookAnswer> {
    const body = { ...input, agent: this.deps.currentName(input.agent) };
    let answer: HookAnswer = {};
    for (const handler of this.handlers.get(event) ?? []) {
      const a = await handler(body, gone);
      if (answer.output === undefined && a.output !== undefined) answer = a;
    }
    return answer;
  }
}
