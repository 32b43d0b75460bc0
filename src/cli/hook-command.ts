import http from 'node:http';
import { resolvePaths } from '../core/home.js';

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
    const answer = await post(
      process.env.LEO_SOCKET || resolvePaths().socketFile,
      `/hooks/${encodeURIComponent(event)}`,
      JSON.stringify({ agent, payload }),
      event === 'permission-request' ? 0 : QUICK_TIMEOUT_MS,
    );
    const output = (JSON.parse(answer) as { ok: boolean; data?: { output?: unknown } }).data?.output;
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

function post(socketPath: string, path: string, body: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        socketPath,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        ...(timeoutMs ? { timeout: timeoutMs } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(text));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}
