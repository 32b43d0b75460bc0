/** RFC 3339 in the daemon's local offset, as the spec's examples show ("2026-07-31T18:40:06-04:00"). */
export function rfc3339(ms: number): string {
  const d = new Date(ms);
  const offsetMin = -d.getTimezoneOffset();
  const sign = offsetMin >= 0 ? '+' : '-';
  const abs = Math.abs(offsetMin);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}` +
    `T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/**
 * Whether an RFC 3339 time (already format-checked by the caller) names a moment that exists. Date.parse alone is not
 * enough: it rolls 2026-02-30 over into March and 24:00 into the next day.
 */
export function isRealTime(s: string): boolean {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d))?/.exec(s);
  if (!m || Number.isNaN(Date.parse(s))) return false;
  const [y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0] = m.slice(1).map((v) => Number(v ?? 0));
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth && h <= 23 && mi <= 59 && sec <= 59;
}
