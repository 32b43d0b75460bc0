import type { CheckResult } from '../wire/check-result.js';

/** One line per check (`ok`, `missing`, `wrong`), its fix underneath, and a closing verdict. */
export function formatReport(results: CheckResult[]): { text: string; exitCode: 0 | 1 } {
  const width = Math.max(...results.map((r) => r.name.length));
  const lines: string[] = [];
  for (const r of results) {
    const [first, ...rest] = r.detail.split('\n');
    lines.push(`${r.status.padEnd(8)}${r.name.padEnd(width + 2)}${first}`);
    for (const more of rest) lines.push(`${''.padEnd(8 + width + 2)}${more}`);
    if (r.status !== 'ok' && r.fix) lines.push(`${''.padEnd(8 + width + 2)}fix: ${r.fix}`);
  }
  const failed = results.filter((r) => r.required && r.status !== 'ok');
  const optional = results.filter((r) => !r.required && r.status !== 'ok');
  lines.push('');
  if (failed.length)
    lines.push(
      `leo doctor: ${failed.length} required part(s) missing or wrong: ${failed.map((r) => r.name).join(', ')}`,
    );
  else if (optional.length)
    lines.push(`leo doctor: ready; optional parts not available: ${optional.map((r) => r.name).join(', ')}`);
  else lines.push('leo doctor: everything is in place');
  return { text: lines.join('\n'), exitCode: failed.length ? 1 : 0 };
}
