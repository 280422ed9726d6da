/**
 * The camera picture-in-picture corner of the side panel: the latest analysed frame (a JPEG from the offscreen
 * document), the detection boxes with labels over it, a state line, and a close button that turns vision off.
 * Accessible: the image's alt text lists the detections; the state line is a polite live region.
 */
import type { PreviewObject } from '../../core/vision/preview-channel';
import { boxStyle, previewAltText, STATE_TEXT } from './preview-labels';

export type CameraPipState = 'off' | 'starting' | 'on' | 'paused' | 'error';

export interface CameraPipFrame {
  /** An object URL of the JPEG (useVisionPreview creates and revokes them). */
  url: string;
  width: number;
  height: number;
  objects: PreviewObject[];
}

export interface CameraPipProps {
  state: CameraPipState;
  frame: CameraPipFrame | null;
  /** Detail for the error state (e.g. "The camera was disconnected."). */
  message?: string;
  /** Show as a selfie view (default true). */
  mirrored?: boolean;
  /** Turns vision off (the side panel maps it to settings/set { visionEnabled: false }). */
  onClose(): void;
}

export function CameraPip({ state, frame, message, mirrored = true, onClose }: CameraPipProps) {
  if (state === 'off') return null;
  const status = state === 'error' && message ? `${STATE_TEXT.error}: ${message}` : STATE_TEXT[state];
  return (
    <section class="camera-pip" aria-label="Camera" data-testid="camera-pip" data-state={state}>
      <div class="camera-pip-view" style={frame ? { aspectRatio: `${frame.width} / ${frame.height}` } : undefined}>
        {frame ? (
          <>
            <img
              src={frame.url}
              alt={previewAltText(frame.objects)}
              style={mirrored ? { transform: 'scaleX(-1)' } : undefined}
              data-testid="camera-pip-image"
            />
            {frame.objects.map((o, i) => (
              <div
                key={`${o.label}-${i}`}
                class={`camera-pip-box${o.label === 'person' ? ' is-person' : ''}`}
                style={boxStyle(o.box, mirrored)}
                aria-hidden="true"
              >
                <span class="camera-pip-label">{o.label}</span>
              </div>
            ))}
          </>
        ) : (
          <div class="camera-pip-placeholder" aria-hidden="true" />
        )}
      </div>
      <p class="camera-pip-status" role="status" aria-live="polite" data-testid="camera-pip-status">
        {status}
      </p>
      <button
        type="button"
        class="camera-pip-close"
        aria-label="Turn off the camera"
        title="Turn off the camera"
        onClick={onClose}
      >
        ×
      </button>
    </section>
  );
}
