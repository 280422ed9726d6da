import type { StatusLine as Line } from '../../core/ux/status-line';

interface Props {
  line: Line;
  /** The avatar is drawn and attached (tests wait for it). */
  ready: boolean;
  /** False while the welcome shows: the welcome is the action then. */
  showAction: boolean;
  onAction(id: NonNullable<Line['action']>['id']): void;
}

/** Under the avatar: what the assistant does, or what is missing and the button that fixes it (core/ux/status-line.ts). */
export function StatusLine({ line, ready, showAction, onAction }: Props) {
  return (
    <div class={`state-row tone-${line.tone}`}>
      <p class="state-line" role="status" data-testid="engine-state" data-ready={ready ? 'yes' : 'no'} data-tone={line.tone}>
        {line.text}
      </p>
      {showAction && line.action && (
        <button
          type="button"
          class="button small"
          onClick={() => onAction(line.action!.id)}
          data-testid="status-action"
          data-action={line.action.id}
        >
          {line.action.label}
        </button>
      )}
    </div>
  );
}
