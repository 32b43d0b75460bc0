import type { ToolCaller } from './tool-caller.js';

/**
 * The tools/call requests the MCP endpoint holds open (a blocked leo_chat_ask), by caller and JSON-RPC id. The
 * endpoint is stateless — one MCP server per HTTP request — so a client's `notifications/cancelled` arrives on an HTTP
 * request of its own and never reaches the server holding the call; this is how it finds that call. An SDK client
 * that gives up on a call (its timeout, the user interrupting the turn) sends exactly that and keeps the request open.
 */
export class HeldCalls {
  private readonly calls = new Map<string, () => void>();

  /** Holds the tools/call requests in `body` until the returned release is called; `cancel` ends one early. */
  hold(caller: ToolCaller, body: unknown, cancel: () => void): () => void {
    const keys = messages(body).flatMap((m) => (m.method === 'tools/call' && isId(m.id) ? [key(caller, m.id)] : []));
    for (const k of keys) this.calls.set(k, cancel);
    return () => {
      for (const k of keys) if (this.calls.get(k) === cancel) this.calls.delete(k);
    };
  }

  /** Cancels each held call a `notifications/cancelled` in `body` names; the rest of the body is not looked at. */
  cancelNamed(caller: ToolCaller, body: unknown): void {
    for (const m of messages(body)) {
      const id = (m.params as { requestId?: unknown } | undefined)?.requestId;
      if (m.method === 'notifications/cancelled' && isId(id)) this.calls.get(key(caller, id))?.();
    }
  }
}

interface JsonRpcMessage {
  method?: unknown;
  id?: unknown;
  params?: unknown;
}

function messages(body: unknown): JsonRpcMessage[] {
  const list = Array.isArray(body) ? body : [body];
  return list.filter((m): m is JsonRpcMessage => typeof m === 'object' && m !== null);
}

function isId(id: unknown): id is string | number {
  return typeof id === 'string' || typeof id === 'number';
}

// A headless run calls under its owner's name, so the run id keeps its ids apart from the owner agent's own.
function key(caller: ToolCaller, id: string | number): string {
  return JSON.stringify([caller.agent, caller.runId ?? '', id]);
}
