import { resolvePaths } from '../core/home.js';
import { daemonRequest } from './daemon-http.js';

const MAX_INPUT = 8 * 1024 * 1024;
/** Quick hooks must never hold the agent up; only the permission hook waits for a person. */
const QUICK_TIMEOUT_MS = 10_000;

/**
 * `leo hook <event>`: run by the harness (Claude Code) with the hook's JSON on stdin. Hands it to the daemon over
 * the socket and prints only what the daemon says to print. It always exits 0 and prints nothing on any failure:
 * a broken or absent daemon must never break the agent's turn or deny a tool.
 */
export async function runHookCommand(event: string): Promise<void> {
  try {
    const input = await readStdin();
    const payload = input.trim() ? JSON.parse(input) : {};
    const agent = process.env.LEO_AGENT;
    if (!agent) return;
    const answer = await daemonRequest(
      { socketPath: process.env.LEO_SOCKET || resolvePaths().socketFile, path: `/hooks/${encodeURIComponent(event)}` },
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent, payload }),
        // The permission hook is held until a person answers in chat or the prompt's deadline passes.
        ...(event === 'permission-request' ? {} : { timeoutMs: QUICK_TIMEOUT_MS }),
      },
    );
    const output = (JSON.parse(answer.text) as { ok: boolean; data?: { output?: unknown } }).data?.output;
    if (typeof output === 'string' && output) process.stdout.write(output);
  } catch {
    // Nothing printed: the harness carries on as if no hook were installed.
  }
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    process.stdin.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_INPUT) reject(new Error('hook input too large'));
      else chunks.push(c);
    });
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}
