import { render } from 'preact';
import '../../components/ui/theme.css';
import './sidepanel.css';
import { SidePanelApp } from './App';
import { startTunablesSync } from '../../components/ui/tunables-sync';

// A held port tells the background a panel is open (it keeps the engine alive while one is). Chrome stops an idle
// service worker and the port with it; the next worker must know too (it re-creates a dead engine only for an open
// panel, and checks its health only then), so the panel connects again.
function connect(): void {
  chrome.runtime.connect({ name: 'sidepanel' }).onDisconnect.addListener(() => setTimeout(connect, 250));
}
connect();
startTunablesSync();
render(<SidePanelApp />, document.getElementById('app')!);
