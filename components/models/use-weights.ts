import { useEffect, useState } from 'preact/hooks';
import { createEventReceiver } from '../../core/protocol';
import type { DownloadProgress, WeightsSnapshot } from '../../core/weights';
import { request, fromBroadcasters } from '../ui/runtime';

/**
 * Live weights state: the snapshot the background persisted, then the offscreen document's snapshot and progress
 * events. Shared by Settings → Models, the welcome and the status line.
 */
export function useWeights(): [WeightsSnapshot | null, DownloadProgress | null] {
  const [snapshot, setSnapshot] = useState<WeightsSnapshot | null>(null);
  const [progress, setProgress] = useState<DownloadProgress | null>(null);
  useEffect(() => {
    request('weights/state', {}).then(setSnapshot, () => undefined);
    const receive = createEventReceiver(
      (event) => {
        if (event.type === 'event/weights-snapshot') {
          setSnapshot(event.payload.snapshot);
          if (!event.payload.snapshot.active) setProgress(null);
        } else if (event.type === 'event/weights-progress') setProgress(event.payload.progress);
      },
      () => undefined,
    );
    const heard = fromBroadcasters(receive);
    chrome.runtime.onMessage.addListener(heard);
    return () => chrome.runtime.onMessage.removeListener(heard);
  }, []);
  return [snapshot, progress];
}
