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
          checked={settings?.handsFree ?? false}
          disabled={!settings}
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
          checked={settings?.visionEnabled ?? false}
          disabled={!settings}
          onChange={(e) => void update({ visionEnabled: (e.target as HTMLInputElement).checked })}
          data-testid="vision-toggle"
        />
      </label>
      {error && <p role="alert">Could not save: {error}</p>}
      <PermissionNotice device="microphone" state={mic} />
      {settings?.visionEnabled && <PermissionNotice device="camera" state={camera} />}
      <p class="muted small" data-testid="permission-summary">
        Microphone: {mic} · Camera: {camera}
      </p>
    </main>
  );
}
