import { useState } from 'preact/hooks';
import { usePermission } from '../../components/ui/runtime';
import { describeMediaError } from '../../models/audio/mic-capture';

/**
 * The one place Sidetalk can ask for the microphone or camera: permission prompts cannot appear in the side panel,
 * popup or offscreen document. The grant belongs to the extension origin, so one click here covers them all.
 */
export function PermissionsApp() {
  const mic = usePermission('microphone');
  const camera = usePermission('camera');
  const [message, setMessage] = useState<string | null>(null);

  const grant = async (kind: 'microphone' | 'camera') => {
    try {
      const stream = await navigator.mediaDevices.getUserMedia(kind === 'microphone' ? { audio: true } : { video: true });
      stream.getTracks().forEach((t) => t.stop()); // only the grant is wanted; capture happens in the engine
      setMessage(`${kind === 'microphone' ? 'Microphone' : 'Camera'} access granted. You can close this tab.`);
    } catch (e) {
      setMessage(describeMediaError(e));
    }
  };

  return (
    <main style={{ maxWidth: '520px', margin: '48px auto', padding: '0 16px', display: 'grid', gap: '16px' }}>
      <h1>Let Sidetalk hear (and see) you</h1>
      <p>
        Sidetalk listens through your microphone to understand what you say. The camera is used only while you turn on webcam
        vision in the popup, and both start only when you switch them on in the side panel or the popup. Audio and video are
        processed on this computer and never sent anywhere (if you set up your own model server, the words you say are sent to
        it).
      </p>
      <div style={{ display: 'flex', gap: '12px', flexWrap: 'wrap' }}>
        <button type="button" class="button primary" onClick={() => void grant('microphone')} data-testid="grant-mic">
          {mic === 'granted' ? 'Microphone allowed ✓' : 'Allow microphone'}
        </button>
        <button type="button" class="button" onClick={() => void grant('camera')} data-testid="grant-camera">
          {camera === 'granted' ? 'Camera allowed ✓' : 'Allow camera (for vision)'}
        </button>
      </div>
      {message && <p role="status">{message}</p>}
      {(mic === 'denied' || camera === 'denied') && (
        <p class="notice">
          A permission is blocked. Open Chrome's settings for this extension (chrome://settings/content/siteDetails?site=
          {encodeURIComponent(location.origin)}) and allow it, then come back.
        </p>
      )}
    </main>
  );
}
