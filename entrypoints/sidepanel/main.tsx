import { render } from 'preact';
import '../../components/ui/theme.css';
import './sidepanel.css';
import { SidePanelApp } from './App';
import { startTunablesSync } from '../../components/ui/tunables-sync';

// A held port tells the background a panel is open (it keeps the engine alive while one is).
chrome.runtime.connect({ name: 'sidepanel' });
startTunablesSync();
render(<SidePanelApp />, document.getElementById('app')!);
