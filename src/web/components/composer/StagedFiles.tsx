import { unstage, type Staged } from '../../stores/uploads.js';
import { humanBytes } from '../../render/bytes.js';

/** The files going with the next message: each with its upload's progress or the daemon's refusal, removable. */
export function StagedFiles({ files }: { files: readonly Staged[] }) {
  if (!files.length) return null;
  return (
    <ul class="staged" aria-label="Attachments">
      {files.map((f) => {
        const pct = Math.round(f.progress * 100);
        const state = f.error ? 'error' : f.id ? 'uploaded' : f.uploading ? 'uploading' : 'waiting';
        return (
          <li key={f.key} class={`staged-file staged-${state}`} data-staged={f.file.name} data-state={state}>
            <div class="staged-line">
              <span class="staged-name">{f.file.name}</span>
              <span class="muted">
                {state === 'uploading'
                  ? `${pct} %`
                  : state === 'uploaded'
                    ? `${humanBytes(f.file.size)} ✓`
                    : humanBytes(f.file.size)}
              </span>
              <button
                type="button"
                class="staged-remove"
                aria-label={`Remove ${f.file.name}`}
                onClick={() => unstage(f.key)}
              >
                ×
              </button>
            </div>
            {f.error ? (
              <p class="staged-error" role="alert">
                {f.error}
              </p>
            ) : (
              <progress
                max={100}
                value={pct}
                aria-label={`Uploading ${f.file.name}`}
                data-progress={pct}
                class={state === 'waiting' ? 'waiting' : ''}
              />
            )}
            {state === 'waiting' && <span class="muted staged-note">Uploads when back online</span>}
          </li>
        );
      })}
    </ul>
  );
}
