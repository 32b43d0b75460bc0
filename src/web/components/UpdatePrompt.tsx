import { reloadToUpdate, waitingWorker } from '../stores/shell-update.js';

/** A new build is installed: the owner reloads when it suits them (a half-typed message is never swapped away). */
export function UpdatePrompt() {
  if (!waitingWorker.value) return null;
  return (
    <div class="update-prompt" role="status" data-update-prompt>
      <span>New version</span>
      <button type="button" onClick={reloadToUpdate}>
        Reload
      </button>
    </div>
  );
}
