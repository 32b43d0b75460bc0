const UNITS = ['KB', 'MB', 'GB', 'TB'];

/** `bytes` in the largest binary unit (KB and up) that keeps the value at or above 1; null below 1 KB. */
function scaled(bytes: number): { value: number; unit: string } | null {
  if (bytes < 1024) return null;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return { value, unit: UNITS[unit]! };
}

/** `544 B`, `1.0 KB`, `3.4 MB`: a mention's header and a folder mention's entries. */
export function formatSize(bytes: number): string {
  const s = scaled(bytes);
  return s ? `${s.value.toFixed(1)} ${s.unit}` : `${bytes} B`;
}

/** `544B`, `1.2KB`, `3MB`, as the spec's listing (the list_dir and read_file tools) shows sizes. */
export function formatSizeCompact(bytes: number): string {
  const s = scaled(bytes);
  return s ? `${Number(s.value.toFixed(1))}${s.unit}` : `${bytes}B`;
}
