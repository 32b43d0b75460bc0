/** Times as a person reads them in the daemon's own zone (reminders running late, notes about a restart). */

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/**
 * Locales whose short zone names are the abbreviations people use there (EDT, BST, CEST, IST, AEDT, SGT, SAST, JST).
 * ICU gives each zone's abbreviation only in its own region's locale and `GMT-4` elsewhere, so the first locale
 * that knows one wins; a zone none of them names (Asia/Shanghai) keeps ICU's `GMT+8`.
 */
const ZONE_LOCALES = [
  'en-US',
  'en-CA',
  'en-GB',
  'en-IE',
  'en-AU',
  'en-NZ',
  'en-IN',
  'en-SG',
  'en-HK',
  'en-ZA',
  'ja-JP',
];

/** The daemon's time zone: TZ, else the system's. */
export function localTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Pure: the zone's abbreviation at that moment (EDT in summer, EST in winter), or ICU's `GMT+8` when none is known. */
export function zoneAbbreviation(ms: number, timeZone: string): string {
  let fallback = '';
  for (const locale of ZONE_LOCALES) {
    const name =
      new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: 'short' })
        .formatToParts(ms)
        .find((p) => p.type === 'timeZoneName')?.value ?? '';
    if (/^[A-Z]{2,5}$/.test(name)) return name;
    fallback ||= name;
  }
  return fallback;
}

/** Pure: "Tue 14 Oct 2026 09:00 EDT" in the given zone (the daemon's own by default), English names whatever the locale. */
export function formatLocal(ms: number, timeZone = localTimeZone()): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(ms)
      .map((p) => [p.type, p.value]),
  );
  const [y, m, d] = [Number(parts.year), Number(parts.month), Number(parts.day)];
  const weekday = WEEKDAYS[new Date(Date.UTC(y, m - 1, d)).getUTCDay()];
  return `${weekday} ${d} ${MONTHS[m - 1]} ${y} ${parts.hour}:${parts.minute} ${zoneAbbreviation(ms, timeZone)}`;
}
