import { agents } from '../../stores/fleet.js';
import { dismissMove, moves, underWay } from '../../stores/moves.js';
import { MoveProgress, useArrival } from './MoveProgress.js';

/** Under a thread's header while its agent is being moved or copied, so closing the sheet loses nothing. */
export function MoveBanner({ agent }: { agent: string }) {
  const op = moves.value.get(agent);
  useArrival(op);
  // A finished move leaves a dormant record, whose thread says where the agent went in the composer's place.
  if (!op || (op.kind === 'move' && op.step === 'done' && agents.value.get(agent)?.moved_to)) return null;
  return (
    <div class="move-banner" data-move-banner={agent}>
      <MoveProgress op={op} />
      {!underWay(op) && (
        <button type="button" class="move-dismiss" aria-label="Hide" onClick={() => dismissMove(agent)}>
          ×
        </button>
      )}
    </div>
  );
}
