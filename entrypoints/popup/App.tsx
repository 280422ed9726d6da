import { useState } from 'preact/hooks';
import { EngineStatus } from '../../components/ui/EngineStatus';
import { PermissionNotice } from '../../components/ui/PermissionNotice';
import { useAppStatus, usePermission, useSettings } from '../../components/ui/runtime';

export function PopupApp() {
  const [settings, update, error] = useSettings();
  const status = useAppStatus(false);
  const mic = usePermission('microphone');
  const camera = usePermission('camera');
  const [openError, setOpenError] = useState<string | null>(null);
  // The microphone and the camera turn on only while a side panel is open (core/lifecycle/listening-lease.ts); with
  // none, a switch that is off cannot be turned on here (switching off always works).
  const panelOpen = status?.panelOpen === true;
  const handsFree = settings?.handsFree ?? false;
  const vision = settings?.visionEnabled ?? false;

  // The popup click is the user gesture that chrome.sidePanel.open requires; the service worker cannot do this.
  const openPanel = async () => {
    try {
      const win = await chrome.windows.getCurrent();
      if (win.id === undefined) throw new Error('No browser window to open the panel in.');
      await chrome.sidePanel.open({ windowId: win.id });
      window.close();
    } catch (e) {
      setOpenError((e as Error).message);
    }
  };

  return (
    <main class="popup">
      <header>
        <h1>Sidetalk</h1>
        <EngineStatus status={status} />
      </header>
      <button type="button" class="button primary wide" onClick={() => void openPanel()} data-testid="open-panel">
        Open side panel
      </button>
      {openError && <p role="alert">{openError}</p>}
      <label class="switch">
        <span>
          Hands-free listening
          <small class="muted"> · Alt+Shift+L</small>
        </span>
        <input
          type="checkbox"
          role="switch"
          checked={handsFree}
          disabled={!settings || (!handsFree && !panelOpen)}
          onChange={(e) => void update({ handsFree: (e.target as HTMLInputElement).checked })}
          data-testid="handsfree-toggle"
        />
      </label>
      <label class="switch">
        <span>
          Webcam vision
          <small class="muted"> · camera light shows when on</small>
        </span>
        <input
          type="checkbox"
          role="switch"
          checked={vision}
          disabled={!settings || (!vision && !panelOpen)}
          onChange={(e) => void update({ visionEnabled: (e.target as HTMLInputElement).checked })}
          data-testid="vision-toggle"
        />
      </label>
      {settings && !panelOpen && (
        <p class="muted small" data-testid="needs-panel">
          Listening and the camera work only while the side panel is open.
        </p>
      )}
      {error && <p role="alert">Could not save: {error}</p>}
      <PermissionNotice device="microphone" state={mic} />
      {settings?.visionEnabled && <PermissionNotice device="camera" state={camera} />}
      <p class="muted small" data-testid="permission-summary">
        Microphone: {mic} · Camera: {camera}
      </p>
    </main>
  );
}
