import { useEffect, useState } from 'preact/hooks';
import type { AttachmentRef } from '../../../wire/message.js';
import { api } from '../../stores/auth.js';
import { humanBytes } from '../../render/bytes.js';

/** Images drawn inline: raster formats only (an SVG is a document that can carry script and links). */
const RASTER = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);

/**
 * An attachment. The bytes come through the authenticated client as a blob URL (an <img src> cannot send the bearer
 * header); raster images show inline, other files download on a tap, typed as bytes so the browser never renders
 * them (an agent's HTML or SVG opened from a blob URL would run in the app's origin); a pruned one says so.
 */
export function AttachmentView({ agent, a }: { agent: string; a: AttachmentRef }) {
  const image = RASTER.has(a.mime);
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!image || !a.available) return;
    let made: string | null = null;
    let live = true;
    api
      .attachment(agent, a.id)
      .then((blob) => {
        if (!live) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      })
      .catch(() => undefined);
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [agent, a.id, a.available, image]);

  if (!a.available)
    return (
      <div class="att att-pruned" data-attachment={a.id}>
        {a.filename} · pruned
      </div>
    );
  if (image)
    return url ? (
      <img class="att-img" src={url} alt={a.filename} data-attachment={a.id} />
    ) : (
      <div class="att att-loading" data-attachment={a.id}>
        {a.filename}
      </div>
    );
  const download = async () => {
    const blob = await api.attachment(agent, a.id);
    const href = URL.createObjectURL(new Blob([blob], { type: 'application/octet-stream' }));
    const link = document.createElement('a');
    link.href = href;
    link.download = a.filename;
    link.click();
    setTimeout(() => URL.revokeObjectURL(href), 10_000);
  };
  return (
    <button type="button" class="att att-file" data-attachment={a.id} onClick={() => void download()}>
      ⬇ {a.filename} <span class="muted">{humanBytes(a.bytes)}</span>
    </button>
  );
}
