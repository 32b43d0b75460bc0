/**
 * Summarises a V8 .cpuprofile (what `node --cpu-prof` writes) as text: where the non-idle time went by module, the
 * functions with the most self time, and the inclusive time of the frames on Leo's fan-out path. Used by fanout.ts
 * for `--cpu-prof`; also runnable on any profile:
 *
 *   node dist/benchmarks/fanout/cpu-profile.js <file.cpuprofile> [--top 25]
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Where a frame's code lives: a Leo source file, a package, a Node module, or one of V8's pseudo-frames. */
function moduleOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const file = url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (pkg) return pkg[1]!;
  if (file.startsWith('node:')) return file;
  return path.relative(ROOT, file);
}

function frameKey(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  const mod = moduleOf(url, functionName);
  if (url) return `${functionName || '(anonymous)'}  ${mod}:${lineNumber + 1}`;
  // C++ bindings (writev, writeUtf8String…) have no url: their name is all there is to tell them apart.
  return mod === '(native)' && functionName ? `${functionName}  (native)` : mod;
}

const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1).padStart(5)}%`;

/** Lines of text; `focus` picks the frames whose inclusive time is listed (by default Leo's events code). */
export function summarizeProfile(file: string, opts: { top?: number; focus?: RegExp } = {}): string[] {
  const top = opts.top ?? 25;
  const focus = opts.focus ?? /src\/(events|tasks|http)\/|_http_outgoing|_http_server|net:|writeGeneric|writev/;
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    // timeDeltas[i] is the gap before sample i; the sample that follows it closes the interval.
    const us = p.timeDeltas[i + 1] ?? 0;
    self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + us);
    total += us;
  }
  const idle = [...self].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)');
  const idleUs = idle.reduce((s, [, us]) => s + us, 0);
  const busy = total - idleUs;

  const selfByKey = new Map<string, number>();
  const selfByModule = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    if (n.callFrame.functionName === '(idle)') continue;
    const key = frameKey(n);
    selfByKey.set(key, (selfByKey.get(key) ?? 0) + us);
    const mod = moduleOf(n.callFrame.url, n.callFrame.functionName);
    selfByModule.set(mod, (selfByModule.get(mod) ?? 0) + us);
    // Each frame on the stack gets the sample once, however often it recurs.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const k = frameKey(byId.get(at)!);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + us);
    }
  }
  const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
  const lines = [
    `profile ${path.basename(file)}: ${ms(total).trim()} sampled, ${ms(busy).trim()} busy (${pct(busy, total).trim()})`,
    '',
    'self time by module (share of busy time):',
  ];
  for (const [mod, us] of [...selfByModule].sort((a, b) => b[1] - a[1]).slice(0, 15))
    lines.push(`  ${pct(us, busy)} ${ms(us)}  ${mod}`);
  lines.push('', `top ${top} functions by self time:`);
  for (const [key, us] of [...selfByKey].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`  ${pct(us, busy)} ${ms(us)}  ${key}`);
  lines.push('', 'inclusive time of the fan-out path (a frame and everything it called):');
  for (const [key, us] of [...inclusive]
    .filter(([k]) => focus.test(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top))
    lines.push(`  ${pct(us, busy)} ${ms(us)}  ${key}`);
  return lines;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node dist/benchmarks/fanout/cpu-profile.js <file.cpuprofile> [--top 25]');
    process.exit(2);
  }
  const i = process.argv.indexOf('--top');
  const top = i > 0 ? Number(process.argv[i + 1]) : 25;
  for (const line of summarizeProfile(file, { top })) console.log(line);
}
